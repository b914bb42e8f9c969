#!/usr/bin/env bash
# Tests deploy/action/review.sh (the review step of action.yml) against real
# git repositories and the real binary, as a pull_request job would run it:
#
#   SHIPGATE=bin/shipgate deploy/action/review_test.sh
#
# Cases: a blocking widening fails the job (default fail-on block) and still
# writes the summary, the SARIF file and the outputs; fail-on never passes
# it; a review-level change passes on block and fails on review; a shallow
# clone is deepened (fork PRs check out one commit by default); bad inputs
# are refused.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SHIPGATE=$(cd "$(dirname "${SHIPGATE:?set SHIPGATE to the shipgate binary}")" && pwd)/$(basename "$SHIPGATE")
export SHIPGATE
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME"
failures=0
pass=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# origin: main with a settings file; a branch per pull request.
origin="$work/origin"
git init -q -b main "$origin"
mkdir -p "$origin/.claude"
echo '{"permissions":{"allow":["Bash(npm test:*)"]}}' > "$origin/.claude/settings.json"
git -C "$origin" add . && git -C "$origin" commit -q -m base
base_sha=$(git -C "$origin" rev-parse HEAD)
git -C "$origin" checkout -q -b block-pr
echo '{"permissions":{"allow":["Bash(*)"]}}' > "$origin/.claude/settings.json"
git -C "$origin" commit -q -am widen-all
git -C "$origin" checkout -q -b review-pr main
echo '{"permissions":{"allow":["Bash(npm *)"]}}' > "$origin/.claude/settings.json"
git -C "$origin" commit -q -am widen-npm
git -C "$origin" checkout -q main

# run BRANCH DEPTH [VAR=VALUE...]: clone, check out the branch, run the step.
run() {
  local branch=$1 depth=$2
  shift 2
  local dir="$work/run-$RANDOM"
  if [ "$depth" = full ]; then
    git clone -q "file://$origin" "$dir"
  else
    git clone -q --depth "$depth" --no-single-branch "file://$origin" "$dir"
  fi
  git -C "$dir" checkout -q "$branch"
  : > "$dir.summary"
  : > "$dir.output"
  set +e
  (cd "$dir" && env GITHUB_STEP_SUMMARY="$dir.summary" GITHUB_OUTPUT="$dir.output" PR_BASE_SHA="$base_sha" \
    INPUT_SARIF="$dir.sarif" "$@" bash "$here/review.sh") > "$dir.log" 2>&1
  code=$?
  set -e
  last=$dir
}

check() { # check NAME WANT_CODE WANT_DECISION
  local name=$1 want=$2 decision=$3
  if [ "$code" != "$want" ]; then fail "$name: exit $code, want $want"; sed 's/^/    /' "$last.log"; return; fi
  if [ -n "$decision" ]; then
    grep -qx "decision=$decision" "$last.output" || fail "$name: GITHUB_OUTPUT lacks decision=$decision: $(cat "$last.output")"
    grep -q "Agent permission review" "$last.summary" || fail "$name: no Markdown in the job summary"
    jq -e '.version == "2.1.0" and (.runs | length) == 1' "$last.sarif" > /dev/null || fail "$name: $last.sarif is not SARIF 2.1.0"
  fi
  pass=$((pass + 1))
}

run block-pr full;                        check "block fails by default" 1 block
grep -q "SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW" "$last.sarif" || fail "the SARIF lacks the blocking finding"
run block-pr full INPUT_FAIL_ON=never;    check "fail-on never" 0 block
run review-pr full;                       check "review passes fail-on block" 0 require_review
run review-pr full INPUT_FAIL_ON=review;  check "review fails fail-on review" 1 require_review
run main full;                            check "no change" 0 allow
run block-pr 1;                           check "a shallow clone is deepened" 1 block
grep -q "The checkout is shallow" "$last.log" || fail "shallow: no notice"
run block-pr full INPUT_SUMMARY=false
if [ "$code" = 1 ] && [ ! -s "$last.summary" ]; then pass=$((pass + 1)); else fail "summary=false still wrote a summary"; fi
run block-pr full INPUT_FAIL_ON=blocker;  check "a bad fail-on is refused" 2 ""
run block-pr full PR_BASE_SHA=;           check "no base anywhere is refused" 2 ""
run block-pr full PR_BASE_SHA= INPUT_BASE=main; check "the base input" 1 block

echo "$pass passed, $failures failed"
[ "$failures" = 0 ]
