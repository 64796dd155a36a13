"""Transfers: `enqueue_copy` (host <-> buffer, buffer <-> buffer) and `enqueue_fill_buffer`.

Every range is checked before anything is enqueued, so a bad call raises
(LogicError INVALID_VALUE, MEM_COPY_OVERLAP, ...) and copies nothing. Keyword
arguments are PyOpenCL's: `src_offset`, `dst_offset` (`dest_offset` and
`device_offset` still accepted), `byte_count`, `is_blocking` (default True
for host transfers), `wait_for`; with `buffer_origin` / `src_origin` the copy
is rectangular (see rect.py). A non-blocking read or write keeps its host
array alive (the event's ward) until it completes.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

from .constants import command_type, mem_flags
from .errors import raise_cl, status_code
from .event import Event
from .image import Image
from .image_transfer import image_copy
from .memory import Buffer, MemoryObjectHolder, as_size, host_view
from .queue import CommandQueue
from .storage import DISCARD, READ, WRITE
from . import rect
from .transfer_checks import HOST_NO_READ, HOST_NO_WRITE, check_queue_and_buffer, check_range

def _pop_offset(kwargs: dict[str, Any], name: str, old_names: tuple[str, ...]) -> int:
    for old in old_names:
        if old in kwargs:
            if old == "device_offset":
                warnings.warn(f"The 'device_offset' argument of enqueue_copy is deprecated. "
                              f"Use '{name}' instead.", DeprecationWarning, stacklevel=4)
            kwargs.setdefault(name, kwargs.pop(old))
    return as_size(kwargs.pop(name, 0), "enqueue_copy", name)


def _check_no_extra(kwargs: dict[str, Any]) -> None:
    if kwargs:
        raise TypeError(f"enqueue_copy() got an unexpected keyword argument '{next(iter(kwargs))}'")


def enqueue_copy(queue: CommandQueue, dest: Any, src: Any, **kwargs: Any) -> Event:
    """Copy between host memory and buffers, or between buffers (PyOpenCL's rules);
    a copy with an image on either side is image_transfer's."""
    if isinstance(dest, Image) or isinstance(src, Image):
        return image_copy(queue, dest, src, kwargs)
    if isinstance(dest, MemoryObjectHolder) and isinstance(src, MemoryObjectHolder):
        if "src_origin" in kwargs:
            return rect.buffer_rect(queue, dest, src, kwargs)
        return _copy_buffer(queue, dest, src, kwargs.pop("wait_for", None), kwargs)
    if isinstance(dest, MemoryObjectHolder):
        if "buffer_origin" in kwargs:
            return rect.host_rect(queue, dest, src, True, kwargs)
        return _host_transfer(_WRITE, queue, dest, src, kwargs.pop("wait_for", None), kwargs)
    if isinstance(src, MemoryObjectHolder):
        if "buffer_origin" in kwargs:
            return rect.host_rect(queue, src, dest, False, kwargs)
        return _host_transfer(_READ, queue, src, dest, kwargs.pop("wait_for", None), kwargs)
    raise TypeError("enqueue_copy cannot perform host-to-host transfers")


@dataclass(frozen=True)
class _HostTransfer:
    """What differs between a host->buffer write and a buffer->host read."""
    routine: str
    command: int
    offset_keys: tuple[str, tuple[str, ...]]  # the PyOpenCL keyword and its aliases
    host_is_destination: bool
    verb: str
    forbidden_flags: int
    host_role: str


_WRITE = _HostTransfer("clEnqueueWriteBuffer", command_type.WRITE_BUFFER,
                       ("dst_offset", ("dest_offset", "device_offset")), False, "writing",
                       HOST_NO_WRITE, "source host array")
_READ = _HostTransfer("clEnqueueReadBuffer", command_type.READ_BUFFER,
                      ("src_offset", ("device_offset",)), True, "reading",
                      HOST_NO_READ, "destination host array")


def _host_transfer(t: _HostTransfer, queue: CommandQueue, buf: Buffer, host: Any, wait_for: Any,
                   kwargs: dict[str, Any]) -> Event:
    offset, blocking = 0, True
    if kwargs:
        offset = _pop_offset(kwargs, *t.offset_keys)
        blocking = bool(kwargs.pop("is_blocking", True))
        _check_no_extra(kwargs)
    check_queue_and_buffer(queue, buf, t.routine)
    view = host_view(host, t.host_is_destination, t.routine, status_code.INVALID_VALUE, t.host_role)
    check_range(t.routine, t.verb, offset, view.nbytes, buf.size)
    if buf.flags & t.forbidden_flags:
        raise_cl(t.routine, status_code.INVALID_OPERATION,
                 f"the buffer was made with {mem_flags.to_string(buf.flags & t.forbidden_flags)}")
    events = queue.check_wait_for(wait_for, t.routine)
    driver = queue.driver
    alloc, base = buf.allocation(driver)
    move = driver.read if t.host_is_destination else driver.write
    if not events:
        evt = queue.transfer_now(t.command, move, (alloc, base + offset, view), buf.storage, blocking)
        if evt is not None:
            return evt

    def action() -> Any:
        return move(alloc, base + offset, view)  # (a driver's DONE: see drivers/base.py)

    access = READ if t.host_is_destination else _write_access(buf, base + offset, view.nbytes)
    return queue.enqueue_command(t.command, action, events, blocking=blocking,
                                 ward=host, keepalive=(buf.storage,), storages=((buf.storage, access),))


def _write_access(buf: Buffer, start: int, nbytes: int) -> str:
    """DISCARD when a command overwrites every byte of the storage (a stale copy need not
    be brought over first: storage.py), else WRITE."""
    return DISCARD if start == 0 and nbytes == buf.storage.nbytes else WRITE


def _copy_buffer(queue: CommandQueue, dst: Buffer, src: Buffer, wait_for: Any,
                 kwargs: dict[str, Any]) -> Event:
    routine = "clEnqueueCopyBuffer"
    src_offset = _pop_offset(kwargs, "src_offset", ())
    dst_offset = _pop_offset(kwargs, "dst_offset", ("dest_offset",))
    byte_count = kwargs.pop("byte_count", -1)
    blocking = bool(kwargs.pop("is_blocking", False))
    _check_no_extra(kwargs)
    check_queue_and_buffer(queue, src, routine)
    check_queue_and_buffer(queue, dst, routine)
    if byte_count is None or (isinstance(byte_count, int) and byte_count < 0):
        byte_count = min(src.size - src_offset, dst.size - dst_offset)
    nbytes = as_size(byte_count, routine, "byte_count")
    check_range(routine, "reading", src_offset, nbytes, src.size)
    check_range(routine, "writing", dst_offset, nbytes, dst.size)
    if src.storage is dst.storage:
        a, b = src.offset + src_offset, dst.offset + dst_offset
        if a < b + nbytes and b < a + nbytes:
            raise_cl(routine, status_code.MEM_COPY_OVERLAP, "source and destination regions overlap")
    events = queue.check_wait_for(wait_for, routine)
    driver = queue.driver
    s_alloc, s_base = src.allocation(driver)
    d_alloc, d_base = dst.allocation(driver)

    def action() -> Any:
        if nbytes:
            return driver.copy(d_alloc, d_base + dst_offset, s_alloc, s_base + src_offset, nbytes)
        return None

    return queue.enqueue_command(command_type.COPY_BUFFER, action, events, blocking=blocking,
                                 keepalive=(src.storage, dst.storage),
                                 storages=((src.storage, READ),
                                           (dst.storage, _write_access(dst, d_base + dst_offset, nbytes))))


def enqueue_fill_buffer(queue: CommandQueue, mem: Buffer, pattern: Any, offset: int, size: int,
                        wait_for: Any = None) -> Event:
    routine = "clEnqueueFillBuffer"
    check_queue_and_buffer(queue, mem, routine)
    data = bytes(host_view(pattern, False, routine, status_code.INVALID_VALUE, "pattern"))
    plen = len(data)
    if plen == 0 or plen > 128 or plen & (plen - 1):
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"pattern size must be a power of two from 1 to 128 bytes, got {plen}")
    offset = as_size(offset, routine, "offset")
    size = as_size(size, routine, "size")
    if offset % plen or size % plen:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"offset ({offset}) and size ({size}) must be multiples of the pattern size ({plen})")
    check_range(routine, "filling", offset, size, mem.size)
    events = queue.check_wait_for(wait_for, routine)
    driver = queue.driver
    alloc, base = mem.allocation(driver)

    def action() -> None:
        if size:
            driver.fill(alloc, base + offset, data, size)

    return queue.enqueue_command(command_type.FILL_BUFFER, action, events, keepalive=(mem.storage,),
                                 storages=((mem.storage, _write_access(mem, base + offset, size)),))


def enqueue_fill(queue: CommandQueue, dest: Any, pattern: Any, size: int, *, offset: int = 0,
                 wait_for: Any = None) -> Event:
    """PyOpenCL's enqueue_fill: enqueue_fill_buffer with keyword offset (buffers only: oclpy has no SVM)."""
    if not isinstance(dest, Buffer):
        raise TypeError(f"enqueue_fill does not know how to fill '{type(dest)}'")
    return enqueue_fill_buffer(queue, dest, pattern, offset, size, wait_for)

