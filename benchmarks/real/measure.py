"""Timing one case on every implementation: cold build, first run, checked; then rounds.

The protocol: build cold (a per-run nonce comment in the source, so no cache
answers), run the launch sequence once on fresh buffers and check the outputs
against NumPy (that run's time is the "first launch"; PoCL and oclpy generate
native code there). Then `warmup` untimed runs each, and `repeat` rounds in
which every implementation runs the sequence once, the order rotating each
round; buffers changed in place are refilled before each run, untimed. The
kernel time is the fastest round (other processes on a shared machine only
ever add time); the median is kept too.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from .case import RealCase, check
from .impls import Impl, Prepared


@dataclass
class Result:
    kernel_s: float = float("nan")
    median_s: float = float("nan")
    samples: list[float] = field(default_factory=list)
    cold_build_s: float = float("nan")
    first_launch_s: float = float("nan")
    error: str | None = None


def first_run(impl: Impl, case: RealCase, source: str) -> tuple[Prepared | None, Result]:
    res = Result()
    try:
        p = impl.prepare(case, source)
    except Exception as exc:  # a build failure is a result, reported in the table
        res.error = f"build failed: {' '.join(str(exc).split())[:300]}"
        return None, res
    res.cold_build_s = p.build_s
    try:
        t0 = time.perf_counter()
        impl.run(p)
        res.first_launch_s = time.perf_counter() - t0
        problem = check(case, impl.outputs(case, p))
    except Exception as exc:
        res.error = f"launch failed: {' '.join(str(exc).split())[:300]}"
        return None, res
    if problem:
        res.error = f"wrong result: {problem}"
    return p, res


def timed_run(impl: Impl, case: RealCase, p: Prepared) -> float:
    if case.restore:
        impl.restore(case, p)
    t0 = time.perf_counter()
    device_s = impl.run(p)
    wall_s = time.perf_counter() - t0
    return wall_s if device_s is None else device_s


def time_rounds(runs: list[tuple[Impl, Prepared, Result]], case: RealCase,
                warmup: int, repeat: int) -> None:
    for impl, p, _ in runs:
        for _ in range(warmup):
            timed_run(impl, case, p)
    for r in range(repeat):
        k = r % max(len(runs), 1)
        for impl, p, res in runs[k:] + runs[:k]:
            res.samples.append(timed_run(impl, case, p))
    for _, _, res in runs:
        if res.samples:
            res.kernel_s = min(res.samples)
            res.median_s = statistics.median(res.samples)
