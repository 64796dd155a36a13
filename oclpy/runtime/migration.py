"""`enqueue_migrate_mem_objects`: move buffers to a device (or the host) ahead of use.

clEnqueueMigrateMemObjects (OpenCL 3.0 5.5.5): once the command's event is
complete, the buffers' current bytes are on the queue's device (with
`mem_migration_flags.HOST`, in host memory: the cpu device's memory domain)
and stay there until a command moves them away. With CONTENT_UNDEFINED the
bytes are not copied: the device's copy becomes current as it is. The rule
for which copy is current is storage.py's; a buffer migrates implicitly to
any device that uses it, so this command only moves the copy earlier.

Every argument is checked before anything is enqueued: flags other than
HOST | CONTENT_UNDEFINED or an empty list (INVALID_VALUE), something that is
not a live memory object (INVALID_MEM_OBJECT), a buffer of another context
(INVALID_CONTEXT), a bad wait list (INVALID_EVENT_WAIT_LIST).
"""

from __future__ import annotations

from typing import Any

from .constants import command_type, mem_migration_flags
from .drivers import load_driver
from .drivers.base import Driver
from .drivers.cpu import HOST_MEMORY
from .errors import as_list, raise_cl, status_code
from .event import Event
from .image import Image
from .memory import Buffer
from .queue import CommandQueue
from .storage import DISCARD, READ

ROUTINE = "clEnqueueMigrateMemObjects"
ALL_MIGRATION_FLAGS = mem_migration_flags.HOST | mem_migration_flags.CONTENT_UNDEFINED


def enqueue_migrate_mem_objects(queue: CommandQueue, mem_objects: Any, flags: int = 0,
                                wait_for: Any = None) -> Event:
    """Migrate `mem_objects` to `queue`'s device, or to the host with flags HOST."""
    if not isinstance(queue, CommandQueue):
        raise_cl(ROUTINE, status_code.INVALID_COMMAND_QUEUE,
                 f"expected a CommandQueue, got {type(queue).__name__}")
    if not isinstance(flags, int) or flags < 0 or flags & ~ALL_MIGRATION_FLAGS:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"invalid mem_migration_flags {flags!r} (allowed: HOST, CONTENT_UNDEFINED)")
    buffers = _check_buffers(queue, mem_objects)
    events = queue.check_wait_for(wait_for, ROUTINE)
    target = _target(queue.driver, flags)
    access = DISCARD if flags & mem_migration_flags.CONTENT_UNDEFINED else READ
    for buf in buffers:
        buf.storage.on(target, ROUTINE)  # MEM_OBJECT_ALLOCATION_FAILURE before anything runs
    storages = [buf.storage for buf in buffers]
    return queue.enqueue_command(command_type.MIGRATE_MEM_OBJECTS, _nothing, events,
                                 keepalive=tuple(storages), storages=[(s, access) for s in storages],
                                 claim_on=target)


def _nothing() -> None:
    return None


def _check_buffers(queue: CommandQueue, mem_objects: Any) -> list[Buffer | Image]:
    buffers = as_list(mem_objects, ROUTINE, status_code.INVALID_VALUE, "mem_objects")
    if not buffers:
        raise_cl(ROUTINE, status_code.INVALID_VALUE, "no memory objects to migrate")
    for buf in buffers:
        if not isinstance(buf, (Buffer, Image)):
            raise_cl(ROUTINE, status_code.INVALID_MEM_OBJECT,
                     f"expected a Buffer or an Image, got {type(buf).__name__}")
        buf.check_alive(ROUTINE)
        if buf.context is not queue.context:
            raise_cl(ROUTINE, status_code.INVALID_CONTEXT,
                     "a buffer belongs to another context than the queue")
    return buffers


def _target(driver: Driver, flags: int) -> Driver:
    """The queue's driver, or with HOST a driver of host memory (the cpu's)."""
    if not flags & mem_migration_flags.HOST or driver.memory_domain == HOST_MEMORY:
        return driver
    host = load_driver("cpu")
    assert isinstance(host, Driver), "the cpu driver always starts"
    return host
