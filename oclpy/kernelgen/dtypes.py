"""The dtype registry: which OpenCL C type a numpy dtype is in a generated kernel.

`dtype_to_ctype(np.uint32)` is "unsigned int"; a cltypes vector
(`cltypes.float4`) is "float4"; a struct dtype registered with
`get_or_register_dtype("particle", dtype)` is "particle", and
`get_or_register_dtype("particle")` looks it up again. `kernel_ctype` is the
same with complex dtypes spelled float2/double2, as NumPy lays them out.
The registry is one per process, as PyOpenCL's is; `oclpy.tools` offers
these under PyOpenCL's names.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from .. import cltypes

_DTYPE_TO_C = {np.dtype(np.int8): "char", np.dtype(np.uint8): "unsigned char",
               np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
               np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
               np.dtype(np.int64): "long", np.dtype(np.uint64): "unsigned long",
               np.dtype(np.float16): "half", np.dtype(np.float32): "float",
               np.dtype(np.float64): "double", np.dtype(np.bool_): "bool"}
_registered: dict[np.dtype, str] = {}
_registry_lock = threading.Lock()


def get_or_register_dtype(c_names: str | list[str], dtype: Any = None) -> np.dtype:
    """Register `dtype` under C name(s); with no dtype, look the name up (TypeError if unknown)."""
    names = [c_names] if isinstance(c_names, str) else list(c_names)
    if dtype is None:
        for known, name in _registered.items():
            if name in names:
                return known
        raise TypeError(f"unknown type name {names[0]!r}")
    dtype = np.dtype(dtype)
    with _registry_lock:
        _registered.setdefault(dtype, names[0])
    return dtype


def dtype_to_ctype(dtype: Any) -> str:
    """The OpenCL C spelling of a numpy scalar, cltypes vector or registered dtype."""
    dtype = np.dtype(dtype)
    if dtype in _registered:
        return _registered[dtype]
    if dtype in _DTYPE_TO_C:
        return _DTYPE_TO_C[dtype]
    if dtype in cltypes.vec_type_to_scalar_and_count:
        base, count = cltypes.vec_type_to_scalar_and_count[dtype]
        return f"{_DTYPE_TO_C[base].replace('unsigned ', 'u')}{count}"
    raise ValueError(f"unable to map dtype '{dtype}'")


def kernel_ctype(dtype: Any) -> str:
    """The C type of `dtype` in a generated kernel (complex as float2/double2, as NumPy lays it out)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return "double2" if dtype.itemsize == 16 else "float2"
    return dtype_to_ctype(dtype)
