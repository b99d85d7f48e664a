{{/*
Deny by default, then allow only what the service needs:
  ingress  from the ingress controller (gateway, web), from web pods that proxy /api (gateway),
           from Prometheus to /metrics (services with metrics);
  egress   to DNS, to NATS (every NestJS service), to MongoDB (services that own a database),
           to the gateway (web, when it proxies /api).
Where NATS, MongoDB, DNS, the ingress controller and Prometheus live is set once in
global.networkPolicy (peers as in a NetworkPolicy rule: podSelector, namespaceSelector, ipBlock);
an empty list of egress peers allows that port to any destination (e.g. a managed database
whose addresses are not known in advance).
*/}}
{{- define "oasis-common.networkPolicy" -}}
{{- if .Values.networkPolicy.enabled -}}
{{- $np := .Values.networkPolicy -}}
{{- $apiProxy := .Values.apiProxy | default dict -}}
{{- $needsDns := or .Values.nats.enabled .Values.mongodb.enabled $apiProxy.enabled -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "oasis-common.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "oasis-common.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "oasis-common.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
    - Egress
  {{- $ingress := or $np.fromIngressController $np.fromWeb .Values.metrics.enabled $np.extraIngress }}
  {{- if not $ingress }}
  ingress: []
  {{- else }}
  ingress:
    {{- if $np.fromIngressController }}
    {{- $from := include "oasis-common.networkPolicy.global" (list . "ingressController" "from") }}
    {{- if not $from }}{{ fail "global.networkPolicy.ingressController.from is empty" }}{{ end }}
    # The ingress controller forwards public traffic.
    - from:
        {{- $from | nindent 8 }}
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- if $np.fromWeb }}
    # The web pods' nginx proxies /api when no ingress routes it (port-forward, dev clusters).
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: web
              app.kubernetes.io/part-of: oasis198
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- if .Values.metrics.enabled }}
    {{- $from := include "oasis-common.networkPolicy.global" (list . "prometheus" "from") }}
    {{- if not $from }}{{ fail "global.networkPolicy.prometheus.from is empty" }}{{ end }}
    # Prometheus scrapes /metrics.
    - from:
        {{- $from | nindent 8 }}
      ports:
        - port: http
          protocol: TCP
    {{- end }}
    {{- with $np.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
  {{- $egress := or $needsDns $np.extraEgress }}
  {{- if not $egress }}
  egress: []
  {{- else }}
  egress:
    {{- if $needsDns }}
    # DNS
    - ports:
        {{- range (dig "networkPolicy" "dns" "ports" (list 53) .Values.global) }}
        - port: {{ . }}
          protocol: UDP
        - port: {{ . }}
          protocol: TCP
        {{- end }}
      {{- with include "oasis-common.networkPolicy.global" (list . "dns" "to") }}
      to:
        {{- . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if .Values.nats.enabled }}
    # NATS (request/reply and JetStream)
    - ports:
        {{- range (dig "networkPolicy" "nats" "ports" (list 4222) .Values.global) }}
        - port: {{ . }}
          protocol: TCP
        {{- end }}
      {{- with include "oasis-common.networkPolicy.global" (list . "nats" "to") }}
      to:
        {{- . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if .Values.mongodb.enabled }}
    # MongoDB
    - ports:
        {{- range (dig "networkPolicy" "mongodb" "ports" (list 27017) .Values.global) }}
        - port: {{ . }}
          protocol: TCP
        {{- end }}
      {{- with include "oasis-common.networkPolicy.global" (list . "mongodb" "to") }}
      to:
        {{- . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if $apiProxy.enabled }}
    # The gateway, for /api proxied by the web pods
    - to:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: gateway
              app.kubernetes.io/part-of: oasis198
      ports:
        - port: {{ $apiProxy.port }}
          protocol: TCP
    {{- end }}
    {{- with $np.extraEgress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end -}}
{{- end -}}
