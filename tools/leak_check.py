"""Measure memory growth over many create/release cycles of the host API objects.

    python tools/leak_check.py [--cycles 10000] [--distinct 300]

Phase 1: `cycles` times, make a context, a queue, buffers, a program (built
from the same source: an in-memory cache hit after the first), its kernel;
launch, copy back, check the result, then release the program, the buffers,
the queue and the context. Phase 2: build `distinct` different programs (more
than the build cache holds) and release each, so compiled modules must be
freed when the cache drops them. Prints the resident set size (RSS) after
warm-up and at the end of each phase; exits 1 when phase 1 grew by more than
--limit-mb.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import oclpy as cl  # noqa: E402

SOURCE = "__kernel void inc(__global int *a, int k) { a[get_global_id(0)] += k; }"


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one_cycle(device: cl.Device, i: int, source: str = SOURCE) -> None:
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    host = np.arange(64, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
    prg = cl.Program(ctx, source).build()
    prg.inc(queue, (64,), None, buf, np.int32(i))
    out = np.empty_like(host)
    cl.enqueue_copy(queue, out, buf)
    if not (out == host + i).all():
        raise SystemExit(f"wrong result in cycle {i}")
    ctx.release()  # releases the program (and kernel), the buffer and the queue


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=300)
    parser.add_argument("--limit-mb", type=float, default=20.0)
    args = parser.parse_args()
    device = cl.get_platforms()[0].get_devices()[0]
    for i in range(200):  # warm-up: caches, thread pools, allocator arenas
        one_cycle(device, i)
    gc.collect()
    base = rss_mb()
    print(f"after warm-up: RSS {base:.1f} MB")
    start = time.perf_counter()
    for i in range(args.cycles):
        one_cycle(device, i)
    gc.collect()
    grown = rss_mb() - base
    print(f"after {args.cycles} cycles ({time.perf_counter() - start:.1f} s): RSS {rss_mb():.1f} MB "
          f"(growth {grown:+.1f} MB, {grown * 1024 * 1024 / max(args.cycles, 1):+.0f} bytes/cycle)")
    mid = rss_mb()
    for i in range(args.distinct):
        one_cycle(device, i, SOURCE + f"\n// variant {i}\n")
    gc.collect()
    print(f"after {args.distinct} distinct programs: RSS {rss_mb():.1f} MB "
          f"(growth {rss_mb() - mid:+.1f} MB; the build cache keeps at most "
          f"{cl.runtime.program.BUILD_CACHE_SIZE} compiled programs)")
    return 0 if grown <= args.limit_mb else 1


if __name__ == "__main__":
    sys.exit(main())
