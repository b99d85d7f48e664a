{{/*
The service's environment (everything but secrets): the HTTP port the probes use, NATS_URL, the
service's NATS user (global.nats.auth) and the chart's `config` map, plus the files of
`configFiles` (mounted where `fileMounts` says).
Secrets in `config` are refused: they belong in a Secret (and so are their <NAME>_FILE
variables, which the chart points at the Secret's files).
*/}}
{{- define "oasis-common.configMap" -}}
{{- range $key := list "MONGO_URL" "JWT_PRIVATE_KEY" "JWT_PUBLIC_KEY" "NATS_URL" "NATS_USER" "NATS_PASSWORD" "MONGO_URL_FILE" "JWT_PRIVATE_KEY_FILE" "JWT_PUBLIC_KEY_FILE" "NATS_URL_FILE" "NATS_PASSWORD_FILE" "HTTP_PORT" "PORT" -}}
{{- if hasKey $.Values.config $key -}}
{{- fail (printf "config.%s is managed by the chart: use the chart's own values for it (see values.yaml)" $key) -}}
{{- end -}}
{{- end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "oasis-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
data:
  HTTP_PORT: {{ .Values.containerPort | quote }}
  {{- if and .Values.nats.enabled (not (dig "nats" "existingSecret" "" .Values.global)) }}
  NATS_URL: {{ include "oasis-common.natsUrl" . | quote }}
  {{- end }}
  {{- if include "oasis-common.natsAuth" . }}
  NATS_USER: {{ include "oasis-common.natsUser" . | quote }}
  {{- end }}
  {{- with and .Values.nats.enabled (include "oasis-common.natsStreamReplicas" .) }}
  NATS_STREAM_REPLICAS: {{ . | quote }}
  {{- end }}
  {{- range $key, $value := .Values.config }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
  {{- range $key, $value := .Values.configFiles }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
{{- end -}}
