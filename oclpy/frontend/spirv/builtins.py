"""Built-in variables (BuiltIn decorations) -> work-item query intrinsics.

A built-in variable never becomes memory: its id stands for a `BuiltinRef`,
an access chain into it keeps the element index, and an OpLoad becomes the
`ocl.get_*` calls (`ocl.get_global_id(i)` for each element loaded, truncated
to 32 bits under Physical32). Producers load the whole vector and extract
(llvm-spirv, LLVM's backend), or chain to one element: both work, with
constant or dynamic indices.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...ir import types as ir
from ...ir.intrinsics import declare_intrinsic
from ...ir.values import ConstInt, Undef, Value
from .binary import Instruction
from .spirv_types import SpvType

if TYPE_CHECKING:
    from .function import FunctionTranslator

# BuiltIn name -> (intrinsic, has a dimension argument)
QUERIES: dict[str, tuple[str, bool]] = {
    "GlobalInvocationId": ("get_global_id", True),
    "LocalInvocationId": ("get_local_id", True),
    "WorkgroupId": ("get_group_id", True),
    "NumWorkgroups": ("get_num_groups", True),
    "GlobalSize": ("get_global_size", True),
    "WorkgroupSize": ("get_local_size", True),
    "EnqueuedWorkgroupSize": ("get_enqueued_local_size", True),
    "GlobalOffset": ("get_global_offset", True),
    "WorkDim": ("get_work_dim", False),
    "GlobalLinearId": ("get_global_linear_id", False),
    "LocalInvocationIndex": ("get_local_linear_id", False),
}


@dataclass(frozen=True)
class BuiltinRef:
    """A pointer into built-in variable `name`, at element `index` (None: the whole variable)."""

    name: str
    index: Value | None = None

    def index_by(self, ft: FunctionTranslator, index_ids: tuple[int, ...], ptr_step: bool,
                 instr: Instruction) -> BuiltinRef:
        ids = list(index_ids)
        if ptr_step and ids:
            first = ft.value(ids.pop(0))
            if not (isinstance(first, ConstInt) and first.value == 0):
                raise instr.error(f"built-in variable {self.name}: only element 0 of the "
                                  f"variable itself can be addressed")
        if not ids:
            return self
        if len(ids) != 1 or self.index is not None or not QUERIES[self.name][1]:
            raise instr.error(f"built-in variable {self.name} has no such element")
        return BuiltinRef(self.name, ft.value(ids[0]))


def builtin_ref(name: str, instr: Instruction) -> BuiltinRef:
    if name not in QUERIES:
        raise instr.error(f"built-in variable {name} is not supported by oclpy "
                          f"(no sub-groups)")
    return BuiltinRef(name)


def _query(ft: FunctionTranslator, name: str, dim: Value | None, t: ir.Type) -> Value:
    base, has_dim = QUERIES[name]
    if has_dim:
        assert dim is not None
        if dim.type != ir.I32:
            dim = ft.b.cast("trunc" if dim.type.bits > 32 else "zext", dim, ir.I32)  # type: ignore[attr-defined]
        fn = declare_intrinsic(ft.module, base, ir.I64, [ir.I32])
        v = ft.b.call(fn, [dim])
    else:
        ret = ir.I32 if base == "get_work_dim" else ir.I64
        fn = declare_intrinsic(ft.module, base, ret, [])
        v = ft.b.call(fn, [])
    if v.type == t:
        return v
    if not isinstance(t, ir.IntType):
        raise ValueError(f"built-in variable {name} loaded as {t}")
    return ft.b.cast("trunc" if t.bits < v.type.bits else "zext", v, t)  # type: ignore[attr-defined]


def load_builtin(ft: FunctionTranslator, ref: BuiltinRef, t: SpvType, instr: Instruction) -> Value:
    _, has_dim = QUERIES[ref.name]
    if ref.index is not None or not has_dim:
        if t.kind != "int":
            raise instr.error(f"built-in {ref.name} element loaded as {t.ir}, not an integer")
        return _query(ft, ref.name, ref.index, t.ir)
    if t.kind != "vector" or t.count != 3 or t.elem is None or t.elem.kind != "int":
        raise instr.error(f"built-in {ref.name} loaded as {t.ir}, not a vector of 3 integers")
    vec: Value = Undef(t.ir)
    for d in range(3):
        vec = ft.b.insertelement(vec, _query(ft, ref.name, ConstInt(ir.I32, d), t.elem.ir),
                                 ConstInt(ir.I32, d))
    return vec
