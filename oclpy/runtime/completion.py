"""Completing the events of commands that a driver runs asynchronously.

A driver whose actions return once their work is queued on the device (cuda)
hands the runtime a marker of that work's completion (`Driver.completion`).
The command's event is then RUNNING, with that marker, until the work is done.

No thread watches such an event on the fast path: it is completed on demand.
`Event.wait()` blocks on its marker, a status query polls it, `queue.finish()`
synchronises the device once (`settle_all`) and completes every event issued
before, and the launching thread itself polls its oldest issued events once
more than `TRACK_HIGH` are outstanding (`issued`), so what they keep alive is
released while a long loop of launches runs. Only an event that something must
hear about as soon as it completes (a user callback from `set_callback`, a
command waiting for it on the host or on another device: an urgent `when_done`
callback) goes to the driver's watcher thread, which waits on the markers in
turn and completes each event. Dependent commands on the same driver do not
wait on the host at all: the scheduler passes the markers to
`Driver.order_after` (cuStreamWaitEvent).
"""

from __future__ import annotations

import collections
import queue
import threading
from typing import Any

from .errors import status_code

TRACK_HIGH = 16  # outstanding issued events per driver before the launcher polls
TRACK_LOW = 4  # ... down to this many, or to the first one still running

_watchers: dict[int, _Watcher] = {}
_tracked: dict[int, tuple[Any, collections.deque]] = {}
_lock = threading.Lock()


class _Watcher:
    """One daemon thread completing a driver's watched events in the order they came."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name=f"oclpy-{driver.kind}-done",
                                       daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            settle(self.events.get(), block=True)


def settle(event: Any, block: bool, known: bool = False) -> None:
    """Complete `event` if its device work is done (see Event.settle); a driver
    failure fails the event instead of raising."""
    try:
        event.settle(block=block, known=known)
    except KeyboardInterrupt:  # Ctrl-C during a wait: the caller's, and the work goes on
        raise
    except BaseException as exc:  # a driver failure fails the event, not its caller
        code = getattr(exc, "code", 0)
        event.complete(code if isinstance(code, int) and code < 0 else status_code.OUT_OF_RESOURCES, exc)


def watch(driver: Any, event: Any) -> None:
    """Complete `event` (issued on `driver`, with a marker) as soon as its work is done."""
    found = _watchers.get(id(driver))
    if found is None or found.driver is not driver:
        with _lock:
            found = _watchers.get(id(driver))
            if found is None or found.driver is not driver:
                found = _watchers[id(driver)] = _Watcher(driver)
    found.events.put(event)


def _track(driver: Any) -> collections.deque:
    found = _tracked.get(id(driver))
    if found is None or found[0] is not driver:
        with _lock:
            found = _tracked.get(id(driver))
            if found is None or found[0] is not driver:
                found = _tracked[id(driver)] = (driver, collections.deque())
    return found[1]


def issued(driver: Any, event: Any, urgent: bool) -> None:
    """`event`'s work is queued on `driver`: watch it when `urgent`, else track it for
    on-demand completion (polling the oldest ones once too many are outstanding)."""
    if urgent:
        watch(driver, event)
        return
    found = _tracked.get(id(driver))
    events = found[1] if found is not None and found[0] is driver else _track(driver)
    events.append(event)
    if len(events) > TRACK_HIGH:
        _sweep(driver, events)


def _sweep(driver: Any, events: collections.deque) -> None:
    """Complete the oldest tracked events whose work is done (never blocks). When the
    driver's markers complete in issue order (`ordered_markers`: cuda's one stream),
    one query of the newest event to drop answers for all older ones."""
    if driver.ordered_markers and len(events) > TRACK_LOW:
        newest = events[len(events) - TRACK_LOW - 1]
        settle(newest, block=False)
        if newest.is_done:
            for _ in range(len(events) - TRACK_LOW):
                settle(events.popleft(), block=False, known=True)
            return
    while len(events) > TRACK_LOW:
        try:
            event = events.popleft()
        except IndexError:  # another thread emptied it
            return
        if event.is_done:
            continue
        settle(event, block=False)
        if not event.is_done:
            events.appendleft(event)
            return


def settle_all(driver: Any) -> bool:
    """Synchronise `driver` and complete every tracked event issued before; False (and
    nothing done) when it has none tracked."""
    found = _tracked.get(id(driver))
    if found is None or found[0] is not driver or not found[1]:
        return False
    events = found[1]
    drained = []
    while events:
        try:
            drained.append(events.popleft())
        except IndexError:
            break
    try:
        driver.synchronize()
    except BaseException:  # Ctrl-C: the events stay tracked, for the next finish()
        events.extendleft(reversed(drained))
        raise
    for event in drained:
        if not event.is_done:
            settle(event, block=False, known=True)
    return True
