"""Random device arrays, the calls of `pyopencl.clrandom` that host scripts use.

`rand(queue, shape, dtype, a=0, b=1)` returns an `oclpy.array.Array` of
numbers uniform in [a, b) (integers: [a, b)), drawn with NumPy's Philox
bit generator (the counter-based generator PyOpenCL's device-side one is
modelled on) and copied to the device. `RanluxGenerator`/`PhiloxGenerator`
objects are not provided.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array import Array, to_device

_seed = np.random.SeedSequence()


def _generator(seed: int | None) -> np.random.Generator:
    return np.random.Generator(np.random.Philox(seed if seed is not None else _seed.spawn(1)[0]))


def uniform(queue: Any, shape: Any, dtype: Any = np.float32, a: float = 0, b: float = 1,
            seed: int | None = None) -> Array:
    dtype = np.dtype(dtype)
    rng = _generator(seed)
    if dtype.kind in "iu":
        values = rng.integers(int(a), int(b), size=shape, dtype=dtype)
    elif dtype.kind == "f":
        values = rng.uniform(a, b, size=shape).astype(dtype)
    elif dtype.kind == "c":
        values = (rng.uniform(a, b, size=shape) + 1j * rng.uniform(a, b, size=shape)).astype(dtype)
    else:
        raise NotImplementedError(f"random numbers of dtype {dtype}")
    return to_device(queue, values)


def rand(queue: Any, shape: Any, dtype: Any, luxury: Any = None, a: float = 0, b: float = 1) -> Array:
    return uniform(queue, shape, dtype, a, b)


def normal(queue: Any, shape: Any, dtype: Any = np.float32, mu: float = 0, sigma: float = 1,
           seed: int | None = None) -> Array:
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise NotImplementedError(f"normal random numbers of dtype {dtype}")
    return to_device(queue, _generator(seed).normal(mu, sigma, size=shape).astype(dtype))


__all__ = ["normal", "rand", "uniform"]
