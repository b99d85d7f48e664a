{{/*
The Secrets this chart writes when values carry the secret itself (mongodb.url, nats.password or
the global MongoDB settings: <fullname>; jwt.value, and jwt.publicKey as JWT_PUBLIC_KEY beside it:
<fullname>-jwt, the name an operator's own Secret of the key has, so whoever reads the key finds it
there either way). With existing Secrets
(the production default) nothing is written.
*/}}
{{- define "oasis-common.secret" -}}
{{- $mongo := include "oasis-common.writesMongoUrl" . -}}
{{- $nats := include "oasis-common.writesNatsPassword" . -}}
{{- if or $mongo $nats }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "oasis-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
type: Opaque
data:
  {{- if $mongo }}
  MONGO_URL: {{ include "oasis-common.mongodb.url" . | b64enc | quote }}
  {{- end }}
  {{- if $nats }}
  NATS_PASSWORD: {{ .Values.nats.password | b64enc | quote }}
  {{- end }}
{{- end }}
{{- if include "oasis-common.writesJwtSecret" . }}
{{- if not (hasPrefix "-----BEGIN " (trim .Values.jwt.value)) }}
{{- fail "jwt.value must be a PEM key" }}
{{- end }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "oasis-common.fullname" . }}-jwt
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
type: Opaque
data:
  {{ .Values.jwt.existingSecretKey }}: {{ .Values.jwt.value | b64enc | quote }}
  {{- with .Values.jwt.publicKey }}
  JWT_PUBLIC_KEY: {{ . | b64enc | quote }}
  {{- end }}
{{- end }}
{{- if include "oasis-common.writesSmtpSecret" . }}
---
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "oasis-common.fullname" . }}-smtp
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
type: Opaque
data:
  {{ .Values.smtp.existingSecretKey }}: {{ .Values.smtp.url | b64enc | quote }}
{{- end }}
{{- end -}}
