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
from .storage import READ, WRITE
from .transfer_checks import HOST_NO_READ, HOST_NO_WRITE, check_queue_and_buffer, check_range

ALL_MAP_FLAGS = map_flags.READ | map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION
WRITE_FLAGS = map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION
MAX_DIMS = 64 if int(np.__version__.split(".")[0]) >= 2 else 32  # numpy's NPY_MAXDIMS


class MemoryMap:
    """A mapped region of a buffer or an image; numpy arrays made from it keep it (and the
    memory) alive. `staging` is the host copy the arrays view (None when they view the
    memory itself); `rows` are its runs, (offset in the storage, offset in `staging`,
    bytes), that a WRITE map copies back when it is released."""

    def __init__(self, queue: CommandQueue, mem: Any, flags: int, layout: dict[str, Any],
                 staging: memoryview | None, rows: list[tuple[int, int, int]]) -> None:
        self.queue, self.mem, self.flags = queue, mem, flags
        self.layout, self.staging, self.rows = layout, staging, rows
        self.storage = mem.storage
        self.released = False

    @property
    def __array_interface__(self) -> dict[str, Any]:
        return self.layout

    def release(self, queue: CommandQueue | None = None, wait_for: Any = None) -> Event:
        """clEnqueueUnmapMemObject: a WRITE map's host copy goes back to the memory."""
        if self.released:
            raise_cl("MemoryMap.release", status_code.INVALID_VALUE, "the map was already released")
        queue = queue or self.queue
        events = queue.check_wait_for(wait_for, "clEnqueueUnmapMemObject")
        self.released = True
        driver, staging, rows = queue.driver, self.staging, self.rows
        wrote = bool(self.flags & WRITE_FLAGS)
        alloc = self.storage.on(driver) if wrote and staging is not None else None

        def action() -> None:
            if alloc is not None and staging is not None:
                for at, host, nbytes in rows:
                    driver.write(alloc, at, staging[host:host + nbytes])

        return queue.enqueue_command(command_type.UNMAP_MEM_OBJECT, action, events,
                                     keepalive=(self.storage, staging),
                                     storages=((self.storage, WRITE if wrote else READ),))

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
        copy = np.empty(max(nbytes, 1), np.uint8)
        staging, address = copy.data, copy.ctypes.data
    else:
        address += base + offset
    iface["data"] = (address, False)  # writable even for READ, as PyOpenCL (READ maps copy nothing back)
    events = queue.check_wait_for(wait_for, routine)

    def action() -> None:
        if staging is not None and flags & map_flags.READ and nbytes:
            driver.read(alloc, base + offset, staging[:nbytes])

    mmap = MemoryMap(queue, buf, flags, iface, staging, [(base + offset, 0, nbytes)] if nbytes else [])
    evt = queue.enqueue_command(command_type.MAP_BUFFER, action, events, blocking=is_blocking,
                                keepalive=(buf.storage,), storages=(buf.storage,))
    return np.asarray(mmap), evt
