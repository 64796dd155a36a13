"""The test a reduction keeps true, and `python -m tools.clsmith.oracle`, the reducer's CLI.

`Oracle(worker, want)` answers whether a candidate kernel still fails as the
original did (`verdict.signature`: the verdict and its cause). Candidates
go through cheap gates first:

- clang-14 (`-x cl -cl-std=CL1.2 -fsyntax-only`) must accept the kernel, and
  where the original was clean, also without the warnings that mark
  undefined behaviour a deletion can introduce (a variable read before it is
  written, a function falling off its end, ...);
- oclpy must fail in the same way before PoCL is asked;
- for a difference, oclpy and PoCL at -cl-opt-disable must agree with the
  four runs as in the original (which of them agree with which), a guard
  against undefined behaviour, which tends to move such agreements; and
  clang's static analyzer must find no read of an uninitialized value
  (where it found none in the original).

CLI: `python -m tools.clsmith.oracle KERNEL.cl [--oclpy ROOT]` reduces one
kernel into KERNEL.min.cl (`--show`: only print its four runs); `--results RUN.json --top N --out DIR` reduces
the first kernel of each of the N most common causes of a run. `--crash` reduces
a kernel on which PoCL dies while oclpy finishes, keeping how PoCL dies
(`crash.CrashOracle`: the signal and PoCL's last stderr line; `--frame NAME`: a
function of gdb's backtrace instead; `--stack-kib N`: PoCL must finish with
that much stack).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Callable

import numpy as np

from .execute import Run
from .generate import include_dir as find_include_dir
from .clang import UB_WARNINGS, clang_accepts, uninitialized_reads
from .crash import CrashOracle, CrashSignature, probe
from .cvise import CVISE, cvise_reduce
from .reduce import reduce_kernel
from .report import causes
from .verdict import agreement, first_error, signature
from .workers import Config, Worker

class Oracle:
    """Whether a candidate kernel keeps the original's `signature` (see the module docstring)."""

    def __init__(self, worker: Worker, original: str, include_dir: str, timeout: float = 60.0) -> None:
        self.worker, self.include_dir, self.timeout = worker, include_dir, timeout
        self.ub_errors = tuple(w for w in UB_WARNINGS if clang_accepts(original, include_dir, (w,)))
        ours, pocl = self.runs(original)
        self.want = signature(ours, pocl)
        self.first: tuple[Run, Run] = (ours, pocl)
        # a difference keeps which of oclpy and PoCL, each optimising and not, agree
        self.levels = self.levels_of(original, ours, pocl) if self.want[0] == "differ" else ()
        self.analyze = bool(self.levels) and not uninitialized_reads(original, include_dir)

    def levels_of(self, source: str, ours: Run, pocl: Run) -> tuple:
        runs = {"oclpy": ours, "pocl": pocl}
        runs.update({i: self.worker.run(source, i, self.timeout) for i in ("oclpy-O0", "pocl-O0")})
        return agreement(runs)

    def runs(self, source: str) -> tuple[Run, Run]:
        return self.worker.run(source, "oclpy", self.timeout), self.worker.run(source, "pocl", self.timeout)

    def ours_alike(self, ours: Run) -> bool:
        """Whether oclpy's run alone can still give the wanted signature."""
        verdict, key = self.want
        if verdict in ("differ", "pocl-fail", "agree"):
            return ours.status == "ok"
        if verdict == "timeout":
            return ours.status == "timeout"
        if verdict == "both-crash":
            return ours.status == "died"
        return signature(ours, Run("ok", "", ("-",))) == (verdict, key) or verdict == "both-build"

    def __call__(self, source: str) -> bool:
        if not clang_accepts(source, self.include_dir, self.ub_errors):
            return False
        ours = self.worker.run(source, "oclpy", self.timeout)
        if not self.ours_alike(ours):
            return False
        pocl = self.worker.run(source, "pocl", self.timeout)
        if signature(ours, pocl) != self.want or pocl.status != self.first[1].status:
            return False
        if self.analyze and uninitialized_reads(source, self.include_dir):
            return False
        return not self.levels or self.levels_of(source, ours, pocl) == self.levels


def crash_oracle(source: str, worker: Worker, include_dir: str, args: argparse.Namespace) -> CrashOracle:
    """The test that keeps PoCL's death on `source` as the original kernel shows it."""
    died = probe(source, include_dir, args.timeout, gdb=bool(args.frame))
    want = CrashSignature(died.code, "" if args.frame else died.last_line, args.frame or "", args.stack_kib)
    oracle = CrashOracle(worker, source, include_dir, want, args.timeout)
    if not oracle(source):
        raise SystemExit(f"{want} does not hold for the original kernel ({died})")
    return oracle


def reduce_file(path: Path, worker: Worker, include_dir: str, args: argparse.Namespace, out: Path) -> dict:
    source = path.read_text()
    oracle = crash_oracle(source, worker, include_dir, args) if args.crash \
        else Oracle(worker, source, include_dir, args.timeout)
    print(f"{path}: keeping {oracle.want}", flush=True)
    start = time.monotonic()
    engine = None
    if CVISE and not args.no_cvise:
        def engine(body: str, test: Callable[[str], bool]) -> str:
            return cvise_reduce(body, test, args.seconds - (time.monotonic() - start),
                                log=lambda m: print(m[-600:], flush=True))
    reduced = reduce_kernel(source, oracle, include_dir, tries=args.tries if engine is None else 10**6,
                            seconds=args.seconds, engine=engine,
                            progress=lambda m: print("   ", m, flush=True))
    out.write_text(reduced)
    print(f"{len(reduced.splitlines())} lines: {out}", flush=True)
    if isinstance(oracle, CrashOracle):
        return {"kernel": str(path), "reduced": str(out), "want": repr(oracle.want),
                "lines": len(reduced.splitlines()), "pocl": repr(oracle.pocl(reduced))}
    ours, pocl = oracle.runs(reduced)
    return {"kernel": str(path), "reduced": str(out), "want": list(oracle.want),
            "lines": len(reduced.splitlines()),
            "oclpy": {"status": ours.status, "digest": ours.outputs, "detail": ours.detail[-1500:]},
            "pocl": {"status": pocl.status, "digest": pocl.outputs, "detail": pocl.detail[-1500:]}}


def show(path: Path, worker: Worker, timeout: float) -> None:
    """Print what oclpy and PoCL, optimising and not, make of a kernel."""
    source = path.read_text()
    for impl in ("oclpy", "oclpy-O0", "pocl", "pocl-O0"):
        r = worker.run(source, impl, timeout)
        values = np.frombuffer(r.values, np.uint64) if r.values else None
        what = f"{[hex(v) for v in values[:3]]} ({len(np.unique(values))} distinct)" if values is not None \
            else first_error(r.detail)
        print(f"{path.name} {impl:9} {r.status:7} {r.seconds:6.2f} s  {what}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.clsmith.oracle", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", nargs="?")
    ap.add_argument("--results", help="a run's JSON: reduce one kernel per cause")
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--skip", default="", help="causes to leave out (comma-separated prefixes)")
    ap.add_argument("--out", default="/tmp/clsmith-reduced")
    ap.add_argument("--oclpy", help="the checkout whose oclpy to test")
    ap.add_argument("--clsmith-dir")
    ap.add_argument("--tries", type=int, default=500, help="tests per kernel, without cvise")
    ap.add_argument("--seconds", type=float, default=1800.0, help="per kernel")
    ap.add_argument("--timeout", type=float, default=60.0, help="per build and run")
    ap.add_argument("--no-cvise", action="store_true", help="only the line reducer, even where cvise is installed")
    ap.add_argument("--show", action="store_true", help="only print the four runs of KERNEL")
    ap.add_argument("--crash", action="store_true", help="keep how PoCL dies (oclpy must finish)")
    ap.add_argument("--frame", help="with --crash: text a line of PoCL's gdb backtrace must hold")
    ap.add_argument("--stack-kib", type=int, default=0, help="with --crash: PoCL must finish with this much stack")
    args = ap.parse_args(argv)
    inc = find_include_dir(args.clsmith_dir)
    worker = Worker(Config(inc, args.oclpy, cpu=0))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.show:
        try:
            show(Path(args.kernel), worker, args.timeout)
        finally:
            worker.close()
        return 0
    todo: list[tuple[Path, Path]] = []
    if args.kernel:
        todo.append((Path(args.kernel), Path(args.kernel).with_suffix(".min.cl")))
    if args.results:
        records = json.loads(Path(args.results).read_text())["kernels"]
        skip = [s for s in args.skip.split(",") if s]
        picked = [c for c in causes(records) if not any(c[0].startswith(s) for s in skip)][:args.top]
        for _, _, _, examples in picked:
            mode, seed = examples[0].split("/")
            kernel = next(r["kernel"] for r in records if r["mode"] == mode and str(r["seed"]) == seed)
            todo.append((Path(kernel), out / f"{mode}-{seed}.min.cl"))
    try:
        reports = [reduce_file(k, worker, inc, args, o) for k, o in todo]
    finally:
        worker.close()
    (out / "reductions.json").write_text(json.dumps(reports, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
