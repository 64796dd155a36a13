"""Atomics that need no atomicity on cpu: a work-group runs on one thread.

The cpu launcher runs all work-items of a work-group one after another on one
thread, so an atomic operation on `__local` memory, which no other group can see, is
a plain read-modify-write: no `lock` prefix. A histogram's
`atomic_inc(&local_hist[b])` gets several times faster. (Work-group scope
on global memory would allow the same, but a kernel that leans on it across
groups is racy in a way users rarely mean, so those keep the lock.)

`plain_rmw` / `plain_cmpxchg` build that read-modify-write, or answer None
for an operation this module does not know (the caller keeps the real atomic).
"""

from __future__ import annotations

from typing import Callable

from llvmlite import ir as ll

from ....ir.types import AddressSpace
from ....ir.values import Instr

_Op = Callable[[ll.IRBuilder, ll.Value, ll.Value], ll.Value]
_OPS: dict[str, _Op] = {
    "add": lambda b, x, y: b.add(x, y), "sub": lambda b, x, y: b.sub(x, y),
    "and": lambda b, x, y: b.and_(x, y), "or": lambda b, x, y: b.or_(x, y),
    "xor": lambda b, x, y: b.xor(x, y), "xchg": lambda b, x, y: y,
    "max": lambda b, x, y: b.select(b.icmp_signed(">", x, y), x, y),
    "min": lambda b, x, y: b.select(b.icmp_signed("<", x, y), x, y),
    "umax": lambda b, x, y: b.select(b.icmp_unsigned(">", x, y), x, y),
    "umin": lambda b, x, y: b.select(b.icmp_unsigned("<", x, y), x, y),
    "fadd": lambda b, x, y: b.fadd(x, y), "fsub": lambda b, x, y: b.fsub(x, y),
}


def group_private(instr: Instr) -> bool:
    """True when only work-items of one work-group can race with this atomic (`__local`)."""
    return getattr(instr.operands[0].type, "space", None) is AddressSpace.LOCAL


def _align(ty: ll.Type) -> int:
    bits = getattr(ty, "width", None) or {ll.FloatType: 32, ll.DoubleType: 64,
                                          ll.HalfType: 16}.get(type(ty), 8)
    return max(1, bits // 8)


def plain_rmw(b: ll.IRBuilder, binop: str, ptr: ll.Value, val: ll.Value) -> ll.Value | None:
    """old = *ptr; *ptr = old <binop> val; old."""
    op = _OPS.get(binop)
    if op is None:
        return None
    old = b.load(ptr, typ=val.type, align=_align(val.type))
    b.store(op(b, old, val), ptr, align=_align(val.type))
    return old


def plain_cmpxchg(b: ll.IRBuilder, ptr: ll.Value, cmp: ll.Value, new: ll.Value) -> ll.Value:
    """old = *ptr; if (old == cmp) *ptr = new; old."""
    old = b.load(ptr, typ=cmp.type, align=_align(cmp.type))
    b.store(b.select(b.icmp_unsigned("==", old, cmp), new, old), ptr, align=_align(cmp.type))
    return old
