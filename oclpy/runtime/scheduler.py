"""Running commands once what they wait for is done.

A command is an `Event` plus an action (a function doing the copy or launch).
`schedule()` counts the command's unfinished dependencies and, when the last
one completes, hands the action to a small pool of command threads, so a
command never occupies a thread while it waits. Two kinds of dependencies:

- explicit ones (`wait_for`): if one failed, the command does not run and
  ends with EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, as OpenCL says;
- implicit ones (the previous command of an in-order queue, the last
  barrier of an out-of-order queue): order only.

Independent commands (out-of-order queues, several queues) run at the same
time on different command threads; a kernel launch inside one of them
spreads its work-groups over the device's own workers. A dependency whose
work an asynchronous driver has queued on the same device (a RUNNING cuda
launch, see completion.py) is no host wait: the command asks the driver to
order its work after that dependency's marker. A blocking command
whose dependencies are already done runs on the calling thread, as does (with
`inline`) any command of an eager driver's queue whose dependencies are done:
dependencies that completed successfully are dropped at once, so such a
launch takes no lock and makes no callback.
"""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

from .constants import command_execution_status as ces
from .drivers.cpu import compute_units
from .errors import Error, status_code
from .event import Event

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def command_threads() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=max(4, compute_units()),
                                       thread_name_prefix="oclpy-cmd")
        return _pool


def run_action(event: Event, action: Callable[[], None]) -> None:
    """Run one command's action and record how it ended on its event."""
    event._set_status(ces.RUNNING)
    _run_started(event, action)


def _run_started(event: Event, action: Callable[[], None]) -> None:
    """Run the action of an event already RUNNING (see run_started)."""
    queue = event._queue
    if queue is None:
        run_started(event, None, False, action)
    else:
        run_started(event, queue.device.driver, queue._profiling, action)


def run_started(event: Event, driver: Any, profiling: bool, action: Callable[..., None],
                args: tuple = ()) -> None:
    """Run `action(*args)` for an event already RUNNING on `driver`'s queue; record how
    it ended: complete, failed, or (an asynchronous driver's work) issued with its
    completion marker."""
    try:
        begin = driver.begin(profiling) if profiling else None
        action(*args)
        marker = driver.completion(profiling) if driver is not None and driver.issues_markers else None
    except Error as exc:
        event._finish(exc.code if exc.code < 0 else status_code.OUT_OF_RESOURCES, exc)
    except BaseException as exc:  # recorded on the event; wait()/finish() report it
        event._finish(status_code.OUT_OF_RESOURCES, exc)
    else:
        if marker is None:
            event._finish(ces.COMPLETE)
        else:
            event._issued(driver, begin, marker)


def _device_ordered(deps: list[Event], driver: Any) -> tuple[list[Event], list[Any]]:
    """Split off the dependencies whose work is queued on `driver`'s device: the
    command waits for those there (their markers), not on the host."""
    host, markers = [], []
    for e in deps:
        marker = e._marker
        if marker is not None and e._driver is driver and not e.is_done:
            markers.append(marker)
        else:
            host.append(e)
    return host, markers


def _ordered(driver: Any, markers: list[Any], action: Callable[[], None]) -> None:
    driver.order_after(markers)
    action()


def schedule(event: Event, action: Callable[[], None], wait_for: Sequence[Event] = (),
             after: Sequence[Event] = (), inline: bool = False, driver: Any = None) -> None:
    """Run `action` once `wait_for` and `after` are done; see the module docstring."""
    deps = [e for e in (*wait_for, *after) if e is not None and not (e.is_done and not e.failed)]
    if driver is not None and deps:
        deps, markers = _device_ordered(deps, driver)
        if markers:
            action = functools.partial(_ordered, driver, markers, action)
    if inline and not deps:  # the fast path: nothing to wait for, run here and now
        event._start()
        _run_started(event, action)
        return
    explicit = {id(e) for e in wait_for}
    lock = threading.Lock()
    left = [len(deps) + 1]  # the +1 is schedule()'s own, released last

    def dispatch(here: bool) -> None:
        failed = [d for d in deps if id(d) in explicit and d.failed]
        if failed:
            event._finish(status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, failed[0].error)
            return
        event._set_status(ces.SUBMITTED)
        if here:
            run_action(event, action)
        else:
            command_threads().submit(run_action, event, action)

    def release(here: bool) -> None:
        with lock:
            left[0] -= 1
            ready = left[0] == 0
        if ready:
            dispatch(here)

    for dep in deps:
        # a dependency finishing later dispatches to a command thread: running it
        # there, inside the finishing thread's call chain, could recurse without end
        dep._on_done(lambda _evt: release(False))
    release(inline)
