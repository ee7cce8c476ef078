"""Calling the system C compiler: shared libraries, executables, cross compilers (TVM's
tvm.contrib.cc).

    tvm.contrib.cc.create_shared("k.so", ["k.o"])
    fcompile = tvm.contrib.cc.cross_compiler("aarch64-linux-gnu-gcc")
    exe.export_library("k.so", fcompile=fcompile)

An `fcompile` is called as fcompile(output, files, options=None, cc=None, ...) by
Executable.export_library; `output_format` (the file suffix it makes) and `get_target_triple`
(a function giving the triple it compiles for) may be attributes of it.
"""

import os
import shutil
import subprocess


def get_cc():
    """The default C compiler: $CXX / $CC, else g++ / gcc / cc on PATH."""
    for var in ("CXX", "CC"):
        if os.environ.get(var):
            return os.environ[var]
    for name in ("g++", "gcc", "cc", "clang"):
        if shutil.which(name):
            return name
    return None


def _as_list(items):
    if items is None:
        return []
    if isinstance(items, (str, os.PathLike)):
        return [os.fspath(items)]
    return [os.fspath(x) if isinstance(x, os.PathLike) else x for x in items]


def _run(cmd, cwd=None, ccache_env=None, what="compile"):
    env = None
    if ccache_env is not None:
        if not shutil.which("ccache"):
            raise RuntimeError("cc: ccache_env is given but ccache is not on PATH")
        cmd = ["ccache"] + cmd
        env = dict(os.environ, **ccache_env)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("%s failed:\n%s\n%s%s" % (what, " ".join(cmd), proc.stdout,
                                                      proc.stderr))
    return proc


def _compile(output, objects, options, cc, cwd, ccache_env, shared):
    cc = cc or get_cc()
    if not cc:
        raise RuntimeError("cc: no C compiler found (set CC or install gcc)")
    cmd = [cc]
    if shared:
        cmd += ["-shared", "-fPIC"]
    cmd += ["-o", os.fspath(output)] + _as_list(objects) + _as_list(options)
    _run(cmd, cwd, ccache_env, "%s %s" % ("linking" if shared else "building", output))
    return output


def create_shared(output, objects, options=None, cc=None, cwd=None, ccache_env=None):
    """Links `objects` (object files, C sources, ...) into the shared library `output`.

    Undefined symbols are allowed (the default of every ELF linker): a kernel library's calls
    into libtvm_ffi/libtvm_runtime resolve when it is loaded into a process that has them,
    unless `options` names the libraries (-L<dir> -ltvm_ffi ...)."""
    return _compile(output, objects, options, cc, cwd, ccache_env, shared=True)


create_shared.output_format = "so"


def create_executable(output, objects, options=None, cc=None, cwd=None, ccache_env=None):
    """Compiles and links `objects` into the program `output`."""
    return _compile(output, objects, options, cc, cwd, ccache_env, shared=False)


create_executable.output_format = "out"


def create_staticlib(output, inputs, ar=None):
    """An archive (`ar rcs`) of the object files `inputs`."""
    ar = ar or os.environ.get("AR") or "ar"
    _run([ar, "rcs", os.fspath(output)] + _as_list(inputs), what="archiving %s" % output)
    return output


create_staticlib.output_format = "a"


def get_target_by_dump_machine(compiler):
    """A function giving the triple `compiler -dumpmachine` prints (None when it fails)."""
    def get_target_triple():
        try:
            proc = subprocess.run([compiler, "-dumpmachine"], capture_output=True, text=True)
        except OSError:
            return None
        return proc.stdout.strip() if proc.returncode == 0 else None
    return get_target_triple


def cross_compiler(compile_func, options=None, output_format=None, get_target_triple=None,
                   add_files=None):
    """An fcompile that calls `compile_func` with `options` (and `add_files`) added.

    `compile_func` is an fcompile, or the name of a compiler ("aarch64-linux-gnu-gcc"), which
    means create_shared with that `cc`. The result carries `output_format` (default: that of
    compile_func, else "so") and `get_target_triple` (default: `compiler -dumpmachine` for a
    compiler name)."""
    base_options = _as_list(options)
    extra_files = _as_list(add_files)
    if isinstance(compile_func, str):
        name = compile_func
        if get_target_triple is None:
            get_target_triple = get_target_by_dump_machine(name)

        def compile_func(outputs, objects, options=None, cc=None, **kwargs):  # noqa: F811
            return create_shared(outputs, objects, options, cc=name, **kwargs)
        compile_func.output_format = "so"

    def _fcompile(outputs, objects, options=None, **kwargs):
        all_options = base_options + _as_list(options)
        kwargs.pop("cc", None)  # the cross compiler decides the compiler
        return compile_func(outputs, _as_list(objects) + extra_files, options=all_options,
                            **kwargs)

    _fcompile.output_format = output_format or getattr(compile_func, "output_format", "so")
    _fcompile.get_target_triple = get_target_triple or getattr(compile_func, "get_target_triple",
                                                               None)
    return _fcompile
