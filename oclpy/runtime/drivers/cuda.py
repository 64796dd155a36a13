"""The cuda device: an NVIDIA GPU driven through `cuda-bindings`, kernels as PTX.

Context: the device's primary context (one per device, shared with other CUDA
users of the process), made current on each thread that calls the driver. One
driver per GPU (`ordinals`: every GPU the CUDA driver sees, or
OCLPY_CUDA_DEVICE's alone); a thread driving several GPUs switches the current
context as it goes from one to another (`_current`).

Memory: `cuMemAlloc`; an allocation's address is the device pointer a kernel
receives. Copies to and from the host go through the driver on the calling
thread's stream; large writes through pinned staging buffers whose host copy
overlaps the DMA (`cuda_staging.py`, which says what was measured;
OCLPY_CUDA_PINNED=0 turns that off).

Streams and events: by default (OCLPY_CUDA_ASYNC unset or 1) launches, device
copies and fills return as soon as they are queued on one non-blocking stream
shared by all threads, and each command's event stays RUNNING until its work
is done on the device. Its marker (`completion`, the driver hook of base.py) is
a ticket, its place in issue order, not a CUDA event: a CUDA event (a
checkpoint, `cuda_markers.py`) is recorded on the stream only when someone asks
about a command, and answers for every command before it; passed checkpoints
are reused (`recycle`). No thread watches those events
(runtime/completion.py): `Event.wait()` is cuEventSynchronize on a checkpoint,
a status query cuEventQuery, `finish()` one cuCtxSynchronize that completes
every event issued before, a dependent command on this device is simply queued
after (one stream), and with profiling each command gets timed CUDA events
around it: its start is the CUDA elapsed time from an anchor event, on the
host clock, and its end the start plus its own elapsed time (`device_times`).
Out-of-order queues run ready commands on the calling thread
(`inline_out_of_order`). Copies to the host wait for the
stream. With OCLPY_CUDA_ASYNC=0 every command waits for its own per-thread
stream before it returns (events complete when the action returns; commands of
out-of-order queues run on different threads' streams). Measured on the H200
(benchmarks/results/launch-cuda-h200-20261129-1730*.json), microseconds per
one-work-group launch, asynchronous / synchronous: 32 / 35 queued, 42 / 42
with finish() each time, 35 / 88 on an out-of-order queue, 35 / 41 chained by
wait_for; of that, cuLaunchKernel itself costs 5.5 us, cuEventRecord 1 us
(which a launch no longer makes). With the runtime's launch fast path and
tickets (benchmarks/results/launch-cuda-h200-20261129-1830-*.json, medians of
three runs; PyOpenCL on NVIDIA's OpenCL in the same runs in brackets): 16.0
(17.9) queued, 20.4 (22.8) with finish(), 16.5 (18.7) out-of-order, 16.8
(18.2) chained; synchronous (one run): 16.0, 21.6, 25.4, 16.8.

Launches: the kernel's module is loaded once per program (cubin cached on
disk, `cuda_api.load_module`), the argument blob plus the hidden global
offset, group base, number of groups and work dimension become
`cuLaunchKernel`'s parameter list (a per-thread, per-kernel `ParamBuffer`
holding the function and the pointers, its hidden part and grid rewritten only
when the launch shape changes), and `__local` arguments become dynamic shared
memory. OpenCL sets no limit on the number of work-groups; CUDA's grid holds
at most 2^31-1 blocks in x and 65,535 in y and z, so a wider NDRange runs as
several launches, each told its first group (`_launch_split`). With `timing` set the
driver records CUDA events around each launch (`last_kernel_seconds()`).
"""

from __future__ import annotations

import ctypes
import os
import struct
import threading
import time
from typing import Any

import numpy as np

from ...compiler import CUDA_MAX_ARGUMENT_BYTES, cuda_target
from ..constants import (command_queue_properties, device_local_mem_type,
                         device_mem_cache_type, device_type)
from . import cuda_api as api
from .base import DONE, Allocation, DeviceDescription, Driver, NDRange
from .cpu import cpu_device_info
from .cuda_markers import Checkpoints, Ticket
from .cuda_staging import THRESHOLD as STAGING_THRESHOLD
from .cuda_staging import Staging

REANCHOR_MS = 1000.0  # float32 milliseconds resolve 61 ns a second from the anchor
ALIGNMENT = 256  # cuMemAlloc's alignment; CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8
DEFAULT_SHARED = 48 << 10  # dynamic shared memory a kernel gets without opting in
# global offset, group base, number of groups (x, y, z each); work dimension
_HIDDEN = struct.Struct("<9qi")
CUDA_ERROR_NOT_READY = 600  # cuEventQuery: the work is not done yet
MARKER_POOL = 1024  # completed CUDA events kept for reuse
# The CUDA context each thread made current last: one thread may drive several GPUs (a
# context of several devices), so "entered" is this thread's current context being ours.
_current = threading.local()


def _host_address(view: memoryview) -> tuple[Any, int]:
    """What to hold while the driver copies from or to `view`'s bytes, and their address
    (ctypes reads a writable view's address in a third of numpy's time)."""
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    if not view.readonly:
        return view, ctypes.addressof(ctypes.c_char.from_buffer(view))
    array = np.frombuffer(view, dtype=np.uint8)
    return array, array.ctypes.data


class CudaDriver(Driver):
    kind = "cuda"
    eager = True  # an in-order queue issues its commands on the calling thread
    # 256 work-items, 64 along x: the 2048x2048 stencils gegl_edge_sobel and
    # sdk_convolution ran in (64, 4) groups at 0.65 and 0.85 of their times in
    # (1024, 1), the device's largest, and as fast as NVIDIA's OpenCL runs them with
    # no local size (benchmarks/results/local-size-cuda-h200-20261202.json).
    auto_group = (256, 64)

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return api.why_unavailable()

    @classmethod
    def ordinals(cls) -> list[int]:
        """The GPUs to drive, one driver each: OCLPY_CUDA_DEVICE's alone when it is set,
        else every GPU the CUDA driver sees."""
        chosen = os.environ.get("OCLPY_CUDA_DEVICE", "").strip()
        if chosen:
            return [int(chosen)]
        return list(range(api.device_count()))

    def __init__(self, ordinal: int | None = None) -> None:
        drv = api._driver()
        self.drv = drv
        api.call(drv.cuInit, 0)
        index = ordinal if ordinal is not None else int(os.environ.get("OCLPY_CUDA_DEVICE", 0))
        self.device = api.call(drv.cuDeviceGet, index)
        self.context = api.call(drv.cuDevicePrimaryCtxRetain, self.device)
        self.arch = api.arch_of(self.device)
        self.target = cuda_target(self.arch)  # programs are compiled for this GPU
        self.driver_version = int(api.call(drv.cuDriverGetVersion))
        self.asynchronous = os.environ.get("OCLPY_CUDA_ASYNC", "1") != "0"
        # asynchronous launches all go to one stream: their markers complete in order
        # (completion.py, queue.py), and an out-of-order queue gains nothing from
        # handing a launch that only queues work to a command thread (queue.py)
        self.ordered_markers = self.inline_out_of_order = self.issues_markers = self.asynchronous
        self.timing = False
        self.max_grid = tuple(api.attribute(self.device, f"MAX_GRID_DIM_{d}") for d in "XYZ")
        self.pinned_staging = os.environ.get("OCLPY_CUDA_PINNED", "1") != "0"
        self._local = threading.local()
        self._lock = threading.Lock()
        self._modules: dict[str, Any] = {}
        self._functions: dict[tuple[str, str], Any] = {}
        self._shared_optin: dict[tuple[str, str], int] = {}
        self._enter()
        self._shared_stream = self._new_stream()
        self._anchor: tuple[Any, int] | None = None  # (CUDA event, host ns) for device_times
        self._markers: list[Marker] = []  # completed untimed markers, for reuse
        # commands' markers on the shared stream: tickets, CUDA events only when asked
        self._checkpoints = Checkpoints(lambda: self._record(False), self.recycle)

    # -- threads, streams --------------------------------------------------------------

    def _enter(self) -> None:
        if getattr(_current, "ctx", None) is self.context:
            return
        api.call(self.drv.cuCtxSetCurrent, self.context)
        _current.ctx = self.context

    def _new_stream(self) -> Any:
        return api.call(self.drv.cuStreamCreate, self.drv.CUstream_flags.CU_STREAM_NON_BLOCKING)

    def _stream(self) -> Any:
        self._enter()
        if self.asynchronous:
            return self._shared_stream
        stream = getattr(self._local, "stream", None)
        if stream is None:
            stream = self._local.stream = self._new_stream()
        return stream

    def _wait(self, stream: Any) -> None:
        api.call(self.drv.cuStreamSynchronize, stream)

    def synchronize(self) -> None:
        self._enter()
        mark = self._checkpoints.mark()
        api.call(self.drv.cuCtxSynchronize)
        self._checkpoints.synchronized(mark)

    # -- completion markers (base.Driver's hook; runtime/completion.py) ---------------------

    def _record(self, timing: bool) -> Marker:
        """A CUDA event recorded on the calling thread's stream; untimed ones come from
        a pool of events the runtime is done with (`recycle`)."""
        if self.asynchronous and getattr(_current, "ctx", None) is self.context:
            stream = self._shared_stream
        else:
            stream = self._stream()
        marker = None
        if not timing and self._markers:
            try:
                marker = self._markers.pop()
                marker.stream = stream
            except IndexError:  # another thread took the last one
                marker = None
        if marker is None:
            flags = self.drv.CUevent_flags
            flag = flags.CU_EVENT_DEFAULT if timing else flags.CU_EVENT_DISABLE_TIMING
            marker = Marker(self.drv, api.call(self.drv.cuEventCreate, flag), stream, timing)
        status = self.drv.cuEventRecord(marker.handle, stream)[0]
        if int(status):
            raise api.CudaError(f"cuEventRecord failed: {api.error_text(status)}")
        return marker

    def recycle(self, marker: Marker | Ticket) -> None:
        """Keep a completed untimed marker for reuse. Safe: markers exist only with
        asynchronous launches, whose commands share one stream, where `order_after`
        never waits on a marker (so none is held past its event's completion)."""
        if not marker.timed and type(marker) is Marker and len(self._markers) < MARKER_POOL:
            self._markers.append(marker)

    def completion(self, profiling: bool = False) -> Marker | Ticket | None:
        """When launches are asynchronous, the marker of the calling thread's work: a
        ticket (cuda_markers.py; no driver call) or, to be timed, a CUDA event."""
        if not self.asynchronous:
            return None
        if profiling:
            return self._record(True)
        return self._checkpoints.ticket(self._shared_stream)

    def begin(self, profiling: bool = False) -> Marker | None:
        return self._record(True) if self.asynchronous and profiling else None

    def _event_of(self, marker: Marker | Ticket) -> tuple[int, Marker] | None:
        """(checkpoint number or 0, the CUDA event to ask) for `marker`; None when done."""
        if type(marker) is Ticket:
            return self._checkpoints.covering(marker)
        return 0, marker

    def is_complete(self, marker: Marker | Ticket) -> bool:
        found = self._event_of(marker)
        if found is None:
            return True
        self._enter()
        status = int(self.drv.cuEventQuery(found[1].handle)[0])
        if status == CUDA_ERROR_NOT_READY:
            return False
        if status != 0:
            raise api.CudaError(f"cuEventQuery failed: {api.error_text(status)}")
        if found[0]:
            self._checkpoints.reached(found[0])
        return True

    def wait_complete(self, marker: Marker | Ticket) -> None:
        found = self._event_of(marker)
        if found is None:
            return
        self._enter()
        api.call(self.drv.cuEventSynchronize, found[1].handle)
        if found[0]:
            self._checkpoints.reached(found[0])

    def order_after(self, markers: list[Marker | Ticket]) -> None:
        if self.asynchronous and getattr(_current, "ctx", None) is self.context:
            stream = self._shared_stream  # the common case, without _stream()'s calls
        else:
            stream = self._stream()
        for marker in markers:
            if marker.stream is stream:  # on its own stream the order holds already
                continue
            found = self._event_of(marker)
            if found is not None:
                api.call(self.drv.cuStreamWaitEvent, stream, found[1].handle, 0)

    def device_times(self, start: Marker, end: Marker) -> tuple[int, int] | None:
        """Device start/end on the host clock: the start is the elapsed time from an
        anchor event whose host time is known, the end the command's own elapsed time
        after it. cuEventElapsedTime answers in float32 milliseconds, which resolves
        3.9 us at 33 s from the anchor: so the duration never passes through the
        anchor, and a start more than REANCHOR_MS after the anchor becomes the anchor."""
        if start is None:
            return None
        anchor, host_ns = self._anchor_event()
        since = float(api.call(self.drv.cuEventElapsedTime, anchor.handle, start.handle))
        span = float(api.call(self.drv.cuEventElapsedTime, start.handle, end.handle))
        start_ns = host_ns + round(since * 1e6)
        if since > REANCHOR_MS:
            with self._lock:
                self._anchor = (start, start_ns)
        return start_ns, start_ns + round(span * 1e6)

    def _anchor_event(self) -> tuple[Marker, int]:
        with self._lock:
            if self._anchor is None:
                marker = self._record(True)
                api.call(self.drv.cuEventSynchronize, marker.handle)
                self._anchor = (marker, time.perf_counter_ns())
            return self._anchor

    # -- description ---------------------------------------------------------------------

    def describe(self) -> DeviceDescription:
        return DeviceDescription("cuda", device_type.GPU, self._info())

    def _info(self) -> dict[str, Any]:
        a = lambda name: api.attribute(self.device, name)  # noqa: E731
        name = api.call(self.drv.cuDeviceGetName, 256, self.device)
        name = name.split(b"\0")[0].decode() if isinstance(name, bytes) else str(name)
        total = int(api.call(self.drv.cuDeviceTotalMem, self.device))
        info = cpu_device_info(a("MULTIPROCESSOR_COUNT"))
        info.update({
            "NAME": name, "VENDOR": "NVIDIA Corporation (oclpy)", "VENDOR_ID": 0x10DE,
            "VERSION": "OpenCL 3.0 oclpy cuda", "DRIVER_VERSION": str(self.driver_version),
            "MAX_CLOCK_FREQUENCY": a("CLOCK_RATE") // 1000,
            "MAX_WORK_GROUP_SIZE": a("MAX_THREADS_PER_BLOCK"),
            "MAX_WORK_ITEM_SIZES": [a("MAX_BLOCK_DIM_X"), a("MAX_BLOCK_DIM_Y"),
                                    a("MAX_BLOCK_DIM_Z")],
            "GLOBAL_MEM_SIZE": total, "MAX_MEM_ALLOC_SIZE": total // 4,
            "LOCAL_MEM_SIZE": a("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
            "LOCAL_MEM_TYPE": device_local_mem_type.LOCAL,
            "MAX_CONSTANT_BUFFER_SIZE": a("TOTAL_CONSTANT_MEMORY"),
            "MAX_PARAMETER_SIZE": CUDA_MAX_ARGUMENT_BYTES,
            "MEM_BASE_ADDR_ALIGN": ALIGNMENT * 8, "MIN_DATA_TYPE_ALIGN_SIZE": ALIGNMENT,
            "GLOBAL_MEM_CACHE_TYPE": device_mem_cache_type.READ_WRITE_CACHE,
            "GLOBAL_MEM_CACHELINE_SIZE": 128, "GLOBAL_MEM_CACHE_SIZE": a("L2_CACHE_SIZE"),
            "HOST_UNIFIED_MEMORY": False, "ARCH": self.arch,
            "QUEUE_PROPERTIES": (command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                                 | command_queue_properties.PROFILING_ENABLE),
        })
        for t in ("CHAR", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "HALF"):
            info[f"PREFERRED_VECTOR_WIDTH_{t}"] = info[f"NATIVE_VECTOR_WIDTH_{t}"] = 1
        return info

    # -- memory --------------------------------------------------------------------------

    def allocate(self, nbytes: int) -> Allocation:
        self._enter()
        try:
            ptr = api.call(self.drv.cuMemAlloc, nbytes)
        except api.CudaError as exc:
            raise MemoryError(f"cuda: cannot allocate {nbytes} bytes: {exc}") from None
        return Allocation(nbytes, int(ptr), ptr)

    def free(self, alloc: Allocation) -> None:
        if self.asynchronous:  # a queued launch may still use it
            self._wait(self._stream())
        self._enter()
        api.call(self.drv.cuMemFree, alloc.handle)

    def _staging(self) -> Staging | None:
        """This thread's pinned staging buffers, when large copies are staged here."""
        if not self.pinned_staging:
            return None
        found = getattr(self._local, "staging", None)
        if found is None:
            found = self._local.staging = Staging(self.drv)
        return found

    def write(self, dst: Allocation, offset: int, src: memoryview) -> str:
        keep, host = _host_address(src)
        stream = self._stream()
        staging = self._staging() if keep.nbytes >= STAGING_THRESHOLD else None
        if staging is not None:
            staging.write(dst.address + offset, keep, stream)
            return DONE
        drv = self.drv
        api.check(drv.cuMemcpyHtoDAsync(dst.address + offset, host, keep.nbytes, stream)[0],
                  "cuMemcpyHtoDAsync")
        api.check(drv.cuStreamSynchronize(stream)[0], "cuStreamSynchronize")
        return DONE  # the stream is drained: this copy and everything before it are done

    def read(self, src: Allocation, offset: int, dst: memoryview) -> str:
        keep, host = _host_address(dst)
        stream = self._stream()
        drv = self.drv
        api.check(drv.cuMemcpyDtoHAsync(host, src.address + offset, keep.nbytes, stream)[0],
                  "cuMemcpyDtoHAsync")
        api.check(drv.cuStreamSynchronize(stream)[0], "cuStreamSynchronize")
        return DONE

    def copy(self, dst: Allocation, dst_offset: int, src: Allocation, src_offset: int,
             nbytes: int) -> None:
        stream = self._stream()
        api.call(self.drv.cuMemcpyDtoDAsync, dst.address + dst_offset,
                 src.address + src_offset, nbytes, stream)
        self._end(stream)

    def copy_from_peer(self, dst: Allocation, source: Driver, src: Allocation, nbytes: int) -> bool:
        """Another GPU's bytes, GPU to GPU (cuMemcpyPeerAsync: over NVLink or PCIe, without
        a host copy), on this GPU's stream, waited for."""
        if not isinstance(source, CudaDriver) or source is self:
            return False
        stream = self._stream()
        api.call(self.drv.cuMemcpyPeerAsync, dst.address, self.context, src.address, source.context,
                 nbytes, stream)
        self._wait(stream)
        return True

    def fill(self, dst: Allocation, offset: int, pattern: bytes, nbytes: int) -> None:
        stream = self._stream()
        address, n = dst.address + offset, len(pattern)
        setters = {1: ("cuMemsetD8Async", "<B"), 2: ("cuMemsetD16Async", "<H"),
                   4: ("cuMemsetD32Async", "<I")}
        if n in setters and address % n == 0:
            fn, fmt = setters[n]
            value = struct.unpack(fmt, pattern)[0]
            api.call(getattr(self.drv, fn), address, value, nbytes // n, stream)
            self._end(stream)
            return
        tiled = np.tile(np.frombuffer(pattern, dtype=np.uint8), nbytes // n)
        self.write(dst, offset, memoryview(tiled))

    def _end(self, stream: Any) -> None:
        """A device-side command is done: wait for it unless launches are asynchronous."""
        if not self.asynchronous:
            self._wait(stream)

    # -- execution -------------------------------------------------------------------------

    def _function(self, kernel: Any) -> Any:
        program = kernel.program
        key = (program.module_key, kernel.name)
        found = self._functions.get(key)
        if found is not None:
            return found
        with self._lock:
            module = self._modules.get(program.module_key)
            if module is None:  # one per module_key: per build for a program with variables
                module = self._modules[program.module_key] = api.load_module(
                    program.ptx, program.key, self.driver_version)
            found = api.call(self.drv.cuModuleGetFunction, module, kernel.name.encode())
            self._functions[key] = found
        return found

    def _allow_shared(self, kernel: Any, fn: Any, dynamic: int) -> None:
        key = (kernel.program.module_key, kernel.name)
        if dynamic + kernel.static_local_bytes <= DEFAULT_SHARED:
            return
        if self._shared_optin.get(key, 0) >= dynamic:
            return
        attr = self.drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        api.call(self.drv.cuFuncSetAttribute, fn, attr, dynamic)
        self._shared_optin[key] = dynamic

    def launch(self, kernel: Any, blob: Any, ndrange: NDRange) -> None:
        local = self._local
        if self.asynchronous and getattr(_current, "ctx", None) is self.context:
            stream = self._shared_stream  # the common case, without _stream()'s calls
        else:
            stream = self._stream()
        buffers = getattr(local, "params", None)
        params = buffers.get(id(kernel)) if buffers is not None else None
        if params is None or params.kernel is not kernel:
            params = self._params(kernel)
        dynamic = kernel.dynamic_local_bytes(blob) if params.has_local else 0
        if dynamic:
            self._allow_shared(kernel, params.function, dynamic)
        shape = params.fill(blob, ndrange)
        timer = self._timer(stream) if self.timing else None
        if params.split:
            self._launch_split(params, ndrange, dynamic, stream)
        else:
            status = self.drv.cuLaunchKernel(params.function, *shape, dynamic, stream,
                                             params.pointers_address, 0)[0]
            if int(status):
                raise api.CudaError(f"cuLaunchKernel failed: {api.error_text(status)}")
        if timer is not None:
            api.call(self.drv.cuEventRecord, timer[1], stream)
        if not self.asynchronous:
            self._wait(stream)
        if timer is not None:
            self._wait(stream)
            ms = api.call(self.drv.cuEventElapsedTime, timer[0], timer[1])
            self._local.kernel_seconds = float(ms) / 1e3

    def _launch_split(self, params: ParamBuffer, ndrange: NDRange, dynamic: int,
                      stream: Any) -> None:
        """An NDRange with more work-groups in a dimension than CUDA's grid allows, as
        consecutive launches of at most max_grid groups each: each launch's group base
        tells the kernel where its groups start (nvvm_intrinsics.py)."""
        total, local = ndrange.num_groups, ndrange.local_size
        limit = self.max_grid
        for gz in range(0, total[2], limit[2]):
            for gy in range(0, total[1], limit[1]):
                for gx in range(0, total[0], limit[0]):
                    base = (gx, gy, gz)
                    grid = [min(limit[d], total[d] - base[d]) for d in range(3)]
                    params.pack_hidden(ndrange, base)
                    status = self.drv.cuLaunchKernel(params.function, *grid, *local, dynamic,
                                                     stream, params.pointers_address, 0)[0]
                    if int(status):
                        raise api.CudaError(f"cuLaunchKernel failed: {api.error_text(status)}")

    def _params(self, kernel: Any) -> ParamBuffer:
        """This thread's parameter buffer (and function) for `kernel`."""
        buffers = getattr(self._local, "params", None)
        if buffers is None:
            buffers = self._local.params = {}
        found = buffers.get(id(kernel))
        if found is None or found.kernel is not kernel:
            found = buffers[id(kernel)] = ParamBuffer(kernel, self._function(kernel), self.max_grid)
        return found

    def _timer(self, stream: Any) -> tuple[Any, Any]:
        events = getattr(self._local, "events", None)
        if events is None:
            flags = self.drv.CUevent_flags.CU_EVENT_DEFAULT
            events = self._local.events = (api.call(self.drv.cuEventCreate, flags),
                                           api.call(self.drv.cuEventCreate, flags))
        api.call(self.drv.cuEventRecord, events[0], stream)
        return events

    def last_kernel_seconds(self) -> float | None:
        """GPU time of this thread's last launch (CUDA events; needs `timing`)."""
        return getattr(self._local, "kernel_seconds", None)


class Marker:
    """A CUDA event marking where a command's work ends on its stream; destroyed with
    the last reference (the driver keeps an event recorded until it completes)."""

    __slots__ = ("drv", "handle", "stream", "timed")

    def __init__(self, drv: Any, handle: Any, stream: Any, timed: bool = False) -> None:
        self.drv, self.handle, self.stream, self.timed = drv, handle, stream, timed

    def __del__(self) -> None:
        try:
            self.drv.cuEventDestroy(self.handle)
        except Exception:  # interpreter exit: the context may be gone already
            pass


class ParamBuffer:
    """`cuLaunchKernel`'s function and kernelParams for one kernel on one thread: one
    pointer per parameter into a copy of the argument blob followed by the hidden
    parameters (see targets/llvm/nvptx.py). The driver copies the parameters at
    launch, so the buffer is reused by the thread's next launch of the kernel; the
    hidden parameters and the grid are rewritten only when the launch shape changes
    (the runtime reuses one NDRange object per shape). A shape wider than the grid
    allows is `split` (CudaDriver._launch_split packs each part's hidden parameters)."""

    def __init__(self, kernel: Any, function: Any, max_grid: tuple[int, ...]) -> None:
        self.kernel = kernel  # held, so the id keying this buffer is not reused
        self.function = function
        self.has_local = any(arg.kind == "local" for arg in kernel.args)
        self.hidden_at = kernel.hidden_offset
        self.data = ctypes.create_string_buffer(self.hidden_at + _HIDDEN.size)
        self.view = memoryview(self.data).cast("B")
        base = ctypes.addressof(self.data)
        offsets = kernel.param_offsets
        self.pointers = (ctypes.c_void_p * len(offsets))(*[base + o for o in offsets])
        self.pointers_address = ctypes.addressof(self.pointers)
        self.max_grid = max_grid
        self.ndrange: NDRange | None = None
        self.shape: tuple[int, ...] = ()
        self.split = False

    def fill(self, blob: bytes, ndrange: NDRange) -> tuple[int, ...]:
        """Copy the arguments in; the grid and block sizes (6 ints) of the launch."""
        at = self.hidden_at
        if len(blob) == at:
            self.view[:at] = blob
        else:
            n = min(len(blob), at)
            self.view[:n] = blob[:n]
        if ndrange is not self.ndrange:
            groups = ndrange.num_groups
            self.split = any(n > m for n, m in zip(groups, self.max_grid))
            self.pack_hidden(ndrange, (0, 0, 0))
            self.shape = (*groups, *ndrange.local_size)
            self.ndrange = ndrange
        return self.shape

    def pack_hidden(self, ndrange: NDRange, group_base: tuple[int, int, int]) -> None:
        _HIDDEN.pack_into(self.view, self.hidden_at, *ndrange.global_offset, *group_base,
                          *ndrange.num_groups, ndrange.work_dim)
