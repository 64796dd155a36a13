"""The fuzz loop the mutators share: run cases, count outcomes, keep reproducers, report.

A mutator supplies its cases (any picklable value: OpenCL C text with its
options, SPIR-V bytes) and a `build(case) -> (outcome, detail)` function
defined at module level; an outcome is "ok", "diagnostic" (a clean build
error) or "internal" (`internal_detail` describes an exception that escaped).
The driver runs the cases in this process (`run_here`: the tests' way, no
time limit per case) or in a worker process (`run_in_worker`: each case
with a limit on the CPU seconds it may use, and on wall-clock seconds
`WALL_FACTOR` times that; a worker that hangs or dies is replaced and the case
is a "hang" or "died"; CPU seconds, because on a shared machine at `nice 19` a
case that takes 15 s of CPU took more than 120 s of wall clock and was called a
hang), keeps the first reproducer of each kind of finding, and
`campaign` splits a run over `--jobs` processes and prints the report. A long
run says how far it got every `PROGRESS` seconds, and writes each new kind of
finding under `--save` the moment it is found (`saver`; hangs and deaths,
which share a few kinds, each of the first `KEEP_EACH`), so a run stopped
early keeps what it found; `--json FILE` writes the run's summary (`summary`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

FINDINGS = ("internal", "hang", "died")
PROGRESS = 300.0  # seconds between progress lines of a worker run
STARTUP = 600.0  # seconds a worker may take to start (imports on a busy machine)
WALL_FACTOR = 4.0  # a case may wait this many times its CPU limit (asleep, or starved of CPU)
POLL = 1.0  # seconds between looks at a worker's CPU time
KEEP_EACH = 20  # hangs and deaths share a few kinds: each of the first this many is saved

Build = Callable[[Any], "tuple[str, str]"]


@dataclass
class FuzzReport:
    cases: int = 0
    outcomes: Counter = field(default_factory=Counter)
    internal: dict[str, Any] = field(default_factory=dict)  # "outcome: detail" -> the first case
    seconds: float = 0.0

    def add(self, outcome: str, detail: str, case: Any) -> str | None:
        """Count a case; the kind of finding it is when it is the first of its kind."""
        self.cases += 1
        self.outcomes[outcome] += 1
        kind = f"{outcome}: {detail}"
        if outcome not in FINDINGS or kind in self.internal:
            return None
        self.internal[kind] = case
        return kind

    def counts(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))

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


Found = Callable[[str, Any], None]


def saver(folder: Path | None, prefix: str, save: Callable[[Path, str, Any], None]) -> Found | None:
    """What writes each new kind of finding under `folder` (`save(path without suffix, kind,
    case)`, as case-<prefix>-<n>) and says so, or None without a folder."""
    if folder is None:
        return None
    numbers = itertools.count()

    def found(kind: str, case: Any) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"case-{prefix}-{next(numbers)}"
        save(path, kind, case)
        print(f"found {kind} ({path.name})", flush=True)

    return found


def run_here(cases: Iterable[Any], build: Build, time_limit: float | None = None,
             found: Found | None = None) -> FuzzReport:
    """Each case built in this process, until the cases or `time_limit` seconds run out."""
    report = FuzzReport()
    start = time.perf_counter()
    for case in cases:
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
        kind = report.add(*build(case), case)
        if kind is not None and found is not None:
            found(kind, case)
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


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds process `pid` has used (Linux's /proc), or None where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def answered(conn: Any, pid: int, timeout: float) -> bool:
    """Whether the worker `pid` answers on `conn` before it has spent `timeout` CPU
    seconds on the case (wall-clock seconds where its CPU time is unknown) and
    before `WALL_FACTOR * timeout` seconds of wall clock."""
    start, start_cpu = time.perf_counter(), cpu_seconds(pid)
    while not conn.poll(min(POLL, timeout)):
        waited = time.perf_counter() - start
        now_cpu = cpu_seconds(pid)
        used = now_cpu - start_cpu if now_cpu is not None and start_cpu is not None else waited
        if used > timeout or waited > WALL_FACTOR * timeout:
            return False
    return True


def run_in_worker(cases: Iterable[Any], build: Build, timeout: float, time_limit: float | None = None,
                  found: Found | None = None) -> FuzzReport:
    """Each case built in a worker process within `timeout` CPU seconds (`answered`:
    counted once the worker has started); a worker that hangs or dies is replaced
    (the case is a "hang" or "died")."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    report, start, worker, conn = FuzzReport(), time.perf_counter(), None, None
    said = start
    for case in cases:
        now = time.perf_counter()
        if time_limit is not None and now - start > time_limit:
            break
        if now - said > PROGRESS:
            print(f"{report.cases} cases in {now - start:.0f} s: {report.counts()}", flush=True)
            said = now
        try:
            if worker is None:
                conn, child = ctx.Pipe()
                worker = ctx.Process(target=_serve, args=(child, build), daemon=True)
                worker.start()
                child.close()  # the worker's end: once it exits, reading ours ends (EOFError)
                if not conn.poll(STARTUP):
                    raise OSError("the worker did not start")
                conn.recv()  # "ready"
            conn.send(case)
            if answered(conn, worker.pid, timeout):
                kind = report.add(*conn.recv(), case)
                if kind is not None and found is not None:
                    found(kind, case)
                continue
            hung = True
        except (EOFError, OSError):
            hung = False
        worker.kill()
        worker.join()
        detail = f"no answer within {timeout:g} s of CPU" if hung else f"exit status {worker.exitcode}"
        outcome = "hang" if hung else "died"
        kind = report.add(outcome, detail, case)
        if found is not None and (kind is not None or report.outcomes[outcome] <= KEEP_EACH):
            found(f"{outcome}: {detail}", case)
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
    parser.add_argument("--timeout", type=float, default=60.0, help="CPU seconds per case")
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--save", type=Path, help="a folder to write reproducers to")
    parser.add_argument("--json", type=Path, help="a file to write the run's summary to")


def process_cpu_seconds() -> float:
    """CPU seconds of this process and of every process it has waited for (its workers,
    a pool's processes and theirs): what a campaign cost, whatever else ran beside it."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def summary(args: argparse.Namespace, report: FuzzReport, elapsed: float, cpu: float | None = None) -> dict[str, Any]:
    """The plain-data summary of a campaign: what was asked, what ran, what was found;
    `cpu`, the CPU seconds it took (all its processes), gives the rate per core."""
    return {
        "asked": {"cases": args.cases, "seed": args.seed, "jobs": args.jobs, "minutes": args.minutes,
                  "backend": getattr(args, "backend", False), "timeout": getattr(args, "timeout", None)},
        "cases": report.cases,
        "outcomes": dict(sorted(report.outcomes.items())),
        "seconds": round(elapsed, 1),
        "cases_per_second": round(report.cases / elapsed, 3) if elapsed > 0 else None,
        "cpu_seconds": None if cpu is None else round(cpu, 1),
        "cases_per_cpu_second": round(report.cases / cpu, 2) if cpu else None,
        "stopped_by_time_limit": report.cases < args.cases,
        "findings": sorted(report.internal),
    }


def _run_job(job: Callable[[tuple], FuzzReport], chunk: tuple, results: Any) -> None:
    results.put(job(chunk))


def _in_processes(job: Callable[[tuple], FuzzReport], chunks: list[tuple]) -> Iterable[FuzzReport]:
    """`job(chunk)` of each chunk, each in a process of its own. Not a `Pool`: its
    processes are daemons, and a daemon may not start the worker a job runs its cases in."""
    import multiprocessing as mp
    import queue

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=_run_job, args=(job, chunk, results)) for chunk in chunks]
    for proc in procs:
        proc.start()
    pending = len(procs)
    while pending:
        try:
            yield results.get(timeout=POLL)
            pending -= 1
        except queue.Empty:
            if not any(proc.is_alive() for proc in procs) and results.empty():
                break  # a job died without a report: what the others found still counts
    for proc in procs:
        proc.join()


def campaign(args: argparse.Namespace, job: Callable[[tuple], FuzzReport], extra: tuple = ()) -> int:
    """Run `args.cases` cases as `args.jobs` chunks, each `job((cases, seed, time limit,
    --save folder, *extra))` in a process of its own when there are several (a job saves
    what it finds: `saver`); print the counts and each kind of finding. The exit status:
    1 when something was found."""
    limit = args.minutes * 60 if args.minutes else None
    chunks = [(args.cases // args.jobs + (k < args.cases % args.jobs), args.seed * 1000 + k, limit, args.save,
               *extra) for k in range(args.jobs)]
    start, start_cpu = time.perf_counter(), process_cpu_seconds()
    report = FuzzReport()
    if args.jobs == 1:
        report.merge(job(chunks[0]))
    else:
        for part in _in_processes(job, chunks):
            report.merge(part)
    elapsed, cpu = time.perf_counter() - start, process_cpu_seconds() - start_cpu
    print(f"{report.cases} cases in {elapsed:.0f} s: {report.counts()}", flush=True)
    print(f"{cpu:.0f} s of CPU: {report.cases / max(cpu, 1e-9):.1f} cases a CPU second", flush=True)
    for kind in report.internal:
        print(kind)
    if getattr(args, "json", None) is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary(args, report, elapsed, cpu), indent=1) + "\n")
    return 1 if report.internal else 0
