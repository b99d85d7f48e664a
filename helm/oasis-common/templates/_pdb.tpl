{{/*
At most pdb.maxUnavailable pods of the service are evicted at a time (node drains, cluster
upgrades). maxUnavailable rather than minAvailable, so a single replica never blocks a drain.
*/}}
{{- define "oasis-common.pdb" -}}
{{- if .Values.pdb.enabled -}}
{{- $fewest := ternary .Values.autoscaling.minReplicas .Values.replicaCount .Values.autoscaling.enabled -}}
{{- if and .Values.pdb.minAvailable (not (kindIs "string" .Values.pdb.minAvailable)) (ge (int .Values.pdb.minAvailable) (int $fewest)) -}}
{{- fail (printf "pdb.minAvailable (%v) must be below the fewest replicas (%v), or no node could ever be drained" .Values.pdb.minAvailable $fewest) -}}
{{- end -}}
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
