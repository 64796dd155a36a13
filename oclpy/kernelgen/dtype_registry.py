"""The dtype registry: which OpenCL C type a numpy dtype is in a generated kernel.

One registry per process (`TYPE_REGISTRY`, a `DTypeRegistry` with compyte's
semantics, which `pyopencl.compyte.dtypes` and loopy use directly): every
dtype has its first registered name, every name one dtype. It starts with
PyOpenCL's contents: the OpenCL C scalars under their OpenCL spellings first
(`dtype_to_ctype(np.uint8)` is "uchar", and "unsigned char" names it too),
`cfloat_t`/`cdouble_t` for complex64/complex128 (pyopencl-complex.h), `half`,
`bool`, and the cltypes vectors (`float4`, `uint2`, ...). Structs are added with
`get_or_register_dtype("particle", dtype)`; `get_or_register_dtype("particle")`
looks one up (TypeNameNotKnown if unknown). `kernel_ctype` is the spelling
oclpy's own generated kernels use: complex as float2/double2, as NumPy lays it
out. `oclpy.tools` offers these under PyOpenCL's names.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Sequence

import numpy as np

from .. import cltypes


class TypeNameNotKnown(KeyError, TypeError):
    """A C type name nobody registered (a KeyError, as PyOpenCL's lookup raises)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DTypeRegistry:
    """C type names <-> numpy dtypes (compyte's DTypeRegistry)."""

    def __init__(self) -> None:
        self.dtype_to_name: dict[np.dtype | str, str] = {}
        self.name_to_dtype: dict[str, np.dtype] = {}
        self._lock = threading.Lock()

    def get_or_register_dtype(self, names: str | Sequence[str], dtype: Any = None) -> np.dtype:
        """Register `dtype` under the C names (the first is its spelling); with no dtype,
        the dtype registered under the names. A name registered to another dtype: RuntimeError."""
        names = [names] if isinstance(names, str) else list(names)
        if dtype is None:
            missing = [n for n in names if n not in self.name_to_dtype]
            if missing:
                raise TypeNameNotKnown(f"unknown type name {missing[0]!r}")
            found = {self.name_to_dtype[n] for n in names}
            if len(found) != 1:
                raise ValueError(f"the names {names} stand for different dtypes")
            return found.pop()
        dtype = np.dtype(dtype)
        with self._lock:
            existing = self.dtype_to_name.get(dtype)
            if existing is not None:
                dtype = self.name_to_dtype[existing]
            for name in names:
                known = self.name_to_dtype.setdefault(name, dtype)
                if known != dtype:
                    raise RuntimeError(f"name '{name}' already registered to different dtype")
            if existing is None:
                self.dtype_to_name[dtype] = names[0]
            self.dtype_to_name.setdefault(str(dtype), names[0])
        return dtype

    def dtype_to_ctype(self, dtype: Any) -> str:
        if dtype is None:
            raise ValueError("dtype may not be None")
        dtype = np.dtype(dtype)
        try:
            return self.dtype_to_name[dtype]
        except KeyError:
            raise ValueError(f"unable to map dtype '{dtype}'") from None


def fill_registry_with_opencl_c_types(reg: DTypeRegistry) -> None:
    """The OpenCL C scalars, the OpenCL spelling first (compyte's table)."""
    reg.get_or_register_dtype(["char", "signed char"], np.int8)
    reg.get_or_register_dtype(["uchar", "unsigned char"], np.uint8)
    reg.get_or_register_dtype(["short", "signed short", "signed short int", "short signed int"], np.int16)
    reg.get_or_register_dtype(["ushort", "unsigned short", "unsigned short int", "short unsigned int"],
                              np.uint16)
    reg.get_or_register_dtype(["int", "signed int"], np.int32)
    reg.get_or_register_dtype(["uint", "unsigned", "unsigned int"], np.uint32)
    reg.get_or_register_dtype(["long", "long int", "signed long int", "long signed int"], np.int64)
    reg.get_or_register_dtype(["ulong", "unsigned long", "unsigned long int", "long unsigned int"],
                              np.uint64)
    reg.get_or_register_dtype(["intptr_t"], np.intp)
    reg.get_or_register_dtype(["uintptr_t"], np.uintp)
    reg.get_or_register_dtype("float", np.float32)
    reg.get_or_register_dtype("double", np.float64)


def _fill(reg: DTypeRegistry) -> None:
    fill_registry_with_opencl_c_types(reg)
    reg.get_or_register_dtype("cfloat_t", np.complex64)
    reg.get_or_register_dtype("cdouble_t", np.complex128)
    reg.get_or_register_dtype("half", np.float16)
    reg.get_or_register_dtype("bool", np.bool_)
    for vec, (base, count) in cltypes.vec_type_to_scalar_and_count.items():
        reg.get_or_register_dtype(f"{reg.dtype_to_ctype(base)}{count}", vec)


TYPE_REGISTRY = DTypeRegistry()
_fill(TYPE_REGISTRY)

get_or_register_dtype = TYPE_REGISTRY.get_or_register_dtype
dtype_to_ctype = TYPE_REGISTRY.dtype_to_ctype


def register_dtype(dtype: Any, c_names: str | Sequence[str], alias_ok: bool = False) -> None:
    """Deprecated form of `get_or_register_dtype` (RuntimeError for a dtype known
    under another name unless `alias_ok`)."""
    warnings.warn("register_dtype is deprecated. Use get_or_register_dtype instead.",
                  DeprecationWarning, stacklevel=2)
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    dtype = np.dtype(dtype)
    name = TYPE_REGISTRY.dtype_to_name.get(dtype)
    if not alias_ok and name is not None:
        raise RuntimeError(f"dtype '{dtype}' already registered (as '{name}', new names "
                           f"'{', '.join(names)}')")
    TYPE_REGISTRY.get_or_register_dtype(names, dtype)


def kernel_ctype(dtype: Any) -> str:
    """The C type of `dtype` in a generated kernel (complex as float2/double2, as NumPy lays it out)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return "double2" if dtype.itemsize == 16 else "float2"
    return dtype_to_ctype(dtype)
