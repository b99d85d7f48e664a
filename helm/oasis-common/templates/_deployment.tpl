{{/*
The Deployment of one Oasis 198 service.

Rolling updates never take a ready pod away before its replacement is ready (maxUnavailable 0).
A pod being replaced first leaves the Service endpoints (preStop sleep), then gets SIGTERM: the
service turns /health/ready false, unsubscribes from its NATS queue group, finishes the work in
hand, flushes its outbox and drains NATS before exiting, well within
terminationGracePeriodSeconds.
*/}}
{{- define "oasis-common.deployment" -}}
{{- if ge (int .Values.preStopSleepSeconds) (int .Values.terminationGracePeriodSeconds) -}}
{{- fail (printf "preStopSleepSeconds (%v) must be below terminationGracePeriodSeconds (%v): the pod is killed before it shuts down" .Values.preStopSleepSeconds .Values.terminationGracePeriodSeconds) -}}
{{- end -}}
{{- $fullname := include "oasis-common.fullname" . -}}
{{- $probes := .Values.probes -}}
{{- $secretFiles := include "oasis-common.secretFiles" . | fromJsonArray -}}
{{- $secretsDir := include "oasis-common.secretsDir" . -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $fullname }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
  {{- with include "oasis-common.digestSkip" (dict "digest" .Values.image.digest "value" "image.digest") }}
  annotations:
    {{- . | nindent 4 }}
  {{- end }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  revisionHistoryLimit: {{ .Values.revisionHistoryLimit }}
  minReadySeconds: {{ .Values.minReadySeconds }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: {{ .Values.rollingUpdate.maxSurge }}
      maxUnavailable: {{ .Values.rollingUpdate.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "oasis-common.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "oasis-common.labels" . | nindent 8 }}
        {{- with .Values.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include (print $.Template.BasePath "/configmap.yaml") . | sha256sum }}
        {{- if include "oasis-common.createsSecret" . }}
        checksum/secret: {{ include (print $.Template.BasePath "/secret.yaml") . | sha256sum }}
        {{- end }}
        {{- if and .Values.metrics.enabled .Values.metrics.podAnnotations }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .Values.containerPort | quote }}
        prometheus.io/path: {{ .Values.metrics.path | quote }}
        {{- end }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "oasis-common.serviceAccountName" . }}
      automountServiceAccountToken: false
      enableServiceLinks: false
      {{- with (concat (dig "imagePullSecrets" (list) .Values.global) .Values.imagePullSecrets) }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      securityContext:
        {{- toYaml .Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ .Values.terminationGracePeriodSeconds }}
      {{- if .Values.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml .Values.topologySpreadConstraints | nindent 8 }}
      {{- else if .Values.topologySpread.enabled }}
      topologySpreadConstraints:
        {{- range $key := list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
        - maxSkew: 1
          topologyKey: {{ $key }}
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "oasis-common.selectorLabels" $ | nindent 14 }}
          matchLabelKeys:
            - pod-template-hash
        {{- end }}
      {{- end }}
      {{- with .Values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .Chart.Name }}
          image: {{ include "oasis-common.image" . | quote }}
          imagePullPolicy: {{ include "oasis-common.imagePullPolicy" . }}
          {{- with .Values.args }}
          args:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          ports:
            - name: http
              containerPort: {{ .Values.containerPort }}
              protocol: TCP
          {{- if include "oasis-common.hasEnvConfig" . }}
          envFrom:
            - configMapRef:
                name: {{ $fullname }}
          {{- end }}
          {{- if or $secretFiles .Values.extraEnv }}
          env:
            {{- range $secretFiles }}
            - name: {{ .variable }}_FILE
              value: {{ printf "%s/%s" $secretsDir .variable | quote }}
            {{- end }}
            {{- with .Values.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- end }}
          startupProbe:
            httpGet:
              path: {{ $probes.startup.path }}
              port: http
            periodSeconds: {{ $probes.startup.periodSeconds }}
            timeoutSeconds: {{ $probes.startup.timeoutSeconds }}
            failureThreshold: {{ $probes.startup.failureThreshold }}
          readinessProbe:
            httpGet:
              path: {{ $probes.readiness.path }}
              port: http
            periodSeconds: {{ $probes.readiness.periodSeconds }}
            timeoutSeconds: {{ $probes.readiness.timeoutSeconds }}
            failureThreshold: {{ $probes.readiness.failureThreshold }}
            successThreshold: 1
          livenessProbe:
            httpGet:
              path: {{ $probes.liveness.path }}
              port: http
            periodSeconds: {{ $probes.liveness.periodSeconds }}
            timeoutSeconds: {{ $probes.liveness.timeoutSeconds }}
            failureThreshold: {{ $probes.liveness.failureThreshold }}
          {{- if .Values.preStopSleepSeconds }}
          {{- /* The kubelet's own sleep (Kubernetes 1.30+): the images carry no sleep binary. */}}
          lifecycle:
            preStop:
              sleep:
                seconds: {{ .Values.preStopSleepSeconds }}
          {{- end }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            {{- toYaml .Values.securityContext | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $secretFiles }}
            - name: secrets
              mountPath: {{ $secretsDir }}
              readOnly: true
            {{- end }}
            {{- range .Values.fileMounts }}
            - name: config-files
              mountPath: {{ .mountPath }}
              subPath: {{ .key }}
              readOnly: true
            {{- end }}
            {{- with .Values.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ .Values.tmpSizeLimit }}
        {{- if $secretFiles }}
        # The service's secrets, one file per variable, readable by the pod's group (fsGroup) only.
        - name: secrets
          projected:
            defaultMode: 288 # 0440
            sources:
              {{- range $secretFiles }}
              - secret:
                  name: {{ .name }}
                  items:
                    - key: {{ .key | quote }}
                      path: {{ .variable }}
              {{- end }}
        {{- end }}
        {{- if .Values.fileMounts }}
        - name: config-files
          configMap:
            name: {{ $fullname }}
        {{- end }}
        {{- with .Values.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}
