{{- define "rewind.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Objects are named <fullname>-api, <fullname>-worker...: the release name alone when it already
holds the chart's name (release "rewind" gives rewind-api, not rewind-rewind-api), else
<release>-<name>; fullnameOverride replaces it all.
*/}}
{{- define "rewind.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "rewind.labels" -}}
app.kubernetes.io/name: {{ include "rewind.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "rewind.secretName" -}}
{{- if .Values.postgres.existingSecret -}}{{ .Values.postgres.existingSecret }}{{- else -}}{{ include "rewind.fullname" . }}{{- end -}}
{{- end -}}

{{/* Environment shared by the API, the worker and the migrations Job. */}}
{{- define "rewind.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "rewind.fullname" . }}
env:
  - name: DATABASE_URL
    valueFrom:
      secretKeyRef:
        name: {{ include "rewind.secretName" . }}
        key: DATABASE_URL
{{- if .Values.adminKey }}
  - name: REWIND_ADMIN_KEY
    valueFrom:
      secretKeyRef:
        name: {{ include "rewind.fullname" . }}
        key: REWIND_ADMIN_KEY
{{- end }}
{{- end -}}

{{- define "rewind.securityContext" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 1000
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  capabilities:
    drop: ['ALL']
{{- end -}}
