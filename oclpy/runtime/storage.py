"""The bytes of a buffer on the devices of its context, and which copies are current.

A `Storage` is shared by a buffer and its sub-buffers and held by every
command that uses it, so memory is freed (`__del__`) only when all of them
are gone. It holds one `Allocation` per memory domain (`Driver.memory_domain`:
every cpu device and sub-device shares host memory, a GPU has its own) and the
set of domains whose copy holds the latest bytes (`valid`).

The rule (OpenCL 3.0 5.5.5 and the memory model of 3.3: a buffer is valid on
every device of its context; it migrates implicitly to the device a command
runs on, or explicitly with clEnqueueMigrateMemObjects; it stays there until a
command moves it away), kept in enqueue order, whichever queues the commands
come from:

- a command on a domain whose copy is current uses it as it is: readers on
  several domains share the bytes, each on its own copy, side by side;
- a command on a domain whose copy is stale first copies the bytes in from a
  current domain (GPU to GPU directly, else through the host), after the
  commands still writing them there and the commands still using the stale
  copy it overwrites;
- a command that writes (a kernel's non-const global pointer, a host write,
  a fill, a copy's destination) leaves its domain the only current one, after
  the copies still reading the bytes out of that domain; one that overwrites
  every byte (DISCARD) needs no stale copy brought over first;
- commands on one domain are ordered by their queues and wait lists, as
  OpenCL says; the runtime adds no ordering there.

The granularity is the whole storage (a sub-buffer shares its parent's
copies): two devices of separate memories writing two halves of one buffer
run one after the other, the second starting from the first one's bytes.
Each device writing a buffer of its own runs side by side.

`claim` applies the rule to one command (migration.py claims with READ, or
with DISCARD for CONTENT_UNDEFINED: the copy becomes current uncopied).
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable, Hashable

import numpy as np

from .drivers.base import Allocation, Driver
from .errors import raise_cl, status_code

READ, WRITE = "read", "write"
DISCARD = "discard"  # written without its old bytes: a stale copy becomes current uncopied


class Storage:
    """The bytes of a buffer and its sub-buffers, on each memory domain that used them."""

    def __init__(self, nbytes: int, home: Driver, mode: str = "rw") -> None:
        self.nbytes = nbytes
        self.home = home
        self.mode = mode  # what kernels may do: "rw", "r" (READ_ONLY), "w" (WRITE_ONLY); drivers may check it
        self.allocations: dict[Hashable, tuple[Driver, Allocation]] = {}
        self.valid: set[Hashable] = set()  # domains whose copy holds the latest bytes
        self.users: dict[Any, list[tuple[Hashable, str]]] = {}  # pending command -> (domain, access)
        self.copying_out: dict[Any, Hashable] = {}  # pending command -> domain its migration reads
        self.lock = threading.Lock()

    def only_on(self, driver: Driver) -> bool:
        """Whether the bytes have only ever lived in `driver`'s memory domain: then a
        command there has nothing to claim (the host-transfer fast path's test)."""
        return len(self.allocations) == 1 and driver.memory_domain in self.allocations

    def create(self, host: memoryview | None, use_host: bool) -> None:
        alloc = self.home.wrap_host(host) if (use_host and host is not None) else None
        try:
            alloc = alloc or self.home.allocate(self.nbytes)
        except MemoryError:
            raise_cl("clCreateBuffer", status_code.MEM_OBJECT_ALLOCATION_FAILURE,
                     f"could not allocate {self.nbytes} bytes")
        self.home.set_access(alloc, self.mode)
        if host is not None and not alloc.host_owned:
            write_now(self.home, alloc, host[:self.nbytes])
        self.allocations[self.home.memory_domain] = (self.home, alloc)
        self.valid = {self.home.memory_domain}

    def on(self, driver: Driver, routine: str = "clEnqueueMigrateMemObjects") -> Allocation:
        """The allocation in `driver`'s memory domain (made on first use); its bytes may
        be stale until a command using it is enqueued (see `claim`)."""
        domain = driver.memory_domain
        with self.lock:
            entry = self.allocations.get(domain)
            if entry is None:
                try:
                    entry = (driver, driver.allocate(self.nbytes))
                    driver.set_access(entry[1], self.mode)
                except MemoryError:
                    raise_cl(routine, status_code.MEM_OBJECT_ALLOCATION_FAILURE,
                             f"could not allocate {self.nbytes} bytes on the {driver.kind} device")
                self.allocations[domain] = entry
            return entry[1]

    def claim(self, driver: Driver, event: Any,
              access: str = WRITE) -> tuple[list[Any], Callable[[], None] | None]:
        """Record that the command `event` uses these bytes on `driver` (`access`: READ,
        WRITE, or DISCARD: written, a stale copy becoming current without its bytes being
        copied, as CONTENT_UNDEFINED asks). Returns (events it must wait for, migration to
        run first or None)."""
        domain = driver.memory_domain
        copy = access != DISCARD
        access = WRITE if access == DISCARD else access
        with self.lock:
            waits: list[Any] = []
            migrate = None
            if domain not in self.valid and self.valid:
                source = next(iter(self.valid))
                # the copy waits for whoever writes the source's bytes or uses the copy it replaces
                waits = [e for e, used in self.users.items() if e is not event and any(
                    (d == source and a == WRITE) or d == domain for d, a in used)]
                if copy:
                    migrate = _Migration(self, self.allocations[source][0], driver)
                    self.copying_out[event] = source
                self.valid.add(domain)
            if access == WRITE:
                if self.copying_out:  # first let the copies still reading these bytes out finish
                    waits += [e for e, d in self.copying_out.items()
                              if d == domain and e is not event and e not in waits]
                self.valid = {domain}
            self.users.setdefault(event, []).append((domain, access))
        event.when_done(self._done_with, lazy=True)
        return waits, migrate

    def _done_with(self, event: Any) -> None:
        with self.lock:
            self.users.pop(event, None)
            self.copying_out.pop(event, None)

    def copy_between(self, source: Driver, target: Driver) -> None:
        """Copy every byte from `source`'s copy to `target`'s: device to device where the
        target can (two GPUs: `Driver.copy_from_peer`), else through the host."""
        src = self.allocations[source.memory_domain][1]
        dst = self.on(target)
        if target.copy_from_peer(dst, source, src, self.nbytes):
            return
        staging = bytearray(self.nbytes)
        _wait_done(source, source.read(src, 0, memoryview(staging)))
        _wait_done(target, target.write(dst, 0, memoryview(staging)))

    def __del__(self) -> None:
        # The last holder is gone: the buffer(s) and every command that used it.
        for driver, alloc in self.allocations.values():
            if not alloc.host_owned:
                driver.free(alloc)


def write_now(driver: Driver, alloc: Allocation, data: memoryview) -> None:
    """The first bytes of fresh memory, there when this returns: copied straight into
    memory the host can address (the cpu driver's write would go behind the work of
    its busy stream, which a command on another device of the same memory domain, a
    sibling sub-device, does not wait for), else by the driver's write."""
    address = driver.host_address(alloc)
    if address is None:
        driver.write(alloc, 0, data)
        return
    src = np.frombuffer(data, np.uint8)
    np.copyto(np.ctypeslib.as_array((ctypes.c_ubyte * src.size).from_address(address)), src)


class _Migration:
    """The copy a command runs before its own action (a callable: plain data)."""

    __slots__ = ("storage", "source", "target")

    def __init__(self, storage: Storage, source: Driver, target: Driver) -> None:
        self.storage, self.source, self.target = storage, source, target

    def __call__(self) -> None:
        self.storage.copy_between(self.source, self.target)


def _wait_done(driver: Driver, done: Any) -> None:
    """A driver action may return before its work is done (a cpu copy queued behind a
    kernel on its stream): a migration needs the bytes now."""
    if done is None and driver.issues_markers:
        marker = driver.completion()
        if marker is not None:
            driver.wait_complete(marker)
