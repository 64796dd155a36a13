"""Work-item queries (`ocl.get_global_id` etc.) and the launch context on cpu.

Every defined function gets seven hidden LLVM parameters, appended after its
own: the launch context pointer, the work-group id (x, y, z) and the local id
(x, y, z). The context is an array of `CTX_SLOTS` i64 that `launch` fills once
per call (sizes, offsets, the group range, the local-memory and frame bases);
the launcher never writes it, so its loads are marked `!invariant.load`.

Out-of-range dimensions answer what OpenCL says: ids and offsets 0, sizes 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir as ll

if TYPE_CHECKING:
    from ..emit import FunctionEmitter

I32, I64 = ll.IntType(32), ll.IntType(64)

# Slots of the launch context (i64 each).
CTX_WORK_DIM = 0
CTX_GLOBAL_SIZE = 1   # 3 slots
CTX_LOCAL_SIZE = 4    # 3 slots
CTX_GLOBAL_OFFSET = 7  # 3 slots
CTX_NUM_GROUPS = 10   # 3 slots
CTX_LOCAL_MEM = 13    # address of this call's local memory
CTX_FRAMES = 14       # address of this call's work-item frames
CTX_GROUP_BEGIN = 15
CTX_GROUP_END = 16
CTX_SLOTS = 17

HIDDEN_CTX, HIDDEN_GROUP, HIDDEN_LOCAL = 0, 1, 4
HIDDEN_NAMES = ("wi.ctx", "wi.group.x", "wi.group.y", "wi.group.z", "wi.local.x", "wi.local.y",
                "wi.local.z")


def hidden_param_types() -> list[ll.Type]:
    return [ll.PointerType(), I64, I64, I64, I64, I64, I64]


def ctx_load(b: ll.IRBuilder, ctx: ll.Value, slot: ll.Value | int) -> ll.Value:
    """Load one i64 slot of the launch context (invariant during a launch)."""
    index = ll.Constant(I64, slot) if isinstance(slot, int) else slot
    ptr = b.gep(ctx, [index], inbounds=True, source_etype=I64)
    value = b.load(ptr, typ=I64, align=8)
    value.set_metadata("invariant.load", b.module.add_metadata([]))
    return value


def global_id_of(b: ll.IRBuilder, group: ll.Value, local: ll.Value, local_size: ll.Value,
                 offset: ll.Value) -> ll.Value:
    """group * local_size + local + offset, always built in this order (so CSE merges copies)."""
    return b.add(b.add(b.mul(group, local_size), local), offset)


def _dim(value: ll.Value) -> int | None:
    return value.constant if isinstance(value, ll.Constant) else None


def _per_dim(b: ll.IRBuilder, dim: ll.Value, pick: Callable[[int], ll.Value],
             default: int) -> ll.Value:
    """pick(dim) for dim in 0..2, else `default`; `dim` may be a run-time value."""
    d = _dim(dim)
    if d is not None:
        return pick(d) if 0 <= d < 3 else ll.Constant(I64, default)
    result: ll.Value = ll.Constant(I64, default)
    for i in (2, 1, 0):
        is_i = b.icmp_unsigned("==", dim, ll.Constant(dim.type, i))
        result = b.select(is_i, pick(i), result)
    return result


class WorkItemQueries:
    """Lowers the work-item query intrinsics inside one function emitter."""

    def __init__(self, fe: FunctionEmitter) -> None:
        self.b = fe.builder
        self.hidden = fe.hidden

    def slot(self, base: int, dim: ll.Value, default: int) -> ll.Value:
        ctx = self.hidden[HIDDEN_CTX]
        return _per_dim(self.b, dim, lambda i: ctx_load(self.b, ctx, base + i), default)

    def local_id(self, dim: ll.Value) -> ll.Value:
        return _per_dim(self.b, dim, lambda i: self.hidden[HIDDEN_LOCAL + i], 0)

    def group_id(self, dim: ll.Value) -> ll.Value:
        return _per_dim(self.b, dim, lambda i: self.hidden[HIDDEN_GROUP + i], 0)

    def global_id(self, dim: ll.Value) -> ll.Value:
        return global_id_of(self.b, self.group_id(dim), self.local_id(dim),
                            self.slot(CTX_LOCAL_SIZE, dim, 1), self.slot(CTX_GLOBAL_OFFSET, dim, 0))

    def global_linear_id(self) -> ll.Value:
        b, d = self.b, [ll.Constant(I32, i) for i in range(3)]
        ids = [b.sub(self.global_id(x), self.slot(CTX_GLOBAL_OFFSET, x, 0)) for x in d]
        sizes = [self.slot(CTX_GLOBAL_SIZE, x, 1) for x in d]
        return b.add(b.mul(b.add(b.mul(ids[2], sizes[1]), ids[1]), sizes[0]), ids[0])

    def local_linear_id(self) -> ll.Value:
        b, d = self.b, [ll.Constant(I32, i) for i in range(3)]
        ids = [self.local_id(x) for x in d]
        sizes = [self.slot(CTX_LOCAL_SIZE, x, 1) for x in d]
        return b.add(b.mul(b.add(b.mul(ids[2], sizes[1]), ids[1]), sizes[0]), ids[0])

    def work_dim(self) -> ll.Value:
        return self.b.trunc(ctx_load(self.b, self.hidden[HIDDEN_CTX], CTX_WORK_DIM), I32)

    def lower(self, base: str, args: list[ll.Value]) -> ll.Value:
        return _QUERIES[base](self, args)


_QUERIES: dict[str, Callable[[WorkItemQueries, list[ll.Value]], ll.Value]] = {
    "get_global_id": lambda q, a: q.global_id(a[0]),
    "get_local_id": lambda q, a: q.local_id(a[0]),
    "get_group_id": lambda q, a: q.group_id(a[0]),
    "get_global_size": lambda q, a: q.slot(CTX_GLOBAL_SIZE, a[0], 1),
    "get_local_size": lambda q, a: q.slot(CTX_LOCAL_SIZE, a[0], 1),
    "get_enqueued_local_size": lambda q, a: q.slot(CTX_LOCAL_SIZE, a[0], 1),
    "get_num_groups": lambda q, a: q.slot(CTX_NUM_GROUPS, a[0], 1),
    "get_global_offset": lambda q, a: q.slot(CTX_GLOBAL_OFFSET, a[0], 0),
    "get_work_dim": lambda q, a: q.work_dim(),
    "get_global_linear_id": lambda q, a: q.global_linear_id(),
    "get_local_linear_id": lambda q, a: q.local_linear_id(),
}


def is_query(base: str) -> bool:
    return base in _QUERIES
