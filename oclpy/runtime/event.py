"""Events: the state of one command, its profiling times, and waiting on it.

Status moves QUEUED -> SUBMITTED -> RUNNING -> COMPLETE, or to a negative
error code. `wait()` blocks until the event is done and raises RuntimeError
(EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, as clWaitForEvents does) when it
failed. Profiling times are real `time.perf_counter_ns()` stamps, readable
through `event.profile.start` etc. when the queue was made with PROFILING_ENABLE
(the events of other queues take no stamps at all).

A command of an asynchronous driver (cuda) is RUNNING until its device work
is done: `runtime/completion.py` completes it, and its start and end stamps
are then the device's, on the host clock (`Driver.device_times`).

An event may hold objects alive until it completes (`NannyEvent`: the host
array of a non-blocking transfer); they are dropped when it completes.
"""

from __future__ import annotations

import itertools
import threading
import time
import warnings
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

from . import completion
from .constants import command_execution_status as ces
from .constants import info_attribute
from .constants import command_type, event_info, profiling_info
from .errors import Error, as_list, raise_cl, status_code
from .handles import Handle

_STAMP_FOR_STATUS = {ces.QUEUED: "queued", ces.SUBMITTED: "submit", ces.RUNNING: "start"}

# An event's state is guarded by one of a fixed set of locks, taken in turn: an
# event is made per command, and a lock of its own would be one more object to
# make and for the garbage collector to walk while commands wait. Sharing is
# safe because no code holds an event's lock while it takes another lock (the
# callbacks and waits all happen after it is released); waiters wait on the
# event's own flag (_done_flag), never on these locks.
LOCK_MASK = 63
_LOCKS = tuple(threading.Lock() for _ in range(LOCK_MASK + 1))
_lock_pick = itertools.count()


class Event(Handle):
    """PyOpenCL's Event. `mark_started`, `mark_issued`, `settle`, `complete`, `when_done`
    and `wait_done` are how the queue, the scheduler and completion drive it, not PyOpenCL API."""

    # Rarely changed state lives on the class until first set: an event is made per
    # command, so its construction is on every launch's path.
    _done_flag: threading.Event | None = None  # made by the first waiter
    # completion callbacks: () for none, the callback itself for one (the usual
    # case: one dependent command), a list for more
    _callbacks: Callable[[Event], None] | list[Callable[[Event], None]] | tuple = ()
    _user_callbacks: list[tuple[int, Callable[[int], None]]] | tuple = ()
    error: BaseException | None = None
    _error_reported = False  # its failure was raised to the user (see `failure_reported`)
    _cause: Event | None = None  # the failed command that failed it too (`fail_after`)
    _ran_anyway = False  # ... after its action ran: it was issued behind that command on its device
    # (command, explicit) of the commands it was issued behind on its device rather than waited
    # for on the host: their failure is found when it completes (`failure_ahead`)
    _ahead: tuple[tuple[Event, bool], ...] = ()
    _driver: Any = None  # set with the markers when the work is queued on a device
    _begin: Any = None
    _marker: Any = None
    _urgent = False  # someone must hear of completion at once (completion.py)
    _watched = False
    _retire_to: Any = None  # the queue to tell when done (CommandQueue._retire)
    _profiled = False  # its queue profiles: the status changes are stamped in _times
    _times: Mapping[str, int] = MappingProxyType({})  # the event's own dict once _profiled

    def __init__(self, queue: Any = None, command: int = command_type.MARKER,
                 context: Any = None, keepalive: Iterable[Any] = ()) -> None:
        self._cond = _LOCKS[next(_lock_pick) & LOCK_MASK]  # guards the state (see _LOCKS)
        self._status = ces.QUEUED
        self._queue = queue
        self._context = context if context is not None else getattr(queue, "context", None)
        self._command = command
        if getattr(queue, "_profiling", False):
            self._profiled = True
            self._times = {"queued": time.perf_counter_ns()}
        self._keepalive = keepalive  # held, never read: dropped when the event is done

    # -- state ------------------------------------------------------------------

    @property
    def command_execution_status(self) -> int:
        if self._marker is not None and not self.is_done:
            completion.settle(self, block=False)
        return self._status

    @property
    def is_done(self) -> bool:
        return self._status <= ces.COMPLETE

    @property
    def failed(self) -> bool:
        return self._status < 0

    def _set_status(self, status: int) -> None:
        with self._cond:
            if self._status <= ces.COMPLETE:
                return
            self._status = status
            if self._profiled and status in _STAMP_FOR_STATUS:
                self._times[_STAMP_FOR_STATUS[status]] = time.perf_counter_ns()
        if self._user_callbacks:
            self._run_user_callbacks(status)

    def mark_started(self) -> None:
        """SUBMITTED and RUNNING at once (a command run the moment it is enqueued)."""
        with self._cond:
            if self._status <= ces.COMPLETE:
                return
            if self._profiled:
                self._times["submit"] = self._times["start"] = time.perf_counter_ns()
            self._status = ces.RUNNING
        if self._user_callbacks:
            self._run_user_callbacks(ces.SUBMITTED)
            self._run_user_callbacks(ces.RUNNING)

    def mark_issued(self, driver: Any, begin: Any, marker: Any) -> None:
        """The action queued its work on `driver`'s device: done when `marker` is.
        Watched by a thread only when something must hear of it at once."""
        with self._cond:
            self._driver, self._begin, self._marker = driver, begin, marker
            urgent = self._urgent or bool(self._user_callbacks)
            self._watched = urgent
        completion.issued(driver, self, urgent)

    def _watch(self) -> None:
        """Have the driver's watcher complete this issued event as soon as it is done."""
        with self._cond:
            if self._watched or self._marker is None or self.is_done:
                self._urgent = True
                return
            self._watched = True
        completion.watch(self._driver, self)

    def settle(self, block: bool, known: bool = False) -> None:
        """Complete the event if its device work is done (waiting for it when `block`;
        without asking the driver when `known` done)."""
        driver, marker = self._driver, self._marker
        if self._status <= ces.COMPLETE or marker is None:
            return
        if known:
            pass
        elif block:
            driver.wait_complete(marker)
        elif not driver.is_complete(marker):
            return
        error = driver.failure(marker)
        if error is not None:
            raise error  # settle() fails the event with it
        times = None
        if self._begin is not None:
            times = driver.device_times(self._begin, marker)
        self.complete(ces.COMPLETE, device_times=times)
        with self._cond:  # the one thread that takes the markers gives them back
            marker, begin = self._marker, self._begin
            self._begin = self._marker = None
        if marker is not None:
            driver.recycle(marker)
        if begin is not None:
            driver.recycle(begin)

    def complete(self, status: int = ces.COMPLETE, error: BaseException | None = None,
                 device_times: tuple[int, int] | None = None) -> None:
        """Mark done (COMPLETE or a negative code) and run completion callbacks once. A
        command issued behind others on its device (`_ahead`) that completes fails instead
        when one of those failed (`failure_ahead`): its action ran, its result is void."""
        if self._ahead and status == ces.COMPLETE:
            failed = self.failure_ahead()
            if failed is not None:
                self._cause, self._ran_anyway = failed._cause or failed, True
                status, error = status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, failed.error
        with self._cond:
            if self._status <= ces.COMPLETE:
                return
            if self._profiled:
                _stamp_end(self._times, device_times)
            self._status = status
            self.error = error
            self._keepalive = ()
            if self._ahead:
                self._ahead = ()
            callbacks, self._callbacks = self._callbacks, ()
            flag = self._done_flag
        if flag is not None:
            flag.set()
        if self._retire_to is not None:
            self._retire_to._retire(self)
        if type(callbacks) is list:
            for cb in callbacks:
                cb(self)
        elif callbacks:
            callbacks(self)  # type: ignore[operator]
        if self._user_callbacks:
            self._run_user_callbacks(status)

    def fail_after(self, dep: Event) -> None:
        """Fail without running because `dep`, a command it waits for or comes after, failed:
        EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, with the error of the command that failed
        first (its cause)."""
        self._cause = dep._cause or dep
        self.complete(status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, dep.error)

    def failure_ahead(self) -> Event | None:
        """Of the commands this one was issued behind on its device (`_ahead`), the first
        whose failure fails this one too: a wait-list event, or an implicit dependency whose
        failure was not reported. Those not settled yet are settled first: their work was
        ahead of this one's, so it is done."""
        for dep, explicit in self._ahead:
            if dep._status > ces.COMPLETE:
                _settle_ahead(dep)
            if dep._status < 0 and (explicit or not dep.failure_reported):
                return dep
        return None

    @property
    def failure_reported(self) -> bool:
        """Whether the failure behind this event (its own, or its cause's) was raised to
        the user: by waiting for it or for a command it kept from running, or by finish()."""
        return (self._cause or self)._error_reported

    def report_failure(self) -> None:
        """The failure behind this event is being raised to the user."""
        self._error_reported = True
        if self._cause is not None:
            self._cause._error_reported = True

    def when_done(self, callback: Callable[[Event], None], lazy: bool = False) -> None:
        """Call `callback(self)` once the event is done (now, if it already is). A
        `lazy` callback (bookkeeping) may run late: when the event is next waited
        for, polled or finished; any other makes an issued event watched."""
        with self._cond:
            if self._status > ces.COMPLETE:
                held = self._callbacks
                if type(held) is list:
                    held.append(callback)
                else:
                    self._callbacks = [held, callback] if held else callback
                if lazy:
                    return
                if self._marker is None or self._watched:
                    self._urgent = True
                    return
                watch = True
            else:
                watch = False
        if watch:
            self._watch()
            return
        callback(self)

    def set_callback(self, type: int, cb: Callable[[int], None]) -> None:
        """PyOpenCL's set_callback: `cb(status)` when the status reaches `type` (or is done)."""
        with self._cond:
            if self._status > type:
                if self._user_callbacks:
                    self._user_callbacks.append((type, cb))  # type: ignore[union-attr]
                else:
                    self._user_callbacks = [(type, cb)]
                watch = self._marker is not None and not self._watched
            else:
                watch = None
        if watch is None:
            cb(self._status)
        elif watch:
            self._watch()

    def _run_user_callbacks(self, status: int) -> None:
        with self._cond:
            due = [(t, cb) for t, cb in self._user_callbacks if status <= t]
            self._user_callbacks = [(t, cb) for t, cb in self._user_callbacks if status > t]
        for _, cb in due:
            try:
                cb(status)
            except Exception as exc:  # a user callback must not stop the commands waiting here
                warnings.warn(f"exception in an event callback ignored: {type(exc).__name__}: {exc}",
                              RuntimeWarning, stacklevel=2)

    # -- waiting ----------------------------------------------------------------

    def wait(self) -> None:
        if self._marker is not None:
            completion.settle(self, block=True)
        self.wait_done()
        if self.failed:
            self.report_failure()
            raise_cl("clWaitForEvents", status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                     describe_failure(self))

    def wait_done(self) -> None:
        """Block until the event is done. Not issued yet: it will be watched once it is
        (a waiter must hear of its completion); issued: wait on its marker here."""
        with self._cond:
            if self.is_done:
                return
            if self._done_flag is None:
                self._done_flag = threading.Event()
            flag = self._done_flag
            issued = self._marker is not None
            if not issued:
                self._urgent = True
        if issued:
            completion.settle(self, block=True)
        flag.wait()

    # -- info -------------------------------------------------------------------

    def get_info(self, param: int) -> Any:
        table = {event_info.COMMAND_QUEUE: lambda: self._queue,
                 event_info.COMMAND_TYPE: lambda: self._command,
                 event_info.REFERENCE_COUNT: lambda: 1,
                 event_info.COMMAND_EXECUTION_STATUS: lambda: self._status,
                 event_info.CONTEXT: lambda: self._context}
        if param not in table:
            raise_cl("clGetEventInfo", status_code.INVALID_VALUE)
        return table[param]()

    def __getattr__(self, name: str) -> Any:
        return info_attribute(self, name, event_info)

    @property
    def command_queue(self) -> Any:
        return self._queue

    @property
    def command_type(self) -> int:
        return self._command

    @property
    def context(self) -> Any:
        return self._context

    def get_profiling_info(self, param: int) -> int:
        name = profiling_info.to_string(param, "").lower() if isinstance(param, int) else ""
        if not name:
            raise_cl("clGetEventProfilingInfo", status_code.INVALID_VALUE)
        if not self._profiled or not self.is_done or name not in self._times:
            raise_cl("clGetEventProfilingInfo", status_code.PROFILING_INFO_NOT_AVAILABLE)
        return self._times[name]

    @property
    def profile(self) -> ProfilingInfoGetter:
        return ProfilingInfoGetter(self)


    def __repr__(self) -> str:
        return (f"<oclpy.Event {command_type.to_string(self._command, '%d')} "
                f"{ces.to_string(self._status, 'error %d')}>")


def _stamp_end(times: dict[str, int], device_times: tuple[int, int] | None) -> None:
    """The end of a profiled command: now, or the device's start and end when known."""
    now = time.perf_counter_ns()
    for key in ("submit", "start"):
        times.setdefault(key, now)
    times["end"] = times["complete"] = now
    if device_times is not None:
        times["start"], times["end"] = device_times


class ProfilingInfoGetter:
    """`event.profile.start` etc.: profiling_info names, lower case."""

    def __init__(self, event: Event) -> None:
        self.event = event

    def __getattr__(self, name: str) -> int:
        param = getattr(profiling_info, name.upper(), None)
        if param is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__} has no attribute '{name}'")
        return self.event.get_profiling_info(param)


class NannyEvent(Event):
    """An event that keeps a host object (its 'ward') alive until it completes."""

    def __init__(self, queue: Any, command: int, ward: Any, keepalive: Iterable[Any] = ()) -> None:
        super().__init__(queue, command, keepalive=[ward, *keepalive])
        self._ward = ward

    def get_ward(self) -> Any:
        return self._ward

    def complete(self, status: int = ces.COMPLETE, error: BaseException | None = None,
                 device_times: tuple[int, int] | None = None) -> None:
        super().complete(status, error, device_times)
        self._ward = None


class UserEvent(Event):
    """An event the host completes with `set_status(COMPLETE)` (or a negative code)."""

    def __init__(self, context: Any) -> None:
        super().__init__(None, command_type.USER, context)
        self._status = ces.SUBMITTED

    def set_status(self, status: int) -> None:
        if status != ces.COMPLETE and status >= 0:
            raise_cl("clSetUserEventStatus", status_code.INVALID_VALUE,
                     "a user event's status can only be set to COMPLETE or a negative error code")
        if self.is_done:
            raise_cl("clSetUserEventStatus", status_code.INVALID_OPERATION,
                     "the user event's status was already set")
        self.complete(status)


def _settle_ahead(first: Event) -> None:
    """Settle `first` and the unsettled commands it was issued behind, the oldest first, so
    that each finds those ahead of it settled (a loop, not a recursion down a long chain)."""
    chain, seen, stack = [], set(), [first]
    while stack:
        evt = stack.pop()
        if evt._status > ces.COMPLETE and id(evt) not in seen:
            seen.add(id(evt))
            chain.append(evt)
            stack.extend(dep for dep, _ in evt._ahead)
    for evt in reversed(chain):
        completion.settle(evt, block=True)


def describe_failure(event: Event) -> str:
    cmd = command_type.to_string(event.command_type, "command %d")
    if event._cause is not None:
        how = "failed" if event._ran_anyway else "did not run"
        return f"{cmd} {how}, because {describe_failure(event._cause)}"
    code = status_code.to_string(event._status, "error %d")
    if event.error is None:
        return f"{cmd} ended with status {code}"
    detail = str(event.error) if isinstance(event.error, Error) else \
        f"{type(event.error).__name__}: {event.error}"
    return f"{cmd} ended with status {code}: {detail}"


def wait_for_events(events: Iterable[Event]) -> None:
    events = as_list(events, "clWaitForEvents", status_code.INVALID_VALUE, "events")
    for evt in events:
        if not isinstance(evt, Event):
            raise_cl("clWaitForEvents", status_code.INVALID_EVENT,
                     f"expected an Event, got {type(evt).__name__}")
    contexts = {id(evt._context) for evt in events if evt._context is not None}
    if len(contexts) > 1:
        raise_cl("clWaitForEvents", status_code.INVALID_CONTEXT,
                 f"the events belong to {len(contexts)} different contexts")
    for evt in events:
        evt.wait()
