"""Launching generated kernels: argument values, wait lists, queues and sizes.

A generated kernel's pointer argument takes a device array or a Buffer. A
device array is a `DeviceArray`: `oclpy.array.Array` derives from it, so the
generators below `oclpy.array` tell arrays from buffers and scalars without
importing it, and use only the attributes declared here.

- `kernel_arg_values(args, values)`: the values a launch passes, a
  (buffer, byte offset) pair for an offset pointer argument;
- `wait_list(values, wait_for)`: `wait_for` plus the pending events of the
  array arguments (each array remembers the events that write it);
- `call_queue(name, args, values, queue)`: the queue a call runs on;
- `launch_size`, `group_size`: the global and local sizes of a launch.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .arguments import DtypedArgument, VectorArg

MAX_GROUPS = 1 << 20


class DeviceArray:
    """What a generated kernel's launch needs of an array (oclpy.array.Array is one).

    `base_data` is its Buffer (None when empty), `offset` its first byte in
    it, `events` the events still writing it; `add_event(evt)` records one
    more. A generator that must make an array makes one of the class of an
    array it was given, with the Array constructor's arguments.
    """

    __slots__ = ()
    queue: Any
    context: Any
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    size: int
    base_data: Any
    offset: int
    events: list[Any]
    allocator: Any
    flags: Any  # .c_contiguous, .f_contiguous, .forc

    def add_event(self, evt: Any) -> None:
        raise NotImplementedError


def kernel_arg_values(args: Sequence[DtypedArgument], values: Sequence[Any]) -> list[Any]:
    """The launch's values: (buffer, offset) for offset pointers, dtype-converted scalars."""
    out: list[Any] = []
    for arg, value in zip(args, values):
        if isinstance(arg, VectorArg):
            buf, off = (value.base_data, value.offset) if isinstance(value, DeviceArray) else (value, 0)
            out.extend((buf, np.int64(off)) if arg.with_offset else (buf,))
        elif isinstance(value, np.ndarray) and value.dtype == arg.dtype:
            out.append(value)
        elif arg.dtype.fields is not None:
            if np.iscomplexobj(value):  # a complex scalar for a float2/double2 argument
                value = (complex(value).real, complex(value).imag)
            out.append(np.asarray(value, dtype=arg.dtype))
        else:
            out.append(arg.dtype.type(value))
    return out


def wait_list(values: Sequence[Any], wait_for: Any) -> list[Any]:
    """`wait_for` and the pending events of the arrays among `values`."""
    waits = list(wait_for or [])
    for value in values:
        if isinstance(value, DeviceArray):
            waits.extend(value.events)
    return waits


def first_array(args: Sequence[DtypedArgument], values: Sequence[Any]) -> DeviceArray | None:
    """The first array passed to a pointer argument, or None."""
    return next((v for a, v in zip(args, values)
                 if isinstance(a, VectorArg) and isinstance(v, DeviceArray)), None)


def call_queue(name: str, args: Sequence[DtypedArgument], values: Sequence[Any],
               queue: Any) -> tuple[Any, DeviceArray | None]:
    """(the queue a generated kernel's call runs on, its first array argument or None), after
    checking the argument count: `queue=` if given, else that array's queue."""
    if len(values) != len(args):
        raise TypeError(f"{name}: expected {len(args)} arguments, got {len(values)}")
    repr_vec = first_array(args, values)
    queue = queue or (repr_vec.queue if repr_vec is not None else None)
    if queue is None:
        raise ValueError("no queue: pass queue= or an Array argument that has one")
    return queue, repr_vec


def launch_size(queue: Any, n: int) -> tuple[tuple[int], tuple[int]]:
    """(global, local) sizes for a loop over n items: whole groups, at most MAX_GROUPS."""
    local = min(128, int(queue.device.max_work_group_size))
    groups = max(1, min(MAX_GROUPS, -(-n // local)))
    return (groups * local,), (local,)


def group_size(device: Any, limit: int = 128) -> int:
    """The largest power of two up to `limit` that `device` allows in a work-group."""
    size = 1
    while size * 2 <= min(limit, int(device.max_work_group_size)):
        size *= 2
    return size
