{{/*
Helpers of the umbrella chart's own objects (Ingress, in-cluster NATS and MongoDB). Names and
labels follow oasis-common's.
*/}}

{{/*
Name of a service chart's objects as that chart computes it (oasis-common.fullname), from the
umbrella: (dict "top" $ "chart" "gateway").
*/}}
{{- define "oasis198.serviceName" -}}
{{- $values := index .top.Values .chart | default dict -}}
{{- if $values.fullnameOverride -}}
{{- $values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .chart $values.nameOverride -}}
{{- if contains $name .top.Release.Name -}}
{{- .top.Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .top.Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Selector labels of an in-cluster dependency: (dict "top" $ "name" "nats"). */}}
{{- define "oasis198.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .top.Release.Name }}
{{- end -}}

{{/* Labels of the umbrella's objects: (dict "top" $ "name" "nats" "version" "2.14.9"). */}}
{{- define "oasis198.labels" -}}
helm.sh/chart: {{ include "oasis-common.chart" .top }}
{{ include "oasis198.selectorLabels" . }}
{{- with .version }}
app.kubernetes.io/version: {{ . | toString | trunc 63 | trimSuffix "-" | quote }}
{{- end }}
{{- with .component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
app.kubernetes.io/part-of: oasis198
app.kubernetes.io/managed-by: {{ .top.Release.Service }}
{{- end -}}

{{/* Image of an in-cluster dependency: repository@digest when image.digest is set, else :tag. */}}
{{- define "oasis198.image" -}}
{{- if .digest -}}
{{- printf "%s@%s" .repository .digest -}}
{{- else -}}
{{- printf "%s:%s" .repository (toString .tag) -}}
{{- end -}}
{{- end -}}

{{/* The restricted container securityContext of the in-cluster dependencies. */}}
{{- define "oasis198.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "oasis198.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
The NATS users of the in-cluster NATS, as a JSON list: one per enabled service when
global.nats.auth.enabled, each with the environment variable its password travels in
(NATS_PASSWORD_<USER>) and the Secret and key the service itself reads NATS_PASSWORD from (the
same rule as oasis-common.nats.secretRef, seen from the umbrella).
*/}}
{{- define "oasis198.natsUsers" -}}
{{- $users := list -}}
{{- if dig "nats" "auth" "enabled" true .Values.global -}}
{{- range $chart := list "gateway" "auth" "rewards" "rooms" "game-timer" "tournaments" -}}
{{- $values := index $.Values $chart | default dict -}}
{{- if $values.enabled -}}
{{- $nats := $values.nats | default dict -}}
{{- $fullname := include "oasis198.serviceName" (dict "top" $ "chart" $chart) -}}
{{- $secret := dict "name" (printf "%s-nats" $fullname) "key" ($nats.existingSecretKey | default "NATS_PASSWORD") -}}
{{- if $nats.existingSecret -}}
{{- $secret = dict "name" (tpl $nats.existingSecret $) "key" ($nats.existingSecretKey | default "NATS_PASSWORD") -}}
{{- else if $nats.password -}}
{{- $secret = dict "name" $fullname "key" "NATS_PASSWORD" -}}
{{- end -}}
{{- $variable := printf "NATS_PASSWORD_%s" ($chart | upper | replace "-" "_") -}}
{{- $users = append $users (dict "name" $chart "variable" $variable "secret" $secret) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toJson $users -}}
{{- end -}}

{{/*
The database users of the in-cluster MongoDB, as a JSON list: one per enabled service that owns
a database, each with the Secret and key its MONGO_URL is read from (the same rule as
oasis-common.mongodb.secretRef, seen from the umbrella).
*/}}
{{- define "oasis198.mongoUsers" -}}
{{- $users := list -}}
{{- range $chart := list "auth" "rewards" "rooms" "tournaments" -}}
{{- $values := index $.Values $chart | default dict -}}
{{- $m := $values.mongodb | default dict -}}
{{- if and $values.enabled (dig "enabled" true $m) -}}
{{- $fullname := include "oasis198.serviceName" (dict "top" $ "chart" $chart) -}}
{{- $key := $m.existingSecretKey | default "MONGO_URL" -}}
{{- $secret := dict "name" (printf "%s-mongodb" $fullname) "key" $key -}}
{{- if $m.existingSecret -}}
{{- $secret = dict "name" (tpl $m.existingSecret $) "key" $key -}}
{{- else if or $m.url $m.password -}}
{{- $secret = dict "name" $fullname "key" "MONGO_URL" -}}
{{- end -}}
{{- $users = append $users (dict "name" $chart "secret" $secret) -}}
{{- end -}}
{{- end -}}
{{- toJson $users -}}
{{- end -}}
