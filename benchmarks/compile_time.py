"""Compile time against source size: `python -m benchmarks.compile_time [--quick] [--cases ...]`.

Each case is a generator of OpenCL C of a given size; the runner builds it
(`Program(ctx, src).build()`, cold: a nonce comment defeats oclpy's caches, and
PoCL's kernel cache, which keys on the code, is turned off) and
launches it once (both implementations generate native code then) on oclpy's
cpu device and, when PyOpenCL and PoCL are importable, on PoCL, and records
the seconds, wall clock and CPU (every thread of the process: on a machine
shared with other work, the measure that holds). Near-linear compile time is
the goal (issue 13): the time per line should not grow with the size.

| case | what grows |
|---|---|
| lines | straight-line arithmetic, 1k to 100k lines in one kernel |
| accesses | `a[i % 1000] += i;` per line: loads and stores of one buffer (the quadratic one) |
| strided | `a[i * 4 + k % 4] += b[i + k];` per line: accesses at distinct offsets of two buffers |
| switch | one `switch` with up to 20,000 cases |
| functions | up to 32,000 small helper functions, each called once |
| macro_bomb | `#define A<k> (A<k-1> + A<k-1>)`: an exponential expansion, which must end in a diagnostic |

A case that takes longer than `--limit` seconds runs in a subprocess that is
stopped there (recorded as `timeout`); the macro bomb always runs that way.
The JSON record (machine, software, every time) goes to
`benchmarks/results/compile-time-<date>.json`, and a log-log plot of seconds
against size (CPU seconds) to a PNG beside it when matplotlib is installed.
`--sizes 1000,20000` measures those sizes instead of each case's own;
`--plot BEFORE.json AFTER.json --out FILE.png` plots earlier runs together.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sys
import time
import uuid
from pathlib import Path
from typing import Any, Callable

RESULTS = Path(__file__).resolve().parent / "results"


def lines(n: int) -> str:
    body = "".join(f"    x = x * {k % 7 + 2} + (x >> {k % 5 + 1}) - {k};\n" for k in range(n))
    return f"__kernel void k(__global int *a) {{\n    int x = a[get_global_id(0)];\n{body}    a[get_global_id(0)] = x;\n}}\n"


def accesses(n: int) -> str:
    body = "    a[i % 1000] += i;\n" * n
    return f"__kernel void k(__global int *a) {{\n    int i = get_global_id(0);\n{body}}}\n"


def strided(n: int) -> str:
    body = "".join(f"    a[i * 4 + {k % 4}] += b[i + {k}];\n" for k in range(n))
    return (f"__kernel void k(__global int *a, __global const int *b) {{\n"
            f"    int i = get_global_id(0);\n{body}}}\n")


def switch(n: int) -> str:
    cases = "".join(f"    case {k}: r = x * {k % 13 + 1} + {k}; break;\n" for k in range(n))
    return (f"__kernel void k(__global int *a) {{\n    int x = a[get_global_id(0)], r = 0;\n"
            f"    switch (x) {{\n{cases}    default: r = -1;\n    }}\n    a[get_global_id(0)] = r;\n}}\n")


def functions(n: int) -> str:
    helpers = "".join(f"int f{k}(int x) {{ return x * {k % 11 + 1} + {k}; }}\n" for k in range(n))
    calls = "".join(f"    s += f{k}(s);\n" for k in range(n))
    return f"{helpers}__kernel void k(__global int *a) {{\n    int s = a[0];\n{calls}    a[0] = s;\n}}\n"


def macro_bomb(n: int) -> str:
    defs = "".join(f"#define A{k} (A{k - 1} + A{k - 1})\n" for k in range(1, n + 1))
    return f"#define A0 x\n{defs}__kernel void k(__global int *a) {{ int x = a[0]; a[0] = A{n}; }}\n"


CASES: dict[str, tuple[Callable[[int], str], list[int], list[int]]] = {
    # name: (generator, sizes, --quick sizes)
    "lines": (lines, [1000, 2000, 4000, 10000, 20000, 30000, 100000], [1000, 2000, 4000]),
    "accesses": (accesses, [1000, 2000, 4000, 8000], [1000, 2000, 4000]),
    "strided": (strided, [1000, 2000, 4000, 8000], [1000, 2000]),
    "switch": (switch, [1000, 5000, 20000], [1000, 5000]),
    "functions": (functions, [1000, 4000, 8000, 32000], [1000, 4000]),
    "macro_bomb": (macro_bomb, [8, 12, 40], [8, 40]),
}
ISOLATED = {"macro_bomb"}  # always in a subprocess with a time limit


def _build(impl_name: str, source: str) -> tuple[str, float, float, str]:
    """("ok" | "error", seconds, CPU seconds, first line of the error) of one cold build and
    the first launch after it (both oclpy and PoCL generate native code at the first
    launch). CPU seconds are the process's, every thread's: on a machine shared with
    other work they say what the build cost where the wall clock cannot."""
    impl = _impl(impl_name)
    cl = impl.cl
    src = f"// {uuid.uuid4().hex}\n{source}"  # a nonce: no cache has seen it
    t0, c0 = time.perf_counter(), _cpu()
    try:
        prg = cl.Program(impl.ctx, src).build()
        kernel = prg.all_kernels()[0]
        buf = cl.Buffer(impl.ctx, cl.mem_flags.READ_WRITE, 1 << 20)
        kernel(impl.queue, (1,), None, *[buf] * kernel.num_args)
        impl.queue.finish()
    except Exception as exc:
        lines_ = [line for line in str(exc).splitlines() if "error" in line]
        return ("error", time.perf_counter() - t0, _cpu() - c0,
                (lines_[1] if len(lines_) > 1 else str(exc))[:200])
    return "ok", time.perf_counter() - t0, _cpu() - c0, ""


def _cpu() -> float:
    """CPU seconds of this process (every thread) and of the processes it waited for
    (a linker an implementation runs, say)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


_IMPLS: dict[str, Any] = {}


def _impl(name: str) -> Any:
    if name not in _IMPLS:
        from .impl import oclpy_impl, pocl_impl

        _IMPLS[name] = oclpy_impl() if name == "oclpy" else pocl_impl()[0]
    return _IMPLS[name]


def _child(conn: Any, impl_name: str, source: str) -> None:
    conn.send(_build(impl_name, source))


def build_isolated(impl_name: str, source: str, limit: float) -> tuple[str, float, float, str]:
    """`_build` in a subprocess stopped after `limit` seconds (then "timeout")."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, impl_name, source), daemon=True)
    t0 = time.perf_counter()
    proc.start()
    if parent.poll(limit):
        result = parent.recv()
        proc.join(5)
        return result
    proc.kill()
    proc.join()
    return "timeout", time.perf_counter() - t0, float("nan"), f"stopped after {limit:.0f} s"


def run(case_names: list[str], quick: bool, limit: float, with_pocl: bool,
        only_sizes: list[int] | None = None) -> list[dict[str, Any]]:
    impls = ["oclpy"] + (["pocl"] if with_pocl else [])
    rows = []
    for name in case_names:
        gen, sizes, quick_sizes = CASES[name]
        for size in only_sizes or (quick_sizes if quick else sizes):
            source = gen(size)
            row: dict[str, Any] = {"case": name, "size": size, "source_lines": source.count("\n"),
                                   "source_bytes": len(source)}
            for impl in impls:
                if name in ISOLATED or size > (quick_sizes[-1] if quick else sizes[0]):
                    status, seconds, cpu, detail = build_isolated(impl, source, limit)
                else:
                    status, seconds, cpu, detail = _build(impl, source)
                row[impl] = {"status": status, "seconds": round(seconds, 3),
                             "cpu_seconds": None if cpu != cpu else round(cpu, 3), "detail": detail}
            rows.append(row)
            print(_format(row), flush=True)
    return rows


def _format(row: dict[str, Any]) -> str:
    cells = [f"{row['case']:>10} {row['size']:>7}"]
    for impl in ("oclpy", "pocl"):
        if impl in row:
            r = row[impl]
            extra = f" ({r['detail'][:60]})" if r["status"] != "ok" else ""
            cpu = f"{r['cpu_seconds']:8.2f}" if r.get("cpu_seconds") is not None else "       -"
            cells.append(f"{impl} {r['seconds']:8.2f} s (CPU {cpu} s) {r['status']}{extra}")
    return "  ".join(cells)


def plot(rows: list[dict[str, Any]], path: Path, runs: dict[str, list[dict[str, Any]]] | None = None) -> bool:
    """A log-log plot of CPU seconds against source lines, per case and implementation;
    with `runs` ({label: rows}), one line per run too (before and after a change)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for label, run_rows in (runs or {"": rows}).items():
        for name in dict.fromkeys(r["case"] for r in run_rows):
            for impl, style in (("oclpy", "-o"), ("pocl", "--s")):
                pts = [(r.get("source_lines", r["size"]), r[impl]["cpu_seconds"]) for r in run_rows
                       if r["case"] == name and impl in r and r[impl]["status"] == "ok"
                       and r[impl].get("cpu_seconds")]
                if pts:
                    ax.plot(*zip(*pts), style, label=f"{name} ({impl}){' ' + label if label else ''}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("source lines")
    ax.set_ylabel("cold build + first launch, CPU seconds")
    ax.set_title("Compile time against source size")
    ax.legend(fontsize=7)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--quick", action="store_true", help="the smaller sizes only")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds before a build is stopped")
    parser.add_argument("--no-pocl", action="store_true")
    parser.add_argument("--sizes", type=lambda text: [int(n) for n in text.split(",")], default=None,
                        help="these sizes (comma-separated) instead of each case's own")
    parser.add_argument("--out", type=Path, default=None, help="the JSON file (default: results/)")
    parser.add_argument("--plot", type=Path, nargs="+", default=None, metavar="JSON",
                        help="measure nothing: plot these runs together into --out (a PNG)")
    args = parser.parse_args(argv)
    if args.plot:
        runs = {p.stem: json.loads(p.read_text())["rows"] for p in args.plot}
        out = args.out or RESULTS / "compile-time-compare.png"
        return 0 if plot([], out, runs) else 1
    with_pocl = not args.no_pocl
    os.environ["OCLPY_LLVM_HELPER"] = "0"  # LLVM's work in this process, where its CPU time is counted
    os.environ["POCL_KERNEL_CACHE"] = "0"  # PoCL's cache keys on the code, not the comment: a nonce
    # leaves it warm (lines 1,000: 0.06 s of CPU warm, 11.8 s cold)
    if with_pocl:
        from .impl import pocl_impl

        pocl, why = pocl_impl()
        if pocl is None:
            print(why, file=sys.stderr)
            with_pocl = False
    rows = run(args.cases, args.quick, args.limit, with_pocl, args.sizes)
    from .report import machine, software

    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = args.out or RESULTS / f"compile-time-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"machine": machine(), "software": software(), "rows": rows}, indent=1))
    print(f"wrote {out}")
    if plot(rows, out.with_suffix(".png")):
        print(f"wrote {out.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
