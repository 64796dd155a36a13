"""Kernel argument descriptions for the generated kernels of oclpy.array and its builders.

`parse_arg_list("float *x, const float a, __global int *y")` turns PyOpenCL's
argument strings into `VectorArg` (a pointer: an Array or a Buffer is
passed) and `ScalarArg` (a value, converted to its dtype) objects; each
knows its C declarator. A VectorArg `with_offset` is declared as a base
pointer plus a byte offset (`x__base`, `x__offset`), and
`offset_adjuster(args)` is the C code that rebuilds `x` from them, so an
Array view with a nonzero `.offset` can be passed as is.

C type names resolve through `c_name_to_dtype`: OpenCL C's scalar names
(with `unsigned`, `signed`, `const`, `__global`, `restrict` and friends),
its vector types (`float4`, from oclpy.cltypes) and struct types registered
with `get_or_register_dtype` (dtype_registry.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .. import cltypes
from .dtype_registry import get_or_register_dtype, kernel_ctype

_SCALARS = {
    "char": np.int8, "signed char": np.int8, "uchar": np.uint8, "unsigned char": np.uint8,
    "short": np.int16, "signed short": np.int16, "ushort": np.uint16,
    "unsigned short": np.uint16, "int": np.int32, "signed int": np.int32, "signed": np.int32,
    "uint": np.uint32, "unsigned int": np.uint32, "unsigned": np.uint32,
    "long": np.int64, "signed long": np.int64, "ulong": np.uint64, "unsigned long": np.uint64,
    "half": np.float16, "float": np.float32, "double": np.float64, "bool": np.bool_,
    "size_t": np.uintp, "ptrdiff_t": np.intp, "intptr_t": np.intp, "uintptr_t": np.uintp,
}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict__", "__restrict", "__const",
               "__global", "global", "__constant", "constant", "__local", "local", "__private",
               "private", "__read_only", "__write_only"}
_SPACES = {"__global": "__global", "global": "__global", "__constant": "__constant",
           "constant": "__constant", "__local": "__local", "local": "__local"}
_IDENT = re.compile(r"^[A-Za-z_]\w*$")


class ArgumentError(ValueError):
    """An argument string that cannot be parsed (names the piece at fault)."""


@dataclass(frozen=True)
class DtypedArgument:
    dtype: np.dtype
    name: str

    def __init__(self, dtype: Any, name: str) -> None:
        object.__setattr__(self, "dtype", np.dtype(dtype))
        object.__setattr__(self, "name", name)

    def ctype(self) -> str:
        return kernel_ctype(self.dtype)


@dataclass(frozen=True)
class VectorArg(DtypedArgument):
    """A pointer argument (an Array or a Buffer is passed)."""

    with_offset: bool = False
    address_space: str = "__global"
    const: bool = False

    def __init__(self, dtype: Any, name: str, with_offset: bool = False,
                 address_space: str = "__global", const: bool = False) -> None:
        super().__init__(dtype, name)
        object.__setattr__(self, "with_offset", with_offset)
        object.__setattr__(self, "address_space", address_space)
        object.__setattr__(self, "const", const)

    def declarator(self) -> str:
        const = "const " if self.const else ""
        if self.with_offset:
            return (f"{self.address_space} {const}{self.ctype()} *{self.name}__base, "
                    f"long {self.name}__offset")
        return f"{self.address_space} {const}{self.ctype()} *{self.name}"


@dataclass(frozen=True)
class ScalarArg(DtypedArgument):
    """A by-value argument."""

    def declarator(self) -> str:
        return f"{self.ctype()} {self.name}"


Argument = DtypedArgument


def c_name_to_dtype(name: str) -> np.dtype:
    """The dtype of a C type name (scalar, OpenCL vector, or registered struct)."""
    name = " ".join(name.split())
    if name in _SCALARS:
        return np.dtype(_SCALARS[name])
    vec = re.fullmatch(r"([a-z]+)(2|3|4|8|16)", name)
    if vec and vec.group(1) in cltypes.BASE_TYPES:
        return np.dtype(getattr(cltypes, name))
    try:
        return get_or_register_dtype(name)
    except TypeError:
        raise ArgumentError(f"unknown type name '{name}'") from None


def parse_c_arg(text: str, with_offset: bool = False) -> DtypedArgument:
    """One declaration such as 'const float *x' or 'unsigned int n'."""
    words = text.replace("*", " * ").split()
    if len(words) < 2 or not _IDENT.match(words[-1]):
        raise ArgumentError(f"cannot parse the argument declaration '{text.strip()}'")
    name, pointers = words[-1], words[:-1].count("*")
    if pointers > 1:
        raise ArgumentError(f"argument '{name}': pointers to pointers are not kernel arguments")
    space = next((_SPACES[w] for w in words if w in _SPACES), "__global")
    const = "const" in words or "__const" in words
    type_words = [w for w in words[:-1] if w != "*" and w not in _QUALIFIERS]
    if not type_words:
        raise ArgumentError(f"argument '{name}' has no type")
    dtype = c_name_to_dtype(" ".join(type_words))
    if pointers:
        return VectorArg(dtype, name, with_offset=with_offset, address_space=space, const=const)
    return ScalarArg(dtype, name)


def _split_args(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "([<" and 1 or (ch in ")]>" and -1 or 0)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p for p in (p.strip() for p in parts) if p]


def parse_arg_list(arguments: str | Sequence[Any], with_offset: bool = False
                   ) -> list[DtypedArgument]:
    """PyOpenCL's argument list: a C string, or a sequence of strings and Argument objects."""
    if isinstance(arguments, str):
        items: list[Any] = _split_args(arguments)
    else:
        items = list(arguments)
    result = []
    for item in items:
        if isinstance(item, DtypedArgument):
            if isinstance(item, VectorArg) and with_offset and not item.with_offset:
                item = VectorArg(item.dtype, item.name, True, item.address_space, item.const)
            result.append(item)
        elif isinstance(item, str):
            result.append(parse_c_arg(item, with_offset))
        else:
            raise ArgumentError(f"an argument must be a string or an Argument, not {item!r}")
    names = [a.name for a in result]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise ArgumentError(f"argument '{duplicate}' is declared twice")
    return result


def offset_adjuster(args: Sequence[DtypedArgument]) -> str:
    """C statements declaring each offset pointer argument from its base and byte offset."""
    lines = []
    for arg in args:
        if isinstance(arg, VectorArg) and arg.with_offset:
            const = "const " if arg.const else ""
            ptr = f"{arg.address_space} {const}{arg.ctype()} *"
            lines.append(f"  {ptr}{arg.name} = ({ptr})((__global char *) {arg.name}__base "
                         f"+ {arg.name}__offset);")
    return "\n".join(lines)


FP64_PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
FP16_PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"


def _has(dtype: Any, kind: Any) -> bool:
    dtype = np.dtype(dtype)
    return dtype == kind or bool(dtype.fields) and any(np.dtype(f[0]).base == kind for f in dtype.fields.values())


def precision_pragmas(args: Sequence[DtypedArgument], dtypes: Sequence[Any] = (), text: str = "") -> str:
    """The extension pragmas a generated kernel needs: cl_khr_fp64 for doubles, cl_khr_fp16
    for halves (a half variable or literal needs the pragma; PyOpenCL's generators leave it
    to the device compiler's leniency) among the arguments, the other `dtypes` or the
    `text` of the operation and preamble."""
    every = [a.dtype for a in args] + [np.dtype(d) for d in dtypes if d is not None]
    fp64 = any(_has(d, np.float64) for d in every) or "double" in text
    fp16 = any(_has(d, np.float16) for d in every) or "half" in text
    return (FP64_PRAGMA if fp64 else "") + (FP16_PRAGMA if fp16 else "")

