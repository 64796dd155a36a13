"""Measure memory growth over many create/release cycles of the host API objects.

    python tools/leak_check.py [--cycles 10000] [--distinct 300]

Phase 1: `cycles` times, make a context, a queue, buffers, a program (built
from the same source: an in-memory cache hit after the first), its kernel;
launch, copy back, check the result, then release the program, the buffers,
the queue and the context. Phase 2: build and launch `distinct` different
programs and release each, with the in-process build caches cut to
`--cache-entries` entries, so compiled modules must be freed when the caches
drop them; what remains per program is the cost that no release returns (in
llvmlite 0.50, its pass builder's instrumentation callbacks, about 80 KB per
LLVM optimisation run). Phase 3: hold `distinct` programs at once and report
what each costs while alive. Prints the resident set size (RSS) after warm-up
and at the end of each phase; exits 1 when phase 1 grew by more than
--limit-mb.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import oclpy as cl  # noqa: E402
from oclpy.compiler import cache as buildcache  # noqa: E402

SOURCE = "__kernel void inc(__global int *a, int k) { a[get_global_id(0)] += k; }"


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def trimmed_rss_mb() -> float:
    """RSS after a full collection and returning free heap pages to the system."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: RSS includes free heap pages
    return rss_mb()


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


def build_and_hold(queue: cl.CommandQueue, buf: cl.Buffer, source: str) -> cl.Program:
    """A built program whose native code exists (it has run once)."""
    prg = cl.Program(queue.context, source).build()
    prg.inc(queue, (64,), None, buf, np.int32(1))
    queue.finish()
    return prg


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=300)
    parser.add_argument("--limit-mb", type=float, default=20.0)
    parser.add_argument("--cache-entries", type=int, default=8,
                        help="in-process build cache size during phases 2 and 3")
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
    tag = f"{os.getpid()}-{time.time_ns()}"  # sources no earlier run put in the disk cache
    buildcache.MEMORY_ENTRIES = args.cache_entries
    for i in range(args.cache_entries * 2):  # fill the caches so that each build evicts one
        one_cycle(device, i, SOURCE + f"\n// fill {tag} {i}\n")
    mid = trimmed_rss_mb()
    for i in range(args.distinct):
        one_cycle(device, i, SOURCE + f"\n// variant {tag} {i}\n")
    lost = trimmed_rss_mb() - mid
    print(f"after {args.distinct} distinct programs built, run and released: RSS {rss_mb():.1f} MB "
          f"(growth {lost:+.1f} MB, {lost * 1024 / max(args.distinct, 1):+.0f} KB/program)")
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
    held = [build_and_hold(queue, buf, SOURCE + f"\n// held {tag} {i}\n") for i in range(3)]
    before = trimmed_rss_mb()
    held += [build_and_hold(queue, buf, SOURCE + f"\n// held {tag} {i}\n")
             for i in range(3, 3 + args.distinct)]
    cost = trimmed_rss_mb() - before - lost
    print(f"holding {args.distinct} more programs: {cost * 1024 / max(args.distinct, 1):+.0f} KB "
          f"per program alive (after subtracting the per-build loss above)")
    del held
    ctx.release()
    return 0 if grown <= args.limit_mb else 1


if __name__ == "__main__":
    sys.exit(main())
