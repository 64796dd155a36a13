"""`python -m tools.progen.check`: differential testing of oclpy with generated programs.

Each program (`generate(seed, mode)`, modes in turn) is built and run on
oclpy's cpu device at -O0 and at the default level, and on PoCL through
PyOpenCL, at every launch shape of `execute.SHAPES`, in worker processes
with a time limit. Disagreements, build failures of programs PoCL accepts,
exceptions escaping oclpy and timeouts are reported; each failing program is
reduced (`reduce.py`, keeping the same `verdict.signature`) and saved with
its reduction under the results folder (default /tmp/progen-failures/).
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from collections import Counter
from pathlib import Path

from .execute import IMPLS, Result
from .program import MODES, generate
from .reduce import reduce_lines
from .verdict import classify, signature
from .workers import Worker

# findings that are oclpy's bugs (the rest are notes: PoCL's failures, invalid programs)
BUGS = {"ice", "native-crash", "timeout", "launch", "oclpy-build", "O0-vs-O2", "oclpy-vs-pocl"}


def run_all(worker: Worker, source: str, impls: tuple[str, ...], timeout: float) -> dict[str, Result]:
    return {impl: worker.run(source, impl, timeout) for impl in impls}


class Checker:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.impls = IMPLS if not args.no_pocl else ("O0", "O2")
        self.out = Path(args.out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.counts: Counter[str] = Counter()
        self.per_mode: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.done = 0
        self.start = time.monotonic()

    def log(self, text: str) -> None:
        with self.lock:
            print(text, flush=True)

    def check_one(self, worker: Worker, seed: int, mode: str) -> None:
        source = generate(seed, mode)
        results = run_all(worker, source, self.impls, self.args.timeout)
        verdict = classify(results)
        with self.lock:
            self.done += 1
            self.counts[verdict] += 1
            self.per_mode[mode] += 1
            done, total = self.done, self.args.count
            rate = done / max(time.monotonic() - self.start, 1e-9)
        self.log(f"[{done}/{total}] seed {seed} {mode}: {verdict}  ({rate * 60:.0f}/min; "
                 + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items())) + ")")
        if verdict != "ok":
            self.save(worker, seed, mode, source, results, verdict)

    def save(self, worker: Worker, seed: int, mode: str, source: str,
             results: dict[str, Result], verdict: str) -> None:
        stem = self.out / f"{verdict}-seed{seed}-{mode}"
        stem.with_suffix(".cl").write_text(source)
        report = {"seed": seed, "mode": mode, "verdict": verdict,
                  "results": {k: {"status": r.status, "outputs": r.outputs, "detail": r.detail[-4000:]}
                              for k, r in results.items()}}
        stem.with_suffix(".json").write_text(json.dumps(report, indent=1))
        if self.args.no_reduce or verdict not in BUGS:
            return
        want = signature(results)
        timeout = min(self.args.timeout, 20.0) if verdict != "timeout" else self.args.timeout

        def interesting(candidate: str) -> bool:
            return signature(run_all(worker, candidate, self.impls, timeout)) == want

        reduced = reduce_lines(source, interesting, budget=self.args.reduce_budget,
                               deadline_s=self.args.reduce_seconds)
        stem.with_suffix(".min.cl").write_text(reduced)
        self.log(f"    saved {stem}.cl, reduced to {len(reduced.splitlines())} lines: {stem}.min.cl")

    def serve(self, jobs: queue.Queue) -> None:
        worker = Worker()
        try:
            while True:
                try:
                    seed, mode = jobs.get_nowait()
                except queue.Empty:
                    return
                self.check_one(worker, seed, mode)
        finally:
            worker.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.progen.check", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--mode", choices=MODES + ("cycle",), default="cycle")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per build and run")
    ap.add_argument("--out", default="/tmp/progen-failures")
    ap.add_argument("--no-pocl", action="store_true")
    ap.add_argument("--no-reduce", action="store_true")
    ap.add_argument("--reduce-budget", type=int, default=150, help="tries per reduction")
    ap.add_argument("--reduce-seconds", type=float, default=300.0)
    args = ap.parse_args(argv)
    checker = Checker(args)
    jobs: queue.Queue = queue.Queue()
    for k in range(args.count):
        seed = args.seed + k
        jobs.put((seed, MODES[seed % len(MODES)] if args.mode == "cycle" else args.mode))
    threads = [threading.Thread(target=checker.serve, args=(jobs,)) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bugs = sum(v for k, v in checker.counts.items() if k in BUGS)
    print(f"{checker.done} programs ({dict(checker.per_mode)}): {dict(checker.counts)}; "
          f"{bugs} findings in {args.out}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
