"""Worker processes that run programs with a time limit.

Each worker is a process that imports oclpy and PyOpenCL once and runs
`execute.run(source, impl)` for each request. A request that outlives its
time limit, or a worker that dies (a native crash), yields a "timeout" or
"died" result and a fresh worker.
"""

from __future__ import annotations

import multiprocessing as mp
import os
from multiprocessing.connection import Connection

from .execute import Result, run


def _serve(conn: Connection, stderr_path: str, env: dict[str, str]) -> None:
    os.environ.update(env)  # before oclpy makes its drivers (the simt device reads its register files here)
    # PoCL's compiler writes warnings straight to file descriptor 2
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 2)
    while True:
        try:
            source, impl, shapes = conn.recv()
        except EOFError:
            return
        conn.send(run(source, impl, shapes))


class Worker:
    def __init__(self, stderr_path: str = "/tmp/progen-worker-stderr.log",
                 env: dict[str, str] | None = None) -> None:
        self.stderr_path = stderr_path
        self.env = dict(env or {})
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.stderr_path, self.env), daemon=True)
        self.proc.start()
        child.close()

    def run(self, source: str, impl: str, timeout: float, shapes: list | None = None) -> Result:
        self.conn.send((source, impl, shapes))
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
            status, detail = "timeout", f"no result after {timeout:.0f} s"
        except (EOFError, OSError):
            status, detail = "died", f"worker exited with code {self.proc.exitcode}"
        self.restart()
        return Result(status, detail)

    def restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()
        self._start()

    def close(self) -> None:
        self.conn.close()
        self.proc.kill()
        self.proc.join()
