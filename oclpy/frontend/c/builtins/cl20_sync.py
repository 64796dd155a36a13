"""OpenCL C 2.0 synchronisation builtins with memory scopes and orders:

    void work_group_barrier(cl_mem_fence_flags flags, memory_scope scope)
    void atomic_work_item_fence(cl_mem_fence_flags flags, memory_order order, memory_scope scope)

(the one-argument `work_group_barrier` is in the builtin table). Every
target runs a work-group's work-items with one memory model, so the scope
adds nothing: the barrier is `ocl.barrier(flags)`, the fence is
`ocl.mem_fence(flags)` (a sequentially consistent fence, the strongest order).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Optional

from ....ir import types as ir
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import Value
from .. import ast
from .. import c_types as ct
from .table import Builtin

_ORDER, _SCOPE = ct.Enum("memory_order"), ct.Enum("memory_scope")


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    return {
        "work_group_barrier": [Builtin("work_group_barrier", ct.VOID, (ct.UINT, _SCOPE), "cl20_barrier")],
        "atomic_work_item_fence": [Builtin("atomic_work_item_fence", ct.VOID, (ct.UINT, _ORDER, _SCOPE),
                                           "cl20_fence")],
    }


def sync_overloads(name: str) -> list[Builtin]:
    """The CL2.0 scoped overloads of `name` (empty for other names)."""
    return _table().get(name, [])


def b_barrier(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    fn = declare_intrinsic(self.module, "barrier", ir.VOID, [ir.I32])
    return self.b.call(fn, [args[0]])


def b_fence(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    fn = declare_intrinsic(self.module, "mem_fence", ir.VOID, [ir.I32])
    return self.b.call(fn, [args[0]])


SYNC_IMPLS: dict[str, Callable[..., Optional[Value]]] = {"cl20_barrier": b_barrier, "cl20_fence": b_fence}
