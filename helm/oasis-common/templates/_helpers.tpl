{{/*
Names and labels shared by every Oasis 198 chart (the usual Helm helper names, prefixed with the
library's name). Globals are read with `dig`, so a chart installed on its own works as well as
one installed through the oasis198 umbrella chart.
*/}}

{{/* The chart's name, or nameOverride. */}}
{{- define "oasis-common.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name of this chart's objects: <release>-<name>, or fullnameOverride. */}}
{{- define "oasis-common.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* chart-version, for the helm.sh/chart label. */}}
{{- define "oasis-common.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels that select this chart's pods. They never change across upgrades. */}}
{{- define "oasis-common.selectorLabels" -}}
app.kubernetes.io/name: {{ include "oasis-common.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "oasis-common.labels" -}}
helm.sh/chart: {{ include "oasis-common.chart" . }}
{{ include "oasis-common.selectorLabels" . }}
app.kubernetes.io/version: {{ include "oasis-common.imageTag" . | trunc 63 | trimSuffix "-" | quote }}
{{- with .Values.component }}
app.kubernetes.io/component: {{ . }}
{{- end }}
app.kubernetes.io/part-of: oasis198
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The ServiceAccount the pods run as. */}}
{{- define "oasis-common.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "oasis-common.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Image tag: image.tag, else global.image.tag, else the chart's appVersion. */}}
{{- define "oasis-common.imageTag" -}}
{{- .Values.image.tag | default (dig "image" "tag" "" .Values.global) | default .Chart.AppVersion | toString -}}
{{- end -}}

{{/* Full image reference: [registry/]repository(:tag|@digest). */}}
{{- define "oasis-common.image" -}}
{{- $registry := .Values.image.registry | default (dig "image" "registry" "" .Values.global) | trimSuffix "/" -}}
{{- $ref := .Values.image.repository -}}
{{- if $registry -}}
{{- $ref = printf "%s/%s" $registry $ref -}}
{{- end -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $ref .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $ref (include "oasis-common.imageTag" .) -}}
{{- end -}}
{{- end -}}

{{- define "oasis-common.imagePullPolicy" -}}
{{- .Values.image.pullPolicy | default (dig "image" "pullPolicy" "" .Values.global) | default "IfNotPresent" -}}
{{- end -}}

{{/*
Name of a dependency the umbrella chart can run in the cluster for trying Oasis 198 out
(<release>-nats, <release>-mongodb). Call with (dict "top" $ "name" "nats").
*/}}
{{- define "oasis-common.inClusterName" -}}
{{- printf "%s-%s" .top.Release.Name .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* NATS_URL: the in-cluster NATS when global.nats.inCluster, else global.nats.url (tpl). */}}
{{- define "oasis-common.natsUrl" -}}
{{- if dig "nats" "inCluster" false .Values.global -}}
{{- printf "nats://%s:4222" (include "oasis-common.inClusterName" (dict "top" . "name" "nats")) -}}
{{- else -}}
{{- $url := dig "nats" "url" "" .Values.global -}}
{{- if not $url -}}
{{- fail "global.nats.url is required: the URL of a NATS server with JetStream (or set global.nats.inCluster=true with the umbrella chart)" -}}
{{- end -}}
{{- tpl $url . -}}
{{- end -}}
{{- end -}}

{{/*
MONGO_URL this chart writes into its own Secret, or "" when the URL comes from an existing Secret.
Order: mongodb.existingSecret (none written), mongodb.url, the in-cluster MongoDB
(global.mongodb.inCluster), global.mongodb.url (tpl, "{database}" replaced by mongodb.database).
*/}}
{{- define "oasis-common.mongodb.url" -}}
{{- $m := .Values.mongodb -}}
{{- if and $m.enabled (not $m.existingSecret) -}}
{{- if $m.url -}}
{{- tpl $m.url . -}}
{{- else if dig "mongodb" "inCluster" false .Values.global -}}
{{- printf "mongodb://%s:27017/%s" (include "oasis-common.inClusterName" (dict "top" . "name" "mongodb")) $m.database -}}
{{- else if dig "mongodb" "url" "" .Values.global -}}
{{- tpl (dig "mongodb" "url" "" .Values.global) . | replace "{database}" $m.database -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret and key MONGO_URL is read from: (dict "name" .. "key" ..) as YAML. */}}
{{- define "oasis-common.mongodb.secretRef" -}}
{{- if .Values.mongodb.existingSecret -}}
name: {{ tpl .Values.mongodb.existingSecret . }}
key: {{ .Values.mongodb.existingSecretKey }}
{{- else if include "oasis-common.mongodb.url" . -}}
name: {{ include "oasis-common.fullname" . }}
key: MONGO_URL
{{- else -}}
name: {{ include "oasis-common.fullname" . }}-mongodb
key: {{ .Values.mongodb.existingSecretKey }}
{{- end -}}
{{- end -}}

{{/* The Secret and key JWT_SECRET is read from: jwt.existingSecret, the chart's Secret when
jwt.value is set, else <fullname>-jwt (created by you). */}}
{{- define "oasis-common.jwt.secretRef" -}}
{{- if .Values.jwt.existingSecret -}}
name: {{ tpl .Values.jwt.existingSecret . }}
key: {{ .Values.jwt.existingSecretKey }}
{{- else if .Values.jwt.value -}}
name: {{ include "oasis-common.fullname" . }}
key: JWT_SECRET
{{- else -}}
name: {{ include "oasis-common.fullname" . }}-jwt
key: {{ .Values.jwt.existingSecretKey }}
{{- end -}}
{{- end -}}

{{/* "true" when this chart writes a Secret of its own. */}}
{{- define "oasis-common.createsSecret" -}}
{{- $mongo := and .Values.mongodb.enabled (include "oasis-common.mongodb.url" .) -}}
{{- $jwt := and .Values.jwt.enabled (not .Values.jwt.existingSecret) .Values.jwt.value -}}
{{- if or $mongo $jwt }}true{{ end -}}
{{- end -}}

{{/* "true" when the container reads environment variables from the chart's ConfigMap. */}}
{{- define "oasis-common.hasEnvConfig" -}}
{{- if or .Values.nats.enabled .Values.config }}true{{ end -}}
{{- end -}}

{{/* A global.networkPolicy entry (a list of peers or ports), e.g. (list $ "nats" "to"). */}}
{{- define "oasis-common.networkPolicy.global" -}}
{{- $top := index . 0 -}}
{{- $value := dig "networkPolicy" (index . 1) (index . 2) (list) $top.Values.global -}}
{{- if $value }}{{ toYaml $value }}{{ end -}}
{{- end -}}
