#!/usr/bin/env bash
# Lints deploy/helm/rewind strictly, renders it with each values file under deploy/helm/ci,
# and checks every rendered object against the Kubernetes API models. Needs Java 17+ and
# Maven: Helm (helm-java, with its native library), the Kubernetes Java client's models and
# SnakeYAML come from Maven Central (scripts/helm/pom.xml) into a cache directory.
set -euo pipefail
cd "$(dirname "$0")/../.."
LIBS="${REWIND_HELM_CHECK_LIBS:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind-helm-check}"
if [ ! -f "$LIBS/.complete" ]; then
  rm -rf "$LIBS" && mkdir -p "$LIBS"
  mvn -q -f scripts/helm/pom.xml dependency:copy-dependencies -DoutputDirectory="$LIBS" ||
    { echo "Could not fetch Helm and the Kubernetes models from Maven Central (mvn -f scripts/helm/pom.xml): the chart cannot be checked" >&2; exit 1; }
  touch "$LIBS/.complete"
fi
exec java -cp "$LIBS/*" scripts/helm/CheckChart.java deploy/helm/rewind deploy/helm/ci/*.yaml
