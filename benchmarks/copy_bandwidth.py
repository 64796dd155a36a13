"""Host <-> device copy bandwidth: oclpy against PyOpenCL, large blocking copies.

    python -m benchmarks.copy_bandwidth [--device cpu|cuda] [--sizes 1,16,256] [--out FILE]

For each size (MiB) and direction (`write`: host -> buffer, `read`: buffer ->
host), a blocking `enqueue_copy` of pageable NumPy memory, best of ROUNDS, in
GB/s. Implementations alternate within each round: oclpy on `--device` (on
cuda twice: through its pinned staging buffers and straight through the
driver, `CudaDriver.pinned_staging`, so the default is picked by measurement)
and PyOpenCL on PoCL (cpu) or NVIDIA's OpenCL (cuda) when installed. Every
copy is checked. JSON with machine info goes to
benchmarks/results/copies-<device>-<stamp>.json unless `--out` says where.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .launch_overhead import POCL_PLATFORM, RESULTS_DIR, pyopencl_peer
from .report import machine, software

ROUNDS = 5


class Side:
    """One implementation's queue and a buffer of the largest size."""

    def __init__(self, cl: Any, device: Any, nbytes: int, before: Callable[[], None] = lambda: None):
        self.cl, self.before = cl, before
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)
        self.buf = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, nbytes)

    def seconds(self, direction: str, host: np.ndarray) -> float:
        self.before()
        t0 = time.perf_counter()
        if direction == "write":
            self.cl.enqueue_copy(self.queue, self.buf, host)
            self.queue.finish()
        else:
            self.cl.enqueue_copy(self.queue, host, self.buf)
        return time.perf_counter() - t0


def sides(device: str, nbytes: int) -> dict[str, Side]:
    import oclpy

    dev = next(d for p in oclpy.get_platforms() for d in p.get_devices() if d.driver.kind == device)
    found = {"oclpy": Side(oclpy, dev, nbytes)}
    if device == "cuda":
        driver = dev.driver

        def staged() -> None:
            driver.pinned_staging = True

        def direct() -> None:
            driver.pinned_staging = False

        found = {"oclpy staged": Side(oclpy, dev, nbytes, staged),
                 "oclpy direct": Side(oclpy, dev, nbytes, direct)}
    peer = pyopencl_peer(device)
    if peer is not None:
        found["pyopencl"] = Side(*peer, nbytes)
    return found


def measure(found: dict[str, Side], sizes_mib: list[int]) -> dict[str, dict[str, float]]:
    """Best GB/s per 'direction size' row and implementation; every copy checked."""
    best: dict[str, dict[str, float]] = {}
    for mib in sizes_mib:
        n = mib << 20
        data = np.random.default_rng(mib).integers(0, 255, n, dtype=np.uint8)
        back = np.empty_like(data)
        for _ in range(ROUNDS):
            for name, side in found.items():
                w = side.seconds("write", data)
                back[:] = 0
                r = side.seconds("read", back)
                if not np.array_equal(back, data):
                    raise SystemExit(f"{name}: {mib} MiB came back different")
                for direction, s in (("write", w), ("read", r)):
                    row = best.setdefault(f"{direction} {mib} MiB", {})
                    row[name] = max(row.get(name, 0.0), n / s / 1e9)
    return best


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=sorted(POCL_PLATFORM))
    ap.add_argument("--sizes", default="1,16,256", help="MiB, comma-separated")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    found = sides(args.device, max(sizes) << 20)
    best = measure(found, sizes)
    names = list(found)
    print(f"{'GB/s':<16}" + "".join(f"{n:>15}" for n in names))
    for row, values in best.items():
        print(f"{row:<16}" + "".join(f"{values[n]:>15.2f}" for n in names))
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    out = args.out or RESULTS_DIR / f"copies-{args.device}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {"date_utc": stamp, "device": args.device, "rounds": ROUNDS, "machine": machine(),
              "software": software(), "devices": {n: str(s.queue.device) for n, s in found.items()},
              "gb_per_s": best}
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
