{{- define "rewind.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "rewind.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
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
