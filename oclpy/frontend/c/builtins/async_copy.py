"""OpenCL C's asynchronous work-group copies: signatures and lowering.

    event_t async_work_group_copy(__local T *dst, const __global T *src, size_t n, event_t e)
    event_t async_work_group_copy(__global T *dst, const __local T *src, size_t n, event_t e)
    event_t async_work_group_strided_copy(..., size_t n, size_t stride, event_t e)
    void wait_group_events(int num_events, event_t *event_list)
    void prefetch(const __global T *p, size_t n)

The frontend lowers them to plain IR, so every target has them: each
work-item of the group copies elements `lid, lid + L, lid + 2L, ...` (with
`lid` its local linear id and `L` the work-group size), a cooperative copy
that is complete once every work-item has reached `wait_group_events`, which
is a work-group barrier with local and global fences (the spec requires every
work-item to reach both calls with the same arguments). The event is an
`i32` handle: the copy returns the event it was given (0 for none).
`prefetch` is a hint; it evaluates its arguments and does nothing.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from ....ir import types as ir
from ....ir.builder import add_incoming
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstInt, Value
from .. import ast
from .. import c_types as ct
from .table import FAMILIES, Builtin
from ..layout import align_of, mem_type
from ..opaque_types import EVENT_T
from .builtin_context import BuiltinContext, BuiltinImpl

_GLOBAL, _LOCAL = ir.AddressSpace.GLOBAL, ir.AddressSpace.LOCAL
_FENCE_ALL = 3  # CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE
_EVENT_LIST_SPACES = (ir.AddressSpace.PRIVATE, ir.AddressSpace.GENERIC, _LOCAL, _GLOBAL)


def _ptr(t: ct.CType, space: ir.AddressSpace, const: bool = False) -> ct.CType:
    return ct.Pointer(t.with_space(space).with_const(const))


def _copies(name: str, strided: bool) -> list[Builtin]:
    out = []
    for t in FAMILIES["A"]:
        for dst, src in ((_LOCAL, _GLOBAL), (_GLOBAL, _LOCAL)):
            sizes = (ct.SIZE_T, ct.SIZE_T) if strided else (ct.SIZE_T,)
            params = (_ptr(t, dst), _ptr(t, src, const=True), *sizes, EVENT_T)
            out.append(Builtin(name, EVENT_T, params, "async_copy"))
    return out


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    return {
        "async_work_group_copy": _copies("async_work_group_copy", strided=False),
        "async_work_group_strided_copy": _copies("async_work_group_strided_copy", strided=True),
        "wait_group_events": [Builtin("wait_group_events", ct.VOID, (ct.INT, _ptr(EVENT_T, sp)),
                                      "wait_group_events") for sp in _EVENT_LIST_SPACES],
        "prefetch": [Builtin("prefetch", ct.VOID, (_ptr(t, _GLOBAL, const=True), ct.SIZE_T), "prefetch")
                     for t in FAMILIES["A"]],
    }


def async_overloads(name: str) -> list[Builtin]:
    """The overloads of an async-copy builtin `name` (empty for other names)."""
    return _table().get(name, [])


# -- lowering (functions of a BuiltinContext: `cx.b` is the IR builder at the call) --

def work_item_query(cx: BuiltinContext, query: str, dim: Optional[int]) -> Value:
    params: list[ir.Type] = [ir.I32] if dim is not None else []
    fn = declare_intrinsic(cx.module, query, ir.I64, params)
    return cx.b.call(fn, [ConstInt(ir.I32, dim)] if dim is not None else [])


def group_size(cx: BuiltinContext) -> Value:
    size = work_item_query(cx, "get_local_size", 0)
    for d in (1, 2):
        size = cx.b.binop("mul", size, work_item_query(cx, "get_local_size", d))
    return size


def b_async_copy(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """dst[i * dst_stride] = src[i * src_stride] for i = lid, lid + L, ... < n."""
    dst, src, n = args[0], args[1], args[2]
    dst_t = sig.params[0]
    assert isinstance(dst_t, ct.Pointer)
    pointee = dst_t.pointee
    elem, align = mem_type(pointee, cx.layout), align_of(pointee, cx.layout)
    stride = args[3] if len(args) == 5 else ConstInt(ir.I64, 1)
    local_stride = pointee.space is _LOCAL
    dst_stride, src_stride = (ConstInt(ir.I64, 1), stride) if local_stride else (stride, ConstInt(ir.I64, 1))
    start, step = work_item_query(cx, "get_local_linear_id", None), group_size(cx)
    entry = cx.b.block
    assert entry is not None
    head, body, done = cx.new_block("async.cond"), cx.new_block("async.body"), cx.new_block("async.end")
    cx.b.br(head)
    cx.b.position_at_end(head)
    i = cx.b.phi(ir.I64, "async.i")
    add_incoming(i, start, entry)
    cx.b.condbr(cx.b.icmp("ult", i, n), body, done)
    cx.b.position_at_end(body)
    value = cx.b.load(elem, cx.b.gep(elem, src, [cx.b.binop("mul", i, src_stride)]), align)
    cx.b.store(value, cx.b.gep(elem, dst, [cx.b.binop("mul", i, dst_stride)]), align)
    latch = cx.b.block
    assert latch is not None
    add_incoming(i, cx.b.binop("add", i, step), latch)
    cx.b.br(head)
    cx.b.position_at_end(done)
    return args[-1]


def b_wait_group_events(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    fn = declare_intrinsic(cx.module, "barrier", ir.VOID, [ir.I32])
    return cx.b.call(fn, [ConstInt(ir.I32, _FENCE_ALL)])


def b_prefetch(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Optional[Value]:
    return None


ASYNC_IMPLS: dict[str, BuiltinImpl] = {
    "async_copy": b_async_copy, "wait_group_events": b_wait_group_events, "prefetch": b_prefetch,
}
