"""oclpy.dask against dask.array with NumPy alone, on 1, 2 and 4 worker processes.

    python -m benchmarks.dask_scaling [--workers 1,2,4] [--frames 48] [--size 512]
                                      [--repeats 3] [--out FILE]

Two chunked computations, each run through a dask.distributed LocalCluster of
N worker processes (one thread each, loopback only), first with oclpy
(`oclpy.dask`: each worker's cpu device) and then with NumPy through
`dask.array`, on the same chunks:

- `stencil`: a 3x3 weighted blur over `frames` frames of size x size float32
  (chunks of 4 frames; `map_kernel` with a one-pixel overlap), summed to one
  number so that only a scalar comes back;
- `reduction`: sum of x*x over frames*size*size float64 values (chunks of 4
  frames; `oclpy.dask.reduction` against `(x * x).sum()`).

The input is made on the workers (dask's random generator), so the client
ships nothing. Each configuration runs once to warm up (programs built, one
per worker), then `repeats` times; the best time gives the throughput
(input elements per second) and the parallel efficiency T(1) / (N * T(N)).
Both sides' answers are compared. JSON with machine and versions goes to
benchmarks/results/dask-scaling-<stamp>.json; the number of cores of the
machine is in it, and a note says what it means for N workers.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .report import RESULTS_DIR, machine, software

BLUR = """
__kernel void blur(__global float *out, __global const float *a)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    int i = (z * h + y) * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[i] = a[i]; return; }
    out[i] = 0.25f * a[i]
           + 0.125f * (a[i - 1] + a[i + 1] + a[i - w] + a[i + w])
           + 0.0625f * (a[i - w - 1] + a[i - w + 1] + a[i + w - 1] + a[i + w + 1]);
}
"""
FRAMES_PER_CHUNK = 4


def numpy_blur(a: np.ndarray) -> np.ndarray:
    """The same blur with NumPy on one (overlapped) block of frames."""
    out = a.copy()
    edges = a[:, 1:-1, :-2] + a[:, 1:-1, 2:] + a[:, :-2, 1:-1] + a[:, 2:, 1:-1]
    corners = a[:, :-2, :-2] + a[:, :-2, 2:] + a[:, 2:, :-2] + a[:, 2:, 2:]
    out[:, 1:-1, 1:-1] = (np.float32(0.25) * a[:, 1:-1, 1:-1] + np.float32(0.125) * edges
                          + np.float32(0.0625) * corners)
    return out


def workloads(frames: int, size: int) -> dict[str, dict[str, Callable[[], Any]]]:
    """name -> {"oclpy": make the lazy result, "numpy": likewise}."""
    import dask.array as da

    import oclpy.dask as od

    def images() -> Any:
        rng = da.random.default_rng(0)
        return rng.random((frames, size, size), dtype=np.float32, chunks=(FRAMES_PER_CHUNK, size, size))

    def values() -> Any:
        rng = da.random.default_rng(1)
        return rng.random((frames, size, size), chunks=(FRAMES_PER_CHUNK, size, size))

    depth = {0: 0, 1: 1, 2: 1}
    return {
        "stencil": {
            "oclpy": lambda: od.map_kernel(BLUR, "blur", images(), out_dtype=np.float32, depth=depth,
                                           boundary="none").sum(dtype=np.float64),
            "numpy": lambda: images().map_overlap(numpy_blur, depth=depth, boundary="none",
                                                  dtype=np.float32).sum(dtype=np.float64),
        },
        "reduction": {
            "oclpy": lambda: od.reduction("0", "a+b", "x[i]*x[i]", "const double *x", values(),
                                          dtype_out=np.float64),
            "numpy": lambda: (values() * values()).sum(),
        },
    }


def timed(client: Any, make: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """(best seconds of `repeats` runs after one warm-up run, the answer)."""
    answer = client.compute(make()).result()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        answer = client.compute(make()).result()
        best = min(best, time.perf_counter() - start)
    return best, float(answer)


def run(workers: list[int], frames: int, size: int, repeats: int) -> list[dict[str, Any]]:
    import distributed

    rows = []
    for n in workers:
        with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=None,
                                      silence_logs=logging.ERROR) as cluster, \
                distributed.Client(cluster) as client:
            for name, sides in workloads(frames, size).items():
                row: dict[str, Any] = {"workload": name, "workers": n}
                for impl, make in sides.items():
                    seconds, answer = timed(client, make, repeats)
                    row[impl] = {"seconds": seconds, "answer": answer,
                                 "elements_per_s": frames * size * size / seconds}
                row["same_answer"] = bool(np.isclose(row["oclpy"]["answer"], row["numpy"]["answer"],
                                                     rtol=1e-5))
                rows.append(row)
                print(f"{name:9s} {n} workers: oclpy {row['oclpy']['seconds']:.3f} s, "
                      f"numpy {row['numpy']['seconds']:.3f} s", flush=True)
    _efficiency(rows)
    return rows


def _efficiency(rows: list[dict[str, Any]]) -> None:
    """Parallel efficiency T(1) / (N * T(N)) per workload and implementation."""
    for row in rows:
        base = next((r for r in rows if r["workload"] == row["workload"] and r["workers"] == 1), None)
        for impl in ("oclpy", "numpy"):
            if base is not None:
                row[impl]["efficiency"] = base[impl]["seconds"] / (row["workers"] * row[impl]["seconds"])


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| workload | workers | oclpy s | oclpy Melem/s | oclpy eff. | numpy s | numpy Melem/s "
            "| numpy eff. | oclpy / numpy speed |")
    lines = [head, "|" + " --- |" * 9]
    for r in rows:
        o, n = r["oclpy"], r["numpy"]
        lines.append(f"| {r['workload']} | {r['workers']} | {o['seconds']:.3f} "
                     f"| {o['elements_per_s'] / 1e6:.1f} "
                     f"| {o.get('efficiency', float('nan')):.2f} | {n['seconds']:.3f} "
                     f"| {n['elements_per_s'] / 1e6:.1f} | {n.get('efficiency', float('nan')):.2f} "
                     f"| {n['seconds'] / o['seconds']:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--frames", type=int, default=48)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    workers = [int(w) for w in args.workers.split(",")]
    rows = run(workers, args.frames, args.size, args.repeats)
    print(table(rows))
    import dask
    import distributed

    info = machine()
    cores = info.get("usable_cores", info.get("cores"))
    notes = [f"this machine has {cores} usable cores: with more worker processes than cores the "
             f"workers share them, so efficiency past {cores} workers measures oversubscription, "
             f"not scaling",
             "each oclpy worker's cpu device spreads a chunk's work-groups over every core; each "
             "NumPy worker runs one thread",
             f"frames={args.frames} size={args.size} frames per chunk={FRAMES_PER_CHUNK} "
             f"repeats={args.repeats} (best time)"]
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    path = args.out or RESULTS_DIR / f"dask-scaling-{stamp}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"date_utc": stamp, "machine": info,
              "software": {**software(), "dask": dask.__version__, "distributed": distributed.__version__},
              "notes": notes, "command": "python -m benchmarks.dask_scaling " + " ".join(argv or []),
              "load_average": os.getloadavg(), "results": rows, "table": table(rows)}
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
