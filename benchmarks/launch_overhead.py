"""Launch overhead: the host cost of launching a trivial kernel, oclpy against PyOpenCL.

    python -m benchmarks.launch_overhead [--device cpu|cuda] [-n 10000] [--out FILE]

For each implementation (oclpy on `--device`; PyOpenCL on PoCL for cpu, on
NVIDIA's OpenCL for cuda, when pyopencl and that platform are installed) it
times, in microseconds per iteration, a one-work-group kernel (`x[0] += 1`)
launched once per iteration, and the host path around it:

- `launch+finish`: launch then `queue.finish()`, each time (latency);
- `launch`: n launches then one finish (throughput of the enqueue path);
- `ooo`: the same on an out-of-order queue;
- `wait_for`: launches each waiting on the previous launch's event;
- `prg.name`: `prg.k(...)` looked up by attribute on each launch;
- `read 4 B`: a blocking read of 4 bytes (no launch);
- `write 4 B+finish`: a non-blocking write of 4 bytes, then `finish()` (no launch);
- `bfs level`: what one level of an iterative host-driven algorithm does: a
  4-byte write, two launches, a blocking 4-byte read of a flag.

Each scenario runs three rounds, implementations alternating, and reports the
best round. The result holds the count of the kernel's increments, checked
against the number of launches. It also counts the Python function calls each
launch makes on the calling thread (`calls_per_launch`; PyOpenCL's are its
Python wrapper's), the measure the launch fast path is cut by. JSON (with machine info) goes to
benchmarks/results/launch-<device>-<stamp>.json unless `--out` says where.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .report import machine, software

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SOURCE = "__kernel void k(__global int *x, int d) { if (get_global_id(0) == 0) x[0] += d; }"
POCL_PLATFORM = {"cpu": "Portable Computing Language", "cuda": "NVIDIA CUDA"}
ROUNDS = 3


class Setup:
    """One implementation's context, queues, kernel and counter buffer."""

    def __init__(self, cl: Any, device: Any) -> None:
        self.cl = cl
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)
        self.ooo = cl.CommandQueue(
            self.ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
        self.prg = cl.Program(self.ctx, SOURCE).build()
        self.knl = self.prg.k
        mf = cl.mem_flags
        self.buf = cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(1, np.int32))
        self.flag = cl.Buffer(self.ctx, mf.READ_WRITE, 4)
        self.host_flag = np.zeros(1, np.int32)
        self.one = np.int32(1)
        self.launches = 0

    def count(self) -> int:
        out = np.zeros(1, np.int32)
        self.cl.enqueue_copy(self.queue, out, self.buf)
        self.queue.finish()
        return int(out[0])


def _launch_finish(s: Setup, n: int) -> None:
    for _ in range(n):
        s.knl(s.queue, (1,), (1,), s.buf, s.one)
        s.queue.finish()


def _launch(s: Setup, n: int) -> None:
    for _ in range(n):
        s.knl(s.queue, (1,), (1,), s.buf, s.one)
    s.queue.finish()


def _ooo(s: Setup, n: int) -> None:
    evt = None
    for _ in range(n):  # chained, so the increments stay exact on an out-of-order queue
        evt = s.knl(s.ooo, (1,), (1,), s.buf, s.one, wait_for=None if evt is None else [evt])
    s.ooo.finish()


def _wait_for(s: Setup, n: int) -> None:
    evt = s.cl.enqueue_marker(s.queue)
    for _ in range(n):
        evt = s.knl(s.queue, (1,), (1,), s.buf, s.one, wait_for=[evt])
    s.queue.finish()


def _by_name(s: Setup, n: int) -> None:
    for _ in range(n):
        s.prg.k(s.queue, (1,), (1,), s.buf, s.one)
    s.queue.finish()


def _read(s: Setup, n: int) -> None:
    for _ in range(n):
        s.cl.enqueue_copy(s.queue, s.host_flag, s.flag)


def _write_finish(s: Setup, n: int) -> None:
    for _ in range(n):
        s.cl.enqueue_copy(s.queue, s.flag, s.host_flag, is_blocking=False)
        s.queue.finish()


def _bfs_level(s: Setup, n: int) -> None:
    for _ in range(n):
        s.cl.enqueue_copy(s.queue, s.flag, s.host_flag, is_blocking=False)
        s.knl(s.queue, (1,), (1,), s.buf, s.one)
        s.knl(s.queue, (1,), (1,), s.buf, s.one)
        s.cl.enqueue_copy(s.queue, s.host_flag, s.flag)


SCENARIOS: dict[str, Callable[[Setup, int], None]] = {
    "launch+finish": _launch_finish, "launch": _launch, "ooo": _ooo,
    "wait_for": _wait_for, "prg.name": _by_name,
    "read 4 B": _read, "write 4 B+finish": _write_finish, "bfs level": _bfs_level,
}
LAUNCHES_PER_ITERATION = {"read 4 B": 0, "write 4 B+finish": 0, "bfs level": 2}
SLOW_SCENARIOS = ("launch+finish", "read 4 B", "write 4 B+finish", "bfs level")  # n // 10 each


def implementations(device: str) -> dict[str, Setup]:
    os.environ.setdefault("OCLPY_DEVICE", device)
    import oclpy

    found = {"oclpy": Setup(oclpy, _oclpy_device(oclpy, device))}
    peer = pyopencl_peer(device)
    if peer is not None:
        found["pyopencl"] = Setup(*peer)
    return found


def pyopencl_peer(device: str) -> tuple[Any, Any] | None:
    """PyOpenCL and its device on the peer platform (PoCL for cpu, NVIDIA's OpenCL for
    cuda), or None where PyOpenCL or that platform is missing."""
    try:
        if device == "cpu":
            from tools import pocl_fix
            pocl_fix.apply()
        import pyopencl
    except Exception:
        return None
    for p in pyopencl.get_platforms():
        if p.name == POCL_PLATFORM[device]:
            return pyopencl, p.get_devices()[0]
    return None


def _oclpy_device(oclpy: Any, kind: str) -> Any:
    for p in oclpy.get_platforms():
        for d in p.get_devices():
            if d.driver.kind == kind:
                return d
    raise SystemExit(f"oclpy has no {kind} device here")


def measure(setups: dict[str, Setup], n: int) -> dict[str, dict[str, float]]:
    """Best-of-ROUNDS microseconds per launch, per scenario and implementation."""
    best: dict[str, dict[str, float]] = {name: {} for name in SCENARIOS}
    for s in setups.values():
        _launch(s, min(n, 200))  # warm-up: lazy kernel creation, first-launch costs
        s.launches += min(n, 200)
    for _ in range(ROUNDS):
        for scenario, run in SCENARIOS.items():
            count = n // 10 if scenario in SLOW_SCENARIOS else n
            for impl, s in setups.items():
                t0 = time.perf_counter_ns()
                run(s, count)
                us = (time.perf_counter_ns() - t0) / count / 1e3
                s.launches += count * LAUNCHES_PER_ITERATION.get(scenario, 1)
                old = best[scenario].get(impl)
                best[scenario][impl] = us if old is None else min(old, us)
    for impl, s in setups.items():
        if s.count() != s.launches:
            raise SystemExit(f"{impl}: counter {s.count()} != launches {s.launches}")
    return best


def calls_per_launch(setups: dict[str, Setup], n: int = 200) -> dict[str, dict[str, float]]:
    """Python function calls per launch on the calling thread, per scenario and implementation."""
    calls: dict[str, dict[str, float]] = {name: {} for name in SCENARIOS}
    for scenario, run in SCENARIOS.items():
        for impl, s in setups.items():
            count = [0]

            def profile(frame: Any, event: str, arg: Any) -> None:
                if event == "call":
                    count[0] += 1

            sys.setprofile(profile)
            try:
                run(s, n)
            finally:
                sys.setprofile(None)
            s.launches += n * LAUNCHES_PER_ITERATION.get(scenario, 1)
            calls[scenario][impl] = count[0] / n
    return calls


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=sorted(POCL_PLATFORM))
    ap.add_argument("-n", type=int, default=10000, help="launches per scenario and round")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")  # PyOpenCL warns about prg.name in a loop: measured on purpose
    setups = implementations(args.device)
    best = measure(setups, args.n)
    calls = calls_per_launch(setups)
    impls = list(setups)
    print(f"{'scenario':<17}" + "".join(f"{i + ' us':>14}" for i in impls)
          + "".join(f"{i + ' calls':>16}" for i in impls))
    for scenario, row in best.items():
        print(f"{scenario:<17}" + "".join(f"{row[i]:>14.2f}" for i in impls)
              + "".join(f"{calls[scenario][i]:>16.1f}" for i in impls))
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    out = args.out or RESULTS_DIR / f"launch-{args.device}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    devices = {i: str(s.queue.device) for i, s in setups.items()}
    record = {"date_utc": stamp, "device": args.device, "launches": args.n, "rounds": ROUNDS,
              "machine": machine(), "software": software(), "devices": devices,
              "us_per_launch": best, "calls_per_launch": calls}
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
