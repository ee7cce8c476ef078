"""KillAfterLastUse (TVM's pass): right after the last binding that reads a value, the VM drops
its reference, so a tensor goes back to the allocator's pool for the next allocation while
the function still runs (values are reference counted: a tuple or a later alias keeps what it
still needs).

    R.memory.kill_tensor(t)    after the last use of a tensor from R.memory.alloc_tensor
    R.memory.kill_storage(s)   after the last use of a storage from R.memory.alloc_storage
    R.vm.kill_object(v)        after the last use of any other bound value

Parameters and the values the function returns are never killed; a value never read is
killed right after its binding; values a kill already names are left alone (the pass can run
twice)."""

from .. import expr as _expr
from ..analysis import free_vars, function_bindings, function_result
from ..expr_functor import ExprMutator, module_pass
from ..op import memory, vm
from .lowering_common import is_void, op_name

KILLS = ("relax.memory.kill_tensor", "relax.memory.kill_storage", "relax.vm.kill_object")


class _KillAfterLastUse(ExprMutator):
    def enter_function(self, name, func):
        # each field read is an FFI call and a new wrapper: every binding's var, value and
        # operator are read once here
        killed, last, self.made_by = set(), {}, {}
        for i, b in enumerate(function_bindings(func)):
            var, value = b.var, b.value
            op = op_name(value)
            self.made_by[var] = op
            if not is_void(var.struct_info):
                last[var] = i
            if op in KILLS:
                killed.add(value.args[0])
                continue
            for v in free_vars(value):
                if v in last:
                    last[v] = i
        for v in free_vars(function_result(func)):
            last.pop(v, None)
        self.kills = {}
        for v, i in last.items():
            if v not in killed:
                self.kills.setdefault(i, []).append(v)
        self.index = 0

    def visit_binding(self, b):
        super().visit_binding(b)
        for v in self.kills.get(self.index, ()):
            new = self.visit_expr(v)
            kind = self.made_by.get(v)
            if kind == "relax.memory.alloc_tensor":
                kill = memory.kill_tensor(new)
            elif kind == "relax.memory.alloc_storage":
                kill = memory.kill_storage(new)
            else:
                kill = vm.kill_object(new)
            self.builder_.emit(kill, self.builder_._name("_"))
        self.index += 1


def KillAfterLastUse():  # noqa: N802 - TVM's pass name
    return module_pass(_KillAfterLastUse, "relax.KillAfterLastUse")
