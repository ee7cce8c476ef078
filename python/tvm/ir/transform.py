"""tvm.transform (also tvm.ir.transform): the pass infrastructure.

A Pass maps an IRModule to an IRModule. Module passes see the whole module; function passes
(tvm.tir.transform.prim_func_pass) run once per PrimFunc. Sequential runs passes in order.
Every pass runs under the current PassContext, which decides whether it runs (opt_level,
required/disabled lists), carries configuration (`config`) and calls instruments around
each pass:

    with tvm.transform.PassContext(opt_level=3, config={"tir.disable_vectorize": True},
                                   instruments=[PrintBeforeAll()]):
        mod = tvm.transform.Sequential([tvm.tir.transform.Simplify()])(mod)

The passes themselves are native functions of libtvm_compiler (`tir.transform.*`); this
module only orders and instruments them, so it costs one Python call per pass.
"""

import functools
import inspect
import threading

from . import IRModule

# Configuration keys the passes read, with their types (unknown keys are an error, as in TVM).
_CONFIG_KEYS = {
    "tir.disable_vectorize": bool,
}


def register_config(key, value_type):
    """Declares a PassContext config key (for passes defined outside this package)."""
    _CONFIG_KEYS[str(key)] = value_type


class PassInfo:
    """A pass's name, opt_level and the passes it requires."""

    def __init__(self, opt_level, name, required=None, traceable=False):
        self.opt_level = int(opt_level)
        self.name = str(name)
        self.required = list(required or [])
        self.traceable = bool(traceable)

    def __repr__(self):
        return "PassInfo(name=%r, opt_level=%d)" % (self.name, self.opt_level)


class PassInstrument:
    """Base of instruments: override any of the hooks."""

    def enter_pass_ctx(self):
        pass

    def exit_pass_ctx(self):
        pass

    def should_run(self, mod, info):
        return True

    def run_before_pass(self, mod, info):
        pass

    def run_after_pass(self, mod, info):
        pass


_STATE = threading.local()


class PassContext:
    """Settings for the passes run inside `with PassContext(...)` (per thread)."""

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, instruments=None,
                 config=None, trace=None):
        if not isinstance(opt_level, int) or not 0 <= opt_level <= 4:
            raise ValueError("PassContext: opt_level must be an int in 0..4, got %r" % (opt_level,))
        self.opt_level = opt_level
        self.required_pass = [str(p) for p in (required_pass or [])]
        self.disabled_pass = [str(p) for p in (disabled_pass or [])]
        self.instruments = list(instruments or [])
        self.config = {}
        for key, value in dict(config or {}).items():
            want = _CONFIG_KEYS.get(key)
            if want is None:
                raise AttributeError("PassContext: unknown config key %r (known: %s)"
                                     % (key, ", ".join(sorted(_CONFIG_KEYS))))
            if not isinstance(value, want):
                raise TypeError("PassContext: config %r expects %s, got %r"
                                % (key, want.__name__, type(value).__name__))
            self.config[key] = value

    @staticmethod
    def current():
        stack = getattr(_STATE, "stack", None)
        if not stack:
            _STATE.stack = stack = [PassContext()]
        return stack[-1]

    def __enter__(self):
        if not hasattr(_STATE, "stack"):
            _STATE.stack = [PassContext()]
        _STATE.stack.append(self)
        for inst in self.instruments:
            inst.enter_pass_ctx()
        return self

    def __exit__(self, *exc):
        for inst in self.instruments:
            inst.exit_pass_ctx()
        _STATE.stack.pop()
        return False

    def override_instruments(self, instruments):
        for inst in self.instruments:
            inst.exit_pass_ctx()
        self.instruments = list(instruments or [])
        for inst in self.instruments:
            inst.enter_pass_ctx()

    def _enabled(self, info):
        if info.name in self.disabled_pass:
            return False
        if info.name in self.required_pass:
            return True
        return self.opt_level >= info.opt_level


class Pass:
    """An IRModule -> IRModule transformation. Call it on a module."""

    info = None

    def __call__(self, mod):
        if not isinstance(mod, IRModule):
            raise TypeError("%s: a pass takes an IRModule, got %r" % (self.info.name, type(mod).__name__))
        ctx = PassContext.current()
        if not ctx._enabled(self.info):
            return mod
        if not all(inst.should_run(mod, self.info) for inst in ctx.instruments):
            return mod
        for inst in ctx.instruments:
            inst.run_before_pass(mod, self.info)
        out = self._apply(mod, ctx)
        if not isinstance(out, IRModule):
            raise TypeError("pass %s returned %r, not an IRModule" % (self.info.name, type(out).__name__))
        for inst in ctx.instruments:
            inst.run_after_pass(out, self.info)
        return out

    def _apply(self, mod, ctx):
        raise NotImplementedError

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, self.info.name)


class ModulePass(Pass):
    def __init__(self, fn, info):
        self._fn = fn
        self.info = info

    def _apply(self, mod, ctx):
        return self._fn(mod, ctx)


class FunctionPass(Pass):
    """Runs `fn(func, mod, ctx)` on every function of the module (a PrimFunc pass)."""

    def __init__(self, fn, info):
        self._fn = fn
        self.info = info

    def _apply(self, mod, ctx):
        funcs = {}
        for name, func in mod.functions.items():
            out = self._fn(func, mod, ctx)
            if out is not None:  # None drops the function, as in TVM
                funcs[str(name)] = out
        return IRModule(funcs)


class Sequential(Pass):
    """Runs `passes` in order (a Sequential is itself a pass: it nests)."""

    def __init__(self, passes=None, opt_level=0, name="sequential", required=None, traceable=False):
        self.passes = list(passes or [])
        for p in self.passes:
            if not isinstance(p, Pass):
                raise TypeError("Sequential: %r is not a Pass" % (p,))
        self.info = PassInfo(opt_level, name, required, traceable)

    def _apply(self, mod, ctx):
        for p in self.passes:
            mod = p(mod)
        return mod


def _make_decorator(kind, pass_func, opt_level, name, required, traceable):
    if opt_level is None:
        raise TypeError("please set opt_level for the pass")

    def create(fn):
        if inspect.isclass(fn):
            @functools.wraps(fn)
            def make(*args, **kwargs):
                inst = fn(*args, **kwargs)
                call = inst.transform_module if kind is ModulePass else inst.transform_function
                return kind(call, PassInfo(opt_level, name or fn.__name__, required, traceable))
            return make
        return kind(fn, PassInfo(opt_level, name or fn.__name__, required, traceable))

    return create(pass_func) if pass_func is not None else create


def module_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Decorates `fn(mod, ctx) -> mod` (or a class with transform_module) as a ModulePass."""
    return _make_decorator(ModulePass, pass_func, opt_level, name, required, traceable)


def function_pass(pass_func=None, opt_level=None, name=None, required=None, traceable=False):
    """Decorates `fn(func, mod, ctx) -> func` (or a class with transform_function)."""
    return _make_decorator(FunctionPass, pass_func, opt_level, name, required, traceable)


def PrintIR(header="", show_meta_data=False):  # noqa: N802 (TVM's name)
    """A pass that prints the module and returns it unchanged."""

    def fn(mod, ctx):
        print(header, mod, sep="\n" if header else "")
        return mod
    return ModulePass(fn, PassInfo(0, "PrintIR"))
