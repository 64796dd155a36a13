"""`python -m benchmarks.real [names...]`: real kernels on oclpy, PoCL and Intel, alternating.

Finds every CPU OpenCL it can (oclpy's cpu device always; PoCL and Intel's
CPU runtime through PyOpenCL, see `env.py` and `tools/pocl_fix.py`), then per
case (`suite.py`): cold build and first run, checked against NumPy, on each;
then alternating timed rounds (`measure.py`). Prints the table
(`report.py`), writes the JSON record and the PNG plot (`plot.py`) to
benchmarks/results/.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from tools import pocl_fix
from ..progress import Progress
from . import baseline, env, measure, plot, report, sources, suite
from .impls import PEERS, Impl, oclpy_impl, pyopencl_impls

DEFAULT_PEERS = {"cpu": "intel,pocl", "cuda": "nvidia"}


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.real", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help=f"cases to run (default all: {', '.join(suite.MAKERS)})")
    ap.add_argument("--repeat", type=int, default=5, help="timed rounds per kernel (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs first (default 1)")
    ap.add_argument("--small", action="store_true", help="tiny sizes (a smoke run, not a measurement)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="oclpy's device: cpu (peers intel,pocl) or cuda (peer nvidia; kernel times "
                         "from profiling events)")
    ap.add_argument("--peers", help="PyOpenCL peers to compare (default intel,pocl on cpu, nvidia on cuda)")
    ap.add_argument("--cpus", help="pin this process to these CPUs first, e.g. 0 or 0,1 (every implementation "
                                   "then uses only them)")
    ap.add_argument("--install-intel", action="store_true",
                    help="pip-install Intel's CPU runtime and matplotlib into the suite's venv, then run")
    ap.add_argument("--base", metavar="REV",
                    help="also run oclpy as it is at git revision REV (a child process; column 'base', "
                         "oclpy/base is after/before): see baseline.py")
    ap.add_argument("--out", type=Path, help="JSON file to write (default: benchmarks/results/real-*.json)")
    return ap.parse_args(argv)


def find_impls(device: str, peers: list[str], notes: list[str]) -> list[Impl]:
    """oclpy first, then the peers found; a note for each one missing (printed, and in the JSON)."""
    if "intel" in peers:
        why = env.point_icd_at_intel()
        if why:
            notes.append(why)
    if "pocl" in peers:
        fix = pocl_fix.apply()
        if fix:
            notes.append(fix)
            if "intel" in peers and env.intel_library():
                env.point_icd_at_intel()          # keep the patched PoCL beside Intel
    found, missing = pyopencl_impls(peers)
    notes.extend(f"{k} skipped: {v}" for k, v in missing.items())
    return [oclpy_impl(device), *found]


def run_case(case: Any, impls: list[Impl], opts: argparse.Namespace, progress: Progress,
             nonce: str) -> dict[str, Any]:
    source = f"{case.source}\n// benchmark run {nonce} {case.name}\n"
    row: dict[str, Any] = {"name": case.name, "project": case.project, "category": case.category,
                           "kernels": case.kernels(), "size": case.size, "options": case.options,
                           "launches": len(case.launches)}
    runs = []
    for impl in impls:
        if impl.name in case.skip:
            row[impl.name] = measure.Result(error=f"skipped: {case.skip[impl.name]}")
            continue
        progress.show(f"{case.name}: build + check on {impl.name}")
        p, res = measure.first_run(impl, case, source)
        row[impl.name] = res
        if p is not None and res.error is None:
            runs.append((impl, p, res))
    progress.show(f"{case.name}: timing")
    measure.time_rounds(runs, case, opts.warmup, opts.repeat)
    for impl in impls:
        row[impl.name] = dataclasses.asdict(row[impl.name])
    return row


def main(argv: list[str] | None = None) -> int:
    opts = _args(argv)
    try:
        makers = suite.select(opts.names)
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)
        return 2
    if opts.cpus:
        os.sched_setaffinity(0, {int(c) for c in opts.cpus.split(",")})
    if opts.install_intel:
        why = env.install()
        if why:
            print(f"could not install Intel's runtime: {why}", file=sys.stderr)
    notes: list[str] = []
    peers = [p for p in (opts.peers or DEFAULT_PEERS[opts.device]).split(",") if p]
    unknown = [p for p in peers if p not in PEERS]
    if unknown:
        print(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}", file=sys.stderr)
        return 2
    impls = find_impls(opts.device, peers, notes)
    if opts.base:
        impls.insert(1, baseline.BaseImpl(baseline.export_tree(opts.base), opts.small))  # type: ignore[arg-type]
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    progress = Progress(len(makers))
    nonce = uuid.uuid4().hex
    rows = []
    for name, make in makers:
        progress.show(f"{name}: making inputs")
        rows.append(run_case(make(opts.small), impls, opts, progress, nonce))
        progress.step()
    progress.close()
    names = [i.name for i in impls]
    print(report.table(rows, names))
    if opts.small:
        notes.append("--small: tiny sizes, not a measurement")
    options = {"device": opts.device, "repeat": opts.repeat, "warmup": opts.warmup, "small": opts.small,
               "cpus": sorted(os.sched_getaffinity(0))}
    path = report.write_json(rows, {i.name: i.versions() for i in impls}, sources.origins(),
                             opts.out, notes, options)
    print(f"\nresults written to {path}")
    why = plot.plot(path, path.with_suffix(".png"), env.venv_python())
    print(f"plot: {why}" if why else f"plot written to {path.with_suffix('.png')}")
    failed = [r["name"] for r in rows for i in names if r[i].get("error")]
    return 1 if failed else 0
