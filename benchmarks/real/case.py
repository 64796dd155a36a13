"""What one real-suite case is: a program, its buffers, a launch sequence, a check.

A `RealCase` names the project its kernels come from, the assembled source
and the build options that project's host code passes; `launches` run in
order on the same buffers (a multi-pass FFT or radix sort is one case). The
outputs read back after one run of the sequence on fresh buffers are compared
with `reference(buffers)`, computed with NumPy from the initial contents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Union

import numpy as np


@dataclass(frozen=True)
class Local:
    """A `__local` pointer argument of `nbytes` bytes."""

    nbytes: int


@dataclass(frozen=True)
class Vec:
    """An OpenCL vector scalar argument, e.g. Vec("int4", (n, groups, bit, blocks))."""

    type: str
    values: tuple


Arg = Union[str, Local, Vec, np.generic]   # a str names a buffer of the case


@dataclass(frozen=True)
class Launch:
    kernel: str
    args: tuple
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None = None


@dataclass(frozen=True)
class RealCase:
    name: str
    project: str                      # folder under kernels/
    category: str
    source: str
    options: str
    buffers: dict[str, np.ndarray]    # initial contents
    outputs: tuple[str, ...]          # buffers read back and checked
    launches: tuple[Launch, ...]
    size: str
    reference: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]
    rtol: float = 1e-4
    atol: float = 1e-4
    # buffers the launches change that must be refilled before each timed run
    # (in-place transforms, ping-pong sorts)
    restore: tuple[str, ...] = ()
    # outputs -> outputs before comparison (e.g. sort pairs found in any order)
    normalise: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]] | None = None
    notes: str = ""
    # implementation -> why this case is not run there (a crash that would end the run)
    skip: dict[str, str] = field(default_factory=dict)
    extra: dict[str, object] = field(default_factory=dict)

    def kernels(self) -> list[str]:
        return sorted({launch.kernel for launch in self.launches})


def check(case: RealCase, outputs: dict[str, np.ndarray]) -> str | None:
    """None when every output matches the NumPy reference, else what differs."""
    want_all = case.reference({k: v.copy() for k, v in case.buffers.items()})
    got_all = {k: outputs[k].reshape(np.shape(v)) for k, v in want_all.items()}
    if case.normalise is not None:
        got_all, want_all = case.normalise(got_all), case.normalise(want_all)
    for name, want in want_all.items():
        got = np.asarray(got_all[name])
        want = np.asarray(want)
        if np.issubdtype(want.dtype, np.floating):
            bad = ~np.isclose(got, want, rtol=case.rtol, atol=case.atol, equal_nan=True)
        else:
            diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
            bad = diff > int(case.extra.get("int_atol", 0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            return (f"{name}: {int(bad.sum())} of {want.size} elements differ "
                    f"(first at {i}: got {got.flat[i]!r}, want {want.flat[i]!r})")
    return None
