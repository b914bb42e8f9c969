#!/bin/sh
# Renders the plain manifests of deploy/kubernetes from the Helm chart, so
# the two never drift (deploy/ci.sh re-renders and fails on a difference).
#   deploy/kubernetes/render.sh [HELM]
set -eu
cd "$(dirname "$0")"
HELM=${1:-helm}
render() { # values-file output-file title
  {
    echo "# Shipgate: $3"
    echo "# Generated from deploy/helm/shipgate with $1 by render.sh; edit the chart, not this file."
    echo "#"
    echo "# Before applying: set SHIPGATE_APP_ID below to your App's ID (shipgate register prints it),"
    echo "# and create the credentials Secret from the files shipgate register wrote:"
    echo "#   kubectl -n shipgate create secret generic shipgate-credentials \\"
    echo "#     --from-file=private-key.pem=shipgate-credentials/private-key.pem \\"
    echo "#     --from-file=webhook-secret=shipgate-credentials/webhook-secret"
    if [ "$1" = values-ha.yaml ]; then
      echo "# and the Redis URL Secret (the URL holds the password):"
      echo "#   kubectl -n shipgate create secret generic shipgate-redis --from-literal=redis-url='redis://:PASSWORD@redis:6379/0'"
      echo "# Set the Ingress host (and TLS secret) to the name GitHub delivers to."
    fi
    echo "# Then: kubectl -n shipgate apply -f $2"
    "$HELM" template shipgate ../helm/shipgate -f "$1" --kube-version 1.31.0 --skip-tests |
      grep -v -e '^    helm.sh/chart: ' -e '^    app.kubernetes.io/managed-by: ' -e '^# Source: '
  } > "$2"
}
render values-single.yaml shipgate.yaml "one replica, its job queue on a PersistentVolumeClaim"
render values-ha.yaml shipgate-ha.yaml "three replicas on a shared Redis job queue, Ingress, ServiceMonitor"
