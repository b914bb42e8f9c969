#!/bin/sh
# Builds the shipgate binary exactly as the container image does: static
# (CGO_ENABLED=0), reproducible paths (-trimpath), no VCS stamping (the
# image's build context has no .git), symbols stripped, the version set by
# -ldflags. deploy/Dockerfile runs this script; CI runs it too (deploy/ci.sh),
# so the binary CI tests is built the way the image's is.
#
#   VERSION=v1.2.3 COMMIT=$(git rev-parse HEAD) OUT=bin/shipgate deploy/build.sh
#
# VERSION defaults to `git describe` (or "dev"), COMMIT to `git rev-parse
# HEAD` (or "unknown": the Docker context has no .git, so the image build
# passes it as a build argument), OUT to bin/shipgate, and
# GOOS/GOARCH to linux and the build machine's architecture.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${VERSION:-}" ]; then
  VERSION=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
fi
if [ -z "${COMMIT:-}" ]; then
  COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
fi
OUT=${OUT:-bin/shipgate}
export CGO_ENABLED=0
export GOOS="${GOOS:-linux}"
export GOARCH="${GOARCH:-$(go env GOARCH)}"
export GOFLAGS="${GOFLAGS:-} -trimpath -buildvcs=false"
go build -ldflags="-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" -o "$OUT" ./cmd/shipgate
echo "built $OUT (version $VERSION, commit $COMMIT, $GOOS/$GOARCH, static)"
