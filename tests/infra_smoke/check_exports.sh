#!/bin/bash
# Checks the ELF contract of libraries built by tvm_shared_library / tvm_module_library:
# exported symbols, SONAME, NEEDED, RUNPATH.
# Usage: check_exports.sh CORE_SO PLUGIN_SO MODULE_SO
set -euo pipefail

core=$1 plugin=$2 module=$3
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

# Defined dynamic symbols, without version-node entries (type A, e.g. INFRA_SMOKE_CORE_0.1)
# and the ELF/linker bookkeeping symbols.
defined() {
  nm -D --defined-only "$1" | awk '$2 != "A" {print $3}' | sed 's/@.*//' \
    | grep -vE '^(_init|_fini|_edata|_end|__bss_start)$' || true
}
dyn() { readelf -d "$1"; }

check_exports() {  # so prefix
  local bad
  bad=$(defined "$1" | grep -v "^$2" || true)
  [[ -z "$bad" ]] || err "$(basename "$1") exports symbols outside $2*: $bad"
  [[ -n "$(defined "$1" | grep "^$2" || true)" ]] || err "$(basename "$1") exports no $2* symbol"
}

check_exports "$core" smoke_core_
check_exports "$plugin" smoke_plugin_

dyn "$core" | grep -q 'Library soname: \[libinfra_smoke_core.so\]' || err "core SONAME"
dyn "$plugin" | grep -q 'Library soname: \[libinfra_smoke_plugin.so\]' || err "plugin SONAME"
dyn "$plugin" | grep -q 'Shared library: \[libinfra_smoke_core.so\]' || err "plugin does not NEED core"
dyn "$module" | grep -q 'Shared library: \[libinfra_smoke_core.so\]' || err "module does not NEED core"
for so in "$core" "$plugin" "$module"; do
  dyn "$so" | grep -E 'RUNPATH' | grep -qF '$ORIGIN' || err "$(basename "$so") has no \$ORIGIN RUNPATH"
done
# No static copy of the core in the plugin or the module.
for so in "$plugin" "$module"; do
  if defined "$so" | grep -q '^smoke_core_'; then err "$(basename "$so") defines smoke_core_*"; fi
  nm -D --undefined-only "$so" | grep -q 'smoke_core_' || err "$(basename "$so") does not import smoke_core_*"
done

if [[ $fail -ne 0 ]]; then
  for so in "$core" "$plugin" "$module"; do echo "== $so"; nm -D --defined-only "$so"; dyn "$so"; done
  exit 1
fi
echo "exports OK"
