"""How `Executable.export_library` links a module compiled for another CPU.

    lib = tvm.compile(f, target="llvm -mtriple=aarch64-linux-gnu")
    lib.export_library("k.so")   # aarch64-linux-gnu-gcc, against the aarch64 runtime

The compiler: `cc=` if given, else $TVM_CROSS_CC, else the Debian/Ubuntu cross gcc of the
triple's CPU (aarch64-linux-gnu-gcc, riscv64-linux-gnu-gcc, arm-linux-gnueabihf-gcc) on PATH.

The libraries: the exported .so is linked against libtvm_runtime.so and libtvm_ffi.so built
for the *target* CPU (the host's are the wrong machine). Name their folder(s) with
$TVM_CROSS_LIB_DIR (os.pathsep-separated) or with `-L<dir>` in `options=`; e.g. after
`bazel build --config=aarch64 //ffi:libtvm_ffi.so //runtime:libtvm_runtime.so`:

    TVM_CROSS_LIB_DIR=bazel-bin/ffi:bazel-bin/runtime
"""

import os
import shutil

# ELF e_machine values, by the CPU field of a target triple.
_EM = {"aarch64": 183, "riscv64": 243, "arm": 40, "x86_64": 62}

# The cross gcc Debian/Ubuntu packages install (gcc-<prefix>), by the CPU field.
_GCC = {
    "aarch64": "aarch64-linux-gnu-gcc",
    "riscv64": "riscv64-linux-gnu-gcc",
    "arm": "arm-linux-gnueabihf-gcc",
}

_APT = {
    "aarch64": "gcc-aarch64-linux-gnu",
    "riscv64": "gcc-riscv64-linux-gnu",
    "arm": "gcc-arm-linux-gnueabihf",
}


def cpu_of(triple):
    """'aarch64-unknown-linux-gnu' -> 'aarch64'; 'armv7a-...' -> 'arm'; 'arm64-...' -> 'aarch64'."""
    cpu = triple.split("-")[0]
    if cpu == "arm64":
        return "aarch64"
    if cpu.startswith("arm") or cpu.startswith("thumb"):
        return "arm"
    return cpu


def elf_machine(path):
    """e_machine of an ELF file, or None when it is not one."""
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")


def compiler(triple, cc=None):
    """The C compiler driver that links for `triple`."""
    cpu = cpu_of(triple)
    cc = cc or os.environ.get("TVM_CROSS_CC")
    if cc:
        return cc
    name = _GCC.get(cpu)
    found = shutil.which(name) if name else None
    if not found:
        hint = (" (apt-get install %s; tools/install_deps.sh installs the aarch64 one)" % _APT[cpu]
                if cpu in _APT else "")
        raise RuntimeError(
            "export_library: no cross compiler for %s: pass cc=... or set TVM_CROSS_CC%s"
            % (triple, (", or install " + name + hint) if name else ""))
    return found


def library_dirs(triple, options=None):
    """The folders holding the target CPU's libtvm_runtime.so/libtvm_ffi.so, from
    $TVM_CROSS_LIB_DIR; [] when `options` already has -L entries. Checks what it finds."""
    cpu = cpu_of(triple)
    if any(str(o).startswith("-L") for o in (options or [])):
        return []
    env = os.environ.get("TVM_CROSS_LIB_DIR", "")
    dirs = [d for d in env.split(os.pathsep) if d]
    if not dirs:
        raise RuntimeError(
            "export_library: a module for %s links against libtvm_runtime.so/libtvm_ffi.so "
            "built for %s: set TVM_CROSS_LIB_DIR to their folder(s) (%r-separated) or pass "
            "options=['-L<dir>'] (build them with `bazel build --config=%s "
            "//ffi:libtvm_ffi.so //runtime:libtvm_runtime.so`)" % (triple, cpu, os.pathsep, cpu))
    want = _EM.get(cpu)
    for name in ("libtvm_runtime.so", "libtvm_ffi.so"):
        hits = [os.path.join(d, name) for d in dirs if os.path.isfile(os.path.join(d, name))]
        if not hits:
            raise RuntimeError("export_library: %s is in none of TVM_CROSS_LIB_DIR=%s"
                               % (name, env))
        machine = elf_machine(hits[0])
        if want is not None and machine != want:
            raise RuntimeError("export_library: %s is built for ELF machine %s, not %s (%d)"
                               % (hits[0], machine, cpu, want))
    return dirs
