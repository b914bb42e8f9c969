#!/usr/bin/env bash
# The review step of action.yml (a script, not inline YAML, so it is
# checked by shellcheck and tested: deploy/action/review_test.sh). Inputs arrive as
# environment variables, never interpolated into the script.
#
#   SHIPGATE       the binary
#   INPUT_FAIL_ON  block | review | never
#   INPUT_BASE     commit or ref to compare with ("" = PR_BASE_SHA, else PUSH_BEFORE)
#   INPUT_POLICY   policy file ("" = the repository's at the merge base)
#   INPUT_SARIF    SARIF output path
#   INPUT_SUMMARY  true | false: Markdown to $GITHUB_STEP_SUMMARY
set -euo pipefail

fail_on=${INPUT_FAIL_ON:-block}
case "$fail_on" in
  block | review | never) ;;
  *) echo "::error::fail-on: '$fail_on' is not one of block, review, never"; exit 2 ;;
esac

base=${INPUT_BASE:-}
if [ -z "$base" ]; then base=${PR_BASE_SHA:-}; fi
if [ -z "$base" ] && [ -n "${PUSH_BEFORE:-}" ] && [ "${PUSH_BEFORE}" != "0000000000000000000000000000000000000000" ]; then
  base=$PUSH_BEFORE
fi
if [ -z "$base" ]; then
  echo "::error::no base to compare with: run on pull_request (or push), or set the base input"
  exit 2
fi

# shipgate diff refuses a shallow clone (a merge base it cannot see would
# make every file look new or unchanged); actions/checkout fetches one
# commit by default. Deepen with whatever token checkout left (read-only is
# enough; a public repository needs none).
if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
  echo "The checkout is shallow: fetching the history (actions/checkout with fetch-depth: 0 avoids this)."
  git fetch --no-tags --quiet --unshallow origin
fi
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  git fetch --no-tags --quiet origin "$base" || true
fi

args=(diff --base "$base")
if [ -n "${INPUT_POLICY:-}" ]; then args+=(--policy "$INPUT_POLICY"); fi

sarif=${INPUT_SARIF:-shipgate.sarif}
"$SHIPGATE" "${args[@]}" --format sarif > "$sarif"
json=$("$SHIPGATE" "${args[@]}" --format json)
decision=$(printf '%s\n' "$json" | sed -n 's/^ *"decision": *"\([a-z_]*\)".*/\1/p' | head -n 1)
case "$decision" in
  allow | require_review | block) ;;
  *) echo "::error::could not read the decision from shipgate's JSON report"; exit 2 ;;
esac

md=$("$SHIPGATE" "${args[@]}" --format markdown)
if [ "${INPUT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  printf '%s\n' "$md" >> "$GITHUB_STEP_SUMMARY"
fi
"$SHIPGATE" "${args[@]}" --format text --color never

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "decision=$decision"
    echo "sarif-file=$sarif"
  } >> "$GITHUB_OUTPUT"
fi

case "$fail_on:$decision" in
  block:block | review:block | review:require_review)
    echo "::error title=Shipgate::decision $decision (fail-on: $fail_on): see the job summary"
    exit 1 ;;
esac
echo "Shipgate decision: $decision"
