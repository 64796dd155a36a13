"""The fuzz loop the mutators share: run cases, count outcomes, keep reproducers, report.

A mutator supplies its cases (any picklable value: OpenCL C text with its
options, SPIR-V bytes) and a `build(case) -> (outcome, detail)` function
defined at module level; an outcome is "ok", "diagnostic" (a clean build
error) or "internal" (`internal_detail` describes an exception that escaped).
The driver runs the cases in this process (`run_here`: the tests' way, no
time limit per case) or in a worker process (`run_in_worker`: each case
with a time limit; a worker that hangs or dies is replaced and the case is a
"hang" or "died"), keeps the first reproducer of each kind of finding, and
`campaign` splits a run over `--jobs` processes and prints and saves the report.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

FINDINGS = ("internal", "hang", "died")

Build = Callable[[Any], "tuple[str, str]"]


@dataclass
class FuzzReport:
    cases: int = 0
    outcomes: Counter = field(default_factory=Counter)
    internal: dict[str, Any] = field(default_factory=dict)  # "outcome: detail" -> the first case
    seconds: float = 0.0

    def add(self, outcome: str, detail: str, case: Any) -> None:
        self.cases += 1
        self.outcomes[outcome] += 1
        if outcome in FINDINGS:
            self.internal.setdefault(f"{outcome}: {detail}", case)

    def merge(self, other: FuzzReport) -> None:
        self.cases += other.cases
        self.outcomes.update(other.outcomes)
        for kind, case in other.internal.items():
            self.internal.setdefault(kind, case)
        self.seconds = max(self.seconds, other.seconds)


def internal_detail(exc: BaseException) -> str:
    """"Type at file:line: message" of an exception that escaped the compiler."""
    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    line = f"{where.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{where.tb_lineno}" if where else "?"
    return f"{type(exc).__name__} at {line}: {str(exc)[:120]}"


def run_here(cases: Iterable[Any], build: Build, time_limit: float | None = None) -> FuzzReport:
    """Each case built in this process, until the cases or `time_limit` seconds run out."""
    report = FuzzReport()
    start = time.perf_counter()
    for case in cases:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        report.add(*build(case), case)
    report.seconds = time.perf_counter() - start
    return report


def _serve(conn: Any, build: Build) -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # LLVM may write straight to file descriptor 2
    conn.send("ready")  # started and imported: the time limit of a case starts after this
    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        conn.send(build(case))


def run_in_worker(cases: Iterable[Any], build: Build, timeout: float,
                  time_limit: float | None = None) -> FuzzReport:
    """Each case built in a worker process within `timeout` seconds (counted once the
    worker has started); a worker that hangs or dies is replaced (the case is a "hang"
    or "died")."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    report, start, worker, conn = FuzzReport(), time.perf_counter(), None, None
    for case in cases:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        try:
            if worker is None:
                conn, child = ctx.Pipe()
                worker = ctx.Process(target=_serve, args=(child, build), daemon=True)
                worker.start()
                child.close()  # the worker's end: once it exits, reading ours ends (EOFError)
                conn.recv()  # "ready"
            conn.send(case)
            if conn.poll(timeout):
                report.add(*conn.recv(), case)
                continue
            hung = True
        except (EOFError, OSError):
            hung = False
        worker.kill()
        worker.join()
        detail = f"no answer in {timeout:.0f} s" if hung else f"exit status {worker.exitcode}"
        report.add("hang" if hung else "died", detail, case)
        worker = None
    if worker is not None:
        conn.close()
        worker.join(5)
    report.seconds = time.perf_counter() - start
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every mutator's command line has."""
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="processes, each with its own worker")
    parser.add_argument("--backend", action="store_true", help="compile through the cpu target too")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--save", type=Path, help="a folder to write reproducers to")


def campaign(args: argparse.Namespace, job: Callable[[tuple], FuzzReport],
             save: Callable[[Path, str, Any], None], extra: tuple = ()) -> int:
    """Run `args.cases` cases as `args.jobs` chunks, each `job((cases, seed, time limit,
    *extra))` in a process of its own when there are several; print the counts and each
    kind of finding, and `save(path without suffix, kind, case)` each reproducer under `--save`.
    The exit status: 1 when something was found."""
    limit = args.minutes * 60 if args.minutes else None
    chunks = [(args.cases // args.jobs + (k < args.cases % args.jobs), args.seed * 1000 + k, limit, *extra)
              for k in range(args.jobs)]
    start = time.perf_counter()
    report = FuzzReport()
    if args.jobs == 1:
        report.merge(job(chunks[0]))
    else:
        from multiprocessing import Pool

        with Pool(args.jobs) as pool:
            for part in pool.imap_unordered(job, chunks):
                report.merge(part)
    elapsed = time.perf_counter() - start
    print(f"{report.cases} cases in {elapsed:.0f} s: " +
          ", ".join(f"{k} {v}" for k, v in sorted(report.outcomes.items())), flush=True)
    for n, (kind, case) in enumerate(report.internal.items()):
        print(kind)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            save(args.save / f"case-{n}", kind, case)
    return 1 if report.internal else 0
