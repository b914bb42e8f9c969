#!/usr/bin/env bash
# Tests deploy/action/review.sh (the review step of action.yml) against real
# git repositories and the real binary, as a pull_request job would run it:
#
#   SHIPGATE=bin/shipgate deploy/action/review_test.sh
#
# Cases: a blocking widening fails the job (default fail-on block) and still
# writes the summary, the SARIF file and the outputs, from ONE run of the
# binary; fail-on never passes it; a review-level change passes on block
# and fails on review; a shallow clone is deepened (fork PRs check out one
# commit by default); bad inputs are refused; events without a pull
# request's base (a new branch pushed, merge_group, workflow_dispatch) use
# the merge queue's base or the merge base with the default branch;
# working-directory limits the review to its folder, and the sarif-file
# output is the absolute path of the file written.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
real_shipgate=$(cd "$(dirname "${SHIPGATE:?set SHIPGATE to the shipgate binary}")" && pwd)/$(basename "$SHIPGATE")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME"
failures=0
pass=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The step runs the binary through a shim that counts its runs.
# shellcheck disable=SC2016 # the shim expands them when it runs
printf '#!/usr/bin/env bash\necho run >> "$SHIM_LOG"\nexec %q "$@"\n' "$real_shipgate" > "$work/shipgate-shim"
chmod +x "$work/shipgate-shim"
export SHIPGATE="$work/shipgate-shim"

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
# A monorepo: sub-pr widens sub/ only; outside-pr widens the root only.
git -C "$origin" checkout -q -b sub-pr main
mkdir -p "$origin/sub/.claude"
echo '{"permissions":{"allow":["Bash(*)"]}}' > "$origin/sub/.claude/settings.json"
git -C "$origin" add . && git -C "$origin" commit -q -m widen-sub
git -C "$origin" checkout -q -b outside-pr main
mkdir -p "$origin/sub" && echo x > "$origin/sub/README.md"
echo '{"permissions":{"allow":["Bash(*)"]}}' > "$origin/.claude/settings.json"
git -C "$origin" add . && git -C "$origin" commit -q -m widen-root
git -C "$origin" checkout -q main

# [WD=folder] run BRANCH DEPTH [VAR=VALUE...]: clone, check out the branch,
# run the step in the folder.
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
  : > "$dir.runs"
  set +e
  (cd "$dir/${WD:-.}" && env GITHUB_STEP_SUMMARY="$dir.summary" GITHUB_OUTPUT="$dir.output" PR_BASE_SHA="$base_sha" \
    GITHUB_WORKSPACE="$dir" SHIM_LOG="$dir.runs" INPUT_SARIF="$dir.sarif" INPUT_WORKING_DIRECTORY="${WD:-.}" \
    "$@" bash "$here/review.sh") > "$dir.log" 2>&1
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
    [ "$(wc -l < "$last.runs")" = 1 ] || fail "$name: the binary ran $(wc -l < "$last.runs") times, want once"
  fi
  pass=$((pass + 1))
}

run block-pr full;                        check "block fails by default" 1 block
grep -q "SHIP-HOST-BOUNDARY-PERMISSION-WILDCARD-ALLOW" "$last.sarif" || fail "the SARIF lacks the blocking finding"
grep -qx "sarif-file=$last.sarif" "$last.output" || fail "the sarif-file output is not the file's absolute path: $(cat "$last.output")"
run block-pr full INPUT_FAIL_ON=never;    check "fail-on never" 0 block
run review-pr full;                       check "review passes fail-on block" 0 require_review
run review-pr full INPUT_FAIL_ON=review;  check "review fails fail-on review" 1 require_review
run main full;                            check "no change" 0 allow
run block-pr 1;                           check "a shallow clone is deepened" 1 block
grep -q "The checkout is shallow" "$last.log" || fail "shallow: no notice"
run block-pr full INPUT_SUMMARY=false
if [ "$code" = 1 ] && [ ! -s "$last.summary" ]; then pass=$((pass + 1)); else fail "summary=false still wrote a summary"; fi
run block-pr full INPUT_FAIL_ON=blocker;  check "a bad fail-on is refused" 2 ""
run block-pr full PR_BASE_SHA= INPUT_BASE=main; check "the base input" 1 block

# Events without a pull request's base.
run block-pr full PR_BASE_SHA= PUSH_BEFORE=0000000000000000000000000000000000000000 DEFAULT_BRANCH=main
check "a new branch pushed: the merge base with the default branch" 1 block
grep -q "merge base with the default branch (main)" "$last.log" || fail "new branch: the log does not say which base"
run block-pr full PR_BASE_SHA= MERGE_GROUP_BASE_SHA="$base_sha"; check "merge_group: the queue's base" 1 block
grep -q "the merge queue's base" "$last.log" || fail "merge_group: the log does not say which base"
run block-pr full PR_BASE_SHA= DEFAULT_BRANCH=; check "workflow_dispatch: origin/HEAD names the default branch" 1 block
run review-pr full PR_BASE_SHA= DEFAULT_BRANCH=main INPUT_FAIL_ON=review; check "workflow_dispatch with the default branch" 1 require_review
run main full PR_BASE_SHA= DEFAULT_BRANCH=main; check "on the default branch itself: nothing to compare" 0 allow
run block-pr full PR_BASE_SHA= DEFAULT_BRANCH=no-such-branch; check "a default branch that cannot be fetched is an error" 2 ""

# working-directory: the review covers that folder only; the SARIF file is
# written where upload-sarif (run from the workspace) looks.
WD=sub run sub-pr full INPUT_SARIF=out/shipgate.sarif
if [ "$code" = 1 ] && [ -s "$last/out/shipgate.sarif" ] && grep -qx "sarif-file=$last/out/shipgate.sarif" "$last.output"; then
  pass=$((pass + 1))
else
  fail "working-directory sub: exit $code, output $(cat "$last.output")"
  sed 's/^/    /' "$last.log"
fi
grep -q "sub/.claude/settings.json" "$last/out/shipgate.sarif" || fail "working-directory sub: the SARIF lacks sub's finding"
WD=sub run outside-pr full
if [ "$code" = 0 ] && grep -qx "decision=allow" "$last.output"; then
  pass=$((pass + 1))
else
  fail "working-directory sub: a widening outside sub was reviewed (exit $code)"
  sed 's/^/    /' "$last.log"
fi

echo "$pass passed, $failures failed"
[ "$failures" = 0 ]
