"""`pyopencl.compyte.array`: stride helpers over NumPy arrays (compyte's names).

`as_strided(x, shape, strides)` is NumPy's view with the given shape and strides
(`numpy.lib.stride_tricks.as_strided`); the contiguity helpers are the ones
oclpy's arrays use (array/views.py) with compyte's argument order."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided as _numpy_as_strided

from ..array.views import c_strides, contiguity, f_strides


def as_strided(x: np.ndarray, shape: Any = None, strides: Any = None) -> np.ndarray:
    """A view of `x` with `shape` and byte `strides` (x itself when both are unchanged)."""
    if (shape is None or tuple(x.shape) == tuple(shape)) and (strides is None or tuple(x.strides) == tuple(strides)):
        return x
    return _numpy_as_strided(x, shape=shape, strides=strides)


def f_contiguous_strides(itemsize: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(f_strides(tuple(shape), itemsize))


def c_contiguous_strides(itemsize: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(c_strides(tuple(shape), itemsize))


def is_c_contiguous_strides(strides: tuple[int, ...], itemsize: int, shape: tuple[int, ...]) -> bool:
    return contiguity(tuple(shape), tuple(strides), itemsize)[0]


def is_f_contiguous_strides(strides: tuple[int, ...], itemsize: int, shape: tuple[int, ...]) -> bool:
    return contiguity(tuple(shape), tuple(strides), itemsize)[1]


def equal_strides(strides1: tuple[int, ...], strides2: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether the strides address the same elements (axes of length 1 may differ)."""
    if tuple(strides1) == tuple(strides2):
        return True
    if len(strides1) != len(strides2) or len(strides2) != len(shape):
        return False
    return all(n == 1 or s1 == s2 for s1, s2, n in zip(strides1, strides2, shape))


__all__ = ["as_strided", "c_contiguous_strides", "equal_strides", "f_contiguous_strides",
           "is_c_contiguous_strides", "is_f_contiguous_strides"]
