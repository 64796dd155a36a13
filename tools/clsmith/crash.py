"""How PoCL dies on a kernel, and the test that keeps that death through a reduction.

A kernel on which PoCL's worker dies where oclpy finishes (verdict `pocl-fail`)
is reduced while PoCL still dies *the same way*: killed by the same signal,
with the same last line on stderr (PoCL's message before an `abort()`, e.g.
"Could not find a dominating alternative variable."), and, where asked,

- with the same function in the crashing thread's backtrace (`frame`, read
  by running PoCL under gdb: a segfault inside one of PoCL's passes), or
- living through the launch with a larger stack (`stack_kib`: the worker
  thread's stack overflowed, the stack limit is what the kernel exhausts).

`probe` runs PoCL on one kernel in a fresh process (`python -m
tools.clsmith.crash KERNEL`: builds and launches as `execute.run` does and
exits 0 on a result), so a crash costs nothing but that process; glibc sizes
a thread's stack from RLIMIT_STACK at start, which `probe` sets for the
larger-stack run. `crash_matches` is the pure comparison. `CrashOracle` puts
clang-14's gate (undefined-behaviour warnings as errors, as `oracle.Oracle`)
and oclpy's run (it must build and finish) before PoCL's probes.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .clang import UB_WARNINGS, clang_accepts
from .workers import Worker

ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class Death:
    """One PoCL run in its own process: the exit status (negative: the signal), the
    last non-empty line of stderr, and the functions of the crashing thread's
    backtrace (only under gdb)."""

    code: int
    last_line: str = ""
    frames: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrashSignature:
    code: int                   # the signal, negative (-6 SIGABRT, -11 SIGSEGV)
    last_line: str = ""         # PoCL's last stderr line, "" to leave it out (always, with a frame)
    frame: str = ""             # text a line of the backtrace must hold (a function's name), "" to leave it out
    stack_kib: int = 0          # a stack limit under which PoCL must finish, 0 to leave it out


def crash_matches(want: CrashSignature, died: Death, big_stack: Death | None = None) -> bool:
    """Whether `died` (PoCL at the default stack) and `big_stack` (PoCL with
    `want.stack_kib` of stack, where asked) are the death `want` describes."""
    if died.code != want.code:
        return False
    if want.last_line and died.last_line != want.last_line:
        return False
    if want.frame and not any(want.frame in f for f in died.frames):
        return False
    if want.stack_kib:
        return big_stack is not None and big_stack.code == 0
    return True


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def backtrace_frames(gdb_output: str) -> tuple[str, ...]:
    """The lines of gdb's `bt` (`#3  0x... in NAME (...) from LIB`), without their numbers."""
    return tuple(ln.split(None, 1)[1] for ln in gdb_output.splitlines()
                 if ln.startswith("#") and len(ln.split(None, 1)) == 2)


def _limit_stack(kib: int):
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_STACK, (kib * 1024, resource.getrlimit(resource.RLIMIT_STACK)[1]))
    return set_limit


def probe(source: str, include_dir: str, timeout: float = 120.0, stack_kib: int = 0,
          gdb: bool = False) -> Death:
    """PoCL's run of `source` in a fresh process (see the module docstring); a
    timeout reads as code 124."""
    # PoCL's abort writes broken.dot into the working directory: a scratch one
    with tempfile.TemporaryDirectory(prefix="clsmith-crash-") as tmp:
        kernel = Path(tmp) / "kernel.cl"
        kernel.write_text(source)
        cmd = [sys.executable, "-m", "tools.clsmith.crash", str(kernel), "--include", include_dir]
        if gdb:
            cmd = ["gdb", "-batch", "-nx", "-ex", "run", "-ex", "bt", "--args", *cmd]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp,
                                  env={**os.environ, "PYTHONPATH": ROOT}, start_new_session=True,
                                  preexec_fn=_limit_stack(stack_kib) if stack_kib else None)
        except subprocess.TimeoutExpired:
            return Death(124)
    if not gdb:
        return Death(proc.returncode, last_line(proc.stderr))
    # under gdb the signal is gdb's report, stderr mixes with gdb's own: only the backtrace counts
    text = proc.stdout + proc.stderr
    code = -11 if "SIGSEGV" in text else -6 if "SIGABRT" in text else 0 if "exited normally" in text else 1
    return Death(code, "", backtrace_frames(text))


class CrashOracle:
    """Whether a candidate kernel keeps PoCL's death `want` while oclpy builds and runs it."""

    def __init__(self, worker: Worker, original: str, include_dir: str, want: CrashSignature,
                 timeout: float = 120.0) -> None:
        self.worker, self.include_dir, self.want, self.timeout = worker, include_dir, want, timeout
        self.ub_errors = tuple(w for w in UB_WARNINGS if clang_accepts(original, include_dir, (w,)))

    def pocl(self, source: str) -> tuple[Death, Death | None]:
        died = probe(source, self.include_dir, self.timeout, gdb=bool(self.want.frame))
        big = None
        if self.want.stack_kib and died.code == self.want.code:
            big = probe(source, self.include_dir, self.timeout, stack_kib=self.want.stack_kib)
        return died, big

    def __call__(self, source: str) -> bool:
        if not clang_accepts(source, self.include_dir, self.ub_errors):
            return False
        if self.worker.run(source, "oclpy", self.timeout).status != "ok":
            return False
        return crash_matches(self.want, *self.pocl(source))


def main(argv: list[str] | None = None) -> int:
    """Build and launch KERNEL on PoCL; exit 0 with a result, else die as PoCL does."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m tools.clsmith.crash")
    ap.add_argument("kernel")
    ap.add_argument("--include", required=True)
    ap.add_argument("--impl", default="pocl")
    args = ap.parse_args(argv)
    from .execute import run

    r = run(Path(args.kernel).read_text(), args.impl, args.include)
    print(r.status, *r.outputs, flush=True)
    if r.status != "ok":
        print(r.detail[-2000:], file=sys.stderr, flush=True)
    return 0 if r.status == "ok" else 3


if __name__ == "__main__":
    raise SystemExit(main())
