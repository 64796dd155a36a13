"""Compile time of kernels that pass large structs by value: `python -m benchmarks.large_aggregates`.

    python -m benchmarks.large_aggregates [--floats 256,1024,4096] [--device cpu|simt] [--tag NAME]

Each kernel takes `struct { float w[N]; }` by value (4 N bytes, `-D N=...`;
4,096 floats is 16 KB): `arg` reads it as a kernel argument; `helpers` hands it
to helpers kept out of line (`noinline`) that take and return it by value;
`inlined` the same helpers inlined. For each, on one device (`--device`, the
cpu by default), the CPU seconds of the build (on the cpu: frontend, passes,
LLVM IR, LLVM's parse and verify; on simt: all of the code generation) and of
the first launch (on the cpu: LLVM's -O3 pipeline and code generation; then
the run),
in a fresh process per kernel, with the result checked against NumPy. The
table is printed and the JSON record goes to
`benchmarks/results/large-aggregates-<date>[-<tag>].json`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .report import machine, software

RESULTS = Path(__file__).resolve().parent / "results"
GLOBAL = 64  # work-items

SOURCES = {
    "arg": """
typedef struct { float w[N]; } Big;
__kernel void k(__global float *out, Big b, float s) {
  int g = get_global_id(0);
  out[g] = b.w[g % N] * s + b.w[N - 1];
}
""",
    "helpers": """
typedef struct { float w[N]; } Big;
__attribute__((noinline)) Big scaled(Big b, float s) {
  Big r;
  for (int i = 0; i < N; i++) r.w[i] = b.w[i] * s;
  return r;
}
__attribute__((noinline)) float pick(Big b, int i) { return b.w[i]; }
__kernel void k(__global float *out, Big b, float s) {
  int g = get_global_id(0);
  Big c = scaled(b, s);
  out[g] = pick(c, g % N) + pick(b, N - 1);
}
""",
    "inlined": """
typedef struct { float w[N]; } Big;
Big scaled(Big b, float s) {
  Big r;
  for (int i = 0; i < N; i++) r.w[i] = b.w[i] * s;
  return r;
}
float pick(Big b, int i) { return b.w[i]; }
__kernel void k(__global float *out, Big b, float s) {
  int g = get_global_id(0);
  Big c = scaled(b, s);
  out[g] = pick(c, g % N) + pick(b, N - 1);
}
""",
}


def expected(w, s: float):  # type: ignore[no-untyped-def]
    """What every kernel above computes, in NumPy (float32 throughout)."""
    import numpy as np

    g = np.arange(GLOBAL)
    return w[g % len(w)] * np.float32(s) + w[-1]


def measure_one(kind: str, floats: int, device: str = "cpu") -> dict:
    """Build and first launch of one kernel in this process: CPU seconds, and whether
    the result matches NumPy bit for bit."""
    import numpy as np

    import oclpy as cl

    ctx = cl.Context([d for d in cl.get_platforms()[0].get_devices() if d.kind == device])
    queue = cl.CommandQueue(ctx)
    w = (np.arange(floats, dtype=np.float32) * np.float32(0.37)) % np.float32(11.0)
    big = np.dtype([("w", np.float32, (floats,))])
    arg = np.zeros((), big)
    arg["w"] = w
    out = np.zeros(GLOBAL, np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    t0 = time.process_time()
    prg = cl.Program(ctx, SOURCES[kind]).build(options=f"-D N={floats}")
    t1 = time.process_time()
    prg.k(queue, (GLOBAL,), None, buf, arg, np.float32(2.0))
    queue.finish()
    t2 = time.process_time()
    cl.enqueue_copy(queue, out, buf)
    return {"kind": kind, "floats": floats, "device": device, "build_s": round(t1 - t0, 3), "first_launch_s": round(t2 - t1, 3),
            "matches_numpy": bool(np.array_equal(out, expected(w, 2.0)))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--floats", default="256,1024,4096")
    parser.add_argument("--kinds", default=",".join(SOURCES))
    parser.add_argument("--device", default="cpu", choices=("cpu", "simt"))
    parser.add_argument("--tag", default="")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # kind floats: measure in this process
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_one(args.one[0], int(args.one[1]), args.device)))
        return 0
    rows = []
    for floats in (int(f) for f in args.floats.split(",")):
        for kind in args.kinds.split(","):
            out = subprocess.run([sys.executable, "-m", "benchmarks.large_aggregates", "--one", kind, str(floats),
                                  "--device", args.device],
                                 capture_output=True, text=True, check=False,
                                 env={**os.environ, "OCLPY_NO_CACHE": "1"})
            if out.returncode != 0:
                print(out.stderr[-2000:], file=sys.stderr)
                return 1
            row = json.loads(out.stdout.splitlines()[-1])
            rows.append(row)
            print(f"{args.device:4} {kind:8} {floats:6} floats  build {row['build_s']:7.3f} s  first launch "
                  f"{row['first_launch_s']:7.3f} s  numpy {'ok' if row['matches_numpy'] else 'MISMATCH'}",
                  flush=True)
    RESULTS.mkdir(exist_ok=True)
    name = f"large-aggregates-{time.strftime('%Y%m%d-%H%M')}{'-' + args.tag if args.tag else ''}.json"
    (RESULTS / name).write_text(json.dumps({"machine": machine(), "software": software(), "rows": rows},
                                           indent=1) + "\n")
    print(f"wrote benchmarks/results/{name}")
    return 0 if all(r["matches_numpy"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
