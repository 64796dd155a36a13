"""OpenCL 2.0 generic-space tests on cpu: `ocl.to_global`, `ocl.to_local`, `ocl.to_private`.

On cpu every address space is one flat space, so the answer comes from the
address. Two launch-context slots after the work-item ones (`LOCAL_END_SLOT`,
`FRAMES_END_SLOT`, filled by `compiled.py` through `fill_context`) bound this
call's local memory and its work-item frames:

- local: `CTX_LOCAL_MEM <= p < local end`;
- private: inside the work-item frames (kernels with barriers keep private
  state there) or on the stack of the running thread (bounds from
  `pthread_getattr_np`, so Linux/glibc; the call is slow-ish, but these
  tests are rare and folded away whenever the space is known statically);
- global: any other non-null address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir as ll

from . import workitem as wi

if TYPE_CHECKING:
    from ..emit import FunctionEmitter

SPACE_TESTS = ("to_global", "to_local", "to_private")
LOCAL_END_SLOT = wi.CTX_SLOTS
FRAMES_END_SLOT = wi.CTX_SLOTS + 1
CTX_SLOTS = wi.CTX_SLOTS + 2
PTHREAD_ATTR_BYTES = 128  # >= sizeof(pthread_attr_t) on every glibc target (56 on x86-64, 64 on arm64)
I64 = ll.IntType(64)


def fill_context(ctx: np.ndarray, local_end: int, frames_end: int) -> np.ndarray:
    """`ctx` (the work-item context) extended with the two slots the tests read."""
    out = np.zeros(CTX_SLOTS, dtype=np.int64)
    out[:len(ctx)] = ctx
    out[LOCAL_END_SLOT], out[FRAMES_END_SLOT] = local_end, frames_end
    return out


class SpaceTests:
    def __init__(self, fe: FunctionEmitter) -> None:
        self.b = fe.builder
        self.ctx = fe.hidden[wi.HIDDEN_CTX]

    def slot(self, index: int) -> ll.Value:
        return wi.ctx_load(self.b, self.ctx, index)

    def in_range(self, addr: ll.Value, lo: ll.Value, hi: ll.Value) -> ll.Value:
        b = self.b
        return b.and_(b.icmp_unsigned(">=", addr, lo), b.icmp_unsigned("<", addr, hi))

    def is_local(self, addr: ll.Value) -> ll.Value:
        return self.in_range(addr, self.slot(wi.CTX_LOCAL_MEM), self.slot(LOCAL_END_SLOT))

    def is_private(self, addr: ll.Value) -> ll.Value:
        b = self.b
        in_frames = self.in_range(addr, self.slot(wi.CTX_FRAMES), self.slot(FRAMES_END_SLOT))
        lo, size = self.thread_stack()
        return b.or_(in_frames, self.in_range(addr, lo, b.add(lo, size)))

    def thread_stack(self) -> tuple[ll.Value, ll.Value]:
        """(lowest address, size) of the running thread's stack, from pthread_getattr_np."""
        b = self.b
        ptr, i32 = ll.PointerType(), ll.IntType(32)
        saved = b.call(_declare(b, "llvm.stacksave.p0", ptr, []), [])
        attr = b.alloca(ll.ArrayType(ll.IntType(8), PTHREAD_ATTR_BYTES), name="stack.attr")
        attr.align = 16
        lo_slot, size_slot = b.alloca(ptr, name="stack.lo"), b.alloca(I64, name="stack.size")
        b.store(ll.Constant(ptr, None), lo_slot)
        b.store(ll.Constant(I64, 0), size_slot)
        this = b.call(_declare(b, "pthread_self", I64, []), [])
        b.call(_declare(b, "pthread_getattr_np", i32, [I64, ptr]), [this, attr])
        b.call(_declare(b, "pthread_attr_getstack", i32, [ptr, ptr, ptr]), [attr, lo_slot, size_slot])
        b.call(_declare(b, "pthread_attr_destroy", i32, [ptr]), [attr])
        lo, size = b.ptrtoint(b.load(lo_slot, typ=ptr), I64), b.load(size_slot, typ=I64)
        b.call(_declare(b, "llvm.stackrestore.p0", ll.VoidType(), [ptr]), [saved])
        return lo, size

    def lower(self, base: str, ptr: ll.Value) -> ll.Value:
        """`ptr` when it points into the space `base` tests for, else NULL."""
        b = self.b
        addr = b.ptrtoint(ptr, I64)
        if base == "to_local":
            inside = self.is_local(addr)
        elif base == "to_private":
            inside = self.is_private(addr)
        else:
            named = b.or_(self.is_local(addr), self.is_private(addr))
            inside = b.and_(b.not_(named), b.icmp_unsigned("!=", addr, ll.Constant(I64, 0)))
        return b.select(inside, ptr, ll.Constant(ptr.type, None))


def _declare(b: ll.IRBuilder, name: str, ret: ll.Type, params: list[ll.Type]) -> ll.Function:
    found = b.module.globals.get(name)
    return found if found is not None else ll.Function(b.module, ll.FunctionType(ret, params), name)


def lower_space_test(fe: FunctionEmitter, base: str, args: list[ll.Value]) -> ll.Value:
    return SpaceTests(fe).lower(base, args[0])
