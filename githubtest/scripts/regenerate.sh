#!/usr/bin/env bash
# regenerate.sh re-extracts githubtest's checked-in GitHub data: the webhook
# payload templates (payloads/) and the OpenAPI schemas (testdata/openapi/).
# It installs the pinned npm packages into a temporary directory, so nothing
# is left in the work tree but the regenerated files. CI does not run it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pkgdir="$(cd "$here/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm init -y >/dev/null &&
  npm install --no-audit --no-fund @octokit/webhooks-examples@7.6.1 @octokit/openapi@23.0.2 >/dev/null)
export OCTOKIT_MODULES="$tmp/node_modules"
node "$here/extract-webhook-examples.mjs" "$pkgdir/payloads"
node "$here/extract-openapi.mjs" "$pkgdir/testdata/openapi"
