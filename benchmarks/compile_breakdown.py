"""A build's time by phase, from tvm.ir.instrument's pass profiles (model_bench.py prints it
per model):

    from tvm.ir.instrument import PassTimingInstrument, pass_profiles, timed_phase
    with tvm.transform.PassContext(instruments=[PassTimingInstrument()]):
        with timed_phase("relax.frontend.from_onnx"):
            mod = from_onnx(model)
        relax.build(mod, "llvm")
        phases = self_times(pass_profiles())
    print(format_breakdown(phases))

Every profile entry's *self* time (its time less its children's) goes to one group, by name,
so the groups add up to the whole build: import; the Relax passes (LegalizeOps and
DefaultSchedule, the schedules, on lines of their own); VM codegen; the TIR passes; LLVM IR
generation (codegen.LLVMText); LLVM (parse, optimise, emit the object, print the optimised
IR, wait for the parts' threads, join them); linking and loading the library; creating
the VM (model_bench.py times it as "relax.VirtualMachine"); and the glue between them (the
pipelines' and builders' own Python).
"""

# (group, names or name prefixes; the first group that matches takes the entry)
GROUPS = [
    ("import", ("relax.frontend.",)),
    ("legalize", ("relax.LegalizeOps",)),
    ("schedule", ("relax.DefaultSchedule",)),
    ("VM codegen", ("relax.VMCodeGen",)),
    ("VM creation", ("relax.VirtualMachine",)),
    ("glue", ("relax.cpu_generic", "relax.vm_lowering", "tir.build", "tir.default",
              "tir.finalize_host", "codegen.build")),
    ("other Relax passes", ("relax.",)),
    ("TIR passes", ("tir.",)),
    ("LLVM IR generation", ("codegen.LLVMText",)),
    ("LLVM optimize + emit", ("llvm.",)),
    ("link + load", ("link.",)),
]


def self_times(profiles):
    """{name: seconds of self time, summed over every entry of that name} of pass_profiles()."""
    out = {}

    def walk(name, seconds, children):
        out[name] = out.get(name, 0.0) + seconds - sum(c[1] for c in children)
        for child in children:
            walk(*child)
    for prof in profiles:
        walk(*prof)
    return out


def group_of(name):
    for group, keys in GROUPS:
        if any(name == k or (k.endswith(".") and name.startswith(k)) or name.startswith(k + " ")
               for k in keys):
            return group
    return "glue"


def grouped(phases):
    """[(group, seconds, [(name, seconds), ...] slowest first)] in GROUPS order, empty groups
    left out."""
    out = []
    for group, _ in GROUPS:
        names = sorted(((n, s) for n, s in phases.items() if group_of(n) == group), key=lambda x: -x[1])
        if names:
            out.append((group, sum(s for _, s in names), names))
    return out


def format_breakdown(phases, detail=4, indent="  "):
    """Lines: each group's seconds and share, with its `detail` slowest entries."""
    total = sum(phases.values()) or 1.0
    lines = []
    for group, seconds, names in grouped(phases):
        short = group not in ("glue",)  # the glue's names repeat after the dot (tir.build, codegen.build)
        parts = ", ".join("%s %.2f" % (n.split(".", 1)[-1] if short else n, s)
                          for n, s in names[:detail] if len(names) > 1)
        lines.append("%s%-22s %6.2f s %4.0f%%  %s" % (indent, group, seconds, 100 * seconds / total, parts))
    return "\n".join(lines)
