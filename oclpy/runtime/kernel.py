"""Kernels: arguments, launches and the kernel info queries.

`Kernel(prg, name)` (or `prg.name`) binds the compiled kernel of every device
the program was built for. `knl(queue, global_size, local_size, *args)`
checks the argument count, binds every argument and checks the launch shape
before anything is enqueued; it works on its own snapshot of the arguments,
so several threads may launch the same Kernel object at once. A launch tries
the fast path first (`launch_plan.py`: one plan per queue, raw values packed
at once, the last shape reused); anything out of the ordinary takes the
general path (`_enqueue`). A call's arguments become the kernel's arguments
(as with set_args); those of a fast-path call are kept raw (`_last_call`) and
bound only when something asks for them (`_bound_args`).
`enqueue_nd_range_kernel(queue, knl, ...)` launches with the arguments given
earlier through `set_arg`/`set_args`.
"""

from __future__ import annotations

import struct
import threading
from typing import Any, Sequence

import numpy as np

from .constants import (info_attribute, command_type, kernel_arg_access_qualifier, kernel_arg_address_qualifier,
                        kernel_arg_info, kernel_arg_type_qualifier, kernel_info,
                        kernel_work_group_info)
from .device import Device
from .errors import LogicError, as_list, make_error, raise_cl, status_code
from .handles import Handle
from .event import Event
from .capture import capture_call
from .arg_binding import ArgPacker, BoundArg, bind_arg, bound_from_blob, local_bytes_needed
from .drivers.base import NDRange
from .launch_plan import LaunchPlan, launcher
from .ndrange import make_ndrange, plain_sizes
from .queue import CommandQueue
from .storage import READ, WRITE

ADDRESS_QUALIFIERS = {"global": kernel_arg_address_qualifier.GLOBAL,
                      "local": kernel_arg_address_qualifier.LOCAL,
                      "constant": kernel_arg_address_qualifier.CONSTANT,
                      "private": kernel_arg_address_qualifier.PRIVATE}
ACCESS_QUALIFIERS = {"none": kernel_arg_access_qualifier.NONE,
                     "read_only": kernel_arg_access_qualifier.READ_ONLY,
                     "write_only": kernel_arg_access_qualifier.WRITE_ONLY,
                     "read_write": kernel_arg_access_qualifier.READ_WRITE}
TYPE_QUALIFIERS = {"const": kernel_arg_type_qualifier.CONST,
                   "restrict": kernel_arg_type_qualifier.RESTRICT,
                   "volatile": kernel_arg_type_qualifier.VOLATILE,
                   "pipe": kernel_arg_type_qualifier.PIPE}


SHAPE_CACHE_SIZE = 64  # launch shapes remembered per kernel (a loop usually repeats one)
PLAN_CACHE_SIZE = 16  # queues whose launch plan a kernel keeps


class KernelArgCountError(LogicError, TypeError):
    """The wrong number of kernel arguments: INVALID_KERNEL_ARGS (PyOpenCL raises a TypeError)."""


class Kernel(Handle):
    """PyOpenCL's Kernel. `bind_all`, `packer_for` and `ndrange_for` serve the launch
    fast path (launch_plan.py) and capture, not PyOpenCL API."""

    def __init__(self, program: Any, name: str) -> None:
        self.program = program
        self.context = program.context
        self.function_name = name
        self._compiled: dict[Device, Any] = program.compiled_kernels(name)
        self._meta = next(iter(self._compiled.values()))
        self._params = list(self._meta.args)
        self._args: list[BoundArg | None] = [None] * len(self._params)
        self._dtypes: list[np.dtype | None] | None = None
        self._lock = threading.Lock()
        self._has_local_args = any(p.kind == "local" for p in self._params)
        self._access = [param_access(p) for p in self._params]  # READ or WRITE, per argument
        self._shapes: dict[Any, NDRange] = {}  # checked launch shapes, by sizes and device
        self._packers: dict[int, tuple[Any, ArgPacker]] = {}  # by compiled kernel
        self._plans: dict[int, LaunchPlan] = {}  # by id of the queue (the plan holds it)
        self._last_call: tuple[tuple, bytes] | None = None  # a fast-path call's (values, blob)

    # -- info -----------------------------------------------------------------------

    @property
    def num_args(self) -> int:
        return len(self._params)

    @property
    def attributes(self) -> str:
        reqd = self._meta.reqd_work_group_size
        return f"reqd_work_group_size({reqd[0]},{reqd[1]},{reqd[2]})" if reqd else ""


    def get_info(self, param: int) -> Any:
        table = {kernel_info.FUNCTION_NAME: lambda: self.function_name,
                 kernel_info.NUM_ARGS: lambda: self.num_args,
                 kernel_info.REFERENCE_COUNT: lambda: 1,
                 kernel_info.CONTEXT: lambda: self.context,
                 kernel_info.PROGRAM: lambda: self.program,
                 kernel_info.ATTRIBUTES: lambda: self.attributes}
        if param not in table:
            raise_cl("clGetKernelInfo", status_code.INVALID_VALUE)
        return table[param]()

    def __getattr__(self, name: str) -> Any:
        return info_attribute(self, name, kernel_info)

    def _compiled_for(self, device: Device, routine: str) -> Any:
        if device not in self._compiled:
            raise_cl(routine, status_code.INVALID_PROGRAM_EXECUTABLE,
                     f"kernel '{self.function_name}' was not built for {device!r}")
        return self._compiled[device]

    def get_work_group_info(self, param: int, device: Device) -> Any:
        ck = self._compiled_for(device, "clGetKernelWorkGroupInfo")
        reqd = ck.reqd_work_group_size
        with self._lock:
            bound = [a or BoundArg("value") for a in self._bound_args()]
        table = {
            kernel_work_group_info.WORK_GROUP_SIZE:
                lambda: reqd[0] * reqd[1] * reqd[2] if reqd else device.max_work_group_size,
            kernel_work_group_info.COMPILE_WORK_GROUP_SIZE: lambda: list(reqd or (0, 0, 0)),
            kernel_work_group_info.LOCAL_MEM_SIZE:
                lambda: local_bytes_needed(ck.static_local_bytes, self._params, bound),
            kernel_work_group_info.PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
                lambda: getattr(ck, "preferred_work_group_size_multiple", 1),
            kernel_work_group_info.PRIVATE_MEM_SIZE: lambda: getattr(ck, "frame_size", 0),
        }
        if param not in table:
            raise_cl("clGetKernelWorkGroupInfo", status_code.INVALID_VALUE)
        return table[param]()

    def get_arg_info(self, index: int, param: int) -> Any:
        if not 0 <= index < self.num_args:
            raise_cl("clGetKernelArgInfo", status_code.INVALID_ARG_INDEX,
                     f"argument index {index} out of range (kernel has {self.num_args})")
        arg = self._params[index]
        attrs = getattr(arg, "attrs", None) or {}
        space = attrs.get("address_qualifier") or ("private" if arg.kind == "scalar" else arg.kind)
        quals = 0
        for q in attrs.get("type_qualifiers", ()):
            quals |= TYPE_QUALIFIERS.get(q, 0)
        table = {
            kernel_arg_info.ADDRESS_QUALIFIER: lambda: ADDRESS_QUALIFIERS[space],
            kernel_arg_info.ACCESS_QUALIFIER:
                lambda: ACCESS_QUALIFIERS.get(attrs.get("access_qualifier", "none"),
                                              kernel_arg_access_qualifier.NONE),
            kernel_arg_info.TYPE_NAME: lambda: attrs.get("type_name", str(arg.type)),
            kernel_arg_info.TYPE_QUALIFIER: lambda: quals,
            kernel_arg_info.NAME: lambda: arg.name,
        }
        if param not in table:
            raise_cl("clGetKernelArgInfo", status_code.INVALID_VALUE)
        return table[param]()

    # -- arguments --------------------------------------------------------------------

    def _bind(self, index: Any, value: Any) -> BoundArg:
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self.num_args:
            raise_cl("clSetKernelArg", status_code.INVALID_ARG_INDEX,
                     f"argument index {index!r} out of range "
                     f"(kernel '{self.function_name}' has {self.num_args} arguments)")
        dtype = self._dtypes[index] if self._dtypes is not None else None
        return bind_arg(int(index), self._params[index], value, self.context, dtype)

    def bind_all(self, args: Sequence[Any]) -> list[BoundArg]:
        if len(args) != self.num_args:
            names = ", ".join(p.name for p in self._params)
            raise make_error("Kernel.set_args", status_code.INVALID_KERNEL_ARGS,
                             f"{self.function_name}: length of argument list ({len(args)}) and "
                             f"CL-generated number of arguments ({self.num_args}) do not agree "
                             f"(expected: {names})", KernelArgCountError)
        params, context, dtypes = self._params, self.context, self._dtypes
        if dtypes is None:
            return [bind_arg(i, params[i], v, context) for i, v in enumerate(args)]
        return [bind_arg(i, params[i], v, context, dtypes[i]) for i, v in enumerate(args)]

    def _bound_args(self) -> list[BoundArg | None]:
        """The arguments set so far, binding those a fast-path call kept raw (call
        with the lock held)."""
        last = self._last_call
        if last is not None:
            values, blob = last
            self._args = [bound_from_blob(p, v, blob) for p, v in zip(self._params, values)]
            if self._last_call is last:
                self._last_call = None
        return self._args

    def _set_bound(self, bound: list[BoundArg]) -> None:
        with self._lock:
            self._args = list(bound)
            self._last_call = None

    def set_arg(self, index: int, value: Any) -> None:
        bound = self._bind(index, value)
        with self._lock:
            self._bound_args()[index] = bound

    def set_args(self, *args: Any) -> None:
        self._set_bound(self.bind_all(args))

    # PyOpenCL's entries for generated argument-setting code (pyopencl.invoker, loopy):
    # flat tuples, (index, value, ...), (index, bytes, ...), (index, typechar, value, ...).

    def _set_arg_multi(self, indices_and_args: Sequence[Any]) -> None:
        for k in range(0, len(indices_and_args), 2):
            self.set_arg(indices_and_args[k], indices_and_args[k + 1])

    def _set_arg_buf_multi(self, indices_and_bufs: Sequence[Any]) -> None:
        """Raw bytes for by-value arguments (their size must be the parameter's)."""
        for k in range(0, len(indices_and_bufs), 2):
            self._set_raw(indices_and_bufs[k], bytes(indices_and_bufs[k + 1]))

    def _set_arg_buf_pack_multi(self, indices_chars_and_args: Sequence[Any]) -> None:
        """By-value arguments packed with a struct type character (b'i', b'f', ...)."""
        for k in range(0, len(indices_chars_and_args), 3):
            index, char, value = indices_chars_and_args[k:k + 3]
            char = char.decode() if isinstance(char, bytes) else char
            self._set_raw(index, struct.pack(char, value))

    def _set_raw(self, index: Any, data: bytes) -> None:
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self.num_args:
            self._bind(index, data)  # raises INVALID_ARG_INDEX
        bound = bind_arg(int(index), self._params[index], data, self.context)
        with self._lock:
            self._bound_args()[index] = bound

    def set_scalar_arg_dtypes(self, dtypes: Sequence[Any]) -> None:
        dtypes = as_list(dtypes, "Kernel.set_scalar_arg_dtypes", status_code.INVALID_VALUE, "dtypes")
        if len(dtypes) != self.num_args:
            raise make_error("Kernel.set_scalar_arg_dtypes", status_code.INVALID_KERNEL_ARGS,
                             f"length of argument list ({len(dtypes)}) and CL-generated number "
                             f"of arguments ({self.num_args}) do not agree", KernelArgCountError)
        try:
            self._dtypes = [None if t is None else np.dtype(t) for t in dtypes]
        except TypeError as exc:
            raise_cl("Kernel.set_scalar_arg_dtypes", status_code.INVALID_VALUE, f"invalid dtype: {exc}")

    set_arg_types = set_scalar_arg_dtypes

    # -- launching --------------------------------------------------------------------

    def __call__(self, queue: CommandQueue, global_size: Any, local_size: Any, *args: Any,
                 global_offset: Any = None, wait_for: Any = None, g_times_l: bool = False,
                 allow_empty_ndrange: bool = False) -> Event:
        plan = self._plans.get(id(queue))
        if plan is None or plan.queue is not queue:
            plan = self._plan_for(queue)
        if plan is not None and plan.fast and global_offset is None and not g_times_l:
            evt = plan.launch(global_size, local_size, args, wait_for)
            if evt is not None:
                return evt
        bound = self.bind_all(args)
        self._set_bound(bound)
        return self._enqueue(queue, bound, global_size, local_size, global_offset, wait_for,
                             g_times_l, allow_empty_ndrange)

    def _launch_set(self, queue: CommandQueue, bound: list[BoundArg], global_size: Any,
                    local_size: Any, wait_for: Any) -> Event | None:
        """The fast path (launch_plan.py) with the arguments set earlier; None: not taken."""
        plan = self._plans.get(id(queue))
        if plan is None or plan.queue is not queue:
            plan = self._plan_for(queue)
        if plan is None or not plan.fast:
            return None
        return plan.launch_set(bound, global_size, local_size, wait_for)

    def _enqueue(self, queue: CommandQueue, bound: list[BoundArg], global_size: Any, local_size: Any,
                 global_offset: Any, wait_for: Any, g_times_l: bool, allow_empty: bool) -> Event:
        routine = "clEnqueueNDRangeKernel"
        if not isinstance(queue, CommandQueue):
            raise_cl(routine, status_code.INVALID_COMMAND_QUEUE,
                     f"expected a CommandQueue, got {type(queue).__name__}")
        if queue.context is not self.context:
            raise_cl(routine, status_code.INVALID_CONTEXT,
                     "the queue and the kernel belong to different contexts")
        ck = self._compiled_for(queue.device, routine)
        dev = queue.device
        nd = self.ndrange_for(dev, ck, global_size, local_size, global_offset, g_times_l)
        events = queue.check_wait_for(wait_for, routine)
        if 0 in nd.global_size:  # an empty range (OpenCL 2.1 on): nothing runs, allowed or not
            return queue.enqueue_marker(events)
        self._check_local_memory(ck, bound, dev)
        for arg in bound:
            if arg.buffer is not None:
                arg.buffer.check_alive(routine)
        driver = queue.driver
        blob, keep = self.packer_for(ck).pack(bound, driver)
        storages = [(arg.buffer.storage, self._access[i]) for i, arg in enumerate(bound)
                    if arg.buffer is not None]
        run = launcher(self.context, driver)
        return queue.enqueue_command(command_type.NDRANGE_KERNEL, lambda: run(ck, blob, nd),
                                     events, keepalive=(keep, bound), storages=storages)

    def _plan_for(self, queue: Any) -> LaunchPlan | None:
        """The launch plan for `queue`, made now; None for what is not a queue of this
        context with this kernel built for its device (the general path says why)."""
        if (not isinstance(queue, CommandQueue) or queue.context is not self.context
                or queue.device not in self._compiled):
            return None
        plan = LaunchPlan(self, queue, self._compiled[queue.device])
        if len(self._plans) >= PLAN_CACHE_SIZE:
            self._plans.clear()
        self._plans[id(queue)] = plan
        return plan

    def packer_for(self, ck: Any) -> ArgPacker:
        found = self._packers.get(id(ck))
        if found is None or found[0] is not ck:
            found = self._packers[id(ck)] = (ck, ArgPacker(list(ck.args), ck.blob_size))
        return found[1]

    def ndrange_for(self, dev: Device, ck: Any, global_size: Any, local_size: Any,
                    global_offset: Any, g_times_l: bool) -> NDRange:
        """The checked launch shape, from the cache when these sizes were checked before."""
        key = None
        if plain_sizes(global_size) and plain_sizes(local_size) and plain_sizes(global_offset):
            key = (dev, global_size, local_size, global_offset, g_times_l)
            found = self._shapes.get(key)
            if found is not None:
                return found
        nd = make_ndrange(global_size, local_size, global_offset, max_group=dev.max_work_group_size,
                          max_items=dev.max_work_item_sizes, units=dev.max_compute_units,
                          reqd=ck.reqd_work_group_size, g_times_l=g_times_l,
                          auto=dev.driver.auto_group)
        if key is not None:
            if len(self._shapes) >= SHAPE_CACHE_SIZE:
                self._shapes.clear()
            self._shapes[key] = nd
        return nd

    def capture_call(self, output_file: Any, queue: CommandQueue, global_size: Any,
                     local_size: Any, *args: Any, **kwargs: Any) -> None:
        """Write this call as a stand-alone script (see capture.py)."""
        capture_call(self, output_file, queue, global_size, local_size, *args, **kwargs)

    def _check_local_memory(self, ck: Any, bound: list[BoundArg], dev: Device) -> None:
        if not self._has_local_args and not ck.static_local_bytes:
            return
        need = local_bytes_needed(ck.static_local_bytes, self._params, bound)
        if need > dev.local_mem_size:
            raise_cl("clEnqueueNDRangeKernel", status_code.OUT_OF_RESOURCES,
                     f"kernel '{self.function_name}' needs {need} bytes of local memory per "
                     f"work-group; the device has {dev.local_mem_size}")

    def __repr__(self) -> str:
        return f"<oclpy.Kernel '{self.function_name}'>"


def param_access(param: Any) -> str:
    """How a kernel may use a buffer passed for `param`: READ for a `__constant` or a
    const-qualified `__global` pointer, else WRITE (storage.py's rule needs no more)."""
    attrs = getattr(param, "attrs", None) or {}
    if param.kind == "constant" or "const" in attrs.get("type_qualifiers", ()):
        return READ
    return WRITE


def enqueue_nd_range_kernel(queue: CommandQueue, kernel: Kernel, global_work_size: Any,
                            local_work_size: Any, global_work_offset: Any = None,
                            wait_for: Any = None, g_times_l: bool = False,
                            allow_empty_ndrange: bool = False) -> Event:
    """Launch `kernel` with the arguments set earlier (set_arg / set_args)."""
    with kernel._lock:
        bound = list(kernel._bound_args())
    missing = [p.name for p, a in zip(kernel._params, bound) if a is None]
    if missing:
        raise_cl("clEnqueueNDRangeKernel", status_code.INVALID_KERNEL_ARGS,
                 f"kernel '{kernel.function_name}': argument(s) {', '.join(missing)} not set")
    if global_work_offset is None and not g_times_l:
        evt = kernel._launch_set(queue, bound, global_work_size, local_work_size, wait_for)
        if evt is not None:
            return evt
    return kernel._enqueue(queue, bound, global_work_size, local_work_size, global_work_offset,
                           wait_for, g_times_l, allow_empty_ndrange)


def enqueue_task(queue: CommandQueue, kernel: Kernel, wait_for: Any = None) -> Event:
    return enqueue_nd_range_kernel(queue, kernel, (1,), (1,), wait_for=wait_for)


__all__ = ["Kernel", "KernelArgCountError", "enqueue_nd_range_kernel", "enqueue_task"]
