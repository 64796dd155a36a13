"""`python -m tools.clsmith --mode plain --seeds 1000000:1000100`: CLSmith's kernels
on oclpy's cpu device and on PoCL.

For each mode and seed, the kernel (`generate.generate`, cached) is built and
launched on oclpy and on PoCL as cl_launcher would (`execute.py`), each in a
worker process with a time limit (`workers.py`), and the result buffers are
compared (`verdict.classify`). A line per kernel is printed as it ends, then
the per-mode table and the causes of every disagreement (`report.py`); the
JSON (default /tmp/clsmith-results.json) holds every kernel's record and is
rewritten as the run goes, so a cut-short run still leaves its numbers.
PoCL's results are cached beside the kernels: a second run (e.g. with
`--oclpy /work/wt-lang`, another checkout's oclpy) only runs oclpy. Where
oclpy fails to build a kernel, clang-14 (`clang.py`) says whether it is
valid (as clang 15 and later judge it), and PoCL is not run (`--pocl-always` runs
it; so does a machine without clang-14). Where oclpy times out and PoCL finishes,
PoCL runs again at -O0 (`pocl_O0` in the record): a kernel that never ends, which
PoCL's optimised work-group code can finish all the same (atomics 1000096 in
FINDINGS.md), shows as `timeout (PoCL finishes, PoCL -O0 times out)`.

`--kernels-of RESULTS.json --cause PREFIX` checks again only the kernels of an
earlier run with that cause (e.g. `timeout`); `--one-group` launches each kernel
as one work-group of its own local size, a valid launch that both
implementations run alike and that divides the run time of a kernel that
timed out by its number of work-groups (its PoCL results are cached apart).

A Ctrl-C (SIGINT) stops the run cleanly: the workers ignore it (`workers.py`),
the parent stops them, the kernels in flight are not recorded (their runs
were cut short, not failed), the JSON is written with `"interrupted": true`
and the exit status is 130; `--resume` then runs what is left.
"""

from __future__ import annotations

import argparse
import json
import queue
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

from .execute import Run
from .generate import DEFAULT_CACHE, MODES, generate, include_dir, parse_launch, with_launch
from .report import causes_markdown, markdown, mode_table
from .clang import CLANG, NEWER_ERRORS, clang_check
from .verdict import CLANG_REJECTS, ICE, cause, classify
from .workers import Config, Worker


def _pocl_cache(cache: str, mode: str, seed: int, one_group: bool) -> Path:
    return Path(cache) / mode / f"{seed}{'.one-group' if one_group else ''}.pocl.json"


def load_pocl(cache: str, mode: str, seed: int, one_group: bool = False) -> Run | None:
    path = _pocl_cache(cache, mode, seed, one_group)
    if not path.is_file():
        return None
    d = json.loads(path.read_text())
    values = np.load(path.with_suffix(".npy")).tobytes() if d["status"] == "ok" else b""
    return Run(d["status"], d["detail"], tuple(d["outputs"]), d["seconds"], values, d.get("build_seconds", 0.0))


def save_pocl(cache: str, mode: str, seed: int, r: Run, one_group: bool = False) -> None:
    if r.status in ("timeout", "died", "stopped"):
        return                          # may depend on the machine's load: not cached
    path = _pocl_cache(cache, mode, seed, one_group)
    if r.status == "ok":
        np.save(path.with_suffix(".npy"), np.frombuffer(r.values, np.uint64))
    path.write_text(json.dumps({"status": r.status, "detail": r.detail[-4000:],
                                "outputs": list(r.outputs), "seconds": r.seconds,
                                "build_seconds": r.build_seconds}))


def judge_by_clang(source: str, clsmith_dir: str | None) -> Run | None:
    """Where oclpy fails to build, whether the kernel is valid, from clang-14 rather than a
    PoCL run: a "build" failure, or "unrun" (PoCL not run; clang accepts the kernel); None
    where no clang is installed (PoCL then judges). The warnings that clang 15 and later make
    errors are errors here too (`clang.NEWER_ERRORS`)."""
    if CLANG is None:
        return None
    ok, messages = clang_check(source, include_dir(clsmith_dir), NEWER_ERRORS)
    return Run("unrun", "clang-14 accepts the kernel") if ok else Run("build", f"{CLANG_REJECTS}\n{messages}")


def summary(r: Run) -> dict:
    """What the JSON keeps of one run: status, seconds, digest, the first results, the error."""
    out: dict = {"status": r.status, "seconds": round(getattr(r, "seconds", 0.0), 2),
                 "build_seconds": round(getattr(r, "build_seconds", 0.0), 2)}
    if r.status == "ok":
        values = np.frombuffer(r.values, np.uint64)
        out.update(digest=r.outputs[0], first=[hex(v) for v in values[:4]],
                   distinct=int(len(np.unique(values))))
    else:
        out["detail"] = r.detail[-3000:]
    return out


class Checker:
    def __init__(self, args: argparse.Namespace, jobs: list[tuple[int, str]]) -> None:
        self.args = args
        self.jobs: queue.Queue = queue.Queue()
        for job in jobs:
            self.jobs.put(job)
        self.total = len(jobs)
        self.records: list[dict] = list(args.previous)
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.start = time.monotonic()
        self.oclpy_root = ""
        self.generator_failures: list[dict] = []
        self.stop = threading.Event()       # set on SIGINT: take no kernel, record none in flight
        self.interrupted = False
        self.workers: list[Worker] = []

    def check_one(self, worker: Worker, seed: int, mode: str) -> dict | None:
        a = self.args
        try:
            source = generate(seed, mode, a.cache, a.clsmith_dir)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            with self.lock:
                self.generator_failures.append({"seed": seed, "mode": mode, "error": str(exc)[-300:]})
            print(f"{mode} {seed}: CLSmith failed, no kernel: {str(exc)[-120:]}", flush=True)
            return None
        if a.one_group:
            source = with_launch(source, parse_launch(source).one_group())
        ours = worker.run(source, "oclpy", a.timeout)
        pocl = load_pocl(a.cache, mode, seed, a.one_group)
        if pocl is None and ours.status == "build" and ICE not in ours.detail and not a.pocl_always:
            pocl = judge_by_clang(source, a.clsmith_dir)
        if pocl is None and ours.status == "timeout" and a.skip_pocl_after_timeout:
            pocl = Run("unrun", "oclpy timed out; PoCL not run (--skip-pocl-after-timeout)")
        if pocl is None:
            pocl = worker.run(source, "pocl", a.timeout)
            save_pocl(a.cache, mode, seed, pocl, a.one_group)
        rec = {"seed": seed, "mode": mode, "verdict": classify(ours, pocl), "cause": cause(ours, pocl),
               "kernel": str(Path(a.cache) / mode / f"{seed}.cl"), "lines": source.count("\n"),
               "launch": source.partition("\n")[0], "oclpy": summary(ours), "pocl": summary(pocl)}
        if rec["verdict"] == "timeout" and pocl.status == "ok":
            pocl_o0 = worker.run(source, "pocl-O0", a.timeout)
            rec.update(cause=cause(ours, pocl, pocl_o0), pocl_O0=summary(pocl_o0))
        return rec

    def record(self, rec: dict) -> None:
        with self.lock:
            self.records.append(rec)
            self.counts[rec["verdict"]] += 1
            done = sum(self.counts.values())
            rate = done / max(time.monotonic() - self.start, 1e-9)
            if done % 10 == 0 or done == self.total:
                self.write()
        print(f"[{done}/{self.total}] {rec['mode']} {rec['seed']}: {rec['verdict']} "
              f"({rec['oclpy']['seconds']} s / PoCL {rec['pocl']['seconds']} s; {rate * 60:.1f}/min) "
              f"{rec['cause'] if rec['verdict'] != 'agree' else ''}", flush=True)

    def write(self) -> None:
        data = {"oclpy": self.oclpy_root, "timeout": self.args.timeout, "one_group": self.args.one_group,
                "interrupted": self.interrupted,
                "table": mode_table(self.records), "kernels": self.records,
                "generator_failures": self.generator_failures}
        Path(self.args.json).write_text(json.dumps(data, indent=1))

    def serve(self, index: int) -> None:
        with self.lock:
            if self.stop.is_set():
                return
            worker = Worker(Config(include_dir(self.args.clsmith_dir), self.args.oclpy,
                                   cpu=index if self.args.pin else None))
            self.workers.append(worker)
        try:
            self.oclpy_root = worker.where()
            while not self.stop.is_set():
                try:
                    seed, mode = self.jobs.get_nowait()
                except queue.Empty:
                    return
                try:
                    rec = self.check_one(worker, seed, mode)
                except Exception:  # noqa: BLE001 - one kernel's trouble must not end the run
                    if not self.stop.is_set():
                        print(f"{mode} {seed}: harness error\n{traceback.format_exc()}", flush=True)
                    continue
                if rec is not None and not self.stop.is_set():
                    self.record(rec)
        except (EOFError, OSError):
            if not self.stop.is_set():      # a worker that died before its first kernel
                raise
        finally:
            worker.close()

    def interrupt(self, *_: object) -> None:
        """Stop: no kernel is taken or recorded after this, and the workers are stopped
        (also SIGINT's handler during `run`)."""
        if not self.interrupted:
            print("\ninterrupted: stopping the workers; the kernels in flight are not recorded", flush=True)
        self.interrupted = True
        self.stop.set()
        with self.lock:
            workers = list(self.workers)
        for worker in workers:
            worker.close()

    def run(self, jobs: int) -> None:
        """Check every kernel with `jobs` workers. SIGINT calls `interrupt` rather than raising
        KeyboardInterrupt: a KeyboardInterrupt inside `Thread.join` marks the joined thread as
        ended while it still runs (Python 3.11), and the interpreter then aborts at exit."""
        threads = [threading.Thread(target=self.serve, args=(i,)) for i in range(max(1, jobs))]
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, self.interrupt) if main else None
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)


def kernels_of(results: dict, cause_prefix: str | None = None) -> set[tuple[int, str]]:
    """The (seed, mode) of an earlier run's records, those whose cause starts with `cause_prefix`."""
    return {(r["seed"], r["mode"]) for r in results["kernels"]
            if cause_prefix is None or r["cause"].startswith(cause_prefix)}


def parse_seeds(text: str) -> range:
    """`A:B` (B excluded), or a single seed `A`."""
    first, _, end = text.partition(":")
    return range(int(first), int(end) if end else int(first) + 1)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tools.clsmith", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="plain", help=f"one of {', '.join(MODES)}, a comma list, or all")
    ap.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1000000:1000010"))
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (each pinned to one CPU)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per build and run")
    ap.add_argument("--oclpy", help="the checkout whose oclpy to test (default: this one)")
    ap.add_argument("--clsmith-dir", help="CLSmith.h's folder (default $CLSMITH_DIR)")
    ap.add_argument("--cache", default=DEFAULT_CACHE, help="generated kernels and PoCL's results")
    ap.add_argument("--json", default="/tmp/clsmith-results.json")
    ap.add_argument("--resume", action="store_true", help="keep the records of --json and skip their kernels")
    ap.add_argument("--no-pin", dest="pin", action="store_false")
    ap.add_argument("--one-group", action="store_true",
                    help="launch each kernel as one work-group of its own local size (global size = local size)")
    ap.add_argument("--skip-pocl-after-timeout", action="store_true",
                    help="where oclpy times out, do not run PoCL (no verdict either way; halves a timeout's cost)")
    ap.add_argument("--kernels-of", metavar="JSON",
                    help="check only the kernels (mode, seed) of this earlier run's JSON, within --mode and --seeds")
    ap.add_argument("--cause", help="with --kernels-of: only the kernels whose cause starts with this")
    ap.add_argument("--pocl-always", action="store_true",
                    help="run PoCL also where oclpy fails to build (by default clang-14 judges the kernel)")
    args = ap.parse_args(argv)
    args.modes = list(MODES) if args.mode == "all" else args.mode.split(",")
    for m in args.modes:
        if m not in MODES:
            ap.error(f"unknown mode {m!r}")
    if args.cause and not args.kernels_of:
        ap.error("--cause needs --kernels-of")
    args.previous = []
    if args.resume and Path(args.json).is_file():
        args.previous = json.loads(Path(args.json).read_text())["kernels"]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    done = {(r["seed"], r["mode"]) for r in args.previous}
    jobs = [(s, m) for s in args.seeds for m in args.modes if (s, m) not in done]
    if args.kernels_of:
        chosen = kernels_of(json.loads(Path(args.kernels_of).read_text()), args.cause)
        jobs = [job for job in jobs if job in chosen]
    checker = Checker(args, jobs)
    checker.run(args.jobs)
    checker.write()
    stopped = " (interrupted; --resume runs the rest)" if checker.interrupted else ""
    print(f"\noclpy from {checker.oclpy_root}; {len(checker.records)} kernels{stopped}; JSON in {args.json}\n")
    print(markdown(mode_table(checker.records)))
    print()
    print(causes_markdown(checker.records))
    return 130 if checker.interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
