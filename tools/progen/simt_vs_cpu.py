"""`python -m tools.progen.simt_vs_cpu`: generated programs on the simt device against the cpu device.

Each program (`generate(seed, mode)`, modes in turn; with `--calls`, the
default, every helper is marked `__attribute__((noinline))` so that simt
compiles real calls) runs at one launch shape (`QUICK_SHAPES`; every shape of
`execute.SHAPES` with `--all-shapes`) on
oclpy's cpu device (the reference), on simt with the default register files
and on simt with the smallest the ABI allows (`TINY`: 48 scalar, 24 vector
registers, so that every program with more than a handful of live values
spills). Programs keep the builtins of 64-bit lanes that oclpy once computed
in integers wider than 64 bits (`exprs.WIDE_64`: add_sat, mul_hi, ... of
longs; now 64-bit arithmetic, frontend/c/lower/builtin_int64.py);
`--no-wide64` leaves them out, for the programs of runs made before. Each simt
run is counted as one of:

- agree: the same bytes as the cpu (out, gcnt and scratch of every shape);
- differ: other bytes;
- build: simt refused the program with a build error (an unsupported
  feature, said cleanly);
- internal: an exception escaped the build or the launch (a `SimError`
  included), or the worker died: always a bug;
- timeout: no result within `--timeout` (the simulator is slow on long loops);
- cpu-failed: the reference itself did not run (not simt's finding).

Differences and internal errors are saved under `--out` (default
/tmp/progen-simt/), reduced with `reduce.py` unless `--no-reduce`.
Progress is one line per program; `--json PATH` keeps a summary (settings,
counts per machine, build errors, findings, the verdicts of each seed),
rewritten after every program so that a run stopped early still leaves one;
`--merge A.json B.json ... --json OUT` adds the summaries of runs over other
seed ranges into one.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import signal
import sys
import time
from collections import Counter
from pathlib import Path

from .execute import SHAPES, Result
from .program import MODES, generate
from .reduce import reduce_lines
from .workers import Worker

TINY = {"OCLPY_SIMT_SGPRS": "48", "OCLPY_SIMT_VGPRS": "24"}
MACHINES = ("default", "tiny")
# one launch of 4 groups of 16 (partial waves, several groups): the simulator's time is per
# instruction step, so each of `execute.SHAPES` costs about as much (`--all-shapes` runs them all)
QUICK_SHAPES = [((64,), (16,))]
HELPER = re.compile(r"^(\w[\w ]*?\s)(func_\d+\()", re.M)
CALL = re.compile(r"\bfunc_\d+\(")
DEFINITION = re.compile(r"^\S.*\bfunc_\d+\(", re.M)  # helpers are defined at column 0, called indented


def helpers(source: str) -> int:
    """Generated helpers defined in a program."""
    return len(DEFINITION.findall(source))


def call_sites(source: str) -> int:
    """Calls of generated helpers in a program (its helpers' definitions not counted)."""
    return len(CALL.findall(source)) - helpers(source)


def with_calls(source: str) -> str:
    """Every generated helper kept as a call (progen's helpers are defined at column 0)."""
    return HELPER.sub(r"__attribute__((noinline)) \1\2", source)


def verdict(ref: Result, got: Result) -> str:
    if ref.status != "ok":
        return "cpu-failed"
    if got.status == "ok":
        return "agree" if got.outputs == ref.outputs else "differ"
    return {"build": "build", "timeout": "timeout"}.get(got.status, "internal")


def first_line(r: Result) -> str:
    if r.status == "build":
        m = re.search(r"error: (.*)", r.detail)
        return (m.group(1) if m else r.detail.strip().splitlines()[0] if r.detail.strip() else "")[:160]
    lines = [ln for ln in r.detail.strip().splitlines() if ln and not ln.startswith(" ")]
    return (lines[-1] if lines else r.status)[:160]


class SimtChecker:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.workers = {"default": Worker(), "tiny": Worker(env=TINY)}
        self.counts: dict[str, Counter[str]] = {m: Counter() for m in MACHINES}
        self.build_errors: Counter[str] = Counter()
        self.findings: list[str] = []
        self.shapes = SHAPES if args.all_shapes else QUICK_SHAPES
        self.per_seed: dict[int, dict[str, str]] = {}  # seed -> {"mode": ..., machine: verdict}

    def run(self, source: str) -> tuple[Result, dict[str, Result]]:
        t, shapes = self.args.timeout, self.shapes
        ref = self.workers["default"].run(source, "O2", t, shapes)
        return ref, {m: self.workers[m].run(source, "simt", t, shapes) for m in MACHINES}

    def check(self, seed: int, mode: str) -> str:
        source = generate(seed, mode, wide64=self.args.wide64)
        if self.args.calls:
            source = with_calls(source)
        ref, got = self.run(source)
        verdicts = {m: verdict(ref, r) for m, r in got.items()}
        self.per_seed[seed] = {"mode": mode, "helpers": helpers(source),
                               "call_sites": call_sites(source), **verdicts}
        for m, v in verdicts.items():
            self.counts[m][v] += 1
            if v == "build":
                self.build_errors[first_line(got[m])] += 1
        bad = {m: v for m, v in verdicts.items() if v in ("differ", "internal")}
        if bad:
            self.save(seed, mode, source, ref, got, bad)
        return " ".join(f"{m} {v}" for m, v in verdicts.items())

    def save(self, seed: int, mode: str, source: str, ref: Result, got: dict[str, Result],
             bad: dict[str, str]) -> None:
        stem = self.out / f"seed{seed}-{mode}"
        stem.with_suffix(".cl").write_text(source)
        report = {"seed": seed, "mode": mode, "verdicts": bad,
                  "cpu": {"status": ref.status, "outputs": ref.outputs, "detail": ref.detail[-2000:]},
                  **{m: {"status": r.status, "outputs": r.outputs, "detail": r.detail[-4000:]}
                     for m, r in got.items()}}
        stem.with_suffix(".json").write_text(json.dumps(report, indent=1))
        note = ", ".join(f"{m}: {v} ({first_line(got[m]) if v == 'internal' else 'outputs'})"
                         for m, v in bad.items())
        self.findings.append(f"seed {seed} {mode}: {note}")
        if self.args.no_reduce:
            return
        want = {m: (got[m].status, first_line(got[m]) if got[m].status != "ok" else got[m].outputs == ref.outputs)
                for m in bad}

        def interesting(candidate: str) -> bool:
            r, g = self.run(candidate)
            return r.status == "ok" and all(
                (g[m].status, first_line(g[m]) if g[m].status != "ok" else g[m].outputs == r.outputs) == w
                for m, w in want.items())

        reduced = reduce_lines(source, interesting, budget=self.args.reduce_budget,
                               deadline_s=self.args.reduce_seconds)
        stem.with_suffix(".min.cl").write_text(reduced)
        print(f"    saved {stem}.cl, reduced to {len(reduced.splitlines())} lines: {stem}.min.cl", flush=True)

    def close(self) -> None:
        for w in self.workers.values():
            w.close()

    def summary(self, seconds: float) -> dict:
        """The run as JSON-ready data (`--json`)."""
        a = self.args
        return {"tool": "tools.progen.simt_vs_cpu", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                "settings": {"first_seed": a.seed, "count": a.count, "mode": a.mode, "calls": a.calls,
                             "wide64": a.wide64, "shapes": [list(map(list, s)) for s in self.shapes],
                             "timeout_s": a.timeout, "machines": {"default": {}, "tiny": TINY}},
                "programs": len(self.per_seed), "seconds": round(seconds, 1),
                "counts": {m: dict(sorted(self.counts[m].items())) for m in MACHINES},
                "build_errors": dict(self.build_errors.most_common()),
                "findings": list(self.findings),
                "seeds": {str(k): v for k, v in sorted(self.per_seed.items())}}


def merge(summaries: list[dict]) -> dict:
    """One summary of several runs' (over disjoint seed ranges; merged ones too): counts added, seeds joined."""
    seeds: dict[str, dict] = {}
    build_errors: Counter[str] = Counter()
    for s in summaries:
        seeds.update(s["seeds"])
        build_errors.update(s["build_errors"])
    counts = {m: dict(sorted(Counter(v[m] for v in seeds.values()).items())) for m in MACHINES}
    runs = [r for s in summaries for r in (s["merged_from"] if "merged_from" in s else [s["settings"]])]
    settings = runs[0]
    for seed, v in seeds.items():  # runs that counted helper definitions only: the call sites, from the program
        if "call_sites" not in v:
            source = with_calls(generate(int(seed), v["mode"], wide64=settings["wide64"]))
            v.update(helpers=helpers(source), call_sites=call_sites(source))
            v.pop("calls", None)
    with_calls_ = sum(1 for v in seeds.values() if v["call_sites"])
    return {"tool": "tools.progen.simt_vs_cpu", "merged_from": runs,
            "programs": len(seeds), "programs_with_calls": with_calls_,
            "seconds": sum(s["seconds"] for s in summaries), "counts": counts,
            "build_errors": dict(build_errors.most_common()),
            "findings": [f for s in summaries for f in s["findings"]],
            "seeds": dict(sorted(seeds.items(), key=lambda kv: int(kv[0])))}


def write_json(path: str, data: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.progen.simt_vs_cpu", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--mode", choices=MODES + ("cycle",), default="cycle")
    ap.add_argument("--seconds", type=float, default=0.0, help="stop starting programs after this long (0: no limit)")
    ap.add_argument("--no-calls", dest="calls", action="store_false", help="let helpers be inlined")
    ap.add_argument("--no-wide64", dest="wide64", action="store_false",
                    help="leave out add_sat, mul_hi, ... on 64-bit lanes (the programs of earlier runs)")
    ap.add_argument("--all-shapes", action="store_true", help="launch at every shape of execute.SHAPES")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per build and run")
    ap.add_argument("--out", default="/tmp/progen-simt")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--reduce-budget", type=int, default=150, help="tries per reduction")
    ap.add_argument("--reduce-seconds", type=float, default=300.0)
    ap.add_argument("--json", help="write the summary here (after every program)")
    ap.add_argument("--merge", nargs="+", metavar="SUMMARY", help="merge these summaries into --json and stop")
    args = ap.parse_args(argv)
    if args.merge:
        if not args.json:
            ap.error("--merge needs --json")
        write_json(args.json, merge([json.loads(Path(p).read_text()) for p in args.merge]))
        return 0
    checker = SimtChecker(args)
    start = time.monotonic()
    done = 0
    try:
        for k in range(args.count):
            if args.seconds and time.monotonic() - start > args.seconds:
                break
            seed = args.seed + k
            mode = MODES[seed % len(MODES)] if args.mode == "cycle" else args.mode
            line = checker.check(seed, mode)
            done += 1
            print(f"[{done}/{args.count}] seed {seed} {mode}: {line} ({time.monotonic() - start:.0f} s)", flush=True)
            if args.json:
                write_json(args.json, checker.summary(time.monotonic() - start))
    finally:
        checker.close()
    print(f"\n{done} programs in {time.monotonic() - start:.0f} s (calls kept: {args.calls})")
    for m in MACHINES:
        print(f"  simt {m}: " + ", ".join(f"{k} {v}" for k, v in sorted(checker.counts[m].items())))
    for text, n in checker.build_errors.most_common(10):
        print(f"  build error x{n}: {text}")
    for f in checker.findings:
        print("  finding: " + f)
    return 1 if checker.findings else 0


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the workers still go (main's finally)
    sys.exit(main())
