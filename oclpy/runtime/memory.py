"""Memory objects: `Buffer` (with sub-buffers) and `LocalMemory`.

A buffer's bytes live in a `Storage` (storage.py) shared with its
sub-buffers: one allocation per memory domain of its context's devices, and
which copies are current; a command on another device migrates the bytes on
demand, in enqueue order. The first allocation is made on the context's first
device when the buffer is created, so allocation failures surface there
(MemoryError, MEM_OBJECT_ALLOCATION_FAILURE); a buffer may be no larger than
the smallest MAX_MEM_ALLOC_SIZE of the context's devices.

Creation follows clCreateBuffer and PyOpenCL: `hostbuf` without COPY_HOST_PTR
or USE_HOST_PTR warns (as PyOpenCL does) and then fails with INVALID_HOST_PTR
(as the driver does); `size=0` with a hostbuf means the hostbuf's size.
"""

from __future__ import annotations

import operator
import threading
import warnings
from typing import Any

from .constants import mem_flags, mem_info, mem_object_type, info_attribute
from .drivers.base import Allocation, Driver
from .errors import raise_cl, status_code
from .handles import Handle
from .context import Context
from .storage import Storage

# At most one flag of each group may be set.
EXCLUSIVE_FLAG_GROUPS = [
    (mem_flags.READ_WRITE, mem_flags.WRITE_ONLY, mem_flags.READ_ONLY),
    (mem_flags.HOST_WRITE_ONLY, mem_flags.HOST_READ_ONLY, mem_flags.HOST_NO_ACCESS),
    (mem_flags.USE_HOST_PTR, mem_flags.COPY_HOST_PTR),
    (mem_flags.USE_HOST_PTR, mem_flags.ALLOC_HOST_PTR),
]
ALL_FLAGS = 0
for _name, _bit in mem_flags._names().items():
    ALL_FLAGS |= _bit
HOST_PTR_FLAGS = mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR


def check_flags(flags: Any, routine: str) -> int:
    if not isinstance(flags, int) or flags < 0 or flags & ~ALL_FLAGS:
        raise_cl(routine, status_code.INVALID_VALUE, f"invalid mem_flags value {flags!r}")
    for group in EXCLUSIVE_FLAG_GROUPS:
        set_bits = [b for b in group if flags & b]
        if len(set_bits) > 1:
            raise_cl(routine, status_code.INVALID_VALUE,
                     f"mem_flags {' and '.join(mem_flags.to_string(b) for b in set_bits)} "
                     f"are mutually exclusive")
    return flags


def host_view(obj: Any, writable: bool, routine: str, code: int = status_code.INVALID_HOST_PTR,
              what: str = "host buffer") -> memoryview:
    """A contiguous byte view of a host object (numpy array, bytes, ...), or an OpenCL error."""
    try:
        view = memoryview(obj)
    except TypeError:
        raise_cl(routine, code, f"{what} must support the buffer protocol "
                                f"(e.g. a numpy array), got {type(obj).__name__}")
    if not view.contiguous:
        raise_cl(routine, code, f"{what} must be contiguous")
    if writable and view.readonly:
        raise_cl(routine, code, f"{what} must be writable")
    return view.cast("B") if view.ndim != 1 or view.format != "B" else view


_interface_lock = threading.Lock()


def _fortran_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in shape:
        strides.append(step)
        step *= n
    return tuple(strides)


class MemoryObjectHolder(Handle):
    """PyOpenCL's base of everything a kernel takes as a memory argument."""

class MemoryObject(MemoryObjectHolder):
    type = mem_object_type.BUFFER


class Buffer(MemoryObject):
    def __init__(self, context: Any, flags: int, size: int = 0, hostbuf: Any = None,
                 *, _parent: Buffer | None = None, _origin: int = 0) -> None:
        self.context = context
        self.flags = flags
        self.parent = _parent
        self.offset = _origin
        self.released = False
        if _parent is not None:
            self.size, self.hostbuf, self.storage = size, None, _parent.storage
            return
        _check_context(context)
        check_flags(flags, "clCreateBuffer")
        size = as_size(size, "clCreateBuffer", "size", status_code.INVALID_BUFFER_SIZE)
        host, size = _host_for_buffer(flags, size, hostbuf)
        limit = min(dev.max_mem_alloc_size for dev in context.devices)
        if size <= 0 or size > limit:
            raise_cl("clCreateBuffer", status_code.INVALID_BUFFER_SIZE,
                     f"buffer size {size} is not in 1..{limit} bytes")
        self.size = size
        self.hostbuf = hostbuf if flags & mem_flags.USE_HOST_PTR else None
        mode = "r" if flags & mem_flags.READ_ONLY else "w" if flags & mem_flags.WRITE_ONLY else "rw"
        self.storage = Storage(size, context.devices[0].driver, mode)
        self.storage.create(host, bool(flags & mem_flags.USE_HOST_PTR))
        context.own(self, "clCreateBuffer")

    # -- device side --------------------------------------------------------------

    def check_alive(self, routine: str) -> None:
        if self.storage is None:
            raise_cl(routine, status_code.INVALID_MEM_OBJECT, "the buffer was released")

    def allocation(self, driver: Driver) -> tuple[Allocation, int]:
        """(allocation on `driver`, this buffer's byte offset in it); call when enqueueing."""
        assert self.storage is not None
        return self.storage.on(driver), self.offset

    # -- PyOpenCL API -------------------------------------------------------------

    def get_sub_region(self, origin: int, size: int, flags: int = 0) -> Buffer:
        self.check_alive("clCreateSubBuffer")
        if self.parent is not None:
            raise_cl("clCreateSubBuffer", status_code.INVALID_MEM_OBJECT,
                     "cannot make a sub-buffer of a sub-buffer")
        _check_sub_flags(check_flags(flags, "clCreateSubBuffer"), self.flags)
        if size <= 0:
            raise_cl("clCreateSubBuffer", status_code.INVALID_BUFFER_SIZE, "sub-buffer size must be > 0")
        if origin < 0 or origin + size > self.size:
            raise_cl("clCreateSubBuffer", status_code.INVALID_VALUE,
                     f"region [{origin}, {origin + size}) is outside the buffer's {self.size} bytes")
        align = max(dev.mem_base_addr_align for dev in self.context.devices) // 8
        if origin % align:
            raise_cl("clCreateSubBuffer", status_code.MISALIGNED_SUB_BUFFER_OFFSET,
                     f"sub-buffer origin {origin} is not a multiple of {align} bytes")
        return Buffer(self.context, flags or (self.flags & ~HOST_PTR_FLAGS), size,
                      _parent=self, _origin=origin)

    def __getitem__(self, index: slice) -> Buffer:
        if not isinstance(index, slice) or index.step not in (None, 1):
            raise TypeError("buffer subscript must be a slice with step 1")
        start, stop, _ = index.indices(self.size)
        return self.get_sub_region(start, stop - start)

    def get_info(self, param: int) -> Any:
        table = {mem_info.TYPE: lambda: self.type, mem_info.FLAGS: lambda: self.flags,
                 mem_info.SIZE: lambda: self.size, mem_info.HOST_PTR: lambda: self.hostbuf,
                 mem_info.MAP_COUNT: lambda: 0, mem_info.REFERENCE_COUNT: lambda: 1,
                 mem_info.CONTEXT: lambda: self.context,
                 mem_info.ASSOCIATED_MEMOBJECT: lambda: self.parent,
                 mem_info.OFFSET: lambda: self.offset}
        if param not in table:
            raise_cl("clGetMemObjectInfo", status_code.INVALID_VALUE)
        return table[param]()

    def __getattr__(self, name: str) -> Any:
        return info_attribute(self, name, mem_info)

    def get_host_array(self, shape: Any, dtype: Any, order: str = "C") -> Any:
        """A numpy array over a USE_HOST_PTR buffer's host memory; its `.base` is this buffer."""
        import numpy as np

        if not self.flags & mem_flags.USE_HOST_PTR or self.hostbuf is None:
            raise_cl("MemoryObject.get_host_array", status_code.INVALID_VALUE,
                     "only buffers made with USE_HOST_PTR have a host array")
        host = host_view(self.hostbuf, False, "MemoryObject.get_host_array")
        dtype = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        count = 1
        for n in shape:
            count *= n
        if count * dtype.itemsize > host.nbytes:
            raise_cl("MemoryObject.get_host_array", status_code.INVALID_VALUE,
                     f"{shape} of {dtype} does not fit the buffer's {host.nbytes} host bytes")
        address = np.frombuffer(host, np.uint8).ctypes.data
        layout = {"shape": shape, "typestr": dtype.str, "descr": dtype.descr,
                  "data": (address, host.readonly), "version": 3,
                  "strides": None if order in ("C", "c") else _fortran_strides(shape, dtype.itemsize)}
        with _interface_lock:
            self._array_layout = layout
            try:
                return np.asarray(self)  # numpy makes this buffer the array's base
            finally:
                del self._array_layout

    @property
    def __array_interface__(self) -> dict[str, Any]:
        layout = self.__dict__.get("_array_layout")
        if layout is None:
            raise AttributeError("__array_interface__")
        return layout

    def release(self) -> None:
        """Drop this buffer's hold on its memory; enqueued commands and sub-buffers keep theirs."""
        self.released = True
        self.storage = None  # type: ignore[assignment]

    @property
    def mem_size(self) -> int:
        return self.size


    def __repr__(self) -> str:
        return f"<oclpy.Buffer {self.size} bytes{' (released)' if self.released else ''}>"


def as_size(value: Any, routine: str, what: str, code: int = status_code.INVALID_VALUE) -> int:
    """A non-negative integer (Python or numpy), or an OpenCL error naming `what`."""
    try:
        number = operator.index(value)
    except TypeError:
        number = -1
    if number < 0 or isinstance(value, bool):
        raise_cl(routine, code, f"{what} must be a non-negative integer, got {value!r}")
    return number


# parent access flag -> sub-buffer access flags it forbids (clCreateSubBuffer)
_SUB_ACCESS_CONFLICTS = {
    mem_flags.WRITE_ONLY: mem_flags.READ_WRITE | mem_flags.READ_ONLY,
    mem_flags.READ_ONLY: mem_flags.READ_WRITE | mem_flags.WRITE_ONLY,
}


def _check_sub_flags(flags: int, parent: int) -> None:
    if flags & (HOST_PTR_FLAGS | mem_flags.ALLOC_HOST_PTR):
        raise_cl("clCreateSubBuffer", status_code.INVALID_VALUE,
                 "sub-buffer flags may not contain USE_HOST_PTR, ALLOC_HOST_PTR or COPY_HOST_PTR")
    for access, forbidden in _SUB_ACCESS_CONFLICTS.items():
        if parent & access and flags & forbidden:
            raise_cl("clCreateSubBuffer", status_code.INVALID_VALUE,
                     f"a sub-buffer of a {mem_flags.to_string(access)} buffer cannot be "
                     f"{mem_flags.to_string(flags & forbidden)}")


def _check_context(context: Any) -> None:
    if not isinstance(context, Context):
        raise_cl("clCreateBuffer", status_code.INVALID_CONTEXT,
                 f"expected a Context, got {type(context).__name__}")


def _host_for_buffer(flags: int, size: int, hostbuf: Any) -> tuple[memoryview | None, int]:
    if hostbuf is not None and not flags & HOST_PTR_FLAGS:
        warnings.warn("'hostbuf' was passed, but no memory flags to make use of it.",
                      UserWarning, stacklevel=4)
        raise_cl("clCreateBuffer", status_code.INVALID_HOST_PTR,
                 "hostbuf given without COPY_HOST_PTR or USE_HOST_PTR")
    if hostbuf is None:
        if flags & HOST_PTR_FLAGS:
            raise_cl("clCreateBuffer", status_code.INVALID_HOST_PTR,
                     f"{mem_flags.to_string(flags & HOST_PTR_FLAGS)} needs a hostbuf")
        return None, size
    host = host_view(hostbuf, bool(flags & mem_flags.USE_HOST_PTR), "clCreateBuffer", what="hostbuf")
    if size > host.nbytes:
        raise_cl("Buffer", status_code.INVALID_VALUE,
                 f"specified size is greater than host buffer size ({size} > {host.nbytes})")
    return host, size or host.nbytes


class LocalMemory:
    """The size of a __local pointer argument's memory, per work-group."""
    def __init__(self, size: int) -> None:
        self.size = as_size(size, "LocalMemory", "size")

    def __repr__(self) -> str:
        return f"<oclpy.LocalMemory {self.size} bytes>"
