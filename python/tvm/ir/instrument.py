"""tvm.ir.instrument: pass instruments (TVM's module of that name).

    timing = PassTimingInstrument()
    with tvm.transform.PassContext(instruments=[timing]):
        ex = relax.build(mod, "llvm")
        print(timing.render())         # before leaving the context: leaving it clears them

PassTimingInstrument times every pass run under the context that holds it; a pass run
inside another (a Sequential's passes) is that pass's child. `render()` writes one line per
pass, children indented by a tab under their parent, in the order they ran:

    name: <total>us [<self>us] (<% of all top-level passes>%; <% of the parent>%)

where self is the pass's time less its children's. As in TVM the profiles live per thread
(render is a static method and reads the current thread's), entering or leaving a context
that holds a timing instrument clears them, and render() with nothing profiled returns "".

Extensions of this stack (not in TVM):
  timed_phase(name)   a `with` block recorded like a pass named `name`, when a timing
                      instrument is active: relax.build and tvm.tir.build wrap their steps
                      that are not passes (VM codegen, LLVM IR generation, LLVM's optimisation
                      and object emission, linking) so one profile covers the whole build
  pass_profiles()     the current thread's profiles as data: [(name, seconds, children)]
"""

import contextlib
import threading
import time

from .transform import PassContext, PassInstrument

_STORE = threading.local()


class _Profile:
    __slots__ = ("name", "start", "seconds", "children")

    def __init__(self, name):
        self.name = name
        self.start = time.perf_counter()
        self.seconds = 0.0
        self.children = []


def _clear():
    _STORE.root = []
    _STORE.stack = []


def _roots():
    if not hasattr(_STORE, "root"):
        _clear()
    return _STORE.root


def _enter(name):
    _roots()
    prof = _Profile(str(name))
    (_STORE.stack[-1].children if _STORE.stack else _STORE.root).append(prof)
    _STORE.stack.append(prof)


def _exit():
    if getattr(_STORE, "stack", None):
        prof = _STORE.stack.pop()
        prof.seconds = time.perf_counter() - prof.start


class PassTimingInstrument(PassInstrument):
    """Times each pass (and each timed_phase) run under the PassContext that holds it."""

    def enter_pass_ctx(self):
        _clear()

    def exit_pass_ctx(self):
        _clear()

    def run_before_pass(self, mod, info):
        _enter(info.name)

    def run_after_pass(self, mod, info):
        _exit()

    @staticmethod
    def render():
        """The current thread's profiles as text (the format is in the module's doc)."""
        roots = _roots()
        if not roots:
            return ""
        total = sum(p.seconds for p in roots)
        lines = []

        def walk(prof, depth, parent):
            self_s = prof.seconds - sum(c.seconds for c in prof.children)
            lines.append("%s%s: %dus [%dus] (%.2f%%; %.2f%%)" % (
                "\t" * depth, prof.name, round(prof.seconds * 1e6), round(self_s * 1e6),
                _pct(prof.seconds, total), _pct(prof.seconds, parent)))
            for child in prof.children:
                walk(child, depth + 1, prof.seconds)
        for prof in roots:
            walk(prof, 0, total)
        return "\n".join(lines) + "\n"


def _pct(part, whole):
    return 100.0 * part / whole if whole > 0 else 0.0


def pass_profiles():
    """[(name, seconds, children)] of the current thread, children in the same form."""
    def data(prof):
        return (prof.name, prof.seconds, [data(c) for c in prof.children])
    return [data(p) for p in _roots()]


def _timing_active():
    return any(isinstance(inst, PassTimingInstrument) for inst in PassContext.current().instruments)


@contextlib.contextmanager
def timed_phase(name):
    """Records the block as a profile entry `name` when the current PassContext holds a
    PassTimingInstrument; otherwise does nothing."""
    if not _timing_active():
        yield
        return
    _enter(name)
    try:
        yield
    finally:
        _exit()
