#!/usr/bin/env bash
# The review step of action.yml (a script, not inline YAML, so it is
# checked by shellcheck and tested: deploy/action/review_test.sh). Inputs arrive as
# environment variables, never interpolated into the script. It runs in the
# action's working-directory.
#
#   SHIPGATE               the binary
#   INPUT_FAIL_ON          block | review | never
#   INPUT_BASE             commit or ref to compare with (see "The base" below)
#   INPUT_POLICY           policy file ("" = the repository's at the merge base)
#   INPUT_SARIF            SARIF output path, relative to the workspace
#   INPUT_SUMMARY          true | false: Markdown to $GITHUB_STEP_SUMMARY
#   INPUT_WORKING_DIRECTORY the folder reviewed ("." = the whole repository)
#   PR_BASE_SHA            github.event.pull_request.base.sha
#   MERGE_GROUP_BASE_SHA   github.event.merge_group.base_sha
#   PUSH_BEFORE            github.event.before
#   DEFAULT_BRANCH         github.event.repository.default_branch
#   GITHUB_WORKSPACE       where relative output paths are resolved (default: the repository root)
set -euo pipefail

fail_on=${INPUT_FAIL_ON:-block}
case "$fail_on" in
  block | review | never) ;;
  *) echo "::error::fail-on: '$fail_on' is not one of block, review, never"; exit 2 ;;
esac

# shipgate diff refuses a shallow clone (a merge base it cannot see would
# make every file look new or unchanged); actions/checkout fetches one
# commit by default. Deepen with whatever token checkout left (read-only is
# enough; a public repository needs none).
if [ "$(git rev-parse --is-shallow-repository)" = "true" ]; then
  echo "The checkout is shallow: fetching the history (actions/checkout with fetch-depth: 0 avoids this)."
  git fetch --no-tags --quiet --unshallow origin
fi

# The base, first that applies: the base input; a pull request's base
# commit; a merge queue's base commit (merge_group); a push's previous tip
# (not on a new branch, whose "before" is all zeros); otherwise (a new
# branch, workflow_dispatch, schedule) the merge base with the default
# branch, fetched when the checkout lacks it.
zero=0000000000000000000000000000000000000000
base=${INPUT_BASE:-}
how="the base input"
if [ -z "$base" ] && [ -n "${PR_BASE_SHA:-}" ]; then base=$PR_BASE_SHA; how="the pull request's base"; fi
if [ -z "$base" ] && [ -n "${MERGE_GROUP_BASE_SHA:-}" ]; then base=$MERGE_GROUP_BASE_SHA; how="the merge queue's base"; fi
if [ -z "$base" ] && [ -n "${PUSH_BEFORE:-}" ] && [ "$PUSH_BEFORE" != "$zero" ]; then base=$PUSH_BEFORE; how="the push's previous commit"; fi
if [ -z "$base" ]; then
  branch=${DEFAULT_BRANCH:-}
  if [ -z "$branch" ]; then
    branch=$(git symbolic-ref -q --short refs/remotes/origin/HEAD 2>/dev/null | sed 's|^origin/||' || true)
  fi
  if [ -z "$branch" ]; then
    echo "::error::no base to compare with: this event names none and the default branch is unknown; set the base input (for example base: origin/main)"
    exit 2
  fi
  git fetch --no-tags --quiet origin "+refs/heads/$branch:refs/remotes/origin/$branch" 2>/dev/null || true
  base="refs/remotes/origin/$branch"
  how="the merge base with the default branch ($branch)"
fi
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  git fetch --no-tags --quiet origin "$base" || true
fi
echo "Comparing with $how: $base"

root=$(git rev-parse --show-toplevel)
workspace=${GITHUB_WORKSPACE:-$root}
sarif=${INPUT_SARIF:-shipgate.sarif}
case "$sarif" in
  /*) ;;
  *) sarif="$workspace/$sarif" ;;
esac
mkdir -p "$(dirname "$sarif")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(diff --base "$base" --fail-on "$fail_on" --format text --color never
  --sarif-file "$sarif" --markdown-file "$tmp/report.md" --github-output "$tmp/output")
wd=${INPUT_WORKING_DIRECTORY:-.}
if [ "$wd" != "." ] && [ "$wd" != "./" ]; then args+=(--only .); fi
if [ -n "${INPUT_POLICY:-}" ]; then args+=(--policy "$INPUT_POLICY"); fi

# One run writes every output: the text report (the log), the SARIF file,
# the Markdown for the job summary and the decision.
set +e
"$SHIPGATE" "${args[@]}"
code=$?
set -e
if [ "$code" != 0 ] && [ "$code" != 1 ]; then
  echo "::error title=Shipgate::shipgate diff failed (exit $code): see the log above"
  exit "$code"
fi
decision=$(sed -n 's/^decision=//p' "$tmp/output")
if [ "${INPUT_SUMMARY:-true}" = "true" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$tmp/report.md" >> "$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  cat "$tmp/output" >> "$GITHUB_OUTPUT"
fi
if [ "$code" = 1 ]; then
  echo "::error title=Shipgate::decision $decision (fail-on: $fail_on): see the job summary"
  exit 1
fi
echo "Shipgate decision: $decision"
