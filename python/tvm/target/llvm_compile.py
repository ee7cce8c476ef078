"""One module of LLVM IR text parsed, optimised (-O3) and emitted as an object by llvmlite.

llvmlite serialises every call into LLVM on one process-wide lock, so threads calling it take
turns. LLVM itself compiles modules of separate LLVMContexts at once (a context and what it
owns are used by one thread at a time; target machines are per thread too: codegen resets
their options per function). `compile_isolated` does that: a context, a target machine and a
pass builder of its own, and its four long calls (parse, verify, the -O3 pipeline, emit, print)
made on llvmlite's ctypes functions directly, without the lock. Only those calls go around
the lock: they are single foreign calls (no Python runs inside them, so no finalizer of
another thread's llvmlite object can run unlocked), on objects no other thread holds. The
cheap calls (creating and disposing the objects) keep llvmlite's lock.

    obj, text = compile_isolated(ir, (triple, cpu, features))   # any thread, at once

`parse` and `optimize` work in llvmlite's global context under its lock (one at a time),
for callers that keep the module (llvm_backend.compile_here: assembly, JIT).
"""

import ctypes


def _binding():
    import llvmlite.binding as binding

    return binding


def target_machine(triple, cpu, features):
    """An -O3 position-independent target machine (the same settings for every build)."""
    tgt = _binding().Target.from_triple(triple)
    return tgt.create_target_machine(cpu=cpu or "", features=features or "", opt=3,
                                     reloc="pic", codemodel="default")


def parse(ir, triple, tm):
    """An llvmlite module of IR text for `triple` (global context), verified."""
    llmod = _binding().parse_assembly(ir)
    llmod.triple = triple
    llmod.data_layout = str(tm.target_data)
    llmod.verify()
    return llmod


def optimize(llmod, tm, unlocked=False):
    """LLVM's -O3 module pipeline for the target machine `tm`; with `unlocked` its run goes
    around llvmlite's lock (compile_isolated). The pass objects are closed before the module
    can be (their analysis caches point into it)."""
    binding = _binding()
    pto = binding.create_pipeline_tuning_options(speed_level=3)
    pb = binding.create_pass_builder(tm, pto)
    mpm = pb.getModulePassManager()
    try:
        if unlocked:
            _unlocked("LLVMPY_RunNewModulePassManager")(mpm, llmod, pb)
        else:
            mpm.run(llmod, pb)
    finally:
        mpm.close()
        pb.close()
        pto.close()


def _unlocked(name):
    """llvmlite's ctypes function `name` without its lock wrapper. (llvmlite 0.50, pinned,
    wraps each in an object holding it as `_cfn`; a version without one gets the locked
    wrapper: still correct, the threads then take turns.)"""
    fn = getattr(_binding().ffi.lib, name)
    return getattr(fn, "_cfn", fn)


def _checked(call, *args):
    """call(*args, errmsg) of an LLVMPY function reporting failure in an output string:
    (its result, the message or "")."""
    with _binding().ffi.OutputString() as err:
        result = call(*args, err)
        return result, str(err) if err else ""


def compile_isolated(ir, settings):
    """(object bytes, optimised IR text) of IR text for settings = (triple, cpu, features), in
    an LLVM context and target machine of its own: safe to run in several threads at once,
    beside any other llvmlite use. Raises RuntimeError on IR that does not parse or verify."""
    binding = _binding()
    triple, cpu, features = settings
    tm = target_machine(triple, cpu, features)
    ctx = binding.create_context()
    try:
        ptr, err = _checked(_unlocked("LLVMPY_ParseAssembly"), ctx, ctypes.c_char_p(ir.encode()))
        llmod = binding.ModuleRef(ptr, ctx)
        try:
            if err:
                raise RuntimeError("LLVM IR parsing error\n" + err)
            llmod.triple = triple
            llmod.data_layout = str(tm.target_data)
            failed, err = _checked(_unlocked("LLVMPY_VerifyModule"), llmod)
            if failed:
                raise RuntimeError(err)
            optimize(llmod, tm, unlocked=True)
            return _emit_object(tm, llmod), _module_text(llmod)
        finally:
            llmod.close()  # before its context
    finally:
        ctx.close()


def _emit_object(tm, llmod):
    lib = _binding().ffi.lib
    buf, err = _checked(_unlocked("LLVMPY_TargetMachineEmitToMemory"), tm, llmod, 1)
    if not buf:
        raise RuntimeError(err)
    try:
        return ctypes.string_at(lib.LLVMPY_GetBufferStart(buf), lib.LLVMPY_GetBufferSize(buf))
    finally:
        lib.LLVMPY_DisposeMemoryBuffer(buf)


def _module_text(llmod):
    with _binding().ffi.OutputString() as out:
        _unlocked("LLVMPY_PrintModuleToString")(llmod, out)
        return str(out)
