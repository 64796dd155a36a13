"""Timing one case on one or two implementations: check, warm up, alternate.

The protocol: build (cold, with a per-run nonce in the source so no cache
answers), one launch on fresh buffers checked against NumPy (its time is the
"first launch"), `warmup` more launches each, then `repeat` rounds in which each
implementation runs once, the order flipping every round; the kernel time is
the fastest round (other processes on a shared machine only ever add time;
the median is kept too). Launch overhead: a one-work-group launch through
`kernel(queue, g, l, *args)` plus `queue.finish()`, best mean of a few batches.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from .case import Case, check
from .impl import Impl, Prepared


@dataclass
class ImplResult:
    kernel_s: float = float("nan")
    median_s: float = float("nan")
    samples: list[float] = field(default_factory=list)
    cold_build_s: float = float("nan")
    warm_build_s: float = float("nan")
    first_launch_s: float = float("nan")
    launch_overhead_s: float = float("nan")
    error: str | None = None


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def first_run(impl: Impl, case: Case, source: str) -> tuple[Prepared | None, ImplResult]:
    """Build with `source`, launch once, check against NumPy."""
    res = ImplResult()
    try:
        p = impl.prepare(case, source)
    except Exception as exc:  # a build failure is a result, reported in the table
        res.error = f"build failed: {str(exc)[:300]}"
        return None, res
    res.cold_build_s = p.build_s
    res.first_launch_s = timed(lambda: (impl.launch(case, p), impl.finish()))
    problem = check(case, impl.outputs(case, p))
    if problem:
        res.error = f"wrong result: {problem}"
    return p, res


def one_group(case: Case) -> tuple[int, ...]:
    return tuple(case.local_size) if case.local_size else (1,) * len(case.global_size)


def launch_overhead(impl: Impl, case: Case, p: Prepared, calls: int = 30, batches: int = 5) -> float:
    g = one_group(case)
    best = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            impl.call(case, p, g)
            impl.finish()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def time_kernels(runs: list[tuple[Impl, Prepared, ImplResult]], case: Case, warmup: int,
                 repeat: int) -> None:
    """Warm up, then alternate implementations round by round; store medians."""
    for impl, p, _ in runs:
        for _ in range(warmup):
            impl.launch(case, p)
        impl.finish()
    for r in range(repeat):
        order = runs if r % 2 == 0 else runs[::-1]
        for impl, p, res in order:
            res.samples.append(timed(lambda: (impl.launch(case, p), impl.finish())))
    for _, _, res in runs:
        res.kernel_s = min(res.samples)
        res.median_s = statistics.median(res.samples)
