{{/* The ClusterIP Service in front of the pods' http port (API, /health and /metrics). */}}
{{- define "oasis-common.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "oasis-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
  {{- with .Values.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ .Values.service.type }}
  ports:
    - name: http
      port: {{ .Values.service.port }}
      targetPort: http
      protocol: TCP
  selector:
    {{- include "oasis-common.selectorLabels" . | nindent 4 }}
{{- end -}}
