#!/usr/bin/env bash
# CI for deploy/: the image's binary, the Helm chart, the Kubernetes manifests.
#
#   1. deploy/build.sh builds the binary exactly as deploy/Dockerfile does
#      (no Docker engine here); deploy/validate checks it is static and
#      stamped, lints the Dockerfile, and rebuilds from the files the Docker
#      build context holds (the repository minus .dockerignore).
#   2. Helm v3.22.0 (go install from the module proxy; cached afterwards):
#      helm lint and helm template with the minimum values and with every
#      option on; an install without the required values must be refused.
#   3. deploy/validate decodes every rendered object, and the plain
#      manifests, strictly into the Kubernetes API types and checks the
#      Deployment's probes, resources and security context.
#   4. deploy/kubernetes is re-rendered from the chart: any drift fails.
#   5. values.schema.json refuses mistyped or unusable values; the chart's
#      helm test hook renders and validates.
#   6. every queue.storage choice puts the job queue where the read-only
#      pod can write it (a claim with the Recreate strategy, an emptyDir),
#      or, for memory, is refused by deploy/validate.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { echo "== deploy: $* ($(( $(date +%s) - t0 ))s)"; }

HELM_VERSION=v3.22.0
KUBE_VERSION=1.31.0
HELM="$(go env GOPATH)/bin/helm"
if ! "$HELM" version --template '{{.Version}}' 2>/dev/null | grep -q '^v3\.22'; then
  step "installing helm $HELM_VERSION (go install)"
  GOFLAGS="" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step "binary as the image builds it (deploy/build.sh)"
version="ci-$(git rev-parse --short HEAD 2>/dev/null || echo dev)"
VERSION="$version" OUT="$work/shipgate" deploy/build.sh
"$work/shipgate" version

step "helm lint"
"$HELM" lint deploy/helm/shipgate -f deploy/helm/ci/values-minimal.yaml --kube-version "$KUBE_VERSION" --strict
"$HELM" lint deploy/helm/shipgate -f deploy/helm/ci/values-all.yaml --kube-version "$KUBE_VERSION" --strict

step "helm template: minimum values, every option on"
"$HELM" template shipgate deploy/helm/shipgate -f deploy/helm/ci/values-minimal.yaml --kube-version "$KUBE_VERSION" > "$work/minimal.yaml"
"$HELM" template shipgate deploy/helm/shipgate -f deploy/helm/ci/values-all.yaml --kube-version "$KUBE_VERSION" > "$work/all.yaml"
# The job queue's storage (queue.storage): the root file system is read-only,
# so every choice but memory must put SHIPGATE_QUEUE_DIR on a writable volume
# (deploy/validate holds each rendering to that, and a claim to Recreate).
for storage in emptyDir existingClaim memory; do
  "$HELM" template shipgate deploy/helm/shipgate -f deploy/helm/ci/values-minimal.yaml --kube-version "$KUBE_VERSION" \
    --set queue.storage="$storage" --set queue.existingClaim=shipgate-queue-claim > "$work/queue-$storage.yaml"
done
grep -q "claimName: shipgate-queue-claim" "$work/queue-existingClaim.yaml" || { echo "queue.storage=existingClaim does not mount the claim"; exit 1; }
if grep -q "kind: PersistentVolumeClaim" "$work/queue-existingClaim.yaml" "$work/queue-emptyDir.yaml" "$work/all.yaml"; then
  echo "the chart made a queue claim where none is asked for (existingClaim, emptyDir, Redis)"; exit 1
fi
if grep -q "SHIPGATE_QUEUE_DIR" "$work/all.yaml"; then echo "a queue directory beside Redis"; exit 1; fi
for bad in "" "--set github.appId=1" "--set github.appId=1 --set credentials.existingSecret=s --set replicaCount=2" \
  "--set github.appId=1 --set credentials.existingSecret=s --set queue.storage=existingClaim"; do
  # shellcheck disable=SC2086
  if "$HELM" template shipgate deploy/helm/shipgate $bad --kube-version "$KUBE_VERSION" > /dev/null 2> "$work/err"; then
    echo "helm template accepted an unusable install: [$bad]"; exit 1
  fi
  grep -q "Error: execution error" "$work/err" || { cat "$work/err"; exit 1; }
done

step "values.schema.json refuses what the chart cannot use"
for bad in "--set app.workers=abc" "--set app.logLevel=verbose" "--set imag.tag=x" \
  "--set image.digest=sha256:zz" "--set github.apiUrl=api.github.com" "--set replicaCount=0" \
  "--set queue.storage=disk" "--set queue.size=lots"; do
  # shellcheck disable=SC2086
  if "$HELM" template shipgate deploy/helm/shipgate -f deploy/helm/ci/values-minimal.yaml $bad --kube-version "$KUBE_VERSION" > /dev/null 2> "$work/err"; then
    echo "helm template accepted values the schema should refuse: [$bad]"; exit 1
  fi
  grep -q "values don't meet the specifications of the schema" "$work/err" || { cat "$work/err"; exit 1; }
done

step "helm test hook: a Pod probing /readyz with the chart's image"
grep -q "helm.sh/hook: test" "$work/minimal.yaml" || { echo "the rendered chart has no helm test hook"; exit 1; }

step "plain manifests are the chart's rendering"
cp -r deploy/kubernetes "$work/kubernetes"
deploy/kubernetes/render.sh "$HELM"
if ! diff -ru "$work/kubernetes" deploy/kubernetes; then
  echo "deploy/kubernetes is out of date: run deploy/kubernetes/render.sh and commit"; exit 1
fi

step "Kubernetes API validation (deploy/validate)"
(cd deploy/validate && go run . "$work/minimal.yaml" "$work/all.yaml" "$work/queue-emptyDir.yaml" "$work/queue-existingClaim.yaml" \
  ../kubernetes/shipgate.yaml ../kubernetes/shipgate-ha.yaml)
# A queue in memory renders (an operator's explicit choice) but fails the
# rules the shipped manifests are held to: nothing accepted survives a restart.
if (cd deploy/validate && go run . "$work/queue-memory.yaml") 2> "$work/err"; then
  echo "deploy/validate accepted a queue in memory"; exit 1
fi
grep -q "SHIPGATE_QUEUE_DIR=memory" "$work/err" || { cat "$work/err"; exit 1; }

step "deploy/validate tests (Dockerfile rules, static binary, Docker context build, values documented)"
(cd deploy/validate && go vet ./... && SHIPGATE_BINARY="$work/shipgate" SHIPGATE_VERSION="$version" SHIPGATE_CONTEXT_CHECK=1 go test -count=1 ./...)

step "done"
