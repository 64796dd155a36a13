"""OpenCL C 2.0's work-group collectives and cl_khr_subgroups' sub-group functions.

    int work_group_all(int predicate), int work_group_any(int predicate)
    T work_group_broadcast(T a, size_t local_id [, size_t y [, size_t z]])
    T work_group_reduce_<op>(T x), work_group_scan_inclusive_<op>(T x), work_group_scan_exclusive_<op>(T x)
    uint get_sub_group_size(), get_max_sub_group_size(), get_num_sub_groups(),
         get_enqueued_num_sub_groups(), get_sub_group_id(), get_sub_group_local_id()
    void sub_group_barrier(cl_mem_fence_flags [, memory_scope])
    int sub_group_all/any(int); T sub_group_broadcast(T, uint); T sub_group_reduce/scan_*_<op>(T)

with T one of int, uint, long, ulong, half, float, double and op one of add,
min, max (OpenCL C 6.13.15 and the cl_khr_subgroups extension).

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
from typing import Any, Callable, Optional

from ....ir import types as ir
from ....ir.builder import add_incoming
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstFloat, ConstInt, GlobalVar, Value
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..layout import reg_type
from .async_copy import group_size, work_item_query
from .table import Builtin

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


def collective_overloads(name: str) -> list[Builtin]:
    """The overloads of a work-group or sub-group builtin `name` (empty for other names)."""
    return _table().get(name, [])


# -- lowering (methods mixed into the builtin lowering: `self.b` is the IR builder) --

def _op_of(name: str) -> str:
    return name.rsplit("_", 1)[1]


def _unsigned(t: ct.CType) -> bool:
    return st.is_integer(t) and not st.scalar_kind(t).signed  # type: ignore[union-attr]


def _identity(op: str, t: ct.CType) -> Value:
    """The value an exclusive scan gives the first work-item: 0, or the type's max (min) for min (max)."""
    rt = reg_type(t)
    if st.is_floating(t):
        return ConstFloat(rt, {"add": 0.0, "min": float("inf"), "max": float("-inf")}[op])
    bits = rt.bits  # type: ignore[attr-defined]
    unsigned = _unsigned(t)
    low, high = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return ConstInt(rt, {"add": 0, "min": high, "max": low}[op])


def _combine(self: Any, op: str, t: ct.CType, a: Value, b: Value) -> Value:
    if op == "add":
        return self.b.binop("fadd" if st.is_floating(t) else "add", a, b)
    return self.minmax(op, a, b, _unsigned(t))


def _scratch(self: Any) -> GlobalVar:
    gv = self.module.get_global(SCRATCH)
    if gv is None:
        gv = self.module.add_global(GlobalVar(SCRATCH, ir.ArrayType(ir.I64, MAX_WORK_ITEMS + 1),
                                              ir.AddressSpace.LOCAL, None, align=8))
    return gv


def _slot(self: Any, t: ir.Type, index: Value) -> Value:
    return self.b.gep(t, _scratch(self), [index])


def _barrier(self: Any) -> None:
    fn = declare_intrinsic(self.module, "barrier", ir.VOID, [ir.I32])
    self.b.call(fn, [ConstInt(ir.I32, _LOCAL_FENCE)])


def _publish(self: Any, t: ir.Type, x: Value) -> Value:
    """Barrier, store `x` in this work-item's slot, barrier; the local linear id."""
    lid = work_item_query(self, "get_local_linear_id", None)
    _barrier(self)
    self.b.store(x, _slot(self, t, lid))
    _barrier(self)
    return lid


def _on_first_work_item(self: Any, lid: Value, body: Callable[[], None]) -> None:
    """Emit `if (lid == 0) body();`."""
    then, done = self.new_block("collective.first"), self.new_block("collective.join")
    self.b.condbr(self.b.icmp("eq", lid, ConstInt(ir.I64, 0)), then, done)
    self.b.position_at_end(then)
    body()
    self.b.br(done)
    self.b.position_at_end(done)


def _for_each_slot(self: Any, start: int, step: Callable[[Value], None]) -> None:
    """Emit `for (i = start; i < group size; i++) step(i);` (i an i64)."""
    size = group_size(self)
    entry = self.b.block
    head, body, done = self.new_block("collective.cond"), self.new_block("collective.body"), self.new_block("collective.end")
    self.b.br(head)
    self.b.position_at_end(head)
    i = self.b.phi(ir.I64, "collective.i")
    add_incoming(i, ConstInt(ir.I64, start), entry)
    self.b.condbr(self.b.icmp("ult", i, size), body, done)
    self.b.position_at_end(body)
    step(i)
    add_incoming(i, self.b.binop("add", i, ConstInt(ir.I64, 1)), self.b.block)
    self.b.br(head)
    self.b.position_at_end(done)


def _fold_into_result(self: Any, op: str, t: ct.CType) -> None:
    """Work-item 0's part of a reduction: the result slot = slot 0 op slot 1 op ... in order."""
    rt = reg_type(t)
    result = _slot(self, rt, ConstInt(ir.I64, _RESULT_SLOT))
    self.b.store(self.b.load(rt, _slot(self, rt, ConstInt(ir.I64, 0))), result)

    def step(i: Value) -> None:
        acc = self.b.load(rt, result)
        self.b.store(_combine(self, op, t, acc, self.b.load(rt, _slot(self, rt, i))), result)

    _for_each_slot(self, 1, step)


def _prefix_in_place(self: Any, op: str, t: ct.CType) -> None:
    """Work-item 0's part of a scan: slot i = slot i-1 op slot i, for i = 1, 2, ..."""
    rt = reg_type(t)

    def step(i: Value) -> None:
        before = self.b.load(rt, _slot(self, rt, self.b.binop("sub", i, ConstInt(ir.I64, 1))))
        here = _slot(self, rt, i)
        self.b.store(_combine(self, op, t, before, self.b.load(rt, here)), here)

    _for_each_slot(self, 1, step)


def b_wg_reduce(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    t, rt = sig.ret, reg_type(sig.ret)
    lid = _publish(self, rt, args[0])
    _on_first_work_item(self, lid, lambda: _fold_into_result(self, _op_of(sig.name), t))
    _barrier(self)
    return self.b.load(rt, _slot(self, rt, ConstInt(ir.I64, _RESULT_SLOT)))


def b_wg_scan_inclusive(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    t, rt = sig.ret, reg_type(sig.ret)
    lid = _publish(self, rt, args[0])
    _on_first_work_item(self, lid, lambda: _prefix_in_place(self, _op_of(sig.name), t))
    _barrier(self)
    return self.b.load(rt, _slot(self, rt, lid))


def b_wg_scan_exclusive(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    t, rt, op = sig.ret, reg_type(sig.ret), _op_of(sig.name)
    lid = _publish(self, rt, args[0])
    _on_first_work_item(self, lid, lambda: _prefix_in_place(self, op, t))
    _barrier(self)
    first = self.b.icmp("eq", lid, ConstInt(ir.I64, 0))
    before = self.b.select(first, ConstInt(ir.I64, 0), self.b.binop("sub", lid, ConstInt(ir.I64, 1)))
    return self.b.select(first, _identity(op, t), self.b.load(rt, _slot(self, rt, before)))


def b_wg_broadcast(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    """The value of the work-item whose local id is (x[, y[, z]])."""
    rt = reg_type(sig.ret)
    chosen = args[1]
    if len(args) > 2:
        chosen = self.b.binop("add", chosen, self.b.binop("mul", args[2], work_item_query(self, "get_local_size", 0)))
    if len(args) > 3:
        plane = self.b.binop("mul", work_item_query(self, "get_local_size", 0), work_item_query(self, "get_local_size", 1))
        chosen = self.b.binop("add", chosen, self.b.binop("mul", args[3], plane))
    lid = work_item_query(self, "get_local_linear_id", None)
    _barrier(self)
    then, done = self.new_block("broadcast.source"), self.new_block("broadcast.join")
    self.b.condbr(self.b.icmp("eq", lid, chosen), then, done)
    self.b.position_at_end(then)
    self.b.store(args[0], _slot(self, rt, ConstInt(ir.I64, _RESULT_SLOT)))
    self.b.br(done)
    self.b.position_at_end(done)
    _barrier(self)
    return self.b.load(rt, _slot(self, rt, ConstInt(ir.I64, _RESULT_SLOT)))


def _predicate(self: Any, sig: Builtin, args: list[Value], e: ast.Call, op: str) -> Value:
    """work_group_all (min of the 0/1 flags) and work_group_any (max)."""
    flag = self.b.cast("zext", self.b.icmp("ne", args[0], ConstInt(ir.I32, 0)), ir.I32)
    reduction = Builtin(f"work_group_reduce_{op}", ct.INT, (ct.INT,), "work_group_reduce")
    return b_wg_reduce(self, reduction, [flag], e)


def b_wg_all(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return _predicate(self, sig, args, e, "min")


def b_wg_any(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return _predicate(self, sig, args, e, "max")


def b_sg_query(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    if sig.name in ("get_sub_group_size", "get_max_sub_group_size"):
        return ConstInt(ir.I32, 1)
    if sig.name == "get_sub_group_local_id":
        return ConstInt(ir.I32, 0)
    count = work_item_query(self, "get_local_linear_id", None) if sig.name == "get_sub_group_id" else group_size(self)
    return self.b.cast("trunc", count, ir.I32)


def b_sg_fold(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    """A one-work-item sub-group: reduce and inclusive scan give the argument."""
    return args[0]


def b_sg_scan_exclusive(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return _identity(_op_of(sig.name), sig.ret)


def b_sg_broadcast(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return args[0]


def b_sg_predicate(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    return self.b.cast("zext", self.b.icmp("ne", args[0], ConstInt(ir.I32, 0)), ir.I32)


def b_sg_barrier(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Optional[Value]:
    return None


COLLECTIVE_IMPLS: dict[str, Callable[..., Optional[Value]]] = {
    "work_group_reduce": b_wg_reduce, "work_group_scan_inclusive": b_wg_scan_inclusive,
    "work_group_scan_exclusive": b_wg_scan_exclusive, "wg_broadcast": b_wg_broadcast,
    "wg_all": b_wg_all, "wg_any": b_wg_any,
    "sub_group_reduce": b_sg_fold, "sub_group_scan_inclusive": b_sg_fold,
    "sub_group_scan_exclusive": b_sg_scan_exclusive, "sg_broadcast": b_sg_broadcast,
    "sg_predicate": b_sg_predicate, "sg_query": b_sg_query, "sg_barrier": b_sg_barrier,
}
