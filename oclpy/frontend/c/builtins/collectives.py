"""OpenCL C 2.0's work-group collectives and cl_khr_subgroups' sub-group functions.

    int work_group_all(int predicate), int work_group_any(int predicate)
    T work_group_broadcast(T a, size_t local_id [, size_t y [, size_t z]])
    T work_group_reduce_<op>(T x), work_group_scan_inclusive_<op>(T x), work_group_scan_exclusive_<op>(T x)
    uint get_sub_group_size(), get_max_sub_group_size(), get_num_sub_groups(),
         get_enqueued_num_sub_groups(), get_sub_group_id(), get_sub_group_local_id()
    void sub_group_barrier(cl_mem_fence_flags [, memory_scope])
    int sub_group_all/any(int); T sub_group_broadcast(T, uint); T sub_group_reduce/scan_*_<op>(T)

with T one of int, uint, long, ulong, half, float, double and op one of add,
min, max (OpenCL C 6.13.15 and the cl_khr_subgroups extension). The work-group
collectives exist from OpenCL C 2.0 on, the sub-group functions at every
version (see `collective_overloads`).

The frontend lowers the collectives to plain IR, so every target has them:
each work-item stores its value in a per-work-group `__local` scratch array
(one 8-byte slot per work-item, at most 1024 work-items, plus one slot for a
result), a barrier, work-item 0 folds the slots in order (so a reduction is
the fold in local-id order, also for float add), a barrier, and every
work-item reads its answer. Each collective begins with a barrier too, so two
collectives in a row never race on the scratch. Like `barrier`, a collective
must be reached by every work-item of the group.

Sub-groups have one work-item each (the spec lets an implementation choose
the sub-group size; 1 is what a work-item-at-a-time device has): a sub-group
reduction or inclusive scan is its argument, an exclusive scan the
operation's identity, a broadcast its argument, and `sub_group_barrier` has
nothing to wait for.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Optional

from ....ir import types as ir
from ....ir.builder import add_incoming
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstFloat, ConstInt, GlobalVar, Value
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..layout import plain_type
from .async_copy import group_size, work_item_query
from .intrinsic_calls import minmax
from .table import Builtin
from .builtin_context import BuiltinContext, BuiltinImpl

SCRATCH = "oclpy.collective_scratch"
MAX_WORK_ITEMS = 1024  # the devices' CL_DEVICE_MAX_WORK_GROUP_SIZE
_RESULT_SLOT = MAX_WORK_ITEMS
_LOCAL_FENCE = 1  # CLK_LOCAL_MEM_FENCE
_TYPES = (ct.INT, ct.UINT, ct.LONG, ct.ULONG, ct.HALF, ct.FLOAT, ct.DOUBLE)
_OPS = ("add", "min", "max")
_KINDS = ("reduce", "scan_inclusive", "scan_exclusive")
_SUB_GROUP_QUERIES = ("get_sub_group_size", "get_max_sub_group_size", "get_num_sub_groups",
                      "get_enqueued_num_sub_groups", "get_sub_group_id", "get_sub_group_local_id")


def _folds(prefix: str) -> dict[str, list[Builtin]]:
    return {f"{prefix}_{kind}_{op}": [Builtin(f"{prefix}_{kind}_{op}", t, (t,), f"{prefix}_{kind}") for t in _TYPES]
            for kind in _KINDS for op in _OPS}


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    table = {
        "work_group_all": [Builtin("work_group_all", ct.INT, (ct.INT,), "wg_all")],
        "work_group_any": [Builtin("work_group_any", ct.INT, (ct.INT,), "wg_any")],
        "work_group_broadcast": [Builtin("work_group_broadcast", t, (t, *(ct.SIZE_T,) * dims), "wg_broadcast")
                                 for dims in (1, 2, 3) for t in _TYPES],
        "sub_group_all": [Builtin("sub_group_all", ct.INT, (ct.INT,), "sg_predicate")],
        "sub_group_any": [Builtin("sub_group_any", ct.INT, (ct.INT,), "sg_predicate")],
        "sub_group_broadcast": [Builtin("sub_group_broadcast", t, (t, ct.UINT), "sg_broadcast") for t in _TYPES],
        "sub_group_barrier": [Builtin("sub_group_barrier", ct.VOID, (ct.UINT,), "sg_barrier"),
                              Builtin("sub_group_barrier", ct.VOID, (ct.UINT, ct.INT), "sg_barrier")],
    }
    table.update({name: [Builtin(name, ct.UINT, (), "sg_query")] for name in _SUB_GROUP_QUERIES})
    table.update(_folds("work_group"))
    table.update(_folds("sub_group"))
    return table


def collective_overloads(name: str, version: int = 200) -> list[Builtin]:
    """The overloads of a work-group or sub-group builtin `name` that OpenCL C `version` (120, 200, ...)
    declares (empty for other names). The work-group collectives are OpenCL C 2.0's; cl_khr_subgroups
    depends on no OpenCL version (the Khronos registry's entry), so its functions are there from
    OpenCL C 1.0, as clang 23 declares them, except the two that need OpenCL 2.0:
    get_enqueued_num_sub_groups (of get_enqueued_local_size) and sub_group_barrier's memory_scope form."""
    found = _table().get(name, [])
    if version >= 200:
        return found
    if not name.startswith(("sub_group_", "get_")) or name == "get_enqueued_num_sub_groups":
        return []
    return [b for b in found if not (name == "sub_group_barrier" and len(b.params) == 2)]


# -- lowering (functions of a BuiltinContext: `cx.b` is the IR builder at the call) --

def _op_of(name: str) -> str:
    return name.rsplit("_", 1)[1]


def _unsigned(t: ct.CType) -> bool:
    return st.is_integer(t) and not st.scalar_kind(t).signed  # type: ignore[union-attr]


def _identity(op: str, t: ct.CType) -> Value:
    """The value an exclusive scan gives the first work-item: 0, or the type's max (min) for min (max)."""
    rt = plain_type(t)
    if st.is_floating(t):
        return ConstFloat(rt, {"add": 0.0, "min": float("inf"), "max": float("-inf")}[op])
    assert isinstance(rt, ir.IntType)
    bits = rt.bits
    unsigned = _unsigned(t)
    low, high = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return ConstInt(rt, {"add": 0, "min": high, "max": low}[op])


def _combine(cx: BuiltinContext, op: str, t: ct.CType, a: Value, b: Value) -> Value:
    if op == "add":
        return cx.b.binop("fadd" if st.is_floating(t) else "add", a, b)
    return minmax(cx, op, a, b, _unsigned(t))


def _scratch(cx: BuiltinContext) -> GlobalVar:
    gv = cx.module.get_global(SCRATCH)
    if gv is None:
        gv = cx.module.add_global(GlobalVar(SCRATCH, ir.ArrayType(ir.I64, MAX_WORK_ITEMS + 1),
                                            ir.AddressSpace.LOCAL, None, align=8))
    return gv


def _slot(cx: BuiltinContext, t: ir.Type, index: Value) -> Value:
    return cx.b.gep(t, _scratch(cx), [index])


def _barrier(cx: BuiltinContext) -> None:
    fn = declare_intrinsic(cx.module, "barrier", ir.VOID, [ir.I32])
    cx.b.call(fn, [ConstInt(ir.I32, _LOCAL_FENCE)])


def _publish(cx: BuiltinContext, t: ir.Type, x: Value) -> Value:
    """Barrier, store `x` in this work-item's slot, barrier; the local linear id."""
    lid = work_item_query(cx, "get_local_linear_id", None)
    _barrier(cx)
    cx.b.store(x, _slot(cx, t, lid))
    _barrier(cx)
    return lid


def _on_first_work_item(cx: BuiltinContext, lid: Value, body: Callable[[], None]) -> None:
    """Emit `if (lid == 0) body();`."""
    then, done = cx.new_block("collective.first"), cx.new_block("collective.join")
    cx.b.condbr(cx.b.icmp("eq", lid, ConstInt(ir.I64, 0)), then, done)
    cx.b.position_at_end(then)
    body()
    cx.b.br(done)
    cx.b.position_at_end(done)


def _for_each_slot(cx: BuiltinContext, start: int, step: Callable[[Value], None]) -> None:
    """Emit `for (i = start; i < group size; i++) step(i);` (i an i64)."""
    size = group_size(cx)
    entry = cx.b.block
    assert entry is not None
    head, body, done = cx.new_block("collective.cond"), cx.new_block("collective.body"), cx.new_block("collective.end")
    cx.b.br(head)
    cx.b.position_at_end(head)
    i = cx.b.phi(ir.I64, "collective.i")
    add_incoming(i, ConstInt(ir.I64, start), entry)
    cx.b.condbr(cx.b.icmp("ult", i, size), body, done)
    cx.b.position_at_end(body)
    step(i)
    latch = cx.b.block
    assert latch is not None
    add_incoming(i, cx.b.binop("add", i, ConstInt(ir.I64, 1)), latch)
    cx.b.br(head)
    cx.b.position_at_end(done)


def _fold_into_result(cx: BuiltinContext, op: str, t: ct.CType) -> None:
    """Work-item 0's part of a reduction: the result slot = slot 0 op slot 1 op ... in order."""
    rt = plain_type(t)
    result = _slot(cx, rt, ConstInt(ir.I64, _RESULT_SLOT))
    cx.b.store(cx.b.load(rt, _slot(cx, rt, ConstInt(ir.I64, 0))), result)

    def step(i: Value) -> None:
        acc = cx.b.load(rt, result)
        cx.b.store(_combine(cx, op, t, acc, cx.b.load(rt, _slot(cx, rt, i))), result)

    _for_each_slot(cx, 1, step)


def _prefix_in_place(cx: BuiltinContext, op: str, t: ct.CType) -> None:
    """Work-item 0's part of a scan: slot i = slot i-1 op slot i, for i = 1, 2, ..."""
    rt = plain_type(t)

    def step(i: Value) -> None:
        before = cx.b.load(rt, _slot(cx, rt, cx.b.binop("sub", i, ConstInt(ir.I64, 1))))
        here = _slot(cx, rt, i)
        cx.b.store(_combine(cx, op, t, before, cx.b.load(rt, here)), here)

    _for_each_slot(cx, 1, step)


def b_wg_reduce(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    t, rt = sig.ret, plain_type(sig.ret)
    lid = _publish(cx, rt, args[0])
    _on_first_work_item(cx, lid, lambda: _fold_into_result(cx, _op_of(sig.name), t))
    _barrier(cx)
    return cx.b.load(rt, _slot(cx, rt, ConstInt(ir.I64, _RESULT_SLOT)))


def b_wg_scan_inclusive(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    t, rt = sig.ret, plain_type(sig.ret)
    lid = _publish(cx, rt, args[0])
    _on_first_work_item(cx, lid, lambda: _prefix_in_place(cx, _op_of(sig.name), t))
    _barrier(cx)
    return cx.b.load(rt, _slot(cx, rt, lid))


def b_wg_scan_exclusive(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    t, rt, op = sig.ret, plain_type(sig.ret), _op_of(sig.name)
    lid = _publish(cx, rt, args[0])
    _on_first_work_item(cx, lid, lambda: _prefix_in_place(cx, op, t))
    _barrier(cx)
    first = cx.b.icmp("eq", lid, ConstInt(ir.I64, 0))
    before = cx.b.select(first, ConstInt(ir.I64, 0), cx.b.binop("sub", lid, ConstInt(ir.I64, 1)))
    return cx.b.select(first, _identity(op, t), cx.b.load(rt, _slot(cx, rt, before)))


def b_wg_broadcast(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """The value of the work-item whose local id is (x[, y[, z]])."""
    rt = plain_type(sig.ret)
    chosen = args[1]
    if len(args) > 2:
        chosen = cx.b.binop("add", chosen, cx.b.binop("mul", args[2], work_item_query(cx, "get_local_size", 0)))
    if len(args) > 3:
        plane = cx.b.binop("mul", work_item_query(cx, "get_local_size", 0), work_item_query(cx, "get_local_size", 1))
        chosen = cx.b.binop("add", chosen, cx.b.binop("mul", args[3], plane))
    lid = work_item_query(cx, "get_local_linear_id", None)
    _barrier(cx)
    then, done = cx.new_block("broadcast.source"), cx.new_block("broadcast.join")
    cx.b.condbr(cx.b.icmp("eq", lid, chosen), then, done)
    cx.b.position_at_end(then)
    cx.b.store(args[0], _slot(cx, rt, ConstInt(ir.I64, _RESULT_SLOT)))
    cx.b.br(done)
    cx.b.position_at_end(done)
    _barrier(cx)
    return cx.b.load(rt, _slot(cx, rt, ConstInt(ir.I64, _RESULT_SLOT)))


def _predicate(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call], op: str) -> Value:
    """work_group_all (min of the 0/1 flags) and work_group_any (max)."""
    flag = cx.b.cast("zext", cx.b.icmp("ne", args[0], ConstInt(ir.I32, 0)), ir.I32)
    reduction = Builtin(f"work_group_reduce_{op}", ct.INT, (ct.INT,), "work_group_reduce")
    return b_wg_reduce(cx, reduction, [flag], e)


def b_wg_all(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return _predicate(cx, sig, args, e, "min")


def b_wg_any(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return _predicate(cx, sig, args, e, "max")


def b_sg_query(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    if sig.name in ("get_sub_group_size", "get_max_sub_group_size"):
        return ConstInt(ir.I32, 1)
    if sig.name == "get_sub_group_local_id":
        return ConstInt(ir.I32, 0)
    count = work_item_query(cx, "get_local_linear_id", None) if sig.name == "get_sub_group_id" else group_size(cx)
    return cx.b.cast("trunc", count, ir.I32)


def b_sg_fold(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """A one-work-item sub-group: reduce and inclusive scan give the argument."""
    return args[0]


def b_sg_scan_exclusive(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return _identity(_op_of(sig.name), sig.ret)


def b_sg_broadcast(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return args[0]


def b_sg_predicate(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return cx.b.cast("zext", cx.b.icmp("ne", args[0], ConstInt(ir.I32, 0)), ir.I32)


def b_sg_barrier(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Optional[Value]:
    return None


COLLECTIVE_IMPLS: dict[str, BuiltinImpl] = {
    "work_group_reduce": b_wg_reduce, "work_group_scan_inclusive": b_wg_scan_inclusive,
    "work_group_scan_exclusive": b_wg_scan_exclusive, "wg_broadcast": b_wg_broadcast,
    "wg_all": b_wg_all, "wg_any": b_wg_any,
    "sub_group_reduce": b_sg_fold, "sub_group_scan_inclusive": b_sg_fold,
    "sub_group_scan_exclusive": b_sg_scan_exclusive, "sg_broadcast": b_sg_broadcast,
    "sg_predicate": b_sg_predicate, "sg_query": b_sg_query, "sg_barrier": b_sg_barrier,
}
