"""A worker process that runs CLSmith kernels with a time limit.

As in tools/progen/workers.py: the worker imports oclpy and PyOpenCL once and
runs `execute.run` per request; a request that outlives its limit yields a
"timeout" and a dead worker (a native crash) a "died" result, then a fresh
worker. Beyond progen's worker, each worker may take oclpy from another
checkout (`oclpy_root`, e.g. a branch's worktree, put first on sys.path
before oclpy is imported) and may be pinned to one CPU, so that oclpy's and
PoCL's thread pools use one core each.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import sys
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
        conn.send(run(source, impl, config.include_dir))


class Worker:
    def __init__(self, config: Config) -> None:
        self.config = config
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
        self.conn.send((source, impl))
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
            status, detail = "timeout", f"no result after {timeout:.0f} s"
        except (EOFError, OSError):
            self.proc.join(5)
            status, detail = "died", f"worker exited with code {self.proc.exitcode}"
        self.restart()
        return Run(status, detail, seconds=timeout if status == "timeout" else 0.0)

    def restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()
        self._start()

    def close(self) -> None:
        self.conn.close()
        self.proc.kill()
        self.proc.join()
