"""`python -m benchmarks.check [names...]`: oclpy's kernel checker against Oclgrind's checks.

Two parts, in one run:

- speed: benchmark kernels (`simt_speed`'s cases but `rotate`, which simt
  cannot build, at `SIZES`: sizes whose checked Oclgrind run takes a minute
  or less on a 2-core VM) under
  oclpy's checker (the simt device with `OCLPY_CHECK`: memory, division,
  casts, barriers, races, uninitialised values) and under Oclgrind with its
  matching checks (Debian's `oclgrind` through PyOpenCL's ICD loader, `oclgrind.py`, with
  `OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1`; its memory and barrier
  checks are always on). Each is built, launched once and checked against
  NumPy, then launched `--repeat` more times; the table gives the fastest
  launch of each and Oclgrind / oclpy, and the geometric mean of the ratios. Both must report nothing on these
  kernels (a report is a false positive and is listed).
- the planted-bug suite (`tests/check/planted.py`): each buggy kernel on
  both, whether each found its bug (oclpy: the expected reports exactly;
  Oclgrind: an error message of the matching kind on stderr, `OCLGRIND_FINDS`),
  and each fixed kernel clean on oclpy.

The JSON (machine, versions, every sample, every report) goes to
`benchmarks/results/check-*.json`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

from . import cases_dense as d
from . import cases_irregular as i
from . import cases_math as m
from . import cases_vector as v
from .case import Case, check
from .impl import Impl, oclpy_device, timed, versions
from .oclgrind import Stderr, oclgrind_impl
from .report import machine, software

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "check"))

SIZES: dict[str, Callable[[], Case]] = {  # Oclgrind with its checks takes 10 to 60 s on each
    "saxpy": lambda: d.make_saxpy(1 << 20),
    "reduce": lambda: d.make_reduce(1 << 17),
    "matmul_naive": lambda: d.make_matmul_naive(96),
    "matmul_tiled": lambda: d.make_matmul_tiled(96),
    "stencil2d": lambda: d.make_stencil2d(512),
    "transpose": lambda: d.make_transpose(512),
    "nbody": lambda: d.make_nbody(768),
    "mandelbrot": lambda: d.make_mandelbrot(256, 64),
    "histogram": lambda: i.make_histogram(1 << 18),
    "prefix_sum": lambda: i.make_scan(1 << 16),
    "spmv_csr": lambda: i.make_spmv(1 << 15, 8),
    "bitonic_step": lambda: i.make_bitonic(1 << 18),
    "helper_call": lambda: i.make_helper(1 << 16, 8),
    "blackscholes": lambda: m.make_blackscholes(1 << 17),
    "complex_poly": lambda: v.make_complex_poly(1 << 16),
    "vload_axpy": lambda: v.make_vload_axpy(1 << 20),
    "tile_smooth": lambda: v.make_tile_smooth(1 << 17),
}
OCLGRIND_CHECKS = {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNINITIALIZED": "1"}
# check family -> what Oclgrind prints when it finds that kind of bug
OCLGRIND_FINDS = {
    "memory": r"Invalid (read|write)|out of bounds|read-only|write-only",
    "division": r"[Dd]ivi(sion|de) by zero",
    "barriers": r"divergence|[Bb]arrier",
    "races": r"data race",
    "uninitialized": r"[Uu]ninitiali[sz]ed",
    "casts": r"address space",
}


def oclpy_reports() -> list[Any]:
    from oclpy.runtime import checking
    return checking.reports()


def speed_row(case: Case, impls: dict[str, Impl], repeat: int) -> dict[str, Any]:
    from oclpy.runtime import checking
    row: dict[str, Any] = {"kernel": case.name, "size": case.size, "samples": {}, "check": {}, "reports": {}}
    for name, impl in impls.items():
        try:
            checking.clear()
            p = impl.prepare(case)
            with Stderr() as err:
                samples = [timed(impl, case, p) for _ in range(1 + repeat)]
            row["samples"][name] = samples
            row["check"][name] = check(case, impl.outputs(case, p)) or "ok"
            found = ([f"{r.kind}: {r.message}" for r in oclpy_reports()] if name == "oclpy check"
                     else [ln for ln in err.text.splitlines() if ln.strip()])
            row["reports"][name] = found[:20]
        except Exception as exc:  # noqa: BLE001 - a failing implementation is reported, not fatal
            found_error = re.search(r"error: (.*)", str(exc))
            row["check"][name] = "error: " + (found_error.group(1) if found_error else
                                              f"{type(exc).__name__}: {exc}")[:300]
    row["best_s"] = {k: min(s) for k, s in row["samples"].items()}
    return row


def planted_row(case: Any, oclgrind: Impl | None) -> dict[str, Any]:
    from run_case import run_case, summary_of
    got = [summary_of(r) for r in run_case(case)]
    clean = [summary_of(r) for r in run_case(case, fixed=True)]
    row: dict[str, Any] = {"case": case.name, "check": case.check, "oclpy": got == list(case.expected),
                           "oclpy_fixed_clean": clean == [], "oclpy_reports": got}
    if oclgrind is None or not case.oclgrind:
        row["oclgrind"] = None
        return row
    cl = oclgrind.cl
    with Stderr() as err:
        try:
            program = cl.Program(oclgrind.ctx, case.source).build(options=case.options)
            keep: list = []
            args = [make_arg_for(cl, oclgrind.ctx, a, keep) for a in case.args]
            program.k(oclgrind.queue, case.global_size, case.local_size, *args)
            oclgrind.queue.finish()
        except Exception as exc:  # noqa: BLE001
            print(f"oclgrind: {type(exc).__name__}: {exc}", file=sys.stderr)
    row["oclgrind"] = bool(re.search(OCLGRIND_FINDS[case.check], err.text))
    row["oclgrind_output"] = err.text[:2000]
    return row


def make_arg_for(cl: Any, ctx: Any, arg: Any, keep: list) -> Any:
    import numpy as np
    if arg.kind == "scalar":
        return arg.values
    if arg.kind == "local":
        return cl.LocalMemory(int(arg.values))
    flags = {"rw": cl.mem_flags.READ_WRITE, "r": cl.mem_flags.READ_ONLY, "w": cl.mem_flags.WRITE_ONLY}[arg.mode]
    if arg.values is None:
        buf = cl.Buffer(ctx, flags, 256)
    else:
        buf = cl.Buffer(ctx, flags | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.asarray(arg.values))
    keep.append(buf)
    return buf


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| kernel | size | Oclgrind s | oclpy check s | ratio | reports (Oclgrind / oclpy) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        best = row["best_s"]
        cells = [f"{best[k]:.3g}" if k in best else row["check"].get(k, "-")[:40] for k in ("oclgrind", "oclpy check")]
        ratio = f"{best['oclgrind'] / best['oclpy check']:.1f}" if len(best) == 2 else "-"
        reports = " / ".join(str(len(row["reports"].get(k, []))) for k in ("oclgrind", "oclpy check"))
        lines.append(f"| {row['kernel']} | {row['size']} | {cells[0]} | {cells[1]} | {ratio} | {reports} |")
    ratios = [r["best_s"]["oclgrind"] / r["best_s"]["oclpy check"] for r in rows if len(r["best_s"]) == 2]
    if ratios:
        geomean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        lines.append(f"| geometric mean | | | | {geomean:.1f} | |")
    return "\n".join(lines)


def planted_table(rows: list[dict[str, Any]]) -> str:
    lines = ["| planted bug | check | oclpy found it | oclpy fixed clean | Oclgrind found it |",
             "| --- | --- | --- | --- | --- |"]
    word = {True: "yes", False: "no", None: "(no such check)"}
    for r in rows:
        lines.append(f"| {r['case']} | {r['check']} | {word[r['oclpy']]} | {word[r['oclpy_fixed_clean']]} | "
                     f"{word[r['oclgrind']]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.check", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"kernels (default all: {', '.join(SIZES)})")
    ap.add_argument("--repeat", type=int, default=1, help="timed launches after the first")
    ap.add_argument("--no-planted", action="store_true", help="skip the planted-bug suite")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in SIZES]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(SIZES)}")
    os.environ.update(OCLGRIND_CHECKS)
    oclgrind, why = oclgrind_impl()  # first: it sets the ICD folder before PyOpenCL loads
    if oclgrind is None:
        print(f"skipping Oclgrind: {why}", flush=True)
    from oclpy.runtime import checking
    checking.enable(summary_at_exit=False)
    checking.SESSION.printing = False
    simt, why_simt = oclpy_device("simt")
    if simt is None:
        print(f"no simt device: {why_simt}")
        return 1
    impls = {"oclpy check": simt, **({"oclgrind": oclgrind} if oclgrind else {})}
    rows = []
    for name in args.names or list(SIZES):
        case = SIZES[name]()
        row = speed_row(case, impls, args.repeat)
        rows.append(row)
        print(f"{name} ({case.size}): " + ", ".join(f"{k} {row['best_s'].get(k, row['check'].get(k))}"
                                                    for k in impls), flush=True)
    text = table(rows)
    print("\n" + text)
    planted: list[dict[str, Any]] = []
    if not args.no_planted:
        from planted import CASES
        planted = [planted_row(c, oclgrind) for c in CASES]
        print("\n" + planted_table(planted))
    record = {"kind": "check-speed", "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine(),
              "software": software(), "implementations": {k: versions(x) for k, x in impls.items()},
              "oclgrind_environment": OCLGRIND_CHECKS, "skipped": {} if oclgrind else {"oclgrind": why},
              "repeat": args.repeat, "rows": rows, "table": text, "planted": planted,
              "planted_table": planted_table(planted) if planted else ""}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"check-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
