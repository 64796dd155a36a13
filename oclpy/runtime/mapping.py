"""Mapping buffers into host memory: `enqueue_map_buffer` and `MemoryMap`.

`ary, evt = enqueue_map_buffer(queue, buf, map_flags.READ, 0, shape, dtype)`
returns a numpy array over the buffer's bytes whose `.base` is a `MemoryMap`,
as PyOpenCL does; `ary.base.release()` (or `with ary.base:`) unmaps it. On a
device whose memory the host can address (the cpu) the array is the buffer's
memory itself; elsewhere it is a host copy, read when mapping and written
back when unmapping a WRITE map.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .constants import command_type, map_flags
from .errors import raise_cl, status_code
from .event import Event
from .memory import Buffer
from .queue import CommandQueue
from .transfer import HOST_NO_READ, HOST_NO_WRITE, check_queue_and_buffer, check_range

ALL_MAP_FLAGS = map_flags.READ | map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION
WRITE_FLAGS = map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION


class MemoryMap:
    """A mapped region; numpy arrays made from it keep it (and the buffer memory) alive."""

    def __init__(self, queue: CommandQueue, buf: Buffer, flags: int, offset: int,
                 layout: dict[str, Any], alloc: Any, staging: np.ndarray | None) -> None:
        self.queue, self.buffer, self.flags, self.offset = queue, buf, flags, offset
        self._alloc = alloc
        self._staging = staging
        self._storage = buf.storage
        self._layout = layout
        self.released = False

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return self._layout

    def release(self, queue: CommandQueue | None = None, wait_for: Any = None) -> Event:
        if self.released:
            raise_cl("MemoryMap.release", status_code.INVALID_VALUE, "the map was already released")
        queue = queue or self.queue
        events = queue.check_wait_for(wait_for, "clEnqueueUnmapMemObject")
        self.released = True
        driver, staging, alloc = queue.driver, self._staging, self._alloc
        base = self.buffer.offset + self.offset

        def action() -> None:
            if staging is not None and self.flags & WRITE_FLAGS:
                driver.write(alloc, base, memoryview(staging).cast("B"))

        return queue._enqueue(command_type.UNMAP_MEM_OBJECT, action, events,
                              keepalive=(self._storage, staging), storages=(self._storage,))

    def __enter__(self) -> MemoryMap:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.released:
            self.release().wait()


def _contiguous_strides(shape: tuple[int, ...], itemsize: int, fortran: bool) -> tuple[int, ...]:
    dims = list(reversed(shape)) if not fortran else list(shape)
    strides, step = [], itemsize
    for dim in dims:
        strides.append(step)
        step *= dim
    return tuple(reversed(strides)) if not fortran else tuple(strides)


def _layout(shape: Any, dtype: np.dtype, order: str, strides: Any) -> tuple[dict[str, Any], int]:
    """numpy's __array_interface__ for the map (its "data" is filled in later), and its size."""
    shape = (shape,) if isinstance(shape, int) or hasattr(shape, "__index__") else tuple(shape)
    shape = tuple(operator.index(s) for s in shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if strides is None:
        strides = _contiguous_strides(shape, dtype.itemsize, order in ("F", "f"))
    iface = {"shape": shape, "typestr": dtype.str, "descr": dtype.descr, "data": (0, False),
             "strides": tuple(strides), "version": 3}
    return iface, nbytes


def enqueue_map_buffer(queue: CommandQueue, buf: Buffer, flags: int, offset: int, shape: Any,
                       dtype: Any, order: str = "C", strides: Any = None, wait_for: Any = None,
                       is_blocking: bool = True) -> tuple[np.ndarray, Event]:
    routine = "clEnqueueMapBuffer"
    check_queue_and_buffer(queue, buf, routine)
    if not isinstance(flags, int) or flags & ~ALL_MAP_FLAGS:
        raise_cl(routine, status_code.INVALID_VALUE, f"invalid map_flags value {flags!r}")
    if flags & map_flags.READ and buf.flags & HOST_NO_READ or flags & WRITE_FLAGS and buf.flags & HOST_NO_WRITE:
        raise_cl(routine, status_code.INVALID_OPERATION, "the buffer's host access flags forbid this map")
    dtype = np.dtype(dtype)
    driver = queue.driver
    alloc, base = buf.allocation(driver)
    address = driver.host_address(alloc)
    staging = None
    iface, nbytes = _layout(shape, dtype, order, strides)
    check_range(routine, "mapping", offset, nbytes, buf.size)
    if address is None:
        staging = np.empty(max(nbytes, 1), np.uint8)
        address = staging.ctypes.data
    else:
        address += base + offset
    iface["data"] = (address, not flags & WRITE_FLAGS)
    events = queue.check_wait_for(wait_for, routine)

    def action() -> None:
        if staging is not None and flags & map_flags.READ and nbytes:
            driver.read(alloc, base + offset, memoryview(staging)[:nbytes])

    mmap = MemoryMap(queue, buf, flags, offset, iface, alloc, staging)
    evt = queue._enqueue(command_type.MAP_BUFFER, action, events, blocking=is_blocking,
                         keepalive=(buf.storage,), storages=(buf.storage,))
    return np.asarray(mmap), evt
