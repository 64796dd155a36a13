"""Running commands once what they wait for is done.

A command is an `Event` plus an action (a function doing the copy or launch).
`schedule()` counts the command's unfinished dependencies and, when the last
one completes, hands the action to a small pool of command threads, so a
command never occupies a thread while it waits. Two kinds of dependencies:

- explicit ones (`wait_for`): if one failed, the command does not run and
  ends with EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, as OpenCL says;
- implicit ones (the previous command of an in-order queue, the last
  barrier of an out-of-order queue): the same while the failure has not been
  raised to the user (`Event.failure_reported`), as PoCL fails the commands
  after a failed one, so that a blocking read behind a failed kernel raises
  the kernel's error instead of returning what the buffer held; a failure
  the user has seen (a wait, finish()) orders only, and the queue goes on.

Independent commands (out-of-order queues, several queues) run at the same
time on different command threads; a kernel launch inside one of them
spreads its work-groups over the device's own workers. A dependency whose
work an asynchronous driver has queued on the same device (a RUNNING cuda
launch, see completion.py) is no host wait: the command asks the driver to
order its work after that dependency's marker, and learns of its failure when
it completes (`Event.failure_ahead`: then it fails too, its action having
run). A blocking command whose dependencies are already done runs on the
calling thread, as does (with `inline`) any command of an eager driver's
queue whose dependencies are done: dependencies that completed successfully
are dropped at once, so such a launch takes no lock and makes no callback.

The command threads (`CommandThreads`) take jobs from one queue; a job starts
a thread unless an idle one is there for it, so no job waiting ever lacks a
thread. A command released by the one its thread just ran (a chain of
wait_for links) runs next on that thread: no hand-off, which under the GIL
costs more than a small launch. A waiting command is one `_Waiting` object:
while a loop enqueues faster than the commands run, thousands wait, and the
fewer objects each holds the less the garbage collector walks.
"""

from __future__ import annotations

import functools
import threading
import queue
from typing import Any, Callable, Sequence

from .constants import command_execution_status as ces
from .drivers.base import DONE
from .drivers.cpu import compute_units
from .errors import Error, status_code
from .event import Event

class CommandThreads:
    """The threads that run commands handed off by the scheduler.

    Jobs go into one queue; a job starts a new thread (up to `size`) unless an
    idle one is there to take it, so every job waiting has a thread coming for
    it (commands may wait on each other: none may starve). A command that the
    command a thread just ran releases (the next link of a chain) runs next on
    that same thread, with no hand-off; any other goes into the queue."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.threads = 0
        self.idle = 0
        self.local = threading.local()

    def submit(self, event: Event, action: Callable[..., None], args: tuple = ()) -> None:
        local = self.local
        if getattr(local, "chain", False) and local.next is None:
            local.next = (event, action, args)
            return
        self.jobs.put((event, action, args))
        with self.lock:
            if self.idle:
                self.idle -= 1
                return
            if self.threads >= self.size:
                return
            self.threads += 1
        threading.Thread(target=self._work, name=f"oclpy-cmd-{self.threads}", daemon=True).start()

    def _work(self) -> None:
        local = self.local
        while True:
            job: tuple[Event, Callable[..., None], tuple] | None = self.jobs.get()
            local.chain = True
            while job is not None:
                local.next = None
                try:
                    run_action(*job)
                except BaseException:  # an interrupted command: its event has failed with it
                    pass
                job = local.next
            local.chain = False
            with self.lock:
                self.idle += 1


_pool: CommandThreads | None = None
_pool_lock = threading.Lock()


def command_threads() -> CommandThreads:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = CommandThreads(max(4, compute_units()))
    return _pool


def run_action(event: Event, action: Callable[..., None], args: tuple = ()) -> None:
    """Run one command's action and record how it ended on its event: SUBMITTED and
    RUNNING as it starts (a command handed to a command thread reads QUEUED until)."""
    event.mark_started()
    queue = event._queue
    if queue is None:
        run_started(event, None, False, action, args)
    else:
        run_started(event, queue.device.driver, queue._profiling, action, args)


def _run_started(event: Event, action: Callable[..., None], args: tuple = ()) -> None:
    """Run the action of an event already RUNNING (see run_started)."""
    queue = event._queue
    if queue is None:
        run_started(event, None, False, action, args)
    else:
        run_started(event, queue.device.driver, queue._profiling, action, args)


def run_started(event: Event, driver: Any, profiling: bool, action: Callable[..., None],
                args: tuple = ()) -> None:
    """Run `action(*args)` for an event already RUNNING on `driver`'s queue; record how
    it ended: complete, failed, or (an asynchronous driver's work) issued with its
    completion marker."""
    try:
        begin = driver.begin(profiling) if profiling else None
        done = action(*args)
        marker = (driver.completion(profiling) if driver is not None and driver.issues_markers
                  and done is not DONE else None)
    except Error as exc:
        event.complete(exc.code if exc.code < 0 else status_code.OUT_OF_RESOURCES, exc)
    except Exception as exc:  # recorded on the event; wait()/finish() report it
        event.complete(status_code.OUT_OF_RESOURCES, exc)
    except BaseException as exc:  # Ctrl-C or a timeout's signal stopped the action part done:
        event.complete(status_code.OUT_OF_RESOURCES, exc)  # the command failed, and the
        raise                                              # interruption is the caller's
    else:
        if marker is None:
            event.complete(ces.COMPLETE)  # (or failed: see Event.complete and `_ahead`)
        else:
            event.mark_issued(driver, begin, marker)


def _device_ordered(deps: list[Event], driver: Any) -> tuple[list[Event], list[Event], list[Any]]:
    """Split off the dependencies whose work is queued on `driver`'s device: the
    command waits for those there (their markers), not on the host, and learns of
    their failure when it completes (`Event.failure_ahead`)."""
    host, ordered, markers = [], [], []
    for e in deps:
        marker = e._marker
        if marker is not None and e._driver is driver and not e.is_done:
            ordered.append(e)
            markers.append(marker)
        else:
            host.append(e)
    return host, ordered, markers


def _is_explicit(dep: Event, explicit: Sequence[Event] | None) -> bool:
    """Whether `dep` is in the command's wait list (`explicit` None: every dependency is)."""
    return explicit is None or any(dep is w for w in explicit)


def _ordered(driver: Any, markers: list[Any], action: Callable[..., None], *args: Any) -> None:
    driver.order_after(markers)
    action(*args)


_count_lock = threading.Lock()  # guards every _Waiting.left (held for a decrement only)


class _Waiting:
    """A command waiting for its dependencies: the last one done dispatches it. One
    small object per command, itself the callback its dependencies call (a command
    waits while many more are enqueued: the fewer objects each holds, the less the
    garbage collector has to walk). `explicit` is None when every dependency is
    from the wait list, else the wait list."""

    __slots__ = ("event", "action", "args", "deps", "explicit", "left")

    def __init__(self, event: Event, action: Callable[..., None], args: tuple,
                 deps: list[Event], explicit: Sequence[Event] | None, left: int) -> None:
        self.event, self.action, self.args = event, action, args
        self.deps = deps[0] if len(deps) == 1 else deps  # one dependency: no list kept
        self.explicit = explicit
        self.left = left

    def __call__(self, _done: Event) -> None:
        """A dependency is done (Event.when_done's callback): release(here=False)."""
        with _count_lock:
            self.left -= 1
            if self.left:
                return
        self.dispatch(False)

    def release(self, here: bool) -> None:
        with _count_lock:
            self.left -= 1
            ready = self.left == 0
        if ready:
            self.dispatch(here)

    def dispatch(self, here: bool) -> None:
        event, explicit, deps = self.event, self.explicit, self.deps
        for dep in deps if type(deps) is list else (deps,):
            if dep._status < 0 and (_is_explicit(dep, explicit) or not dep.failure_reported):
                event.fail_after(dep)
                return
        if here:
            run_action(event, self.action, self.args)
        else:
            (_pool or command_threads()).submit(event, self.action, self.args)


def schedule(event: Event, action: Callable[..., None], wait_for: Sequence[Event] = (),
             after: Sequence[Event] = (), inline: bool = False, driver: Any = None,
             args: tuple = ()) -> None:
    """Run `action(*args)` once `wait_for` and `after` are done; see the module docstring."""
    deps = []  # a plain loop: a comprehension is one more call (Python 3.11)
    for group in (wait_for, after):
        for e in group:
            if e is not None and e._status != ces.COMPLETE:
                deps.append(e)
    explicit = wait_for if after else None
    if deps and driver is not None and driver.issues_markers:
        deps, ordered, markers = _device_ordered(deps, driver)
        if markers:
            event._ahead += tuple((e, _is_explicit(e, explicit)) for e in ordered)
            action, args = _ordered, (driver, markers, action, *args)
    if not deps:
        if inline:  # the fast path: nothing to wait for, run here and now
            event.mark_started()
            _run_started(event, action, args)
        else:
            (_pool or command_threads()).submit(event, action, args)
        return
    # with `inline`, schedule() holds one count of its own, released last, so that
    # dependencies done meanwhile let the command run here
    waiting = _Waiting(event, action, args, deps, explicit, len(deps) + inline)
    for dep in deps:
        # a dependency finishing later dispatches to a command thread: running it
        # there, inside the finishing thread's call chain, could recurse without end
        dep.when_done(waiting)
    if inline:
        waiting.release(here=True)
