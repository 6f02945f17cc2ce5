{{/* The prefix of every namespaced object: the release name, with "-tessera" unless it already says tessera. */}}
{{- define "tessera.fullname" -}}
{{- if contains "tessera" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-tessera" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "tessera.labels" -}}
app.kubernetes.io/part-of: tessera
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "tessera.plugin.name" -}}{{ include "tessera.fullname" . }}-kubelet-plugin{{- end -}}
{{- define "tessera.controller.name" -}}{{ include "tessera.fullname" . }}-controller{{- end -}}
{{- define "tessera.webhook.service" -}}{{ include "tessera.fullname" . }}-controller-webhook{{- end -}}
{{- define "tessera.webhook.secret" -}}{{ include "tessera.fullname" . }}-webhook-tls{{- end -}}

{{- define "tessera.plugin.selector" -}}
app.kubernetes.io/name: tessera-kubelet-plugin
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
{{- define "tessera.controller.selector" -}}
app.kubernetes.io/name: tessera-controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* image: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "tessera.image" -}}
{{- printf "%s:%s" .image.repository (.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}

{{/* Env that points the apps at the API server's real address where Services do not route (see values). */}}
{{- define "tessera.apiServerEnv" -}}
{{- with .Values.apiServer.host }}
- name: KUBERNETES_SERVICE_HOST
  value: {{ . | quote }}
- name: KUBERNETES_SERVICE_PORT
  value: {{ $.Values.apiServer.port | toString | quote }}
{{- end }}
{{- end -}}

{{/* Both apps read LOG_LEVEL and LOG_FORMAT (dev.tessera.api.logging.LogbackSetup). */}}
{{- define "tessera.loggingEnv" -}}
- name: LOG_LEVEL
  value: {{ .Values.logging.level | quote }}
- name: LOG_FORMAT
  value: {{ .Values.logging.format | quote }}
{{- end -}}

{{/* Extra env from a map, sorted by name. */}}
{{- define "tessera.extraEnv" -}}
{{- range $k, $v := . }}
- name: {{ $k }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}
