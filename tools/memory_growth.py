"""Where memory goes when a process builds, runs and releases many distinct programs.

    python tools/memory_growth.py [--programs 2000] [--modes fresh,disk,build,llvm-opt] [--out FILE]

Each mode runs in a process of its own (a fresh interpreter, the same warm-up)
and reports the growth of the resident set size per program, after a full
collection and `malloc_trim` (free heap pages returned), and what tracemalloc
sees left of Python's own allocations:

- `fresh`: `--programs` distinct sources built, launched once (the native code
  is made at the first launch), read back and released; no disk cache;
- `fresh-in-process`: the same with `OCLPY_LLVM_HELPER=0`: every optimisation
  in this process (by default, past 256 of them, a helper process runs them:
  `oclpy/targets/llvm/llvm_helper.py`);
- `disk`: the same sources again from a disk cache that a first pass filled
  (the object code is loaded, nothing is compiled);
- `build`: built and released, never launched (frontend, passes, LLVM IR
  emission and parsing; no LLVM optimisation or code generation);
- `llvm-opt`: llvmlite alone, one small module parsed and optimised with
  LLVM's default -O3 pipeline per program, as `binding.optimize` does.

The in-process build cache is cut to 2 entries, so a released program is
really gone. JSON with the machine and versions goes to `--out`.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("fresh", "fresh-in-process", "disk", "build", "llvm-opt")
WARM_UP = 50


def rss_kib() -> int:
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def source(tag: str, i: int) -> str:
    return f"__kernel void k(__global int *a) {{ a[get_global_id(0)] += {i}; }} // {tag}"


def oclpy_step(mode: str, tag: str):
    import numpy as np

    sys.path.insert(0, str(ROOT))
    import oclpy as cl
    from oclpy.compiler import cache

    cache.MEMORY_ENTRIES = 2
    device = cl.Context(dev_type=cl.device_type.CPU).devices[0]

    def step(i: int) -> None:
        ctx = cl.Context([device])
        prg = cl.Program(ctx, source(tag, i)).build()
        if mode != "build":
            queue = cl.CommandQueue(ctx)
            buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256)
            prg.k(queue, (64,), None, buf)
            out = np.empty(64, np.int32)
            cl.enqueue_copy(queue, out, buf)
        ctx.release()

    return step


def llvm_step():
    import llvmlite.binding as llvm

    sys.path.insert(0, str(ROOT))
    from oclpy.targets.llvm import binding

    binding.host_triple()  # initialises LLVM
    tm = binding.host_target_machine()

    def step(i: int) -> None:
        mod = llvm.parse_assembly(f"define void @f(ptr %p) {{\n  %v = load i32, ptr %p\n"
                                  f"  %w = add i32 %v, {i}\n  store i32 %w, ptr %p\n  ret void\n}}\n")
        mod.triple, mod.data_layout = tm.triple, str(tm.target_data)
        binding.optimize(mod, tm, 3)

    return step


def child(mode: str, programs: int, tag: str) -> dict:
    step = llvm_step() if mode == "llvm-opt" else oclpy_step(mode, tag)
    offset = 0 if mode == "disk" else 1_000_000  # disk: the sources the parent's first pass cached
    for i in range(WARM_UP):
        step(offset + programs + i)
    tracemalloc.start()
    gc.collect()
    python_before = tracemalloc.get_traced_memory()[0]
    before = rss_kib()
    start = time.perf_counter()
    for i in range(programs):
        step(offset + i)
    seconds = time.perf_counter() - start
    after = rss_kib()
    python_left = tracemalloc.get_traced_memory()[0] - python_before
    tracemalloc.stop()
    return {"mode": mode, "programs": programs, "rss_before_mib": before / 1024, "rss_after_mib": after / 1024,
            "kib_per_program": (after - before) / programs,
            "python_bytes_per_program": python_left / programs, "ms_per_program": seconds * 1e3 / programs}


def run_mode(mode: str, programs: int, tag: str, cache_dir: str) -> dict:
    env = dict(os.environ, OCLPY_CACHE_DIR=cache_dir, OCLPY_DEVICE="cpu")
    env.pop("OCLPY_LLVM_HELPER", None)
    if mode == "fresh-in-process":
        env["OCLPY_LLVM_HELPER"] = "0"
        mode = "fresh"
    if mode in ("fresh", "build"):
        env["OCLPY_NO_CACHE"] = "1"
    else:
        env.pop("OCLPY_NO_CACHE", None)
    if mode == "disk":  # fill the disk cache first, in a process of its own
        subprocess.run([sys.executable, __file__, "--child", "fill", "--programs", str(programs), "--tag", tag],
                       env=env, check=True)
    out = subprocess.run([sys.executable, __file__, "--child", mode, "--programs", str(programs), "--tag", tag],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def fill(programs: int, tag: str) -> None:
    step = oclpy_step("fresh", tag)
    for i in range(programs + WARM_UP):
        step(i)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=2000)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--tag", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "fill":
        fill(args.programs, args.tag)
        return 0
    if args.child:
        print(json.dumps(child(args.child, args.programs, args.tag)))
        return 0
    tag = f"{os.getpid()}-{time.time_ns()}"
    rows = []
    with tempfile.TemporaryDirectory(prefix="oclpy-memory-growth-") as cache_dir:
        for mode in args.modes.split(","):
            row = dict(run_mode(mode, args.programs, tag, os.path.join(cache_dir, "cache")), mode=mode)
            rows.append(row)
            print(f"{mode:16s} {row['kib_per_program']:7.1f} KiB/program RSS "
                  f"({row['rss_before_mib']:.0f} -> {row['rss_after_mib']:.0f} MiB), "
                  f"Python {row['python_bytes_per_program']:6.0f} B/program, "
                  f"{row['ms_per_program']:.1f} ms/program", flush=True)
            if args.out:  # after each mode: a long run stopped part way keeps what it measured
                _write(args.out, rows)
    if args.out:
        print(f"wrote {args.out}")
    return 0


def _write(out: Path, rows: list[dict]) -> None:
    sys.path.insert(0, str(ROOT))
    from tools.machine_info import machine, software

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"tool": "tools/memory_growth.py", "machine": machine(),
                               "software": software(), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
