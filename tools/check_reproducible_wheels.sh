#!/usr/bin/env bash
# Builds both wheels twice, each time in its own copy of the source tree (different folders,
# different depths) with a clean output base and no caches, and compares the sha256 of the
# wheels and of the shared libraries. Exits 1 when any byte differs.
#
#   tools/check_reproducible_wheels.sh [--keep]
#
# The copies hold what git would commit now (tracked and untracked, not ignored files), so a
# dirty tree is checked as it is. Both builds get the same git revision stamp (HEAD's).
# --keep leaves the work folder (its path is printed) for a closer look, e.g. with diffoscope.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KEEP=0
[[ "${1:-}" == "--keep" ]] && KEEP=1
export USE_BAZEL_VERSION="${USE_BAZEL_VERSION:-4}"
REV="$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tvm-repro.XXXXXX")"
TREES=("$WORK/a/tvm_stack" "$WORK/b/deeper/checkout")
LIBS=(ffi/libtvm_ffi.so runtime/libtvm_runtime.so compiler/libtvm_compiler.so)

log() { echo "check_reproducible_wheels: $*" >&2; }

cleanup() {
  for i in 0 1; do
    if [[ -d "${TREES[$i]}" ]]; then
      (cd "${TREES[$i]}" && bazel --output_base="$WORK/ob$i" shutdown >/dev/null 2>&1) || true
    fi
  done
  if ((KEEP)); then
    log "kept $WORK"
  else
    chmod -R u+w "$WORK" 2>/dev/null || true
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

# One snapshot of the tree, copied to both places before either build starts.
mkdir -p "${TREES[0]}" "${TREES[1]}"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
  | xargs -0 -I{} sh -c '[ -e "$1" ] && printf "%s\0" "$1" || true' _ {} \
  | tar --null -T - -cf -) | tar -xf - -C "${TREES[0]}"
cp -a "${TREES[0]}/." "${TREES[1]}/"

for i in 0 1; do
  tree="${TREES[$i]}"
  log "build $((i + 1))/2 in $tree (output base $WORK/ob$i)"
  start=$SECONDS
  (cd "$tree" && bazel --output_base="$WORK/ob$i" build -c opt --config=ci --disk_cache= \
      --define=TVM_GIT_REVISION="$REV" //wheels:wheels >"$WORK/build$i.log" 2>&1) || {
    tail -30 "$WORK/build$i.log" >&2
    exit 1
  }
  log "build $((i + 1))/2 took $((SECONDS - start)) s"
done

status=0
printf '%-64s  %-10s  %s\n' "sha256 (build 1)" "bytes" "file" >&2
for rel in wheels/full_wheel wheels/runtime_wheel "${LIBS[@]}"; do
  for f in $(cd "${TREES[0]}/bazel-bin" && find "$rel" -type f | sort); do
    a="$(sha256sum "${TREES[0]}/bazel-bin/$f" | cut -d' ' -f1)"
    b="$(sha256sum "${TREES[1]}/bazel-bin/$f" 2>/dev/null | cut -d' ' -f1 || echo missing)"
    printf '%-64s  %-10s  %s\n' "$a" "$(stat -c %s "${TREES[0]}/bazel-bin/$f")" "$f" >&2
    if [[ "$a" != "$b" ]]; then
      log "DIFFERS: $f (build 2: $b)"
      status=1
    fi
  done
done
if ((status)); then
  log "FAILED: the two builds differ"
else
  log "OK: both wheels and all libraries are byte-identical across the two builds"
fi
exit $status
