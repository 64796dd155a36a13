"""What one benchmark case is: a kernel, its arguments, its launch shape, its check.

A `Case` is independent of the OpenCL implementation: `runner.py` turns its
`Arg`s into buffers of either oclpy or PyOpenCL (same API) and compares the
`outputs` it reads back with `reference(inputs)`, computed with NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Arg:
    """One kernel argument.

    kind: "in" (buffer filled from `value`), "out" (zeroed buffer of `value`'s
    shape and dtype, read back and checked), "local" (`value` bytes of
    __local memory), "scalar" (a NumPy scalar)."""

    name: str
    kind: str
    value: object


@dataclass(frozen=True)
class Case:
    name: str
    kernel: str                 # kernel function name in `source`
    source: str
    args: list[Arg]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None
    size: str                   # human-readable problem size for the table
    reference: Callable[[dict[str, object]], dict[str, np.ndarray]]
    rtol: float = 1e-5
    atol: float = 1e-5
    extra: dict[str, object] = field(default_factory=dict)  # mismatch_fraction, int_atol

    def inputs(self) -> dict[str, object]:
        return {a.name: a.value for a in self.args if a.kind in ("in", "scalar", "out")}


def check(case: Case, outputs: dict[str, np.ndarray]) -> str | None:
    """None when every output matches the NumPy reference, else what differs."""
    expected = case.reference(case.inputs())
    for name, want in expected.items():
        got = outputs[name].reshape(want.shape)
        if np.issubdtype(want.dtype, np.floating):
            ok = np.allclose(got, want, rtol=case.rtol, atol=case.atol, equal_nan=True)
        else:
            allowed = float(case.extra.get("mismatch_fraction", 0.0)) * want.size
            ok = int(np.count_nonzero(_int_misses(case, got, want))) <= allowed
        if not ok:
            bad = np.flatnonzero(~np.isclose(got, want, rtol=case.rtol, atol=case.atol)
                                 if np.issubdtype(want.dtype, np.floating)
                                 else _int_misses(case, got, want))
            i = int(bad[0])
            return (f"{name}: {bad.size} of {want.size} elements differ "
                    f"(first at {i}: got {got.flat[i]!r}, want {want.flat[i]!r})")
    return None


def _int_misses(case: Case, got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where integer results differ by more than the case's `int_atol` (default 0)."""
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    return diff > int(case.extra.get("int_atol", 0))
