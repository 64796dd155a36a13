"""Completion markers of asynchronous cuda commands, recorded only when asked for.

Every asynchronous command goes to the driver's one shared stream, which runs
its work in issue order. Recording a CUDA event after each command would cost
a driver call per launch, most of them for events nobody asks about. So a
command gets a `Ticket` instead: its number in issue order, taken once its
work is queued. The first question about a ticket (is it done, wait for it,
make another stream wait for it) records a checkpoint: a CUDA event on the
shared stream, numbered from the same counter, so it comes after the work of
every ticket with a lower number. One checkpoint answers for every ticket
before it; a checkpoint found complete completes them all, and every
checkpoint before it, and a device synchronisation completes everything
numbered before it (`mark` / `synchronized`).

The answers are never early: a checkpoint may come after more work than the
ticket asked about, so a status may read RUNNING a little longer than the
work ran, never shorter. Checkpoint events go back to the driver's pool once
passed; if one is recorded again before a late query of it, that query only
answers for later work (again late, never early), because what a query
completes is named by the checkpoint's number, not by its event.
"""

from __future__ import annotations

import collections
import itertools
import threading
from typing import Any, Callable


class Ticket:
    """A command's place in issue order on `stream` (a marker without a CUDA event)."""

    __slots__ = ("seq", "stream")
    timed = False

    def __init__(self, seq: int, stream: Any) -> None:
        self.seq, self.stream = seq, stream


class Checkpoints:
    """The tickets and the checkpoints of one stream (see the module docstring).

    `record()` records a fresh CUDA event on the stream now; `recycle(event)`
    takes back one whose work is done."""

    def __init__(self, record: Callable[[], Any], recycle: Callable[[Any], None]) -> None:
        self._record, self._recycle = record, recycle
        self._counter = itertools.count(1)
        self._done_below = 0  # every ticket numbered below this is complete
        self._points: collections.deque[tuple[int, Any]] = collections.deque()
        self._lock = threading.Lock()

    def ticket(self, stream: Any) -> Ticket:
        """The marker of the work just queued on the stream."""
        return Ticket(next(self._counter), stream)

    def done(self, ticket: Ticket) -> bool:
        return ticket.seq < self._done_below

    def covering(self, ticket: Ticket) -> tuple[int, Any] | None:
        """(number, event) of a checkpoint after `ticket`'s work, recorded now when
        there is none yet; None when the ticket is known complete."""
        with self._lock:
            if ticket.seq < self._done_below:
                return None
            for point in self._points:
                if point[0] > ticket.seq:
                    return point
            point = (next(self._counter), self._record())  # numbered, then recorded: in order
            self._points.append(point)
            return point

    def reached(self, seq: int) -> None:
        """The checkpoint numbered `seq` is complete: so is everything before it."""
        passed = []
        with self._lock:
            if seq > self._done_below:
                self._done_below = seq
            points = self._points
            while points and points[0][0] <= seq:
                passed.append(points.popleft()[1])
        for event in passed:
            self._recycle(event)

    def mark(self) -> int:
        """A number to pass to `synchronized` once a device synchronisation begun
        after this call has returned."""
        return next(self._counter)

    def synchronized(self, seq: int) -> None:
        """Everything numbered below `seq` (from `mark`) is complete."""
        self.reached(seq)

    def pending(self) -> int:
        """Checkpoints recorded and not yet known complete (for tests and tools)."""
        return len(self._points)
