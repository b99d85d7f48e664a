{{/*
The service's environment (everything but secrets): the HTTP port the probes use, NATS_URL and
the chart's `config` map, plus the files of `configFiles` (mounted where `fileMounts` says).
Secrets in `config` are refused: they belong in a Secret.
*/}}
{{- define "oasis-common.configMap" -}}
{{- range $key := list "MONGO_URL" "JWT_SECRET" "NATS_URL" "HTTP_PORT" "PORT" -}}
{{- if hasKey $.Values.config $key -}}
{{- fail (printf "config.%s is managed by the chart: use the chart's own values for it (see values.yaml)" $key) -}}
{{- end -}}
{{- end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "oasis-common.fullname" . }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
data:
  HTTP_PORT: {{ .Values.containerPort | quote }}
  {{- if and .Values.nats.enabled (not (dig "nats" "existingSecret" "" .Values.global)) }}
  NATS_URL: {{ include "oasis-common.natsUrl" . | quote }}
  {{- end }}
  {{- range $key, $value := .Values.config }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
  {{- range $key, $value := .Values.configFiles }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
{{- end -}}
