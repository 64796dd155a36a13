"""Barriers, fences, atomics and work-group asynchronous copies.

OpControlBarrier with work-group execution scope is `ocl.barrier(flags)`,
OpMemoryBarrier is `ocl.mem_fence(flags)`; the flags are OpenCL C's
CLK_LOCAL_MEM_FENCE (1) for WorkgroupMemory, CLK_GLOBAL_MEM_FENCE (2) for
CrossWorkgroupMemory and CLK_IMAGE_MEM_FENCE (4) for ImageMemory semantics.
Atomics become `atomicrmw`/`cmpxchg` with the ordering and scope of their
Scope and Semantics operands (constants); a work-group scope on memory other
than `local` is widened to device scope (LLVM's SPIR-V backend gives OpenCL
1.2's global `atomic_add` work-group scope, where a kernel expects atomicity
across groups; a wider scope is always correct). An atomic load is a volatile load
and an atomic store an exchange whose result is dropped. OpGroupAsyncCopy and
OpGroupWaitEvents go through the OpenCL C frontend's async-copy lowering.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import types as ir
from ...ir.intrinsics import declare_intrinsic
from ...ir.values import ConstInt, Value
from ..c import c_types as ct
from ..c.builtins.async_copy import ASYNC_IMPLS
from ..c.builtins.table import Builtin
from ..c.opaque_types import EVENT_T
from .binary import Instruction
from .grammar import (
    OP, SCOPES, SEM_ACQ_REL, SEM_ACQUIRE, SEM_CROSS_WORKGROUP_MEMORY, SEM_IMAGE_MEMORY,
    SEM_RELEASE, SEM_SEQ_CST, SEM_WORKGROUP_MEMORY,
)
from .opencl_std import ctype_of
from .opencl_std import TranslatorBuiltins

if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler

_WORKGROUP_SCOPE = 2


def _constant(ft: FunctionTranslator, id_: int, what: str, instr: Instruction) -> int:
    v = ft.value(id_)
    if not isinstance(v, ConstInt):
        raise instr.error(f"the {what} operand %{id_} must be a constant")
    return v.value


def fence_flags(semantics: int) -> int:
    return ((1 if semantics & SEM_WORKGROUP_MEMORY else 0)
            | (2 if semantics & SEM_CROSS_WORKGROUP_MEMORY else 0)
            | (4 if semantics & SEM_IMAGE_MEMORY else 0))


def _control_barrier(ft: FunctionTranslator, instr: Instruction) -> None:
    scope = _constant(ft, instr.operand(0), "execution scope", instr)
    semantics = _constant(ft, instr.operand(2), "memory semantics", instr)
    if scope != _WORKGROUP_SCOPE:
        raise instr.error(f"barriers with execution scope {SCOPES.get(scope, scope)} are not "
                          f"supported (only work_group)")
    fn = declare_intrinsic(ft.module, "barrier", ir.VOID, [ir.I32])
    ft.b.call(fn, [ConstInt(ir.I32, fence_flags(semantics))])


def _memory_barrier(ft: FunctionTranslator, instr: Instruction) -> None:
    semantics = _constant(ft, instr.operand(1), "memory semantics", instr)
    fn = declare_intrinsic(ft.module, "mem_fence", ir.VOID, [ir.I32])
    ft.b.call(fn, [ConstInt(ir.I32, fence_flags(semantics))])


def _ordering(semantics: int) -> str:
    if semantics & SEM_SEQ_CST:
        return "seq_cst"
    if semantics & SEM_ACQ_REL or (semantics & SEM_ACQUIRE and semantics & SEM_RELEASE):
        return "acq_rel"
    if semantics & SEM_ACQUIRE:
        return "acquire"
    return "release" if semantics & SEM_RELEASE else "monotonic"


def _scope_and_order(ft: FunctionTranslator, instr: Instruction, scope_at: int,
                     ptr: Value | None = None) -> tuple[str, str]:
    scope = _constant(ft, instr.operand(scope_at), "scope", instr)
    semantics = _constant(ft, instr.operand(scope_at + 1), "memory semantics", instr)
    if scope not in SCOPES:
        raise instr.error(f"unknown scope {scope}")
    name = SCOPES[scope]
    if name == "work_group" and ptr is not None and ptr.type != ir.PtrType(ir.AddressSpace.LOCAL):
        name = "device"
    return name, _ordering(semantics)


def _pointer(ft: FunctionTranslator, instr: Instruction, at: int) -> Value:
    p = ft.value(instr.operand(at))
    if not isinstance(p.type, ir.PtrType):
        raise instr.error(f"the atomic's pointer %{instr.operand(at)} is {p.type}")
    if p.type.space is ir.AddressSpace.CONSTANT:
        raise instr.error("atomic access through a UniformConstant (constant) pointer")
    return p


def _atomic_value(instr: Instruction, v: Value, floats: bool) -> Value:
    """`v` when an atomic may operate on its type: an integer of 8 to 64 bits (or a
    float, where `floats`); a mutant's `AtomicOr` on a bool reached LLVM."""
    t = v.type
    if isinstance(t, ir.IntType) and t.bits in (8, 16, 32, 64):
        return v
    if floats and isinstance(t, ir.FloatType):
        return v
    raise instr.error(f"an atomic operation on {t} (only 8- to 64-bit integers"
                      f"{' and floats' if floats else ''})")


def _rmw(binop: str, fixed: int | None = None) -> Handler:
    """Result type, result, pointer, scope, semantics[, value]."""
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        p = _pointer(ft, instr, 2)
        scope, order = _scope_and_order(ft, instr, 3, p)
        t = ft.result_type(instr).ir
        if fixed is None:
            value = ft.value(instr.operand(5))
        elif isinstance(t, ir.IntType):
            value = ConstInt(t, fixed)
        else:
            raise instr.error(f"an atomic operation on {t} (only 8- to 64-bit integers)")
        value = _atomic_value(instr, value, binop in ("xchg", "fadd", "fmin", "fmax"))
        ft.define(instr, ft.b.atomicrmw(binop, p, value, order, scope))
    return handle


def _atomic_load(ft: FunctionTranslator, instr: Instruction) -> None:
    p = _pointer(ft, instr, 2)
    _scope_and_order(ft, instr, 3)
    t = ft.result_type(instr).ir
    ft.define(instr, ft.b.load(t, p, ft.mt.layout.size_of(t), volatile=True))


def _atomic_store(ft: FunctionTranslator, instr: Instruction) -> None:
    """Pointer, scope, semantics, value."""
    p = _pointer(ft, instr, 0)
    scope, order = _scope_and_order(ft, instr, 1, p)
    ft.b.atomicrmw("xchg", p, _atomic_value(instr, ft.value(instr.operand(3)), True), order, scope)


def _compare_exchange(ft: FunctionTranslator, instr: Instruction) -> None:
    """Result type, result, pointer, scope, equal semantics, unequal semantics, value, comparator."""
    p = _pointer(ft, instr, 2)
    scope, order = _scope_and_order(ft, instr, 3, p)
    new, expected = (_atomic_value(instr, ft.value(instr.operand(i)), False) for i in (6, 7))
    ft.define(instr, ft.b.cmpxchg(p, expected, new, order, scope))


def _group_async_copy(ft: FunctionTranslator, instr: Instruction) -> None:
    """Result type, result, execution scope, destination, source, count, stride, event."""

    dst, src, n, stride, event = (ft.value(i) for i in instr.operands[3:8])
    n, stride = (v if v.type == ir.I64 else ft.b.cast("zext", v, ir.I64) for v in (n, stride))
    pointee = ft.mt.types.pointee(ft.vtype(instr.operand(3)), instr)
    if pointee.kind not in ("int", "float", "vector") or not isinstance(dst.type, ir.PtrType):
        raise instr.error(f"asynchronous copies of {pointee.ir} are not supported")
    elem = ctype_of(pointee.ir)
    if not isinstance(src.type, ir.PtrType):
        raise instr.error(f"asynchronous copies from {src.type} are not supported")
    params = (ct.Pointer(elem.with_space(dst.type.space)), ct.Pointer(elem.with_space(src.type.space)),
              ct.SIZE_T, ct.SIZE_T, EVENT_T)
    sig = Builtin("async_work_group_strided_copy", EVENT_T, params, "async_copy")
    ft.define(instr, ASYNC_IMPLS["async_copy"](TranslatorBuiltins(ft), sig, [dst, src, n, stride, event], None))


def _group_wait_events(ft: FunctionTranslator, instr: Instruction) -> None:
    sig = Builtin("wait_group_events", ct.VOID, (ct.INT,), "wait_group_events")
    ASYNC_IMPLS["wait_group_events"](TranslatorBuiltins(ft), sig, [], None)


HANDLERS: dict[int, Handler] = {
    OP["ControlBarrier"]: _control_barrier, OP["MemoryBarrier"]: _memory_barrier,
    OP["AtomicLoad"]: _atomic_load, OP["AtomicStore"]: _atomic_store,
    OP["AtomicExchange"]: _rmw("xchg"), OP["AtomicCompareExchange"]: _compare_exchange,
    OP["AtomicCompareExchangeWeak"]: _compare_exchange,
    OP["AtomicIIncrement"]: _rmw("add", 1), OP["AtomicIDecrement"]: _rmw("sub", 1),
    OP["AtomicIAdd"]: _rmw("add"), OP["AtomicISub"]: _rmw("sub"),
    OP["AtomicSMin"]: _rmw("min"), OP["AtomicUMin"]: _rmw("umin"),
    OP["AtomicSMax"]: _rmw("max"), OP["AtomicUMax"]: _rmw("umax"),
    OP["AtomicAnd"]: _rmw("and"), OP["AtomicOr"]: _rmw("or"), OP["AtomicXor"]: _rmw("xor"),
    OP["AtomicFAddEXT"]: _rmw("fadd"),
    OP["GroupAsyncCopy"]: _group_async_copy, OP["GroupWaitEvents"]: _group_wait_events,
}
