"""LLVM optimisation and object emission for one module of IR text, in this process or in a
worker process, so a large compile runs its parts on several cores at once (llvmlite holds
one lock around every LLVM call: threads would take turns).

It imports llvmlite only (not tvm), so a worker starts in a fraction of a second:

    python3 llvm_worker.py        # reads requests on stdin, answers on stdout, until EOF

A request is a JSON header line {"triple", "cpu", "features"} followed by the IR's byte
count on a line and the IR; the answer is two byte counts on a line, then the object file
and the optimised IR text; an error is a line "error <message>".
"""

import json
import sys


def _binding():
    import llvmlite.binding as binding

    return binding


def target_machine(triple, cpu, features):
    """An -O3 position-independent target machine (the same settings in every process)."""
    tgt = _binding().Target.from_triple(triple)
    return tgt.create_target_machine(cpu=cpu or "", features=features or "", opt=3,
                                     reloc="pic", codemodel="default")


def parse(ir, triple, tm):
    """An llvmlite module of IR text for `triple`, verified."""
    llmod = _binding().parse_assembly(ir)
    llmod.triple = triple
    llmod.data_layout = str(tm.target_data)
    llmod.verify()
    return llmod


def optimize(llmod, tm):
    """LLVM's -O3 module pipeline for the target machine `tm`."""
    binding = _binding()
    pto = binding.create_pipeline_tuning_options(speed_level=3)
    pb = binding.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(llmod, pb)


def compile_ir(ir, triple, tm):
    """(object bytes, optimised IR text, the optimised module) of IR text."""
    llmod = parse(ir, triple, tm)
    optimize(llmod, tm)
    return tm.emit_object(llmod), str(llmod), llmod


def _initialize():
    binding = _binding()
    for init in ("initialize_all_targets", "initialize_all_asmprinters"):
        getattr(binding, init)()


def _serve(inp, out):
    _initialize()
    while True:
        header = inp.readline()
        if not header:
            return
        try:
            req = json.loads(header)
            ir = inp.read(int(inp.readline())).decode()
            tm = target_machine(req["triple"], req.get("cpu"), req.get("features"))
            obj, text, _ = compile_ir(ir, req["triple"], tm)
            data = text.encode()
            out.write(b"%d %d\n" % (len(obj), len(data)) + obj + data)
        except Exception as err:  # noqa: BLE001 - any failure goes back to the caller, typed there
            out.write(("error %s\n" % str(err).replace("\n", " ")).encode())
        out.flush()


if __name__ == "__main__":
    _serve(sys.stdin.buffer, sys.stdout.buffer)
