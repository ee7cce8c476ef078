#!/usr/bin/env bash
# Installs dependencies, then runs every test: `bazel test //...` (Bazel 4.2.3 offline), then
# tools/check_reproducible_wheels.sh (both wheels built twice from clean output bases,
# compared byte for byte; counted as one more test; TVM_STACK_SKIP_REPRO=1 leaves it out of
# a quick local run). Extra arguments go to `bazel test` (e.g. --config=asan). Prints a
# closing line
#   N passed, N failed, N skipped
# and exits non-zero if anything failed or the build broke.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

"$ROOT/tools/install_deps.sh" || { echo "test_all: install_deps.sh failed" >&2; exit 1; }

# Debian's /usr/bin/bazel wrapper honours USE_BAZEL_VERSION over .bazelversion.
export USE_BAZEL_VERSION=4
PYTHON_BIN_PATH="${PYTHON_BIN_PATH:-$(python3 -c 'import sys; print(sys.executable)')}"
export PYTHON_BIN_PATH
BAZEL="${BAZEL:-bazel}"

# Every clone path gets its own server; don't leave it idling for 3 hours.
trap '"$BAZEL" shutdown >/dev/null 2>&1 || true' EXIT

# Local repositories (python, cuda, gtest, the reference wheel) are re-detected:
# install_deps.sh may just have installed something a running server has not seen.
"$BAZEL" sync --configure >/dev/null 2>&1 || true

log="$(mktemp)"
trap 'rm -f "$log"; "$BAZEL" shutdown >/dev/null 2>&1 || true' EXIT

GIT_REVISION="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
"$BAZEL" test --config=ci --keep_going --nocache_test_results \
  --define=TVM_GIT_REVISION="$GIT_REVISION" "$@" -- //... 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# Per-target summary lines, e.g.
#   //tests/x:y      PASSED in 0.3s | (cached) PASSED | FLAKY, failed in 1 out of 2
#   //tests/x:z      FAILED in 1.0s | FAILED TO BUILD | TIMEOUT | NO STATUS | SKIPPED
read -r passed failed skipped < <(awk '
  /^\/\/[^ ]+ +/ {
    s = $0; sub(/^\/\/[^ ]+ +/, "", s); sub(/^\(cached\) +/, "", s)
    if (s ~ /^(PASSED|FLAKY)/) p++
    else if (s ~ /^SKIPPED/) k++
    else if (s ~ /^(FAILED|TIMEOUT|NO STATUS|INCOMPLETE|REMOTE FAILURE)/) f++
  }
  END { printf "%d %d %d\n", p, f, k }' "$log")

if [[ $rc -ne 0 && $failed -eq 0 ]]; then
  echo "test_all: bazel test exited with $rc (build or analysis error, see above)" >&2
fi

if [[ "${TVM_STACK_SKIP_REPRO:-}" != "1" ]]; then
  echo "test_all: tools/check_reproducible_wheels.sh" >&2
  if "$ROOT/tools/check_reproducible_wheels.sh"; then
    echo "tools/check_reproducible_wheels.sh (not a Bazel target)    PASSED"
    passed=$((passed + 1))
  else
    echo "tools/check_reproducible_wheels.sh (not a Bazel target)    FAILED"
    failed=$((failed + 1))
  fi
fi
echo "$passed passed, $failed failed, $skipped skipped"
[[ $rc -eq 0 && $failed -eq 0 ]]
