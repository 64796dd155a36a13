"""`python -m benchmarks.frontend [--runs N] [--profile] [--regenerate]`: time the
frontend on a 1,000-line kernel file (see the package docstring)."""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import time
from pathlib import Path
from typing import Any, Callable

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.driver import compile_to_ir
from oclpy.frontend.c.lower.unit import lower
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.preprocess import preprocess
from oclpy.frontend.c.sema.analyzer import analyze
from oclpy.ir.verifier import verify_module

from ..report import machine, software
from .generate import OUTPUT, generate

RESULTS = Path(__file__).resolve().parents[1] / "results"
TARGET_S = 0.5


def end_to_end(source: str) -> None:
    verify_module(compile_to_ir(source, "", filename="kernels_1000.cl").module)


def stage_times(source: str) -> dict[str, float]:
    """One run, stage by stage (in this thread, as the driver's worker runs them)."""
    opts, diags = parse_build_options(""), DiagnosticEngine({"k.cl": source})
    out: dict[str, float] = {}
    t = time.perf_counter()
    text = preprocess(source, "k.cl", opts, diags)
    out["preprocess"], t = time.perf_counter() - t, time.perf_counter()
    tu = parse(text, "k.cl", diags)
    out["parse"], t = time.perf_counter() - t, time.perf_counter()
    analyze(tu, opts, diags)
    out["sema"], t = time.perf_counter() - t, time.perf_counter()
    module = lower(tu, opts)
    out["lower"], t = time.perf_counter() - t, time.perf_counter()
    verify_module(module)
    out["verify"] = time.perf_counter() - t
    assert not diags.has_errors, diags.render()
    return out


def median_time(fn: Callable[[], Any], runs: int) -> tuple[float, list[float]]:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples), samples


def profile(source: str) -> str:
    prof = cProfile.Profile()
    prof.runcall(stage_times, source)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
    return buf.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.frontend")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    ap.add_argument("--regenerate", action="store_true", help="rewrite kernels_1000.cl from the corpus")
    args = ap.parse_args()
    if args.regenerate or not OUTPUT.exists():
        OUTPUT.write_text(generate())
    source = OUTPUT.read_text()
    lines = source.count("\n")
    end_to_end(source)  # warm up: imports, builtin tables
    total, samples = median_time(lambda: end_to_end(source), args.runs)
    stages = [stage_times(source) for _ in range(args.runs)]
    per_stage = {k: statistics.median(s[k] for s in stages) for k in stages[0]}
    print(f"frontend: {lines}-line file, source -> verified IR, median of {args.runs} runs")
    print(f"{'stage':<12}{'median ms':>12}")
    for name, secs in per_stage.items():
        print(f"{name:<12}{secs * 1e3:>12.1f}")
    print(f"{'total':<12}{total * 1e3:>12.1f}   (target {TARGET_S * 1e3:.0f} ms: "
          f"{'met' if total < TARGET_S else 'NOT met'})")
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    record = {"benchmark": "frontend", "date_utc": stamp, "machine": machine(), "software": software(),
              "file": OUTPUT.name, "lines": lines, "runs": args.runs, "total_median_s": total,
              "total_samples_s": samples, "stage_median_s": per_stage, "target_s": TARGET_S,
              "target_met": total < TARGET_S}
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"frontend-{stamp}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    if args.profile:
        print(profile(source))


if __name__ == "__main__":
    main()
