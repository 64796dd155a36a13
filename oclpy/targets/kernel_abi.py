"""The kernel-argument blob every target shares with the runtime.

Each kernel argument gets a kind and a place in one packed blob, as
docs/ARCHITECTURE.md ("Target: IR module -> compiled program") defines it:
global/constant buffers as a 64-bit device address, `__local` arguments as
their 64-bit byte size, scalars/vectors/structs as their bytes in the
target's DataLayout, each at its natural alignment. Hidden arguments added
by target passes (`attrs["hidden"]`) are not part of the blob.

`has_program_variables` says whether a module has writable program-scope
storage (OpenCL C 2.0 `global int g;`, `static global` locals): each target
then gives every build of the program its own copy of it (`program_instance`
in cpu's `compiled.py`, `ptx_program.py` and `simt_program.py`).

Kernel facts travel as JSON data in the build cache (`arg_record`,
`arg_from_record`): what comes back is checked field by field, so a damaged
record is a ValueError, never an argument that points outside its blob.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir import types as irt
from ..ir.datalayout import DataLayout
from ..ir.types import AddressSpace, PtrType, Type
from ..ir.values import Function, Module

POINTER_ARG_KINDS = {AddressSpace.GLOBAL: "global", AddressSpace.CONSTANT: "constant",
                     AddressSpace.LOCAL: "local"}


@dataclass(frozen=True)
class KernelArg:
    name: str
    kind: str  # "global" | "constant" | "local" | "scalar"
    size: int
    offset: int
    type: Type
    attrs: dict[str, Any] = field(default_factory=dict)


def align_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def has_program_variables(module: Module) -> bool:
    """Whether `module` has a writable program-scope variable (OpenCL C 2.0 `global int x;`,
    a kernel's `static global int n;`): storage that lives as long as the program and that
    each program object (each build) must have its own copy of."""
    return any(gv.space is not AddressSpace.LOCAL and not gv.constant for gv in module.globals)


def kernel_args(fn: Function, layout: DataLayout) -> tuple[list[KernelArg], int]:
    """Each visible argument's kind, size and blob offset, and the blob's size."""
    args, offset = [], 0
    for arg in fn.args:
        if "hidden" in arg.attrs:
            continue
        space = arg.type.space if isinstance(arg.type, PtrType) else None
        kind = POINTER_ARG_KINDS.get(space, "scalar") if space is not None else "scalar"
        size = 8 if kind != "scalar" else layout.size_of(arg.type)
        align = 8 if kind != "scalar" else layout.align_of(arg.type)
        offset = align_up(offset, align)
        args.append(KernelArg(arg.name, kind, size, offset, arg.type, dict(arg.attrs)))
        offset += size
    return args, align_up(offset, 8) if args else 0


# -- kernel facts as JSON data (the build cache's entries) ----------------------------
# What comes back from an entry is checked field by field before use: a record
# that breaks any bound below raises ValueError, and the cache treats it as a miss.

MAX_BLOB_BYTES = 1 << 20  # an argument blob (CL_DEVICE_MAX_PARAMETER_SIZE is far below)
MAX_MEMORY_BYTES = 1 << 34  # static local memory or a work-item frame
MAX_TYPE_DEPTH = 32  # nesting of a parameter's type (structs of arrays of ...)
MAX_COUNT = 1 << 24  # elements of an array type, fields of a struct type
MAX_NAME = 4096  # characters of a kernel or argument name, or of an attribute value
INT_BITS = (1, 8, 16, 32, 64)
FLOAT_BITS = (16, 32, 64)
ARG_KINDS = ("global", "constant", "local", "scalar")


def checked_int(value: Any, low: int, high: int, what: str) -> int:
    """`value` when it is an int (not a bool) in [low, high], else ValueError."""
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{what}: {value!r} is not an integer in [{low}, {high}]")
    return value


def checked_str(value: Any, what: str, limit: int = MAX_NAME) -> str:
    if type(value) is not str or len(value) > limit:
        raise ValueError(f"{what}: not a string of at most {limit} characters")
    return value


def checked_dict(value: Any, keys: tuple[str, ...], what: str) -> dict[str, Any]:
    """`value` when it is a dict with exactly `keys`, else ValueError."""
    if type(value) is not dict or set(value) != set(keys):
        raise ValueError(f"{what}: expected the keys {', '.join(keys)}")
    return value


def type_to_json(t: Type) -> Any:
    """An IR type of a kernel parameter as JSON data (`type_from_json` reverses it)."""
    if isinstance(t, (irt.IntType, irt.FloatType)):
        return [type(t).__name__, t.bits]
    if isinstance(t, irt.PtrType):
        return ["PtrType", t.space.value]
    if isinstance(t, (irt.VectorType, irt.ArrayType)):
        return [type(t).__name__, type_to_json(t.elem), t.count]
    if isinstance(t, irt.StructType):
        return ["StructType", [type_to_json(f) for f in t.fields], t.packed]
    raise ValueError(f"no JSON form for a kernel parameter of type {t}")


def type_from_json(data: Any, depth: int = 0) -> Type:
    """The IR type `type_to_json` wrote; ValueError on anything else."""
    if depth > MAX_TYPE_DEPTH or type(data) is not list or not data or data[0] not in _FROM_JSON:
        raise ValueError(f"not a parameter type: {str(data)[:80]}")
    shape, build = _FROM_JSON[data[0]]
    if len(data) != shape:
        raise ValueError(f"not a parameter type: {str(data)[:80]}")
    return build(data, depth + 1)


def _width(value: Any, allowed: tuple[int, ...]) -> int:
    if type(value) is not int or value not in allowed:
        raise ValueError(f"not a width of {allowed}: {str(value)[:20]}")
    return value


def _struct(data: list[Any], depth: int) -> Type:
    if type(data[1]) is not list or len(data[1]) > MAX_COUNT or type(data[2]) is not bool:
        raise ValueError("not a struct type")
    return irt.StructType(tuple(type_from_json(f, depth) for f in data[1]), data[2])


# name -> (list length, build(data, depth))
_FROM_JSON = {
    "IntType": (2, lambda d, n: irt.IntType(_width(d[1], INT_BITS))),
    "FloatType": (2, lambda d, n: irt.FloatType(_width(d[1], FLOAT_BITS))),
    "PtrType": (2, lambda d, n: irt.PtrType(irt.AddressSpace(checked_str(d[1], "space")))),
    "VectorType": (3, lambda d, n: irt.VectorType(type_from_json(d[1], n), checked_int(d[2], 1, 16, "lanes"))),
    "ArrayType": (3, lambda d, n: irt.ArrayType(type_from_json(d[1], n), checked_int(d[2], 0, MAX_COUNT, "count"))),
    "StructType": (3, _struct),
}


def _json_attrs(attrs: dict[str, Any]) -> dict[str, Any]:
    """An argument's attributes as JSON: scalars, lists, and sets as {"set": sorted list}."""
    out: dict[str, Any] = {}
    for key, value in attrs.items():
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[key] = value
        elif isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) for v in value):
            out[key] = list(value)
        elif isinstance(value, (set, frozenset)) and all(isinstance(v, str) for v in value):
            out[key] = {"set": sorted(value)}
    return out


def _scalars(values: Any, what: str) -> list[Any]:
    if type(values) is not list or len(values) > 64 or \
            not all(v is None or type(v) in (str, int, float, bool) for v in values):
        raise ValueError(f"argument attribute {what}: not a short list of scalars")
    for v in values:
        if type(v) is str:
            checked_str(v, f"argument attribute {what}")
    return values


def _attrs_from_json(data: Any) -> dict[str, Any]:
    if type(data) is not dict or len(data) > 64:
        raise ValueError("argument attributes: not a small object")
    out: dict[str, Any] = {}
    for key, value in data.items():
        checked_str(key, "attribute name")
        if type(value) is dict:
            out[key] = set(_scalars(checked_dict(value, ("set",), key)["set"], key))
        elif type(value) is list:
            out[key] = _scalars(value, key)
        else:
            out[key] = _scalars([value], key)[0]
    return out


ARG_KEYS = ("name", "kind", "size", "offset", "type", "attrs")


def arg_record(arg: KernelArg) -> dict[str, Any]:
    return {"name": arg.name, "kind": arg.kind, "size": arg.size, "offset": arg.offset,
            "type": type_to_json(arg.type), "attrs": _json_attrs(arg.attrs)}


def arg_from_record(data: Any, blob_size: int) -> KernelArg:
    """The KernelArg `arg_record` wrote, checked to lie inside a blob of `blob_size` bytes."""
    d = checked_dict(data, ARG_KEYS, "kernel argument")
    kind = d["kind"]
    if kind not in ARG_KINDS:
        raise ValueError(f"kernel argument: unknown kind {str(kind)[:40]!r}")
    size = checked_int(d["size"], 1, MAX_BLOB_BYTES, "argument size")
    if kind != "scalar" and size != 8:
        raise ValueError(f"a {kind} argument takes 8 bytes, not {size}")
    offset = checked_int(d["offset"], 0, blob_size - size, "argument offset")
    return KernelArg(checked_str(d["name"], "argument name"), kind, size, offset,
                     type_from_json(d["type"]), _attrs_from_json(d["attrs"]))


def args_from_record(data: Any, blob_size: int) -> list[KernelArg]:
    if type(data) is not list or len(data) > 4096:
        raise ValueError("kernel arguments: not a list")
    return [arg_from_record(a, blob_size) for a in data]


def reqd_from_record(data: Any) -> tuple[int, int, int] | None:
    """A kernel's `reqd_work_group_size` (None or three sizes in [1, 2**20])."""
    if data is None:
        return None
    if type(data) is not list or len(data) != 3:
        raise ValueError("reqd_work_group_size: not three sizes")
    x, y, z = (checked_int(v, 1, 1 << 20, "reqd_work_group_size") for v in data)
    return (x, y, z)
