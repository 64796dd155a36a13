"""Worker processes that run `build.run_case` with a time limit per case.

Each worker imports oclpy once and serves cases over a pipe. A case that
outlives its limit, or a worker that dies (a native crash in LLVM), yields
a "timeout" or "died" oclpy verdict and a fresh worker. Workers are also
renewed every `RENEW` cases, so that no leak in one build can slow the rest.

A Ctrl-C (SIGINT, which a terminal or `timeout -s INT` sends to the whole
process group) reaches only the parent: the workers ignore it, so no case is
recorded as "died" because it was interrupted; `run_all` stops handing out
cases and raises KeyboardInterrupt to its caller, and the cases in flight are
not reported.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
from multiprocessing.connection import Connection
from queue import Empty, Queue
from typing import Callable, Iterable

from .build import run_case, worker_setup

RENEW = 60


def _serve(conn: Connection, scratch: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 2)  # LLVM and clang may write straight to file descriptor 2
    worker_setup(scratch)
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        conn.send(run_case(job))


class Worker:
    def __init__(self, scratch: str) -> None:
        self.scratch = scratch
        self.served = 0
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.scratch), daemon=True)
        self.proc.start()
        child.close()

    def run(self, job: dict, timeout: float) -> dict:
        if self.served >= RENEW:
            self.restart()
        self.served += 1
        self.conn.send(job)
        try:
            if self.conn.poll(timeout):
                return self.conn.recv()
            status, detail = "timeout", f"no result after {timeout:.0f} s"
        except (EOFError, OSError):
            status, detail = "died", f"worker exited with code {self.proc.exitcode}"
        self.restart()
        return {"id": job["id"], "key": job.get("key", ""), "oclpy": {"status": status, "first": None, "log": detail,
                                           "seconds": timeout}}

    def restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()
        self.served = 0
        self._start()

    def close(self) -> None:
        self.conn.close()
        self.proc.kill()
        self.proc.join()


def run_all(jobs: Iterable[dict], processes: int, timeout: float, scratch: str,
            done: Callable[[dict], None]) -> None:
    """Run every job on `processes` workers; `done(result)` is called in the caller's thread."""
    todo: Queue = Queue()
    results: Queue = Queue()
    stop = threading.Event()
    count = 0
    for job in jobs:
        todo.put(job)
        count += 1

    def loop() -> None:
        worker = Worker(scratch)
        try:
            while not stop.is_set():
                try:
                    job = todo.get_nowait()
                except Empty:
                    return
                results.put(worker.run(job, timeout))
        finally:
            worker.close()

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(max(1, processes))]
    for t in threads:
        t.start()
    try:
        for _ in range(count):
            done(results.get())
    except KeyboardInterrupt:
        stop.set()
        raise
    for t in threads:
        t.join()
