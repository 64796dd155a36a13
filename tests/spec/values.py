"""Operand values for the spec tests: edge values first, then seeded random ones."""

from __future__ import annotations

import numpy as np

from .elementwise import DTYPES, G, bits, is_signed

N = G * 16


def int_values(t: str, seed: int, small: bool = False) -> np.ndarray:
    """N values of integer type `t`: 0, ±1, the extremes and neighbours, random bits."""
    b = bits(t)
    lo, hi = (-(1 << (b - 1)), (1 << (b - 1)) - 1) if is_signed(t) else (0, (1 << b) - 1)
    edges = [0, 1, hi, lo, hi - 1, lo + 1, 2, 7, (hi + 1) // 2, (hi + 1) // 2 - 1]
    if is_signed(t):
        edges += [-1, -2, lo // 2, lo // 2 - 1]
    rng = np.random.default_rng(seed)
    rnd = [int(x) for x in rng.integers(0, 1 << b, N, dtype=np.uint64 if b == 64 else np.int64)]
    rnd = [x - (1 << b) if is_signed(t) and x > hi else x for x in rnd]
    vals = (edges[seed % 3:] + rnd)[:N]
    rng.shuffle(vals[len(edges):])
    return np.array(vals, dtype=DTYPES[t])


def float_values(t: str, seed: int, lo: float = -100.0, hi: float = 100.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, N).astype(DTYPES[t])
