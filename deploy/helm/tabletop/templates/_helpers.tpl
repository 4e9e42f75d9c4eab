{{/*
Shared names, labels and small computations. Component objects are named
<fullname>-grpc, <fullname>-rest and <fullname>-redis.
*/}}

{{- define "tabletop.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "tabletop.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of a component's objects. Call with (dict "root" $ "component" "grpc"). */}}
{{- define "tabletop.componentName" -}}
{{- printf "%s-%s" (include "tabletop.fullname" .root | trunc 57 | trimSuffix "-") .component }}
{{- end }}

{{- define "tabletop.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "tabletop.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tabletop.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "tabletop.labels" -}}
helm.sh/chart: {{ include "tabletop.chart" . }}
{{ include "tabletop.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tabletop
{{- end }}

{{/* Call with (dict "root" $ "component" "grpc"). */}}
{{- define "tabletop.componentSelectorLabels" -}}
{{ include "tabletop.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "tabletop.componentLabels" -}}
{{ include "tabletop.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The bundled Redis has its own app.kubernetes.io/name so that selectors meant for the
Tabletop pods (the metrics Service, the ServiceMonitor) never match it.
*/}}
{{- define "tabletop.redisSelectorLabels" -}}
app.kubernetes.io/name: {{ include "tabletop.name" . }}-redis
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: redis
{{- end }}

{{- define "tabletop.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{- define "tabletop.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tabletop.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* True (non-empty) when the chart itself must run the bundled Redis. */}}
{{- define "tabletop.useBundledRedis" -}}
{{- if and (not .Values.redis.existingSecret) (not .Values.redis.url) .Values.redis.bundled.enabled }}true{{ end }}
{{- end }}

{{/* The Secret and key that hold TABLETOP_REDIS_URL; fails when Redis is not configured. */}}
{{- define "tabletop.redisSecretName" -}}
{{- if .Values.redis.existingSecret }}
{{- .Values.redis.existingSecret }}
{{- else if or .Values.redis.url (include "tabletop.useBundledRedis" .) }}
{{- printf "%s-redis-url" (include "tabletop.fullname" . | trunc 53 | trimSuffix "-") }}
{{- else }}
{{- fail "Redis is not configured: set redis.existingSecret (recommended), redis.url, or redis.bundled.enabled=true" }}
{{- end }}
{{- end }}

{{- define "tabletop.redisSecretKey" -}}
{{- if .Values.redis.existingSecret }}{{ .Values.redis.existingSecretKey }}{{ else }}redis-url{{ end }}
{{- end }}

{{- define "tabletop.redisUrl" -}}
{{- if .Values.redis.url }}
{{- .Values.redis.url }}
{{- else }}
{{- printf "redis://%s:%d/0" (include "tabletop.componentName" (dict "root" . "component" "redis")) (int .Values.redis.bundled.port) }}
{{- end }}
{{- end }}

{{/* The Secret holding TABLETOP_API_KEYS, or nothing when CreateGame is open. */}}
{{- define "tabletop.apiKeysSecretName" -}}
{{- if .Values.auth.existingSecret }}
{{- .Values.auth.existingSecret }}
{{- else if .Values.auth.apiKeys }}
{{- printf "%s-api-keys" (include "tabletop.fullname" . | trunc 53 | trimSuffix "-") }}
{{- end }}
{{- end }}

{{- define "tabletop.apiKeysSecretKey" -}}
{{- if .Values.auth.existingSecret }}{{ .Values.auth.existingSecretKey }}{{ else }}api-keys{{ end }}
{{- end }}

{{- define "tabletop.metricsPort" -}}
{{- if .Values.metrics.enabled }}{{ int .Values.metrics.port }}{{ else }}0{{ end }}
{{- end }}

{{- define "tabletop.grpcTarget" -}}
{{- if .Values.rest.grpcTarget }}
{{- .Values.rest.grpcTarget }}
{{- else }}
{{- printf "%s:%d" (include "tabletop.componentName" (dict "root" . "component" "grpc")) (int .Values.grpc.service.port) }}
{{- end }}
{{- end }}

{{/*
terminationGracePeriodSeconds: the preStop sleep and the SIGTERM drain must both fit,
or the kubelet kills the pod mid-drain and in-flight moves fail.
*/}}
{{- define "tabletop.terminationGracePeriodSeconds" -}}
{{- $grace := .Values.config.shutdownGraceSeconds | default 20 | float64 | ceil | int }}
{{- $needed := add $grace (int .Values.shutdown.preStopSleepSeconds) }}
{{- if kindIs "invalid" .Values.shutdown.terminationGracePeriodSeconds }}
{{- add $needed 10 }}
{{- else if le (int .Values.shutdown.terminationGracePeriodSeconds) $needed }}
{{- fail (printf "shutdown.terminationGracePeriodSeconds (%v) must exceed shutdown.preStopSleepSeconds + config.shutdownGraceSeconds (%d)" .Values.shutdown.terminationGracePeriodSeconds $needed) }}
{{- else }}
{{- int .Values.shutdown.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/*
A value as an environment string. Helm reads numbers as float64, which would print
1000000 as "1e+06"; whole numbers are printed as integers.
*/}}
{{- define "tabletop.envValue" -}}
{{- if kindIs "float64" . }}
{{- if eq . (floor .) }}{{ int64 . }}{{ else }}{{ . }}{{ end }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/* Env shared by both components: config, OTEL, extra. Call with (dict "root" $ "component" "grpc"). */}}
{{- define "tabletop.commonEnv" -}}
{{- $root := .root -}}
- name: TABLETOP_METRICS_PORT
  value: {{ include "tabletop.metricsPort" $root | quote }}
- name: TABLETOP_HOST
  value: "::"
{{- with $root.Values.otel.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- with $root.Values.otel.protocol }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ . | quote }}
{{- end }}
{{- with $root.Values.otel.resourceAttributes }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ . | quote }}
{{- end }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- with $root.Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- with (index $root.Values .component).extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Pod-level fields shared by both components. Call with (dict "root" $ "component" "grpc"). */}}
{{- define "tabletop.podCommon" -}}
{{- $root := .root }}
{{- $values := index $root.Values .component -}}
serviceAccountName: {{ include "tabletop.serviceAccountName" $root }}
automountServiceAccountToken: false
enableServiceLinks: false
terminationGracePeriodSeconds: {{ include "tabletop.terminationGracePeriodSeconds" $root }}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $root.Values.podSecurityContext | nindent 2 }}
{{- with $values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with $values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: tmp
    emptyDir:
      sizeLimit: {{ $root.Values.tmpVolume.sizeLimit }}
  {{- if include "tabletop.grpcTlsMounted" . }}
  - name: grpc-tls
    secret:
      secretName: {{ $root.Values.grpc.tls.secretName }}
      defaultMode: 0440
      {{- if eq .component "rest" }}
      items:
        - key: {{ $root.Values.grpc.tls.caKey }}
          path: {{ $root.Values.grpc.tls.caKey }}
      {{- end }}
  {{- end }}
{{- end }}

{{/*
gRPC TLS (grpc.tls): "true" when this component's pod mounts the Secret: the gRPC pods for their
certificate and key, the REST pods (calling this release's gRPC Service) for the CA alone.
*/}}
{{- define "tabletop.grpcTlsMounted" -}}
{{- $tls := .root.Values.grpc.tls -}}
{{- if $tls.enabled -}}
{{- if not $tls.secretName }}{{ fail "grpc.tls.enabled needs grpc.tls.secretName (a kubernetes.io/tls Secret)" }}{{ end -}}
{{- if and $tls.requireClientCert (not $tls.caKey) }}{{ fail "grpc.tls.requireClientCert needs grpc.tls.caKey: the CA that signs client certificates" }}{{ end -}}
{{- if and $tls.requireClientCert (not .root.Values.rest.grpcTarget) }}{{ fail "grpc.tls.requireClientCert: the REST facade has no client certificate to call this release's gRPC Service with; set rest.grpcTarget to another gRPC endpoint or leave requireClientCert false" }}{{ end -}}
{{- if eq .component "grpc" }}true{{ else if and (eq .component "rest") (not .root.Values.rest.grpcTarget) $tls.caKey }}true{{ end -}}
{{- end -}}
{{- end }}

{{/* The TLS settings of a component's container (with tabletop.grpcTlsMounted). */}}
{{- define "tabletop.grpcTlsEnv" -}}
{{- $tls := .root.Values.grpc.tls -}}
{{- if and $tls.enabled (eq .component "grpc") -}}
- name: TABLETOP_GRPC_TLS_CERT_FILE
  value: /etc/tabletop/grpc-tls/tls.crt
- name: TABLETOP_GRPC_TLS_KEY_FILE
  value: /etc/tabletop/grpc-tls/tls.key
{{- if $tls.requireClientCert }}
- name: TABLETOP_GRPC_TLS_CLIENT_CA_FILE
  value: /etc/tabletop/grpc-tls/{{ $tls.caKey }}
{{- end }}
- name: TABLETOP_GRPC_HEALTH_PORT
  value: {{ $tls.healthPort | quote }}
{{- else if and $tls.enabled (eq .component "rest") (not .root.Values.rest.grpcTarget) -}}
- name: TABLETOP_GRPC_TARGET_TLS_CA_FILE
  value: {{ if $tls.caKey }}/etc/tabletop/grpc-tls/{{ $tls.caKey }}{{ else }}/etc/ssl/certs/ca-certificates.crt{{ end }}
{{- with $tls.serverName }}
- name: TABLETOP_GRPC_TARGET_TLS_SERVER_NAME
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/* Pod template annotations: roll pods when the config or a chart-made Secret changes. */}}
{{- define "tabletop.podAnnotations" -}}
{{- $root := .root -}}
checksum/config: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
checksum/secret: {{ include (print $root.Template.BasePath "/secret.yaml") $root | sha256sum }}
{{- with (index $root.Values .component).podAnnotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The preStop hook: keep serving while the pod is being removed from endpoints. */}}
{{- define "tabletop.lifecycle" -}}
{{- if gt (int .Values.shutdown.preStopSleepSeconds) 0 -}}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ .Values.shutdown.preStopSleepSeconds | int | toString | quote }}]
{{- end }}
{{- end }}

{{/* NetworkPolicy rules shared by the gRPC and REST policies. */}}
{{- define "tabletop.metricsIngressRule" -}}
{{- if .Values.metrics.enabled -}}
- ports:
    - port: metrics
      protocol: TCP
  {{- with .Values.networkPolicy.metrics.from }}
  from:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}

{{- define "tabletop.dnsEgressRule" -}}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
{{- end }}
