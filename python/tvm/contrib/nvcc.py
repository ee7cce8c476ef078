"""Compiling CUDA C source to a cubin, PTX or fatbin, as TVM's tvm.contrib.nvcc does.

    cubin = tvm.contrib.nvcc.compile_cuda(src, target_format="cubin", arch="sm_90")

Two compilers: NVRTC through cuda-bindings (`compiler="nvrtc"`, no toolkit needed: the
nvidia-cuda-nvrtc wheel brings the library) and nvcc (`compiler="nvcc"`, from $CUDA_HOME/bin,
/usr/local/cuda*/bin or PATH). The default is $TVM_CUDA_COMPILE_MODE, else nvrtc when
cuda-bindings is installed, else nvcc. Neither needs a GPU or a driver.
"""

import glob
import os
import shutil
import subprocess
import tempfile

_FORMATS = ("cubin", "ptx", "fatbin")


def _arch_number(arch):
    if not (isinstance(arch, str) and arch.startswith("sm_") and arch[3:].rstrip("a").isdigit()):
        raise ValueError("compile_cuda: arch must look like sm_90 (got %r)" % (arch,))
    return arch[3:]


def find_nvcc():
    """Path of nvcc, or None."""
    for root in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"] + \
            sorted(glob.glob("/usr/local/cuda-*"), reverse=True):
        if root and os.path.isfile(os.path.join(root, "bin", "nvcc")):
            return os.path.join(root, "bin", "nvcc")
    return shutil.which("nvcc")


def _default_compiler():
    mode = os.environ.get("TVM_CUDA_COMPILE_MODE", "").strip().lower()
    if mode:
        return mode
    try:
        import cuda.bindings.nvrtc  # noqa: F401
        return "nvrtc"
    except ImportError:
        return "nvcc"


def _nvrtc(code, target_format, arch, options):
    try:
        from cuda.bindings import nvrtc
    except ImportError as err:
        raise RuntimeError("compile_cuda: NVRTC needs the cuda-bindings and nvidia-cuda-nvrtc "
                           "packages (pip install cuda-bindings nvidia-cuda-nvrtc)") from err
    if target_format == "fatbin":
        raise ValueError("compile_cuda: NVRTC makes cubin or ptx, not fatbin (use compiler='nvcc')")

    def check(result, what, prog=None):
        err = result[0]
        if int(err) == 0:
            return result[1:]
        log = ""
        if prog is not None:
            _, size = nvrtc.nvrtcGetProgramLogSize(prog)
            buf = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, buf)
            log = buf.decode(errors="replace").rstrip("\x00 \n")
        raise RuntimeError("NVRTC %s failed (%s)%s" % (what, err, ":\n" + log if log else ""))

    (prog,) = check(nvrtc.nvrtcCreateProgram(code.encode(), b"tvm_kernels.cu", 0, [], []), "create")
    try:
        num = _arch_number(arch)
        gpu = ("sm_" if target_format == "cubin" else "compute_") + num
        opts = [("--gpu-architecture=" + gpu).encode(), b"-default-device", b"--std=c++17"]
        opts += [o.encode() for o in (options or [])]
        check(nvrtc.nvrtcCompileProgram(prog, len(opts), opts), "compile", prog)
        if target_format == "cubin":
            (size,) = check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
            buf = b" " * size
            check(nvrtc.nvrtcGetCUBIN(prog, buf), "cubin")
        else:
            (size,) = check(nvrtc.nvrtcGetPTXSize(prog), "ptx size")
            buf = b" " * size
            check(nvrtc.nvrtcGetPTX(prog, buf), "ptx")
            buf = buf.rstrip(b"\x00")
        return bytes(buf)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _nvcc(code, target_format, arch, options):
    nvcc = find_nvcc()
    if nvcc is None:
        raise RuntimeError("compile_cuda: nvcc not found (set CUDA_HOME, or use compiler='nvrtc')")
    num = _arch_number(arch)
    with tempfile.TemporaryDirectory(prefix="tvm_nvcc_") as tmp:
        src = os.path.join(tmp, "k.cu")
        out = os.path.join(tmp, "k." + target_format)
        with open(src, "w") as f:
            f.write(code)
        cmd = [nvcc, "--" + target_format, "-O3", "-std=c++17"]
        if target_format == "ptx":
            cmd += ["-arch=compute_" + num]
        else:
            cmd += ["-gencode", "arch=compute_%s,code=sm_%s" % (num, num)]
        cmd += list(options or []) + ["-o", out, src]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError("nvcc failed:\n%s\n%s" % (" ".join(cmd), proc.stderr))
        with open(out, "rb") as f:
            return f.read()


def compile_cuda(code, target_format="ptx", arch=None, options=None, path_target=None,
                 compiler=None):
    """CUDA C `code` -> bytes of `target_format` ("cubin", "ptx" or "fatbin") for `arch`
    ("sm_90"; default sm_80). `path_target`, when given, also receives the bytes."""
    if target_format not in _FORMATS:
        raise ValueError("compile_cuda: target_format must be one of %s" % (_FORMATS,))
    arch = arch or "sm_80"
    compiler = (compiler or _default_compiler()).lower()
    if compiler == "nvrtc":
        data = _nvrtc(code, target_format, arch, options)
    elif compiler == "nvcc":
        data = _nvcc(code, target_format, arch, options)
    else:
        raise ValueError("compile_cuda: compiler must be 'nvrtc' or 'nvcc' (got %r)" % compiler)
    if path_target:
        with open(path_target, "wb") as f:
            f.write(data)
    return data
