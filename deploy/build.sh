#!/bin/sh
# Builds the shipgate binary exactly as the container image does: static
# (CGO_ENABLED=0), reproducible paths (-trimpath), no VCS stamping (the
# image's build context has no .git), symbols stripped, the version set by
# -ldflags. deploy/Dockerfile runs this script; CI runs it too (deploy/ci.sh),
# so the binary CI tests is built the way the image's is.
#
#   VERSION=v1.2.3 OUT=bin/shipgate deploy/build.sh
#
# VERSION defaults to `git describe` (or "dev"), OUT to bin/shipgate, and
# GOOS/GOARCH to linux and the build machine's architecture.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${VERSION:-}" ]; then
  VERSION=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
fi
OUT=${OUT:-bin/shipgate}
export CGO_ENABLED=0
export GOOS="${GOOS:-linux}"
export GOARCH="${GOARCH:-$(go env GOARCH)}"
export GOFLAGS="${GOFLAGS:-} -trimpath -buildvcs=false"
go build -ldflags="-s -w -X main.version=${VERSION}" -o "$OUT" ./cmd/shipgate
echo "built $OUT (version $VERSION, $GOOS/$GOARCH, static)"
