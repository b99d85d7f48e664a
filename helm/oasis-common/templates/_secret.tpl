{{/*
The Secret this chart writes when values carry the secret itself (mongodb.url, jwt.value,
nats.password or the global MongoDB settings). With existing Secrets (the production default)
nothing is written.
*/}}
{{- define "oasis-common.secret" -}}
{{- if include "oasis-common.createsSecret" . -}}
{{- $mongoUrl := include "oasis-common.mongodb.url" . -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "oasis-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
type: Opaque
data:
  {{- if and .Values.mongodb.enabled $mongoUrl }}
  MONGO_URL: {{ $mongoUrl | b64enc | quote }}
  {{- end }}
  {{- if and .Values.jwt.enabled (not .Values.jwt.existingSecret) .Values.jwt.value }}
  {{- if lt (len .Values.jwt.value) 32 }}
  {{- fail "jwt.value must be at least 32 characters long" }}
  {{- end }}
  JWT_SECRET: {{ .Values.jwt.value | b64enc | quote }}
  {{- end }}
  {{- if and (include "oasis-common.natsAuth" .) (not .Values.nats.existingSecret) .Values.nats.password }}
  NATS_PASSWORD: {{ .Values.nats.password | b64enc | quote }}
  {{- end }}
{{- end -}}
{{- end -}}
