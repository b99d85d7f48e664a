{{/*
At most pdb.maxUnavailable pods of the service are evicted at a time (node drains, cluster
upgrades). maxUnavailable rather than minAvailable, so a single replica never blocks a drain.
*/}}
{{- define "oasis-common.pdb" -}}
{{- if .Values.pdb.enabled -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "oasis-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
spec:
  {{- if .Values.pdb.minAvailable }}
  minAvailable: {{ .Values.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ .Values.pdb.maxUnavailable }}
  {{- end }}
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels:
      {{- include "oasis-common.selectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}
