"""`python -m benchmarks [names...]`: the suite on oclpy and PoCL, side by side.

For each case (`cases.py`): cold build and first launch, checked against
NumPy, on each implementation; the warm build of the same source in a fresh
process right away (`warmbuild.py`: its disk caches answer); then the
alternating timing of `measure.py` and launch overhead. Prints the table
(`report.py`) and writes the JSON record.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import uuid
from pathlib import Path
from typing import Any

from tools import pocl_fix

from . import cases, measure, report, warmbuild
from .case import Case
from .impl import Impl, oclpy_impl, pocl_impl, versions
from .progress import Progress


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"cases to run (default all: {', '.join(cases.MAKERS)})")
    ap.add_argument("--repeat", type=int, default=7, help="timed rounds per kernel (default 7)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed launches first (default 2)")
    ap.add_argument("--no-pocl", action="store_true", help="run oclpy alone")
    ap.add_argument("--no-warm-build", action="store_true", help="skip the warm build subprocess")
    ap.add_argument("--out", type=Path, help="JSON file to write (default: benchmarks/results/)")
    return ap.parse_args(argv)


def run_case(case: Case, impls: list[Impl], opts: argparse.Namespace,
             progress: Progress, nonce: str) -> dict[str, Any]:
    source = f"{case.source}\n// benchmark run {nonce}\n"
    row: dict[str, Any] = {"name": case.name, "size": case.size, "kernel": case.kernel,
                           "global_size": list(case.global_size),
                           "local_size": list(case.local_size or ())}
    runs = []
    for impl in impls:
        progress.show(f"{case.name}: build + check on {impl.name}")
        p, res = measure.first_run(impl, case, source)
        row[impl.name] = res
        if p is not None and res.error is None:
            runs.append((impl, p, res))
    if opts.warm_build:
        progress.show(f"{case.name}: warm builds")
        row["oclpy"].warm_build_s = warmbuild.in_process(impls[0], source)
        add_warm_builds(row, source, len(impls) > 1)
    progress.show(f"{case.name}: timing")
    measure.time_kernels(runs, case, opts.warmup, opts.repeat)
    for impl, p, res in runs:
        progress.show(f"{case.name}: launch overhead on {impl.name}")
        res.launch_overhead_s = measure.launch_overhead(impl, case, p)
    for impl in impls:
        row[impl.name] = dataclasses.asdict(row[impl.name])
    return row


def add_warm_builds(row: dict[str, Any], source: str, with_pocl: bool) -> None:
    for name, values in warmbuild.measure([source], with_pocl).items():
        if name in row and values:
            row[name].warm_build_s = values[0]


def main(argv: list[str] | None = None) -> int:
    opts = _args(argv)
    try:
        makers = cases.select(opts.names)
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    impls = [oclpy_impl()]
    notes = []
    if not opts.no_pocl:
        fix = pocl_fix.apply()
        if fix:
            notes.append(fix)
            print(fix, file=sys.stderr)
        pocl, why = pocl_impl()
        if pocl is None:
            print(why, file=sys.stderr)
        else:
            impls.append(pocl)
    progress = Progress(len(makers))
    nonce = uuid.uuid4().hex
    opts.warm_build = not opts.no_warm_build
    rows = []
    for make in makers:
        progress.show("making inputs")
        rows.append(run_case(make(), impls, opts, progress, nonce))
        progress.step()
    progress.close()
    print(report.table(rows))
    for note in notes:
        print(f"note: {note}")
    path = report.write_json(rows, {i.name: versions(i) for i in impls}, opts.out, notes)
    print(f"\nresults written to {path}")
    failed = [r["name"] for r in rows for i in impls if r[i.name].get("error")]
    return 1 if failed else 0
