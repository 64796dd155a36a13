"""Small helpers from `pyopencl.tools` that host code commonly uses."""

from __future__ import annotations

from typing import Any

import numpy as np

from .runtime.context import Context, create_some_context

_DTYPE_TO_C = {np.dtype(np.int8): "char", np.dtype(np.uint8): "unsigned char",
               np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
               np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
               np.dtype(np.int64): "long", np.dtype(np.uint64): "unsigned long",
               np.dtype(np.float16): "half", np.dtype(np.float32): "float",
               np.dtype(np.float64): "double", np.dtype(np.bool_): "bool"}


def dtype_to_ctype(dtype: Any) -> str:
    """The OpenCL C spelling of a numpy scalar or cltypes vector dtype."""
    from . import cltypes

    dtype = np.dtype(dtype)
    if dtype in _DTYPE_TO_C:
        return _DTYPE_TO_C[dtype]
    if dtype in cltypes.vec_type_to_scalar_and_count:
        base, count = cltypes.vec_type_to_scalar_and_count[dtype]
        return f"{_DTYPE_TO_C[base].replace('unsigned ', 'u')}{count}"
    raise ValueError(f"unable to map dtype '{dtype}'")


def get_test_platforms_and_devices() -> list[tuple[Any, list[Any]]]:
    from .runtime.platform import get_platforms

    return [(p, p.get_devices()) for p in get_platforms()]


def clear_first_arg_caches() -> None:
    """PyOpenCL clears its per-context caches here; oclpy keeps none tied to contexts."""


__all__ = ["Context", "create_some_context", "dtype_to_ctype", "get_test_platforms_and_devices",
           "clear_first_arg_caches"]
