"""tvm.tir: the tensor-level IR (nodes live in libtvm_compiler)."""

from .._compiler_guard import require_compiler

require_compiler("tvm.tir")

from .expr import (Add, Allocate, And, AssertStmt, Block, BlockRealize, Broadcast, Buffer, BufferRegion, BufferLoad, BufferStore, Call, Cast,
                   Div, EQ, Evaluate, FloatImm, FloorDiv, FloorMod, For, ForKind, GE, GT,
                   IfThenElse, IntImm, IterVar, LE, LT, Let, LetStmt, Max, Min, Mod, Mul, NE, Not,
                   Or, PrimExpr, PrimFunc, Ramp, Range, Reduce, Select, SeqStmt, Stmt, StringImm, Sub,
                   Var, const, convert, decl_buffer)
from .op import (abs, all, any, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cast, ceil, cos, div, erf, exp, exp2, floor, floordiv, floormod,
                 if_then_else, log, log2, log10, max, max_value, min, min_value, pow, round,
                 shift_left, shift_right, sigmoid, sin, sqrt, tan, tanh, trunc, truncdiv, truncmod)
from .schedule import BlockRV, LoopRV, Schedule, ScheduleError, Trace
from . import transform
from . import pipeline
from .build import build
from .pipeline import get_default_tir_pipeline, get_tir_pipeline
