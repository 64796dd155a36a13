"""Command queues: where commands become events, in order or out of order.

`CommandQueue.enqueue_command(command_type, action, wait_for, ...)` is the one path
every command (copy, fill, launch, marker, barrier) takes: it checks the wait
list, makes the event, adds the queue's ordering dependency (the previous
command when in-order, the last barrier when out-of-order) and hands both to
the scheduler. `finish()` waits for everything enqueued so far and reports a
command that failed and was not waited for. Until a failure is reported, the
commands behind it do not run (scheduler.py): they fail with it.

On an in-order queue of an `eager` driver (the cpu: its launches are
synchronous and a hand-off to another thread costs more than a small
kernel), a command whose dependencies are already done runs at once on the
calling thread, taking no lock and making no callback (the scheduler's fast
path); a command that must wait still waits, so the order and wait_for
semantics do not change. Out-of-order queues hand commands to the command
threads, so independent commands run concurrently, unless the driver says
`inline_out_of_order` (cuda's asynchronous launches: an action only queues
work on the device, which a command thread would not make concurrent).

Kernel launches have two shorter doors, used by the launch fast path
(launch_plan.py) for a one-device context: `launch_now` runs a launch whose
dependencies are done on the calling thread (one lock, for the ordering
check, and no scheduler), `launch_later` hands one on an out-of-order queue
to the scheduler without the general cases (storages, markers, barriers).
Either answers None, having done nothing, when the command needs `enqueue_command`.
Host reads and writes have one too, `transfer_now` (transfer.py), issued the
way `launch_now` issues a launch.
A command's event tells its queue when it is done (`Event._retire_to`), which
keeps `finish()`'s pending set and the failures not yet reported.

A released queue refuses commands and `finish()` (INVALID_COMMAND_QUEUE); a
queue whose `with` block ended (the block finishes it) refuses commands too,
where PyOpenCL still warns (`CommandQueueUsedAfterExit`, deprecated since
2023): a command there would run after the code that set the queue up
believes it is done.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, Iterable, Sequence

from .constants import command_queue_info, info_attribute
from .constants import command_queue_properties as cqp
from .constants import command_type
from .device import Device
from .errors import as_list, raise_cl, status_code
from .handles import Handle
from .completion import settle, settle_all
from .constants import command_execution_status as ces
from .event import Event, NannyEvent, describe_failure
from .scheduler import run_started, schedule
from .context import Context
from .storage import WRITE

SUPPORTED_PROPERTIES = cqp.OUT_OF_ORDER_EXEC_MODE_ENABLE | cqp.PROFILING_ENABLE


_GONE = object()  # (what _retire finds of an event no longer pending)

class CommandQueueUsedAfterExit(UserWarning):
    """A queue was used after its `with` block ended (PyOpenCL warns, then goes on)."""

class CommandQueue(Handle):
    """PyOpenCL's CommandQueue. `enqueue_command`, `ready_dependencies`, `launch_now`,
    `launch_later` and `transfer_now` are the runtime's own doors (module docstring), not PyOpenCL API."""

    def __init__(self, context: Any, device: Device | None = None, properties: Any = None) -> None:
        if not isinstance(context, Context):
            raise_cl("clCreateCommandQueue", status_code.INVALID_CONTEXT,
                     f"expected a Context, got {type(context).__name__}")
        if device is None:
            device = context.devices[0]
        if device not in context.devices:
            raise_cl("clCreateCommandQueue", status_code.INVALID_DEVICE,
                     f"{device!r} is not a device of this context")
        props = _check_properties(properties)
        context.own(self, "clCreateCommandQueue")
        self.context = context
        self.device = device
        self.properties = props
        self._in_order = not props & cqp.OUT_OF_ORDER_EXEC_MODE_ENABLE
        self._profiling = bool(props & cqp.PROFILING_ENABLE)
        self._lock = threading.Lock()
        self._last: Event | None = None  # in-order: the previous command
        self._barrier: Event | None = None  # out-of-order: the last barrier
        self._pending: dict[Event, None] = {}  # not yet done, in enqueue order
        self._failed: list[Event] = []
        self._released = False
        self._exited = False  # left its `with` block: commands are refused, flush() warns

    # -- properties -----------------------------------------------------------------

    @property
    def out_of_order(self) -> bool:
        return not self._in_order

    @property
    def profiling(self) -> bool:
        return self._profiling

    @property
    def driver(self) -> Any:
        return self.device.driver

    def get_info(self, param: int) -> Any:
        table = {command_queue_info.CONTEXT: lambda: self.context,
                 command_queue_info.DEVICE: lambda: self.device,
                 command_queue_info.REFERENCE_COUNT: lambda: 1,
                 command_queue_info.PROPERTIES: lambda: self.properties}
        if param not in table:
            raise_cl("clGetCommandQueueInfo", status_code.INVALID_VALUE)
        return table[param]()

    def __getattr__(self, name: str) -> Any:
        return info_attribute(self, name, command_queue_info)


    def _get_cl_version(self) -> tuple[int, int]:
        return (3, 0)

    # -- enqueueing -----------------------------------------------------------------

    def _warn_if_exited(self) -> None:
        if self._exited:
            warnings.warn("Command queue used after exit of context manager. This is deprecated "
                          "and will stop working in 2023.", CommandQueueUsedAfterExit, stacklevel=3)

    def check_wait_for(self, wait_for: Iterable[Event] | None, routine: str) -> list[Event]:
        if self._released:
            raise_cl(routine, status_code.INVALID_COMMAND_QUEUE, "the queue was released")
        if self._exited:  # PyOpenCL deprecated this use in 2023 (it only warns): refused here
            raise_cl(routine, status_code.INVALID_COMMAND_QUEUE,
                     "the queue was used after its `with` block ended (the block finished it; "
                     "make a new queue)")
        events = as_list(wait_for, routine, status_code.INVALID_EVENT_WAIT_LIST, "wait_for")
        for evt in events:
            if not isinstance(evt, Event):
                raise_cl(routine, status_code.INVALID_EVENT_WAIT_LIST,
                         f"wait_for holds a {type(evt).__name__}, not an Event")
            if evt.context is not None and evt.context is not self.context:
                raise_cl(routine, status_code.INVALID_CONTEXT,
                         "an event in wait_for belongs to another context")
        return events

    def enqueue_command(self, command: int, action: Callable[[], None], wait_for: Sequence[Event],
                        *, blocking: bool = False, ward: Any = None, keepalive: Iterable[Any] = (),
                        sync: str = "", storages: Iterable[Any] = (), claim_on: Any = None) -> Event:
        """Make the command's event, order it, schedule it; wait if `blocking`.

        `sync` is "marker" or "barrier" for those commands: without a wait list
        they wait for every command before them; a barrier also holds back every
        command after it. `storages` are the buffers' bytes the command uses
        (storage.py), claimed on this queue's device or on `claim_on` (a migration
        to the host).
        """
        if ward is not None:
            evt: Event = NannyEvent(self, command, ward, keepalive)
        else:
            evt = Event(self, command, keepalive=keepalive)
        evt._retire_to = self
        action, migration_waits = _claim_storages(storages, claim_on or self.driver, evt, action)
        with self._lock:
            after = self._ordering(sync, bool(wait_for), evt) + migration_waits
            if not self.out_of_order:
                self._last = evt
            elif sync == "barrier":
                self._barrier = evt
            self._pending[evt] = None
        driver = self.driver
        eager = getattr(driver, "eager", False) and (
            not self.out_of_order or getattr(driver, "inline_out_of_order", False))
        schedule(evt, action, wait_for, after, inline=blocking or eager, driver=driver)
        if blocking:
            evt.wait()
        return evt

    def ready_dependencies(self, wait_for: Any) -> tuple[tuple[Event, Any], ...] | None:
        """For the launch fast path: None when the command must take `enqueue_command` (a
        `wait_for` that is not a list or tuple of this context's events, or one not
        done); else (event, marker) of those RUNNING on this queue's device, which the
        command orders itself after there (scheduler._device_ordered's rule)."""
        if type(wait_for) is not list and type(wait_for) is not tuple:
            return None
        running: tuple[tuple[Event, Any], ...] = ()
        driver = self.device.driver
        for evt in wait_for:
            if not isinstance(evt, Event) or (evt._context is not self.context and evt._context is not None):
                return None
            status = evt._status
            if status == ces.COMPLETE:
                continue
            marker = evt._marker
            if status < 0 or marker is None or evt._driver is not driver:
                return None
            running += ((evt, marker),)
        return running

    def launch_now(self, running: tuple[tuple[Event, Any], ...], action: Callable[..., None],
                   args: tuple, keepalive: Any) -> Event | None:
        """The launch fast path: run a kernel launch whose explicit dependencies are done
        (or queued on this device: `running`, from `ready_dependencies`) on the calling thread
        now, as `enqueue_command` would with nothing to wait for; None, with nothing done, when
        the queue is not ready for that (released, used after its `with` block, or an
        ordering dependency still to wait for or failed)."""
        if self._released or self._exited:
            return None
        driver = self.device.driver
        evt = Event(self, command_type.NDRANGE_KERNEL, keepalive=keepalive)
        with self._lock:
            prev = self._last if self._in_order else self._barrier
            if prev is not None and prev._status != ces.COMPLETE:
                if prev._status < 0 or not (prev._marker is not None and prev._driver is driver
                                            and driver.ordered_markers):
                    return None
                evt._ahead = ((prev, False),)  # issued behind it on the device
            if self._in_order:
                self._last = evt
            self._pending[evt] = None
        evt.mark_started()
        if running:
            evt._ahead += tuple((dep, True) for dep, _ in running)
            args = (driver, [marker for _, marker in running], action, *args)
            action = _ordered_launch
        try:
            run_started(evt, driver, self._profiling, action, args)
        finally:  # also when Ctrl-C interrupted it (failed, then re-raised)
            if evt._status > ces.COMPLETE:  # issued: it completes later, maybe on another thread,
                evt._retire_to = self       # and then retires itself...
                if evt._status <= ces.COMPLETE:  # ...unless it did meanwhile (_retire: idempotent)
                    self._retire(evt)
            elif evt._status < 0:
                self._retire(evt)
            else:  # done here (the cpu's quick launch): retired here
                self._pending.pop(evt, None)
        return evt

    def transfer_now(self, command: int, move: Callable[..., Any], args: tuple,
                     storage: Any, blocking: bool) -> Event | None:
        """The host-transfer fast path: a read or write (`move(*args)`) on an in-order
        queue whose previous command is done or queued ahead of it on this device's
        ordered stream, of bytes that never left this device, is issued now on
        the calling thread, as `launch_now` issues a launch: complete when the driver's
        action says DONE (or its driver issues no markers), else RUNNING with a marker
        behind the stream's earlier work; a blocking one is waited for. None, with
        nothing done, when it needs `enqueue_command` (profiling, an out-of-order queue, bytes
        that have lived on another device, an earlier command to wait for or failed)."""
        if self._released or self._exited or not self._in_order or self._profiling:
            return None
        driver = self.device.driver
        if not storage.only_on(driver):
            return None
        evt = Event(self, command)
        if driver.issues_markers:  # completed later, maybe on another thread: it retires itself
            evt._retire_to = self
        with self._lock:
            prev = self._last
            if prev is not None and prev._status != ces.COMPLETE:
                if prev._status < 0 or not (prev._marker is not None and prev._driver is driver
                                            and driver.ordered_markers):
                    return None
                evt._ahead = ((prev, False),)  # issued behind it on the device
            self._last = evt
            self._pending[evt] = None
        evt.mark_started()
        try:
            run_started(evt, driver, False, move, args)
        finally:
            if evt._retire_to is None:  # done here: retire it here
                if evt._status < 0:
                    self._retire(evt)
                else:
                    self._pending.pop(evt, None)
        if blocking and evt._status != ces.COMPLETE:
            evt.wait()  # the copy behind the stream's work, or the command's error
        return evt

    def launch_later(self, wait_for: Any, action: Callable[..., None], args: tuple,
                     keepalive: Any) -> Event | None:
        """The launch fast path on an out-of-order queue whose commands go to the command
        threads: `enqueue_command` without its general cases (storages to claim, markers,
        barriers, wards); None, with nothing done, when the queue or `wait_for` (a list
        or tuple of this context's events, or None) needs those."""
        if self._released or self._exited:
            return None
        if wait_for is None:
            wait_for = ()
        elif type(wait_for) is not list and type(wait_for) is not tuple:
            return None
        for evt in wait_for:
            if not isinstance(evt, Event) or (evt._context is not self.context and evt._context is not None):
                return None
        evt = Event(self, command_type.NDRANGE_KERNEL, keepalive=keepalive)
        evt._retire_to = self
        with self._lock:
            barrier = self._barrier
            self._pending[evt] = None
        schedule(evt, action, wait_for, (barrier,) if barrier is not None else (),
                 driver=self.device.driver, args=args)
        return evt

    def _ordering(self, sync: str, has_wait_list: bool, evt: Event) -> list[Event]:
        """The implicit dependencies of the next command, `evt` (call with the lock held).
        The previous command of an in-order queue is none when its work is already
        queued on a driver whose markers complete in order (cuda's one stream, the
        cpu's): the next command's work goes to the same stream, after it, and
        learns of its failure when it completes (`Event.failure_ahead`)."""
        if not self.out_of_order:
            last = self._last
            if last is None:
                return []
            if last._status > 0 and last._marker is not None and last._driver is self.device.driver \
                    and self.device.driver.ordered_markers:
                evt._ahead = ((last, False),)
                return []
            return [last]
        after = [self._barrier] if self._barrier is not None else []
        if sync and not has_wait_list:
            after += list(self._pending)
        return after

    def _retire(self, evt: Event) -> None:
        """`evt` is done: no longer pending (a failed one kept for finish() to report).
        Idempotent: `launch_now` and the event may both call it."""
        if evt._status >= 0:  # one dict operation, atomic: the lock only pairs the two below
            self._pending.pop(evt, None)
            return
        with self._lock:
            if self._pending.pop(evt, _GONE) is not _GONE:
                self._failed.append(evt)

    def enqueue_marker(self, wait_for: Iterable[Event] | None = None) -> Event:
        events = self.check_wait_for(wait_for, "clEnqueueMarkerWithWaitList")
        return self.enqueue_command(command_type.MARKER, _nothing, events, sync="marker")

    def enqueue_barrier(self, wait_for: Iterable[Event] | None = None) -> Event:
        events = self.check_wait_for(wait_for, "clEnqueueBarrierWithWaitList")
        return self.enqueue_command(command_type.BARRIER, _nothing, events, sync="barrier")

    # -- synchronisation ------------------------------------------------------------

    def finish(self) -> None:
        if self._released:
            raise_cl("clFinish", status_code.INVALID_COMMAND_QUEUE, "the queue was released")
        with self._lock:
            pending = list(self._pending)
        if pending:  # else every command of this queue is done: nothing to synchronise
            self._wait_all(pending)
        with self._lock:
            failed = [e for e in self._failed if not e.failure_reported]
            self._failed = []
        for evt in failed:  # one report for them all: the queue goes on after it
            evt.report_failure()
        if failed:
            raise_cl("clFinish", status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
                     describe_failure(failed[0]))

    def _wait_all(self, pending: list[Event]) -> None:
        synchronized = settle_all(self.driver)  # one device sync completes what was issued
        for evt in reversed(pending):  # the newest first: in a chain, the others are done then
            if evt.is_done:
                continue
            settle(evt, block=True)
            evt.wait_done()
            synchronized = False
        if not synchronized:
            self.driver.synchronize()

    def flush(self) -> None:
        """Commands are submitted as soon as they are enqueued: nothing more to do."""
        self._warn_if_exited()

    def release(self) -> None:
        self._released = True
        self._exited = False

    def _finalize(self) -> None:
        self.release()

    def __enter__(self) -> CommandQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()
        self._exited = True

    def __repr__(self) -> str:
        kind = "out-of-order" if self.out_of_order else "in-order"
        return f"<oclpy.CommandQueue {kind} on {self.device!r}>"


def _nothing() -> None:
    return None


def _ordered_launch(driver: Any, markers: list[Any], action: Callable[..., None], *args: Any) -> None:
    driver.order_after(markers)
    action(*args)


def _claim_storages(storages: Iterable[Any], driver: Any, evt: Event,
                    action: Callable[[], None]) -> tuple[Callable[[], None], list[Event]]:
    """The action preceded by any migration its buffers need, and what it must wait for.
    `storages` holds Storage objects (written) or (storage, access) pairs (storage.py)."""
    waits: list[Event] = []
    migrations = []
    for storage, access in _accesses(storages).values():
        more, migrate = storage.claim(driver, evt, access)
        waits += [e for e in more if e is not evt]
        if migrate is not None:
            migrations.append(migrate)
    if not migrations:
        return action, waits

    def migrate_then_run() -> None:
        for migrate in migrations:
            migrate()
        action()

    return migrate_then_run, waits


def _accesses(storages: Iterable[Any]) -> dict[int, tuple[Any, str]]:
    """{id: (storage, access)}: a storage used in two ways is written (WRITE: its bytes
    are kept)."""
    found: dict[int, tuple[Any, str]] = {}
    for item in storages:
        storage, access = item if type(item) is tuple else (item, WRITE)
        if storage is None:
            continue
        seen = found.get(id(storage))
        found[id(storage)] = (storage, WRITE if seen is not None and seen[1] != access else access)
    return found


def _check_properties(properties: Any) -> int:
    if properties is None:
        return 0
    if isinstance(properties, (list, tuple)):  # OpenCL 2.0 style [(QUEUE_PROPERTIES, bits)]
        bits = 0
        for item in properties:
            bits |= item[1] if isinstance(item, tuple) else item
        properties = bits
    if not isinstance(properties, int) or properties < 0:
        raise_cl("clCreateCommandQueue", status_code.INVALID_VALUE,
                 f"invalid queue properties {properties!r}")
    if properties & ~SUPPORTED_PROPERTIES:
        raise_cl("clCreateCommandQueue", status_code.INVALID_QUEUE_PROPERTIES,
                 f"unsupported queue properties "
                 f"{cqp.to_string(properties & ~SUPPORTED_PROPERTIES, '0x%x')}")
    return properties


def enqueue_marker(queue: CommandQueue, wait_for: Iterable[Event] | None = None) -> Event:
    return queue.enqueue_marker(wait_for)


def enqueue_barrier(queue: CommandQueue, wait_for: Iterable[Event] | None = None) -> Event:
    return queue.enqueue_barrier(wait_for)
