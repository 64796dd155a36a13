"""A worker process that runs CLSmith kernels with a time limit.

As in tools/progen/workers.py: the worker imports oclpy and PyOpenCL once and
runs `execute.run` per request; a request that outlives its limit yields a
"timeout" (saying whether the build had ended: the worker reports a finished
build before it launches) and a dead worker (a native crash) a "died" result,
then a fresh worker. Beyond progen's worker, each worker may take oclpy from another
checkout (`oclpy_root`, e.g. a branch's worktree, put first on sys.path
before oclpy is imported) and may be pinned to one CPU, so that oclpy's and
PoCL's thread pools use one core each.

A worker ignores SIGINT: a Ctrl-C in the terminal reaches the whole process
group, and a worker killed by it would read as a crash of the kernel it was
running. The parent stops its workers with `close()`; a request in flight
then answers "stopped", which is no finding about the kernel.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection

from .execute import Run, run


@dataclass(frozen=True)
class Config:
    include_dir: str
    oclpy_root: str | None = None    # a checkout whose oclpy to test (default: this one)
    cpu: int | None = None           # the CPU to pin the worker to
    stderr_path: str = "/tmp/clsmith-worker-stderr.log"


def _setup(config: Config) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the parent decides when a worker stops
    # PoCL's compiler writes warnings straight to file descriptor 2
    fd = os.open(config.stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 2)
    if config.cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {config.cpu % (os.cpu_count() or 1)})
        os.environ["POCL_MAX_PTHREAD_COUNT"] = "1"
    if config.oclpy_root:
        from tools import pocl_fix  # noqa: F401 - from this checkout, before the path changes

        sys.path.insert(0, config.oclpy_root)


def _serve(conn: Connection, config: Config) -> None:
    _setup(config)
    while True:
        try:
            source, impl = conn.recv()
        except EOFError:
            return
        if impl == "where":
            import oclpy

            conn.send(os.path.dirname(os.path.dirname(oclpy.__file__)))
            continue
        conn.send(run(source, impl, config.include_dir, on_built=lambda seconds: conn.send((BUILT, seconds))))


BUILT = "built"     # the message a worker sends between a build and its launch


def timeout_detail(timeout: float, built: float | None) -> str:
    """What a timeout says of how far the kernel got."""
    if built is None:
        return f"no result after {timeout:.0f} s (the build had not ended)"
    return f"no result after {timeout:.0f} s (built in {built:.1f} s; the launch had not ended)"


class Worker:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.closed = False
        self._lock = threading.Lock()
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.config), daemon=True)
        self.proc.start()
        child.close()

    def where(self) -> str:
        """The checkout whose oclpy this worker imports."""
        self.conn.send(("", "where"))
        return self.conn.recv()

    def run(self, source: str, impl: str, timeout: float) -> Run:
        built: float | None = None
        deadline = time.monotonic() + timeout
        try:
            self.conn.send((source, impl))
            while self.conn.poll(max(0.0, deadline - time.monotonic())):
                answer = self.conn.recv()
                if not (isinstance(answer, tuple) and answer[0] == BUILT):
                    return answer
                built = answer[1]
            status, detail = "timeout", timeout_detail(timeout, built)
        except (EOFError, OSError):
            if self.closed:
                return Run("stopped", "the worker was stopped while it ran this kernel")
            self.proc.join(5)
            status, detail = "died", f"worker exited with code {self.proc.exitcode}"
        if self.closed:
            return Run("stopped", "the worker was stopped while it ran this kernel")
        self.restart()
        return Run(status, detail, seconds=timeout if status == "timeout" else 0.0, build_seconds=built or 0.0)

    def restart(self) -> None:
        with self._lock:
            self._stop()
            if not self.closed:
                self._start()

    def close(self) -> None:
        """Stop the worker (from any thread, once or more): a `run` in flight answers "stopped"."""
        with self._lock:
            if not self.closed:
                self.closed = True
                self._stop()

    def _stop(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()
