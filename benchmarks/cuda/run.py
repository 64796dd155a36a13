"""`python -m benchmarks.cuda`: the suite (`benchmarks.cases`) on oclpy's cuda device
and on NVIDIA's OpenCL through PyOpenCL, alternating, results checked.

Kernel time is GPU time on both sides: CUDA events around each launch on oclpy
(`CudaDriver.timing`), OpenCL event profiling (`profile.end - profile.start`) on
NVIDIA; the median of `repeat` rounds, each round running both implementations
(order flipping every round). Launch overhead: wall time per launch of a
one-work-group kernel, `batch` launches then `finish()`, best of a few batches.
Bandwidth-bound kernels also report achieved bandwidth against the H200's peak.
Writes a JSON record (benchmarks/results/cuda-*.json by default) and prints a table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from .. import cases
from ..case import Case, check
from ..impl import Impl

H200_PEAK_BYTES_PER_S = 4.8e12
# bytes each bandwidth-bound case moves per launch, from its arguments
TRAFFIC = {
    "saxpy": lambda c: 3 * _nbytes(c, "x"),
    "transpose": lambda c: 2 * _nbytes(c, "in"),
    "stencil2d": lambda c: 2 * _nbytes(c, "in"),
    "stencil3d": lambda c: 2 * _nbytes(c, "in"),
    "reduce": lambda c: _nbytes(c, "in"),
}
EMPTY = "__kernel void empty(__global int *p) { if (p[0] == 12345) p[0] = 0; }"


def _nbytes(case: Case, name: str) -> int:
    for a in case.args:
        if a.name == name:
            return int(np.asarray(a.value).nbytes)
    return int(np.asarray(case.args[0].value).nbytes)


class Side:
    """One implementation, with GPU timing of single launches."""

    def __init__(self, impl: Impl, gpu_time) -> None:  # type: ignore[no-untyped-def]
        self.impl, self.gpu_time = impl, gpu_time

    @property
    def name(self) -> str:
        return self.impl.name


def oclpy_side() -> Side:
    import oclpy

    dev = next(d for p in oclpy.get_platforms() for d in p.get_devices() if d.kind == "cuda")
    impl = Impl("oclpy", oclpy, dev)
    driver = dev.driver
    driver.timing = True

    def gpu_time(case: Case, p: Any) -> float:
        impl.launch(case, p)
        return driver.last_kernel_seconds()

    return Side(impl, gpu_time)


def nvidia_side() -> Side | None:
    try:
        import pyopencl as cl
    except ImportError as exc:
        print(f"no PyOpenCL: {exc}")
        return None
    devs = [d for p in cl.get_platforms() if "NVIDIA" in p.name for d in p.get_devices()]
    if not devs:
        print("no NVIDIA OpenCL platform")
        return None
    impl = Impl("nvidia", cl, devs[0])
    impl.queue = cl.CommandQueue(impl.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)

    def gpu_time(case: Case, p: Any) -> float:
        evt = cl.enqueue_nd_range_kernel(impl.queue, p.kernel, case.global_size, case.local_size)
        evt.wait()
        return (evt.profile.end - evt.profile.start) * 1e-9

    return Side(impl, gpu_time)


def run_case(case: Case, sides: list[Side], repeat: int, warmup: int) -> dict[str, Any]:
    row: dict[str, Any] = {"name": case.name, "size": case.size}
    ready = []
    for s in sides:
        res: dict[str, Any] = {}
        try:
            t0 = time.perf_counter()
            p = s.impl.prepare(case, f"{case.source}\n// run {uuid.uuid4().hex}\n")
            res["build_s"] = time.perf_counter() - t0
            s.impl.launch(case, p)
            s.impl.finish()
            problem = check(case, s.impl.outputs(case, p))
            if problem:
                res["error"] = f"wrong result: {problem}"
            else:
                ready.append((s, p, res))
        except Exception as exc:  # a failure is a result in the table
            res["error"] = f"{type(exc).__name__}: {str(exc)[:400]}"
        row[s.name] = res
    for s, p, _ in ready:
        for _ in range(warmup):
            s.gpu_time(case, p)
    samples: dict[str, list[float]] = {s.name: [] for s, _, _ in ready}
    for r in range(repeat):
        order = ready if r % 2 == 0 else ready[::-1]
        for s, p, _ in order:
            samples[s.name].append(s.gpu_time(case, p))
    for s, _, res in ready:
        res["kernel_s"] = statistics.median(samples[s.name])
        res["samples"] = samples[s.name]
        traffic = TRAFFIC.get(case.name)
        if traffic:
            res["bytes"] = traffic(case)
            res["bandwidth_Bps"] = res["bytes"] / res["kernel_s"]
            res["fraction_of_peak"] = res["bandwidth_Bps"] / H200_PEAK_BYTES_PER_S
    if "kernel_s" in row.get("oclpy", {}) and "kernel_s" in row.get("nvidia", {}):
        row["ratio"] = row["oclpy"]["kernel_s"] / row["nvidia"]["kernel_s"]
    return row


def launch_overhead(side: Side, batch: int = 200, rounds: int = 5) -> float:
    """Seconds per launch of a one-work-group kernel: `batch` launches, then finish()."""
    cl, impl = side.impl.cl, side.impl
    prg = cl.Program(impl.ctx, EMPTY).build()
    buf = cl.Buffer(impl.ctx, cl.mem_flags.READ_WRITE, 4)
    knl = prg.empty
    knl(impl.queue, (32,), (32,), buf)
    impl.queue.finish()
    best = math.inf
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(batch):
            knl(impl.queue, (32,), (32,), buf)
        impl.queue.finish()
        best = min(best, (time.perf_counter() - t0) / batch)
    return best


def overheads(sides: list[Side]) -> dict[str, float]:
    """Launch overhead of each side; oclpy with its default (asynchronous) launches
    and with synchronous ones (`<name>_sync`)."""
    out = {}
    for s in sides:
        driver = getattr(s.impl.device, "driver", None)
        if driver is None:
            out[s.name] = launch_overhead(s)
            continue
        default_mode, driver.timing = driver.asynchronous, False
        out[s.name] = launch_overhead(s)
        driver.synchronize()
        driver.asynchronous = False
        out[s.name + "_sync"] = launch_overhead(s)
        driver.synchronize()
        driver.asynchronous, driver.timing = default_mode, True
    return out


def transfer_bandwidth(side: Side, nbytes: int = 256 << 20) -> dict[str, float]:
    """Host->device and device->host bytes per second of one blocking enqueue_copy."""
    cl, impl = side.impl.cl, side.impl
    host = np.ones(nbytes, np.uint8)
    buf = cl.Buffer(impl.ctx, cl.mem_flags.READ_WRITE, nbytes)
    best = {"h2d": math.inf, "d2h": math.inf}
    for _ in range(3):
        t0 = time.perf_counter()
        cl.enqueue_copy(impl.queue, buf, host)
        impl.queue.finish()
        t1 = time.perf_counter()
        cl.enqueue_copy(impl.queue, host, buf)
        impl.queue.finish()
        t2 = time.perf_counter()
        best = {"h2d": min(best["h2d"], t1 - t0), "d2h": min(best["d2h"], t2 - t1)}
    return {k: nbytes / v for k, v in best.items()}


def transfers(sides: list[Side]) -> dict[str, dict[str, float]]:
    """Copy bandwidth of each side; oclpy with pinned staging (default) and without."""
    out = {}
    for s in sides:
        out[s.name] = transfer_bandwidth(s)
        driver = getattr(s.impl.device, "driver", None)
        if driver is not None:
            driver.pinned_staging = False
            out[s.name + "_pageable"] = transfer_bandwidth(s)
            driver.pinned_staging = True
    return out


def dump_ptx(all_cases: list[Case], nv: Side | None) -> dict[str, dict[str, str]]:
    """Each case's PTX from oclpy and, where it runs, from NVIDIA's OpenCL compiler."""
    from oclpy.compiler import compile_program, cuda_target

    out: dict[str, dict[str, str]] = {}
    for case in all_cases:
        entry = out.setdefault(case.name, {})
        try:
            entry["oclpy"] = compile_program(case.source, "", cuda_target()).program.ptx
            if nv is not None:
                prg = nv.impl.cl.Program(nv.impl.ctx, case.source).build()
                entry["nvidia"] = prg.binaries[0].decode(errors="replace")
        except Exception as exc:  # a diagnostic aid: record what failed
            entry["error"] = f"{type(exc).__name__}: {exc}"
    return out


def bigger_cases() -> list[Case]:
    """Bandwidth-bound cases at sizes where a GPU reaches its memory bandwidth."""
    from .. import cases_dense as d

    return [d.make_saxpy(1 << 26), d.make_transpose(8192)]


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'case':14} {'size':>14} {'oclpy us':>10} {'nvidia us':>10} {'ratio':>7} {'GB/s':>8} {'peak%':>6}"]
    for r in rows:
        o, n = r.get("oclpy", {}), r.get("nvidia", {})
        fmt = lambda v: f"{v * 1e6:10.1f}" if isinstance(v, float) else f"{'-':>10}"  # noqa: E731
        bw = o.get("bandwidth_Bps")
        lines.append(f"{r['name']:14} {r['size']:>14} {fmt(o.get('kernel_s'))} {fmt(n.get('kernel_s'))} "
                     f"{r.get('ratio', float('nan')):7.3f} "
                     f"{(bw or 0) / 1e9:8.0f} {100 * o.get('fraction_of_peak', 0):6.1f}"
                     + (f"  oclpy: {o['error']}" if 'error' in o else "")
                     + (f"  nvidia: {n['error']}" if 'error' in n else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.cuda")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--dump-ptx", type=Path, help="write both sides' PTX of every case here (JSON)")
    opts = ap.parse_args(argv)
    sides = [oclpy_side()]
    nv = nvidia_side()
    if nv is not None:
        sides.append(nv)
    rows = []
    all_cases = [m() for m in cases.select(opts.names)] + ([] if opts.names else bigger_cases())
    for case in all_cases:
        print(f"-- {case.name} {case.size}", flush=True)
        rows.append(run_case(case, sides, opts.repeat, opts.warmup))
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    summary: dict[str, Any] = {
        "geomean_ratio": math.exp(statistics.fmean(math.log(x) for x in ratios)) if ratios else None,
        "worst": max(rows, key=lambda r: r.get("ratio", 0))["name"] if ratios else None,
        "worst_ratio": max(ratios) if ratios else None,
        "launch_overhead_s": overheads(sides),
        "transfer_Bps": transfers(sides),
        "device": sides[0].impl.device.name,
        "nvidia_platform": nv.impl.device.platform.version if nv else None,
    }
    if opts.dump_ptx:
        opts.dump_ptx.write_text(json.dumps(dump_ptx(all_cases, nv), indent=1))
    print(table(rows))
    print(json.dumps(summary, indent=1))
    out = opts.out or Path(__file__).resolve().parent.parent / "results" / time.strftime(
        "cuda-%Y%m%d-%H%M%S.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, default=str))
    print(f"wrote {out}")
    return 0
