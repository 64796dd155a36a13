"""A minimal device array, the part of `pyopencl.array` that host scripts use most.

`Array(queue, shape, dtype)` owns a Buffer (`.data`; None for an empty
array, as in PyOpenCL) holding a C-contiguous array. `to_device`, `zeros`,
`empty`, `empty_like`, `zeros_like`, `.get()`, `.set()`, `.fill()`,
`.copy()` move and fill its bytes through the queue; `+`, `-` and `*` work
elementwise (`array_elementwise.py`). Other arithmetic and indexing are not
provided: they raise NotImplementedError naming the missing part rather than
computing something wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .array_elementwise import binary
from .runtime.constants import mem_flags
from .runtime.event import Event
from .runtime.memory import Buffer
from .runtime.transfer import enqueue_copy, enqueue_fill_buffer


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


class Array:
    """A C-contiguous array in one Buffer of `queue`'s context."""

    def __init__(self, cq: Any, shape: Any, dtype: Any, order: str = "C", allocator: Any = None,
                 data: Buffer | None = None, offset: int = 0, strides: Any = None,
                 events: list[Event] | None = None) -> None:
        if order not in ("C", "c"):
            raise NotImplementedError("oclpy.array.Array supports C order only")
        self.queue = cq
        self.context = cq.context
        self.shape = _shape(shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * self.dtype.itemsize
        self.strides = strides or _c_strides(self.shape, self.dtype.itemsize)
        self.offset = offset
        self.allocator = allocator
        self.events = list(events or [])
        if data is None and self.nbytes:
            data = allocator(self.nbytes) if allocator else Buffer(self.context, mem_flags.READ_WRITE,
                                                                   self.nbytes)
        self.base_data = data

    @property
    def data(self) -> Buffer | None:
        return self.base_data

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def add_event(self, evt: Event) -> None:
        self.events.append(evt)

    def finish(self) -> None:
        for evt in self.events:
            evt.wait()
        self.events = []

    def set(self, ary: Any, queue: Any = None, async_: bool = False) -> None:
        host = np.ascontiguousarray(ary, dtype=self.dtype)
        if host.shape != self.shape:
            raise ValueError(f"shape {host.shape} does not match the array's {self.shape}")
        if self.nbytes:
            enqueue_copy(queue or self.queue, self.base_data, host, wait_for=self.events,
                         is_blocking=not async_)

    def get(self, queue: Any = None, ary: np.ndarray | None = None, async_: bool = False) -> np.ndarray:
        if ary is None:
            ary = np.empty(self.shape, self.dtype)
        elif ary.shape != self.shape or ary.dtype != self.dtype or not ary.flags.c_contiguous:
            raise TypeError("'ary' does not match the array's shape and dtype or is not contiguous")
        if self.nbytes:
            enqueue_copy(queue or self.queue, ary, self.base_data, wait_for=self.events,
                         is_blocking=not async_)
        return ary

    def fill(self, value: Any, queue: Any = None, wait_for: Any = None) -> Array:
        if self.nbytes:
            pattern = np.array(value, dtype=self.dtype)
            evt = enqueue_fill_buffer(queue or self.queue, self.base_data, pattern, 0, self.nbytes,
                                      wait_for=[*self.events, *(wait_for or [])])
            self.add_event(evt)
        return self

    def copy(self, queue: Any = None) -> Array:
        result = empty_like(self)
        if self.nbytes:
            evt = enqueue_copy(queue or self.queue, result.base_data, self.base_data,
                               wait_for=self.events)
            result.add_event(evt)
        return result

    def with_queue(self, queue: Any) -> Array:
        return Array(queue, self.shape, self.dtype, data=self.base_data, events=self.events)

    __add__ = binary("+")
    __radd__ = binary("+", reverse=True)
    __sub__ = binary("-")
    __rsub__ = binary("-", reverse=True)
    __mul__ = binary("*")
    __rmul__ = binary("*", reverse=True)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise NotImplementedError(f"oclpy.array.Array.{name} is not implemented "
                                  f"(oclpy's array supports allocation, fill, copy, get and set)")

    def __repr__(self) -> str:
        return f"<oclpy.array.Array shape={self.shape} dtype={self.dtype}>"


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return tuple(reversed(strides))


def empty(queue: Any, shape: Any, dtype: Any, order: str = "C", allocator: Any = None) -> Array:
    return Array(queue, shape, dtype, order, allocator)


def zeros(queue: Any, shape: Any, dtype: Any, order: str = "C", allocator: Any = None) -> Array:
    return empty(queue, shape, dtype, order, allocator).fill(0)


def empty_like(ary: Array, queue: Any = None, allocator: Any = None) -> Array:
    return Array(queue or ary.queue, ary.shape, ary.dtype, allocator=allocator or ary.allocator)


def zeros_like(ary: Array) -> Array:
    return empty_like(ary).fill(0)


def to_device(queue: Any, ary: Any, allocator: Any = None, async_: bool = False) -> Array:
    host = np.ascontiguousarray(ary)
    result = Array(queue, host.shape, host.dtype, allocator=allocator)
    result.set(host, async_=async_)
    return result


__all__ = ["Array", "empty", "empty_like", "to_device", "zeros", "zeros_like"]
