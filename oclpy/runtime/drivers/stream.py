"""The cpu driver's stream: its work runs on one thread of its own, in order.

A kernel launch (or a copy queued behind one) is a job on the stream: the
enqueue returns at once, as PyOpenCL's does, and the command's event stays
RUNNING until the job's `Marker` is done (`runtime/completion.py` completes
it on demand, as it does cuda's). A wait (`Event.wait`, `queue.finish`, a
blocking copy) waits on a marker's lock, which Ctrl-C interrupts on the main
thread: a runaway kernel no longer holds the calling thread inside native
code, where no signal can reach it.

What happens to the abandoned kernel: KeyboardInterrupt leaves the command's
event RUNNING and the kernel running on the stream thread (native code cannot
be stopped safely) until it ends; the commands queued behind it wait for it.
The stream and its workers are daemon threads, so the process can still exit.

Sub-devices: a stream and workers made with `cores` run only on those cores
(each thread sets its own affinity as it starts).

Stacks: a kernel's private arrays live on the stack of the thread that runs
its work-items. The stream and its workers have `DEFAULT_STACK`; a kernel
whose private memory needs more runs on workers made with a stack sized to it
(`stack_for`), and one needing more than `MAX_STACK` fails with
OUT_OF_RESOURCES.
"""

from __future__ import annotations

import _thread
import os
import threading
import time
from concurrent.futures import Future
from queue import SimpleQueue
from typing import Any, Callable

from ..errors import raise_cl, status_code
from .base import DONE

DEFAULT_STACK = 16 << 20  # the stream's and the default workers' stacks
STACK_MARGIN = 2 << 20  # beyond the kernel's own arrays: the launcher, LLVM's spills, libm
MAX_STACK = 1 << 30
WAIT_SLICE = 0.05  # seconds: how late a wait may hear of Ctrl-C
_stack_lock = threading.Lock()  # threading.stack_size is process-wide: set it, start, restore


def stack_for(private_bytes: int) -> int:
    """The stack a kernel with `private_bytes` of private arrays needs (a power of two
    from DEFAULT_STACK); OUT_OF_RESOURCES past MAX_STACK."""
    need = private_bytes + STACK_MARGIN
    if need <= DEFAULT_STACK:
        return DEFAULT_STACK
    if need > MAX_STACK:
        raise_cl("clEnqueueNDRangeKernel", status_code.OUT_OF_RESOURCES,
                 f"the kernel's private arrays take {private_bytes} bytes per work-item; the cpu "
                 f"device runs work-items on stacks of at most {MAX_STACK} bytes")
    return 1 << (need - 1).bit_length()


def start_thread(target: Callable[[], None], name: str, stack: int,
                 cores: tuple[int, ...] | None = None) -> None:
    """A daemon thread with a `stack`-byte stack, running on `cores` only when given (a
    sub-device's); OUT_OF_RESOURCES when none can start."""
    if cores is not None:
        target = _Pinned(target, cores)
    thread = threading.Thread(target=target, name=name, daemon=True)
    with _stack_lock:
        old = threading.stack_size(stack)
        try:
            thread.start()
        except RuntimeError as exc:  # "can't start new thread": no address space left
            raise_cl("clEnqueueNDRangeKernel", status_code.OUT_OF_RESOURCES,
                     f"cannot start a thread with a {stack >> 20} MiB stack: {exc}")
        finally:
            threading.stack_size(old)


class _Pinned:
    """A thread's body that first restricts the thread to `cores` (Linux: affinity with
    pid 0 is the calling thread's own; elsewhere the thread runs where the OS puts it)."""

    __slots__ = ("body", "cores")

    def __init__(self, body: Callable[[], None], cores: tuple[int, ...]) -> None:
        self.body, self.cores = body, cores

    def __call__(self) -> None:
        setter = getattr(os, "sched_setaffinity", None)
        if setter is not None:
            try:
                setter(0, self.cores)
            except OSError:  # a core taken away since the device was made: run unpinned
                pass
        self.body()


class Marker:
    """The completion of one job: `wait` (interruptible) and `check` raise the job's error."""

    __slots__ = ("_lock", "done", "error", "start", "end")

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()
        self.done = False
        self.error: BaseException | None = None
        self.start = self.end = 0

    def finish(self, error: BaseException | None) -> None:
        self.end = time.perf_counter_ns()
        self.error = error
        self.done = True
        self._lock.release()

    def check(self) -> bool:
        if self.done and self.error is not None:
            raise self.error
        return self.done

    def wait(self) -> None:
        if not self.done:
            _wait_on(self._lock)
        if self.error is not None:
            raise self.error

    def times(self) -> tuple[int, int]:
        return self.start, self.end


def _wait_on(lock: Any) -> None:
    """Until `lock` is released. In slices: SIGINT may be delivered to another thread,
    and then only the main thread's return to Python between two slices runs the
    handler that raises KeyboardInterrupt."""
    while not lock.acquire(True, WAIT_SLICE):
        pass
    lock.release()


class After:
    """The completion of the work queued before a command that queued none itself:
    done with that work, but not failed with it."""

    __slots__ = ("marker",)

    def __init__(self, marker: Marker) -> None:
        self.marker = marker

    def check(self) -> bool:
        return self.marker.done

    def wait(self) -> None:
        if not self.marker.done:
            _wait_on(self.marker._lock)

    def times(self) -> tuple[int, int]:
        return self.marker.times()


class Stream:
    """One thread running jobs in the order they were submitted."""

    def __init__(self, name: str, stack: int = DEFAULT_STACK,
                 cores: tuple[int, ...] | None = None) -> None:
        self.name, self.stack, self.cores = name, stack, cores
        self.jobs: SimpleQueue = SimpleQueue()
        self.lock = threading.Lock()
        self.pending = 0  # jobs submitted and not finished
        self.last: Marker | None = None
        self.started = False
        self.local = threading.local()  # the marker of the job the calling thread submitted last

    def submit(self, fn: Callable[..., None], args: tuple) -> Marker:
        marker = Marker()
        with self.lock:
            if not self.started:  # may raise OUT_OF_RESOURCES: then nothing is queued
                start_thread(self._run, self.name, self.stack, self.cores)
                self.started = True
            self.pending += 1
            self.last = marker
            self.jobs.put((fn, args, marker))
        self.local.mine = marker
        return marker

    def run_or_submit(self, fn: Callable[..., None], args: tuple) -> str | None:
        """`fn(*args)` now when the stream is idle (everything before it is done: then
        DONE), else behind the stream's work (then None)."""
        if self.pending:
            self.submit(fn, args)
            return None
        fn(*args)
        return DONE

    def pending_marker(self) -> Marker | After | None:
        """For `Driver.completion`: the marker of the job the calling thread just
        submitted (None once it is done without error); else the work still queued."""
        local = self.local
        mine = getattr(local, "mine", None)
        if mine is not None:
            local.mine = None
            return None if mine.done and mine.error is None else mine
        last = self.last
        return After(last) if last is not None and not last.done else None

    def drain(self) -> None:
        """Wait (interruptibly) until every job submitted so far has run."""
        last = self.last
        if last is not None:
            After(last).wait()

    def _run(self) -> None:
        while True:
            fn, args, marker = self.jobs.get()
            marker.start = time.perf_counter_ns()
            error = None
            try:
                fn(*args)
            except BaseException as exc:  # handed to whoever waits on the marker
                error = exc
            with self.lock:
                self.pending -= 1
            marker.finish(error)
            del fn, args, marker  # hold nothing of a finished job while waiting for the next


class StackPool:
    """Daemon worker threads with `stack`-byte stacks, made as jobs need them (up to
    `size`); `submit(fn)` returns a Future, as ThreadPoolExecutor's does. Daemon
    threads: a kernel abandoned after Ctrl-C never holds up the process's exit."""

    def __init__(self, size: int, stack: int, name: str = "oclpy-cpu",
                 cores: tuple[int, ...] | None = None) -> None:
        self.size, self.stack, self.name, self.cores = size, stack, name, cores
        self.jobs: SimpleQueue = SimpleQueue()
        self.lock = threading.Lock()
        self.threads = 0
        self.idle = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Queue `fn(*args)`; OUT_OF_RESOURCES (nothing queued) when it would need a new
        thread, none can start, and the pool has none."""
        future: Future = Future()
        with self.lock:
            start = not self.idle and self.threads < self.size
            if self.idle:
                self.idle -= 1
            if start:
                self.threads += 1
        if start:
            try:
                start_thread(self._work, f"{self.name}-{self.threads}", self.stack, self.cores)
            except BaseException:
                with self.lock:
                    self.threads -= 1
                    alone = self.threads == 0
                if alone:
                    raise
        self.jobs.put((future, fn, args))
        return future

    def _work(self) -> None:
        while True:
            future, fn, args = self.jobs.get()
            try:
                future.set_result(fn(*args))
            except BaseException as exc:
                future.set_exception(exc)
            del future, fn, args
            with self.lock:
                self.idle += 1
