"""When `scalarize-vectors` splits a function: where measurement says LLVM's loop
vectoriser then widens the work-item loop profitably.

Measured on the cpu (new/old kernel time, benchmarks/cases_vector.py and
variants): splitting wins big where each work-item loads and stores its own
consecutive vectors (`p[i]`, `vload4(i, x)`, `src[y * w + x]`) and computes on
them (float2 rotate 0.3, complex polynomial 0.06, RGBA blur 0.8-0.9), and in
kernels with barriers whose region loops vectorise (a float4 `__local` tile
with halo stores, 0.3), is neutral for a float4 n-body, and loses where the
vectors are gathered (`in[idx[i]]`, `tile[(l + 1) % T]`: every element becomes
its own gather, 1.3-1.9).

So a function is split when every vector load has an address that is the
same for every work-item of the x loop (UNIFORM), moves with the work-item's x
id by a constant step (CONSECUTIVE: built from `get_global_id(0)`/
`get_local_id(0)` by adds and subtracts of uniform values, multiplies and
shifts by constants, integer casts and clamps), or points into the
work-item's private memory, and so does every vector store (a uniform store
is the halo slot one work-item fills, `if (l == 0) tile[0] = ...`).
"""

from __future__ import annotations

import enum
from typing import Callable

from oclpy.ir.cfg import reverse_post_order
from oclpy.ir.intrinsics import WORK_ITEM_QUERIES, intrinsic_info
from oclpy.ir.types import VectorType
from oclpy.ir.values import Argument, ConstInt, Function, Instr, Value


class Step(enum.Enum):
    """How a value changes from one work-item to the next along x."""

    UNKNOWN = 0  # not computed yet (phis in loops)
    UNIFORM = 1
    CONSECUTIVE = 2
    PRIVATE = 3  # an address in the work-item's own alloca
    OTHER = 4


U, C, P, O = Step.UNIFORM, Step.CONSECUTIVE, Step.PRIVATE, Step.OTHER
_X_IDS = frozenset({"get_global_id", "get_local_id"})
_LINEAR_IDS = frozenset({"get_global_linear_id", "get_local_linear_id"})
_INT_CASTS = frozenset({"sext", "zext", "trunc"})


def _join(a: Step, b: Step) -> Step:
    if a is Step.UNKNOWN:
        return b
    if b is Step.UNKNOWN or a is b:
        return a
    return O


class StepAnalysis:
    """The Step of every value of one function (a fixpoint over its phis)."""

    def __init__(self, fn: Function) -> None:
        self.steps: dict[Instr, Step] = {}
        self.slots: dict[Instr, Step] = {}  # alloca -> the join of the values stored to it
        order = [i for b in reverse_post_order(fn) for i in b.instrs]
        changed = True
        while changed:  # each value only moves up UNIFORM -> CONSECUTIVE -> OTHER: it ends
            changed = False
            for instr in order:
                step = self._compute(instr)
                if self.steps.get(instr, Step.UNKNOWN) is not step:
                    self.steps[instr] = step
                    changed = True

    def of(self, v: Value) -> Step:
        """The step of `v`; a value not computed yet (a phi's back edge) is taken as uniform.
        The work-item's frame (form-workgroups' hidden argument) is private memory."""
        if isinstance(v, Argument) and v.attrs.get("hidden") == "frame":
            return P
        if not isinstance(v, Instr):
            return U
        step = self.steps.get(v, Step.UNKNOWN)
        return U if step is Step.UNKNOWN else step

    def _compute(self, i: Instr) -> Step:
        if i.op == "phi":
            step = Step.UNKNOWN
            for v in i.operands:
                if not isinstance(v, Instr) or v in self.steps:
                    step = _join(step, self.of(v))
            return U if step is Step.UNKNOWN else step
        rule = _RULES.get(i.op)
        if rule is not None:
            return rule(self, i)
        return U if all(self.of(v) is U for v in i.operands) and i.info.pure else O


def _const(v: Value) -> bool:
    return isinstance(v, ConstInt)


def _add(s: StepAnalysis, i: Instr) -> Step:
    a, b = (s.of(v) for v in i.operands)
    pair = {a, b}
    if pair == {U}:
        return U
    if i.op == "add" and pair == {U, C}:
        return C
    return C if i.op == "sub" and (a, b) == (C, U) else O


def _scale(s: StepAnalysis, i: Instr) -> Step:
    a, b = i.operands
    sa, sb = s.of(a), s.of(b)
    if sa is U and sb is U:
        return U
    if sa is C and _const(b) or i.op == "mul" and sb is C and _const(a):
        return C
    return O


def _cast(s: StepAnalysis, i: Instr) -> Step:
    step = s.of(i.operands[0])
    return step if i.op in _INT_CASTS or step is U else O


def _select(s: StepAnalysis, i: Instr) -> Step:
    cond, a, b = (s.of(v) for v in i.operands)
    if {cond, a, b} <= {U}:
        return U
    return C if {a, b} <= {U, C} and C in (a, b) else O  # clamps: min/max with a bound


def _gep(s: StepAnalysis, i: Instr) -> Step:
    base = s.of(i.operands[0])
    indices = {s.of(v) for v in i.operands[1:]}
    if base is P:
        return P
    if base is U and indices <= {U}:
        return U
    if base in (U, C) and indices <= {U, C} and (C in indices) != (base is C):
        return C
    return O


def _call(s: StepAnalysis, i: Instr) -> Step:
    info = intrinsic_info(i.attrs["callee"])
    if info is None:
        return O
    base = info.base
    if base in _X_IDS:
        dim = i.operands[0]
        return C if _const(dim) and dim.value == 0 else U  # type: ignore[attr-defined]
    if base in _LINEAR_IDS:
        return C
    if base in WORK_ITEM_QUERIES or (info.pure and all(s.of(v) is U for v in i.operands)):
        return U
    return O


def _load(s: StepAnalysis, i: Instr) -> Step:
    """A variable in an alloca (code before mem2reg) steps like what is stored there."""
    address = i.operands[0]
    if isinstance(address, Instr) and address.op == "alloca":
        step = s.slots.get(address, Step.UNKNOWN)
        return U if step is Step.UNKNOWN else step
    return U if s.of(address) is U else O


def _store(s: StepAnalysis, i: Instr) -> Step:
    value, address = i.operands
    if isinstance(address, Instr) and address.op == "alloca":
        s.slots[address] = _join(s.slots.get(address, Step.UNKNOWN), s.of(value))
    return U


_RULES: dict[str, Callable[[StepAnalysis, Instr], Step]] = {
    "add": _add, "sub": _add, "mul": _scale, "shl": _scale,
    **{op: _cast for op in ("sext", "zext", "trunc", "fptosi", "fptoui", "sitofp", "uitofp",
                            "fpext", "fptrunc", "bitcast", "addrspacecast", "ptrtoint",
                            "inttoptr")},
    "select": _select, "getelementptr": _gep, "call": _call, "load": _load,
    "store": _store,
    "alloca": lambda s, i: P,
}


def _vector_access(i: Instr) -> tuple[Value, tuple[Step, ...]] | None:
    """A vector load's or store's address and the steps it may have."""
    if i.op == "load" and isinstance(i.type, VectorType):
        return i.operands[0], (U, C, P)
    if i.op == "store" and isinstance(i.operands[0].type, VectorType):
        return i.operands[1], (U, C, P)  # U: a halo slot one work-item fills (`if (l == 0)`)
    return None


def worth_splitting(fn: Function) -> bool:
    """Whether splitting `fn`'s vectors lets its work-item loop widen with profit."""
    steps = StepAnalysis(fn)
    for i in fn.instructions():
        access = _vector_access(i)
        if access is not None and steps.of(access[0]) not in access[1]:
            return False
    return True
