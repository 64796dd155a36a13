"""`python -m benchmarks.simt_speed [names...]`: the simt simulator's speed against Oclgrind and oclpy's cpu device.

Runs benchmark kernels (`cases*.py`) at sizes small enough for Oclgrind
(`SIZES`: each finishes within about 30 s there) on three implementations:

- simt: oclpy's simt device (`OCLPY_SIMT_*` picks its register files);
- Oclgrind: Debian's `oclgrind` package through PyOpenCL (`oclgrind.py`),
  plain simulation (no plugins, no checks);
- cpu: oclpy's cpu device.

Each implementation builds the kernel, launches it once (checked against
NumPy), then the implementations take turns for `--repeat` more launches
(order flipping each round); the table gives the fastest launch (the
checked one included) and Oclgrind / simt. A peer that is missing is skipped
with the reason. The JSON (machine, versions, every sample) goes to
`benchmarks/results/simt-speed-*.json`.
"""

from __future__ import annotations

import argparse
import json
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
from .oclgrind import oclgrind_impl
from .report import machine, software

# name -> the case at a size Oclgrind runs in seconds
SIZES: dict[str, Callable[[], Case]] = {
    "saxpy": lambda: d.make_saxpy(1 << 20),
    "reduce": lambda: d.make_reduce(1 << 18),
    "matmul_naive": lambda: d.make_matmul_naive(128),
    "matmul_tiled": lambda: d.make_matmul_tiled(128),
    "stencil2d": lambda: d.make_stencil2d(512),
    "transpose": lambda: d.make_transpose(512),
    "nbody": lambda: d.make_nbody(512),
    "mandelbrot": lambda: d.make_mandelbrot(256, 64),
    "histogram": lambda: i.make_histogram(1 << 18),
    "prefix_sum": lambda: i.make_scan(1 << 16),
    "spmv_csr": lambda: i.make_spmv(1 << 14, 8),
    "bitonic_step": lambda: i.make_bitonic(1 << 18),
    "helper_call": lambda: i.make_helper(1 << 16, 8),
    "blackscholes": lambda: m.make_blackscholes(1 << 16),
    "rotate": lambda: m.make_rotate(1 << 16),
    "complex_poly": lambda: v.make_complex_poly(1 << 16),
    "vload_axpy": lambda: v.make_vload_axpy(1 << 18),
    "tile_smooth": lambda: v.make_tile_smooth(1 << 16),
}
ORDER = ("simt", "oclgrind", "cpu")


def run_case(case: Case, impls: dict[str, Impl], repeat: int) -> dict[str, Any]:
    row: dict[str, Any] = {"kernel": case.name, "size": case.size, "samples": {}, "build_s": {}, "check": {}}
    prepared = {}
    for name, impl in impls.items():
        try:
            p = impl.prepare(case)
            row["build_s"][name] = p.build_s
            first = timed(impl, case, p)
            row["check"][name] = check(case, impl.outputs(case, p)) or "ok"
            prepared[name] = p
            row["samples"][name] = [first]
        except Exception as exc:  # noqa: BLE001 - a failing implementation is reported, not fatal
            found = re.search(r"error: (.*)", str(exc))
            row["check"][name] = "error: " + (found.group(1) if found else f"{type(exc).__name__}: {exc}")[:300]
    for r in range(repeat):
        names = list(prepared) if r % 2 else list(reversed(prepared))
        for name in names:
            row["samples"][name].append(timed(impls[name], case, prepared[name]))
    row["best_s"] = {k: min(s) for k, s in row["samples"].items()}
    return row


def cell(row: dict[str, Any], name: str) -> str:
    if name not in row["best_s"]:
        return "build error" if row["check"].get(name, "").startswith("error") else "-"
    flag = "" if row["check"][name] == "ok" else " (wrong)"
    return f"{row['best_s'][name]:.3g}{flag}"


def table(rows: list[dict[str, Any]], names: list[str]) -> str:
    head = ["kernel", "size"] + [f"{n} s" for n in ORDER if n in names] + ["Oclgrind/simt"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        best = row["best_s"]
        ratio = f"{best['oclgrind'] / best['simt']:.2f}" if {"simt", "oclgrind"} <= best.keys() else "-"
        cells = [row["kernel"], row["size"]] + [cell(row, n) for n in ORDER if n in names] + [ratio]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.simt_speed", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"kernels (default all: {', '.join(SIZES)})")
    ap.add_argument("--repeat", type=int, default=1, help="timed launches per implementation after the checked one")
    ap.add_argument("--no-oclgrind", action="store_true")
    ap.add_argument("--no-cpu", action="store_true")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in SIZES]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(SIZES)}")
    impls: dict[str, Impl] = {}
    skipped: dict[str, str] = {}
    makers = {"simt": lambda: oclpy_device("simt"),
              "oclgrind": (lambda: (None, "--no-oclgrind")) if args.no_oclgrind else oclgrind_impl,
              "cpu": (lambda: (None, "--no-cpu")) if args.no_cpu else lambda: oclpy_device("cpu")}
    for name in ("oclgrind", "simt", "cpu"):  # Oclgrind first: it must set the ICD folder before PyOpenCL loads
        impl, why = makers[name]()
        if impl is None:
            skipped[name] = why
            print(f"skipping {name}: {why}", flush=True)
        else:
            impls[name] = impl
    impls = {n: impls[n] for n in ORDER if n in impls}
    if "simt" not in impls:
        print("no simt device: nothing to measure")
        return 1
    rows = []
    for name in args.names or list(SIZES):
        case = SIZES[name]()
        row = run_case(case, impls, args.repeat)
        rows.append(row)
        print(f"{name} ({case.size}): " + ", ".join(f"{k} {cell(row, k)}" for k in impls), flush=True)
    text = table(rows, list(impls))
    print("\n" + text)
    for row in rows:
        for k, outcome in row["check"].items():
            if outcome != "ok":
                print(f"{row['kernel']} on {k}: {outcome}")
    record = {"kind": "simt-speed", "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine(),
              "software": software(), "implementations": {k: versions(x) for k, x in impls.items()},
              "skipped": skipped, "repeat": args.repeat, "rows": rows, "table": text}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"simt-speed-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwrote {path}")
    return 0 if all(v == "ok" for r in rows for v in r["check"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
