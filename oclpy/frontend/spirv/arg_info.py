"""What clGetKernelArgInfo reports for a SPIR-V kernel's arguments.

From the producer's OpStrings when present (llvm-spirv writes
`kernel_arg_type.<kernel>.<type>,<type>,...` and
`kernel_arg_type_qual.<kernel>.<quals>,...`), else derived from the types:
the address qualifier from the pointer's storage class, `const` from
FuncParamAttr NoWrite, `restrict` from NoAlias, `volatile` from the Volatile
decoration. A pointer argument with FuncParamAttr ByVal is a struct passed by
value: its IR argument is the struct itself.
"""

from __future__ import annotations

from typing import Any

from ...ir import types as ir
from .binary import Instruction
from .reader import ModuleInfo
from .spirv_types import SpvType, TypeTable

_QUALIFIERS = {ir.AddressSpace.GLOBAL: "global", ir.AddressSpace.LOCAL: "local",
               ir.AddressSpace.CONSTANT: "constant", ir.AddressSpace.PRIVATE: "private"}
_BYVAL, _NOALIAS, _NOWRITE = 2, 4, 6


def _metadata(info: ModuleInfo, key: str, kernel: str) -> list[str] | None:
    prefix = f"{key}.{kernel}."
    for text in info.strings.values():
        if text.startswith(prefix):
            items = text[len(prefix):].split(",")
            return items[:-1] if items and items[-1] == "" else items
    return None


def kernel_arg_attrs(info: ModuleInfo, types: TypeTable, kernel: str, index: int, t: SpvType,
                     instr: Instruction) -> tuple[ir.Type, bool, dict[str, Any]]:
    """(IR type, passed by value through a pointer, clGetKernelArgInfo attributes)."""
    pid = instr.operand(1)
    param_attrs = info.func_param_attrs(pid)
    quals: set[str] = set()
    by_value = t.kind == "pointer" and _BYVAL in param_attrs
    if by_value:
        types.pointee(t, instr)
        pointee = types.data(t.pointee_id, instr, f"kernel '{kernel}' by-value argument {index}")
        ir_type, space, name = pointee.ir, "private", pointee.name
    elif t.kind == "pointer":
        if t.space not in _QUALIFIERS or t.space is ir.AddressSpace.PRIVATE:
            raise instr.error(f"kernel '{kernel}' argument {index} points into {t.space} memory: "
                              f"kernel pointer arguments must be global, local or constant")
        ir_type, space, name = t.ir, _QUALIFIERS[t.space], t.name
        quals |= {"const"} if _NOWRITE in param_attrs or space == "constant" else set()
        quals |= {"restrict"} if _NOALIAS in param_attrs else set()
        quals |= {"volatile"} if info.decoration(pid, "Volatile") is not None else set()
    elif t.kind in ("int", "float", "vector", "struct", "bool"):
        if t.kind == "bool":
            raise instr.error(f"kernel '{kernel}' argument {index} is a bool (not allowed in OpenCL)")
        ir_type, space, name = t.ir, "private", t.name
    else:
        raise instr.error(f"kernel '{kernel}' argument {index} has unsupported type {t.kind}")
    names = _metadata(info, "kernel_arg_type", kernel)
    if names is not None and index < len(names):
        name = names[index]
    given = _metadata(info, "kernel_arg_type_qual", kernel)
    if given is not None and index < len(given):
        quals = set(given[index].split())
    return ir_type, by_value, {"type_name": name, "address_qualifier": space,
                               "access_qualifier": "none", "type_qualifiers": quals,
                               "name": info.names.get(pid, "")}
