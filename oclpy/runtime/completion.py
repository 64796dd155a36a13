"""Completing the events of commands that a driver runs asynchronously.

A driver whose actions return once their work is queued on the device (cuda)
hands the runtime a marker of that work's completion (`Driver.completion`).
The command's event is then RUNNING, with that marker, until the work is done:
`Event.wait()` and `queue.finish()` block on the marker, a status query polls
it, and one watcher thread per driver waits on the markers in turn and
completes each event, so callbacks, dependent commands on other devices and
the release of what a command keeps alive all happen once the device is done.
Dependent commands on the same driver do not wait on the host at all: the
scheduler passes the markers to `Driver.order_after` (cuStreamWaitEvent).
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from .errors import status_code

_watchers: dict[int, _Watcher] = {}
_lock = threading.Lock()


class _Watcher:
    """One daemon thread completing a driver's issued events in the order they came."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver
        self.events: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name=f"oclpy-{driver.kind}-done",
                                       daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while True:
            event = self.events.get()
            try:
                event._settle(block=True)
            except BaseException as exc:  # a driver failure fails the event, not the watcher
                event._finish(status_code.OUT_OF_RESOURCES, exc)


def watch(driver: Any, event: Any) -> None:
    """Complete `event` (issued on `driver`, with a marker) once its work is done."""
    found = _watchers.get(id(driver))
    if found is None or found.driver is not driver:
        with _lock:
            found = _watchers.get(id(driver))
            if found is None or found.driver is not driver:
                found = _watchers[id(driver)] = _Watcher(driver)
    found.events.put(event)
