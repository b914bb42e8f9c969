{{/* Chart name. */}}
{{- define "shipgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name: release-chart, or the override. */}}
{{- define "shipgate.fullname" -}}
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

{{/* Common labels. */}}
{{- define "shipgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "shipgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: shipgate
{{- end }}

{{/* Selector labels. */}}
{{- define "shipgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "shipgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* ServiceAccount name. */}}
{{- define "shipgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "shipgate.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret holding the App's credentials. */}}
{{- define "shipgate.credentialsSecret" -}}
{{- default (printf "%s-credentials" (include "shipgate.fullname" .)) .Values.credentials.existingSecret }}
{{- end }}

{{/* The image reference: digest wins over tag. */}}
{{- define "shipgate.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The job queue's storage without Redis (queue.storage); "" with Redis,
which keeps the queue itself. */}}
{{- define "shipgate.queueStorage" -}}
{{- if not .Values.redis.enabled }}{{ .Values.queue.storage }}{{- end }}
{{- end }}

{{/* The claim the queue is on ("" when it is on none). */}}
{{- define "shipgate.queueClaim" -}}
{{- $s := include "shipgate.queueStorage" . }}
{{- if eq $s "pvc" }}{{ include "shipgate.fullname" . }}-queue
{{- else if eq $s "existingClaim" }}{{ .Values.queue.existingClaim }}
{{- end }}
{{- end }}

{{/* Refuse configurations that would silently misbehave. */}}
{{- define "shipgate.validate" -}}
{{- if not .Values.github.appId }}
{{- fail "github.appId is required: the GitHub App's numeric ID (shipgate register writes it to app-id)" }}
{{- end }}
{{- if and (gt (int .Values.replicaCount) 1) (not .Values.redis.enabled) }}
{{- fail "replicaCount > 1 needs redis.enabled: without Redis each replica has its own queue and de-duplication" }}
{{- end }}
{{- if and (eq (include "shipgate.queueStorage" .) "existingClaim") (not .Values.queue.existingClaim) }}
{{- fail "queue.storage existingClaim needs queue.existingClaim: the name of the PersistentVolumeClaim the job queue is kept on" }}
{{- end }}
{{- if and .Values.redis.enabled (not .Values.redis.url) (not .Values.redis.existingSecret) }}
{{- fail "redis.enabled needs redis.url or redis.existingSecret" }}
{{- end }}
{{- if and (not .Values.credentials.existingSecret) (or (not .Values.credentials.privateKey) (not .Values.credentials.webhookSecret)) }}
{{- fail "set credentials.existingSecret (recommended), or both credentials.privateKey and credentials.webhookSecret" }}
{{- end }}
{{- end }}
