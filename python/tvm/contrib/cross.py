"""The toolchain for a module compiled for another CPU ("llvm -mtriple=aarch64-linux-gnu").

    exe = tvm.compile(f, target="llvm -mtriple=aarch64-linux-gnu")
    exe.export_library("k.so")       # the triple's cross gcc, found on PATH

The compiler: `cc=` if given, else $TVM_CROSS_CC, else the Debian/Ubuntu cross gcc of the
triple's CPU (aarch64-linux-gnu-gcc, riscv64-linux-gnu-gcc, arm-linux-gnueabihf-gcc).

The libraries: a cross-compiled library is linked WITHOUT libtvm_runtime/libtvm_ffi (as TVM's
are): their symbols resolve when the target's process, which has loaded the runtime, loads it.
To link them anyway, name the target CPU's builds with $TVM_CROSS_LIB_DIR (os.pathsep-
separated) or `-L<dir>` in `options=`; e.g. after `bazel build --config=aarch64
//ffi:libtvm_ffi.so //runtime:libtvm_runtime.so`: TVM_CROSS_LIB_DIR=bazel-bin/ffi:bazel-bin/runtime
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
    return elf_machine_of_bytes(head)


def elf_machine_of_bytes(head):
    """e_machine of ELF bytes (the first 20 suffice), or None when they are not ELF."""
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
            "export_library: no cross compiler for %s: pass cc=... or fcompile=tvm.contrib.cc."
            "cross_compiler(...), or set TVM_CROSS_CC%s"
            % (triple, (", or install " + name + hint) if name else ""))
    return found


def library_dirs(triple, options=None):
    """The folders holding the target CPU's libtvm_runtime.so/libtvm_ffi.so to link against,
    from $TVM_CROSS_LIB_DIR (checked: both files there, built for the triple's CPU); [] when
    it is unset (link without them) or `options` has its own -L entries."""
    cpu = cpu_of(triple)
    if any(str(o).startswith("-L") for o in (options or [])):
        return []
    env = os.environ.get("TVM_CROSS_LIB_DIR", "")
    dirs = [d for d in env.split(os.pathsep) if d]
    if not dirs:
        return []
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


def links_runtime(options):
    """True when `options` (the user's link options) name a -L folder: the libraries are then
    linked (-ltvm_runtime -ltvm_ffi)."""
    return any(str(o).startswith("-L") for o in (options or []))
