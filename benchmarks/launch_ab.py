"""Launch latency of two oclpy trees, measured in one run, alternating.

    python -m benchmarks.launch_ab --tree before=DIR --tree after=DIR [-r 30] [-n 200] [--out FILE]

Each tree (a folder holding the `oclpy` package, such as a `git archive` of
another commit, with that commit's hash in a file COMMIT beside it) gets a child process of its own on the cpu device; the
parent asks them in turn, in ABBA order so that drift in the machine's load
falls on both alike, for a block of `n` timings of each operation:

- `launch+finish`: a one-work-item kernel (`x[0] += d`) enqueued, then
  `queue.finish()` (the latency of a tiny kernel);
- `enqueue`: the enqueue alone (the finish is outside the timer);
- `read-1B`: a blocking `enqueue_copy` of one byte to the host;
- `launch+finish-64k`: 65,536 work-items in groups of 64 (the work is split
  among the worker threads).

Every operation is timed on its own (perf_counter_ns); a block's first
launches, which compile the native code and learn the shape, are warm-up and
not kept. The report gives, per tree and operation, the median over every
sample, the 10th and 90th percentiles and the range of the blocks' medians,
and the after/before ratio of the medians. JSON, with the machine and both
trees' versions, goes to benchmarks/results/launch-ab-<stamp>.json unless
`--out` says where.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .report import machine, software

RESULTS_DIR = Path(__file__).resolve().parent / "results"
OPS = ("launch+finish", "enqueue", "read-1B", "launch+finish-64k")

CHILD = r'''
import gc, json, subprocess, sys, time
import numpy as np
import oclpy as cl

SOURCE = "__kernel void k(__global int *x, int d) { if (get_global_id(0) == 0) x[0] += d; }"
ctx = cl.Context(dev_type=cl.device_type.CPU)
queue = cl.CommandQueue(ctx)
knl = cl.Program(ctx, SOURCE).build().k
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
one = np.int32(1)
byte = np.zeros(1, np.uint8)
clock = time.perf_counter_ns


def launch_finish(n):
    out = []
    for _ in range(n):
        t = clock(); knl(queue, (1,), (1,), buf, one); queue.finish(); out.append(clock() - t)
    return out


def enqueue(n):
    out = []
    for _ in range(n):
        t = clock(); knl(queue, (1,), (1,), buf, one); out.append(clock() - t)
        queue.finish()
    return out


def read_1b(n):
    out = []
    for _ in range(n):
        t = clock(); cl.enqueue_copy(queue, byte, buf); out.append(clock() - t)
    return out


def launch_finish_64k(n):
    out = []
    for _ in range(n):
        t = clock(); knl(queue, (65536,), (64,), buf, one); queue.finish(); out.append(clock() - t)
    return out


OPS = {"launch+finish": launch_finish, "enqueue": enqueue, "read-1B": read_1b,
       "launch+finish-64k": launch_finish_64k}
for op in OPS.values():  # warm-up: native code, launch shapes, worker threads
    op(20)
try:
    rev = subprocess.run(["git", "-C", sys.argv[1], "rev-parse", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
except OSError:
    rev = ""
if not rev:  # a `git archive` of a commit: its COMMIT file, when there is one
    try:
        rev = open(sys.argv[1] + "/COMMIT").read().strip()
    except OSError:
        pass
print(json.dumps({"oclpy": cl.__file__, "commit": rev}), flush=True)
for line in sys.stdin:
    n = int(line)
    gc.collect()
    print(json.dumps({name: op(n) for name, op in OPS.items()}), flush=True)
'''


class Child:
    """One tree's measuring process."""

    def __init__(self, name: str, tree: Path, cache: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1",
                   OCLPY_CACHE_DIR=str(cache / name), OCLPY_DEVICE="cpu")
        self.name = name
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD, str(tree)], env=env, cwd=cache,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.info = json.loads(self._line())
        self.samples: dict[str, list[int]] = {op: [] for op in OPS}
        self.block_medians: dict[str, list[float]] = {op: [] for op in OPS}

    def _line(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the child of {self.name} ended (exit status {self.proc.wait()})")
        return line

    def block(self, n: int) -> None:
        self.proc.stdin.write(f"{n}\n")
        self.proc.stdin.flush()
        for op, times in json.loads(self._line()).items():
            self.samples[op] += times
            self.block_medians[op].append(statistics.median(times))

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(30)


def summary(child: Child) -> dict[str, Any]:
    out = {}
    for op, times in child.samples.items():
        q = statistics.quantiles(times, n=10)
        medians = child.block_medians[op]
        out[op] = {"median_us": statistics.median(times) / 1e3, "p10_us": q[0] / 1e3,
                   "p90_us": q[-1] / 1e3, "block_median_range_us": [min(medians) / 1e3, max(medians) / 1e3],
                   "samples": len(times)}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, metavar="NAME=DIR")
    parser.add_argument("-r", "--rounds", type=int, default=30)
    parser.add_argument("-n", type=int, default=200, help="timings of each operation per block")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    trees = [(name, Path(path).resolve()) for name, _, path in (t.partition("=") for t in args.tree)]
    with tempfile.TemporaryDirectory(prefix="oclpy-launch-ab-") as tmp:
        children = [Child(name, tree, Path(tmp)) for name, tree in trees]
        try:
            for r in range(args.rounds):
                for child in (children if r % 2 == 0 else children[::-1]):
                    child.block(args.n)
        finally:
            for child in children:
                child.close()
    results = {c.name: {"tree": str(t), **c.info, "ops": summary(c)} for c, (_, t) in zip(children, trees)}
    first, last = children[0].name, children[-1].name
    ratios = {op: results[last]["ops"][op]["median_us"] / results[first]["ops"][op]["median_us"] for op in OPS}
    for op in OPS:
        cells = "  ".join(f"{c.name} {results[c.name]['ops'][op]['median_us']:8.1f} us" for c in children)
        print(f"{op:18s} {cells}  {last}/{first} {ratios[op]:.3f}")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    out = args.out or RESULTS_DIR / f"launch-ab-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "launch_ab", "machine": machine(), "software": software(),
                               "load_average": os.getloadavg(), "rounds": args.rounds, "n": args.n,
                               "ratios": ratios, "results": results}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
