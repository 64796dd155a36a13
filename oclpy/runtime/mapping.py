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
from .errors import as_list, raise_cl, status_code
from .event import Event
from .memory import Buffer, as_size
from .queue import CommandQueue
from .transfer_checks import HOST_NO_READ, HOST_NO_WRITE, check_queue_and_buffer, check_range

ALL_MAP_FLAGS = map_flags.READ | map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION
WRITE_FLAGS = map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION
MAX_DIMS = 64 if int(np.__version__.split(".")[0]) >= 2 else 32  # numpy's NPY_MAXDIMS


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


def array_layout(shape: Any, dtype: np.dtype, order: str, strides: Any,
                 routine: str = "clEnqueueMapBuffer") -> tuple[dict[str, Any], int]:
    """numpy's __array_interface__ for a map (its "data" is filled in later), and the
    bytes it spans from the map's start; INVALID_VALUE for a shape or strides that a numpy
    array cannot have or that reach before the map's start."""
    dims = (shape,) if isinstance(shape, int) or hasattr(shape, "__index__") else shape
    dims = tuple(as_size(d, routine, "a map's shape dimension")
                 for d in as_list(dims, routine, status_code.INVALID_VALUE, "shape"))
    if len(dims) > MAX_DIMS:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"a map has at most {MAX_DIMS} dimensions, got {len(dims)}")
    if strides is None:
        steps = _contiguous_strides(dims, dtype.itemsize, order in ("F", "f"))
    else:
        steps = tuple(_as_stride(s, routine) for s in as_list(strides, routine, status_code.INVALID_VALUE, "strides"))
        if len(steps) != len(dims):
            raise_cl(routine, status_code.INVALID_VALUE,
                     f"{len(steps)} strides for a shape of {len(dims)} dimensions")
    low = sum(min(0, (d - 1) * s) for d, s in zip(dims, steps))
    high = sum(max(0, (d - 1) * s) for d, s in zip(dims, steps)) + dtype.itemsize
    span = 0 if 0 in dims else high
    if low < 0 and span:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"strides {steps} reach {-low} bytes before the start of the map")
    if span >= 1 << 63:
        raise_cl(routine, status_code.INVALID_VALUE, f"a map of shape {dims} spans {span} bytes")
    iface = {"shape": dims, "typestr": dtype.str, "descr": dtype.descr, "data": (0, False),
             "strides": steps, "version": 3}
    return iface, span


def _as_stride(value: Any, routine: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise_cl(routine, status_code.INVALID_VALUE, f"a stride must be an integer, got {value!r}")


def map_dtype(dtype: Any, routine: str = "clEnqueueMapBuffer") -> np.dtype:
    """A numpy dtype of plain bytes: objects (pointers) can never live in a map."""
    try:
        result = np.dtype(dtype)
    except (TypeError, ValueError) as exc:
        raise_cl(routine, status_code.INVALID_VALUE, f"invalid dtype {dtype!r}: {exc}")
    if result.hasobject:
        raise_cl(routine, status_code.INVALID_VALUE, f"a map cannot hold Python objects (dtype {result})")
    return result


def enqueue_map_buffer(queue: CommandQueue, buf: Buffer, flags: int, offset: int, shape: Any,
                       dtype: Any, order: str = "C", strides: Any = None, wait_for: Any = None,
                       is_blocking: bool = True) -> tuple[np.ndarray, Event]:
    routine = "clEnqueueMapBuffer"
    check_queue_and_buffer(queue, buf, routine)
    if not isinstance(flags, int) or flags & ~ALL_MAP_FLAGS:
        raise_cl(routine, status_code.INVALID_VALUE, f"invalid map_flags value {flags!r}")
    if flags & map_flags.READ and buf.flags & HOST_NO_READ or flags & WRITE_FLAGS and buf.flags & HOST_NO_WRITE:
        raise_cl(routine, status_code.INVALID_OPERATION, "the buffer's host access flags forbid this map")
    dtype = map_dtype(dtype)
    offset = as_size(offset, routine, "offset")
    iface, nbytes = array_layout(shape, dtype, order, strides)
    check_range(routine, "mapping", offset, nbytes, buf.size)
    driver = queue.driver
    alloc, base = buf.allocation(driver)
    address = driver.host_address(alloc)
    staging = None
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
