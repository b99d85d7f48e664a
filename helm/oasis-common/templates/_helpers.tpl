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

{{/*
image.pullPolicy, else global.image.pullPolicy, else Always: a tag can be pushed again, and a node
must not run what it happened to pull before (with a digest, Always costs one manifest check).
*/}}
{{- define "oasis-common.imagePullPolicy" -}}
{{- .Values.image.pullPolicy | default (dig "image" "pullPolicy" "" .Values.global) | default "Always" -}}
{{- end -}}

{{/*
Annotations of a workload whose image is not pinned by digest: checkov's skip of its digest check
(CKV_K8S_43), with the reason. Call with (dict "digest" <digest> "value" "image.digest"); the
reason must hold no "=" (checkov splits on it).
*/}}
{{- define "oasis-common.digestSkip" -}}
{{- if not .digest -}}
checkov.io/skip1: {{ printf "CKV_K8S_43=%s is empty: the image is pinned by its tag (set %s to pin it by digest)" .value .value | quote }}
{{- end -}}
{{- end -}}

{{/*
Name of a dependency the umbrella chart can run in the cluster for trying Oasis 198 out
(<release>-nats, <release>-mongodb). Call with (dict "top" $ "name" "nats").
*/}}
{{- define "oasis-common.inClusterName" -}}
{{- printf "%s-%s" .top.Release.Name .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* NATS_STREAM_REPLICAS: global.nats.streamReplicas, else 3 with the in-cluster NATS cluster ("": the service's 1). */}}
{{- define "oasis-common.natsStreamReplicas" -}}
{{- $replicas := dig "nats" "streamReplicas" "" .Values.global -}}
{{- if $replicas -}}
{{- $replicas -}}
{{- else if dig "nats" "inCluster" false .Values.global -}}
3
{{- end -}}
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
(global.mongodb.inCluster: as the user named after the chart, with mongodb.password, which the
umbrella's MongoDB creates with access to this database only; without a password, none written),
global.mongodb.url (tpl, "{database}" replaced by mongodb.database).
*/}}
{{- define "oasis-common.mongodb.url" -}}
{{- $m := .Values.mongodb -}}
{{- if and $m.enabled (not $m.existingSecret) -}}
{{- if $m.url -}}
{{- tpl $m.url . -}}
{{- else if dig "mongodb" "inCluster" false .Values.global -}}
{{- with $m.password -}}
{{- printf "mongodb://%s:%s@%s:27017/%s?authSource=%s" $.Chart.Name . (include "oasis-common.inClusterName" (dict "top" $ "name" "mongodb")) $m.database $m.database -}}
{{- end -}}
{{- else if dig "mongodb" "url" "" .Values.global -}}
{{- tpl (dig "mongodb" "url" "" .Values.global) . | replace "{database}" $m.database -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The Secret and key MONGO_URL is read from, as JSON {"name", "key"}. */}}
{{- define "oasis-common.mongodb.secretRef" -}}
{{- if .Values.mongodb.existingSecret -}}
{{- dict "name" (tpl .Values.mongodb.existingSecret .) "key" .Values.mongodb.existingSecretKey | toJson -}}
{{- else if include "oasis-common.mongodb.url" . -}}
{{- dict "name" (include "oasis-common.fullname" .) "key" "MONGO_URL" | toJson -}}
{{- else -}}
{{- dict "name" (printf "%s-mongodb" (include "oasis-common.fullname" .)) "key" .Values.mongodb.existingSecretKey | toJson -}}
{{- end -}}
{{- end -}}

{{/* The Secret and key the token key (jwt.variable: auth's JWT_PRIVATE_KEY, the gateway's
JWT_PUBLIC_KEY) is read from (JSON): jwt.existingSecret, else <fullname>-jwt (created by you, or
written by the chart from jwt.value). */}}
{{- define "oasis-common.jwt.secretRef" -}}
{{- $name := .Values.jwt.existingSecret | default (printf "%s-jwt" (include "oasis-common.fullname" .)) -}}
{{- dict "name" (tpl $name .) "key" .Values.jwt.existingSecretKey | toJson -}}
{{- end -}}

{{/* "true" when the service sends mail (auth): SMTP_URL is read from a Secret. */}}
{{- define "oasis-common.smtp" -}}
{{- with .Values.smtp }}{{ if .enabled }}true{{ end }}{{ end -}}
{{- end -}}

{{/* The Secret and key SMTP_URL is read from (JSON): smtp.existingSecret, else <fullname>-smtp
(created by you, or written by the chart from smtp.url). */}}
{{- define "oasis-common.smtp.secretRef" -}}
{{- $name := .Values.smtp.existingSecret | default (printf "%s-smtp" (include "oasis-common.fullname" .)) -}}
{{- dict "name" (tpl $name .) "key" .Values.smtp.existingSecretKey | toJson -}}
{{- end -}}

{{/* "true" when the chart writes SMTP_URL's Secret, <fullname>-smtp, from smtp.url. */}}
{{- define "oasis-common.writesSmtpSecret" -}}
{{- if and (include "oasis-common.smtp" .) (not .Values.smtp.existingSecret) .Values.smtp.url }}true{{ end -}}
{{- end -}}

{{/* "true" when the chart writes the JWT key's Secret, <fullname>-jwt, from jwt.value. */}}
{{- define "oasis-common.writesJwtSecret" -}}
{{- if and .Values.jwt.enabled (not .Values.jwt.existingSecret) .Values.jwt.value }}true{{ end -}}
{{- end -}}

{{/*
"true" when the service connects to NATS as its own user (global.nats.auth.enabled): NATS_USER is
the chart's name, NATS_PASSWORD comes from a Secret. The NATS server grants that user what the
service does (libs/contracts/src/permissions.ts).
*/}}
{{- define "oasis-common.natsAuth" -}}
{{- if and .Values.nats.enabled (dig "nats" "auth" "enabled" true .Values.global) }}true{{ end -}}
{{- end -}}

{{/* The service's NATS user: its chart's name (gateway, auth, ...), as the NATS permissions name it. */}}
{{- define "oasis-common.natsUser" -}}
{{- .Chart.Name -}}
{{- end -}}

{{/* The Secret and key NATS_PASSWORD is read from (JSON): nats.existingSecret, the chart's
Secret when nats.password is set, else <fullname>-nats (created by you). */}}
{{- define "oasis-common.nats.secretRef" -}}
{{- if .Values.nats.existingSecret -}}
{{- dict "name" (tpl .Values.nats.existingSecret .) "key" .Values.nats.existingSecretKey | toJson -}}
{{- else if .Values.nats.password -}}
{{- dict "name" (include "oasis-common.fullname" .) "key" "NATS_PASSWORD" | toJson -}}
{{- else -}}
{{- dict "name" (printf "%s-nats" (include "oasis-common.fullname" .)) "key" .Values.nats.existingSecretKey | toJson -}}
{{- end -}}
{{- end -}}

{{/* Folder of the pods' Secret files: <NAME>_FILE variables point into it. */}}
{{- define "oasis-common.secretsDir" -}}
/run/secrets/oasis198
{{- end -}}

{{/*
The secrets the service reads, as a JSON list of {variable, name, key}: each becomes the file
<secretsDir>/<variable> (a key of a Secret, mounted read-only) and <variable>_FILE points at it
(libs/service-kit loadConfig reads <NAME>_FILE). Secrets never travel as environment variables,
which `kubectl describe`, `ps e` and crash dumps show.
*/}}
{{- define "oasis-common.secretFiles" -}}
{{- $files := list -}}
{{- $natsSecret := dig "nats" "existingSecret" "" .Values.global -}}
{{- if and .Values.nats.enabled $natsSecret -}}
{{- $files = append $files (dict "variable" "NATS_URL" "name" (tpl $natsSecret .) "key" (dig "nats" "existingSecretKey" "NATS_URL" .Values.global)) -}}
{{- end -}}
{{- $refs := list -}}
{{- if include "oasis-common.natsAuth" . -}}
{{- $refs = append $refs (list "NATS_PASSWORD" "oasis-common.nats.secretRef") -}}
{{- end -}}
{{- if .Values.mongodb.enabled -}}
{{- $refs = append $refs (list "MONGO_URL" "oasis-common.mongodb.secretRef") -}}
{{- end -}}
{{- if .Values.jwt.enabled -}}
{{- $refs = append $refs (list (required "jwt.variable is required" .Values.jwt.variable) "oasis-common.jwt.secretRef") -}}
{{- end -}}
{{- if include "oasis-common.smtp" . -}}
{{- $refs = append $refs (list "SMTP_URL" "oasis-common.smtp.secretRef") -}}
{{- end -}}
{{- range $refs -}}
{{- $ref := include (index . 1) $ | fromJson -}}
{{- $files = append $files (dict "variable" (index . 0) "name" $ref.name "key" $ref.key) -}}
{{- end -}}
{{- toJson $files -}}
{{- end -}}

{{/* "true" when the chart writes MONGO_URL into its Secret <fullname> (mongodb.url, global.mongodb). */}}
{{- define "oasis-common.writesMongoUrl" -}}
{{- if and .Values.mongodb.enabled (include "oasis-common.mongodb.url" .) }}true{{ end -}}
{{- end -}}

{{/* "true" when the chart writes NATS_PASSWORD into its Secret <fullname> (nats.password). */}}
{{- define "oasis-common.writesNatsPassword" -}}
{{- if and (include "oasis-common.natsAuth" .) (not .Values.nats.existingSecret) .Values.nats.password }}true{{ end -}}
{{- end -}}

{{/* "true" when this chart writes a Secret of its own (oasis-common.secret). */}}
{{- define "oasis-common.createsSecret" -}}
{{- if or (include "oasis-common.writesMongoUrl" .) (include "oasis-common.writesNatsPassword" .) (include "oasis-common.writesJwtSecret" .) (include "oasis-common.writesSmtpSecret" .) }}true{{ end -}}
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
