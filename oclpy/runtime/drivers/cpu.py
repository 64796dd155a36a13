"""The cpu device: memory is host memory, kernels are native code run by threads.

Memory: each allocation is a numpy uint8 array aligned to 128 bytes; its
device address is the array's data pointer, so a kernel receives plain host
pointers. USE_HOST_PTR buffers wrap the user's own (writable, contiguous)
memory without copying, as CPU OpenCL implementations do.

Launches: a launch's work-groups (linear ids, dimension 0 fastest) are cut into
chunks; the calling thread and the driver's worker threads (one per compute
unit) take chunks until none are left, each calling
`CompiledKernel.launch(blob, work_dim, global, local, offset, begin, end)`,
which releases the GIL while native code runs. The chunks of a launch shape
are worked out once (the runtime reuses one NDRange object per shape); a
launch of one chunk runs on the calling thread with no hand-off.

Sub-devices (clCreateSubDevices, runtime/device.py): `sub_driver(cores)`
makes a driver of some of this one's cores; its stream and workers are pinned
to them (stream.py), every launch goes to its stream, and it shares host
memory (`memory_domain`) with every other cpu driver.

Programs are built for `target`, the host CPU (`compiler.host_target()`),
through the compiler's build cache (in memory, then on disk), so a program
built once is not compiled again, even by a new process.
"""

from __future__ import annotations

import os
import threading
from threading import get_ident
from time import perf_counter
from concurrent.futures import Future
from typing import Any, Callable

import numpy as np

from ...compiler import IL_VERSIONS, cache, host_target
from ..constants import (NameVersion, command_queue_properties, device_affinity_domain,
                         device_exec_capabilities, device_fp_config, device_local_mem_type,
                         device_mem_cache_type, device_partition_property, device_type, make_version)
from .base import DONE, Allocation, DeviceDescription, Driver, NDRange
from .stream import DEFAULT_STACK, StackPool, Stream, stack_for
from .topology import available_levels

ALIGNMENT = 128  # bytes; also CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8
CHUNKS_PER_WORKER = 4  # a few per worker: a worker slowed by other processes holds back little
CHUNK_CACHE_SIZE = 256  # launch shapes whose chunks the driver remembers
MIN_ITEMS_TO_SPLIT = 512  # below this, handing chunks to other threads costs more than it saves
SMALL_PRIVATE = 4 << 20  # private bytes that always fit the stream's stacks (see stream.py)
INLINE_PRIVATE = 256 << 10  # ... and the stack of a calling thread (a user's may be small)
QUICK_SECONDS = 0.002  # a launch shape this quick runs on the calling thread next time
_MAIN_IDENT = threading.main_thread().ident
_NO_SHAPES: dict[int, Any] = {}


def compute_units() -> int:
    return len(host_cores())


def host_cores() -> tuple[int, ...]:
    """The cores this process may run on (the cpu device's compute units)."""
    try:
        return tuple(sorted(os.sched_getaffinity(0))) or (0,)
    except (AttributeError, OSError):
        return tuple(range(max(1, os.cpu_count() or 1)))


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 << 30


def _cpu_model() -> tuple[str, int]:
    """(model name, MHz) from /proc/cpuinfo where it exists."""
    name, mhz = "", 0
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key, value = key.strip(), value.strip()
                if key == "model name" and not name:
                    name = value
                elif key == "cpu MHz" and not mhz:
                    mhz = int(float(value))
    except OSError:
        pass
    return name, mhz


def aligned_zeros(nbytes: int, alignment: int = ALIGNMENT) -> np.ndarray:
    """A zeroed uint8 array whose data pointer is a multiple of `alignment`."""
    raw = np.zeros(nbytes + alignment, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment
    return raw[start:start + nbytes]


_FP_CONFIG = (device_fp_config.DENORM | device_fp_config.INF_NAN | device_fp_config.ROUND_TO_NEAREST
              | device_fp_config.ROUND_TO_ZERO | device_fp_config.ROUND_TO_INF | device_fp_config.FMA)
EXTENSIONS = ("cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_fp16 cl_khr_3d_image_writes "
              "cl_khr_image2d_from_buffer "
              "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
              "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
              "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics cl_khr_subgroups cl_ext_float_atomics "
              "cl_khr_il_program")


def il_info() -> dict[str, Any]:
    """IL_VERSION and ILS_WITH_VERSION: the SPIR-V versions the SPIR-V frontend reads."""
    return {"IL_VERSION": " ".join(f"SPIR-V_{v}" for v in IL_VERSIONS),
            "ILS_WITH_VERSION": [NameVersion(make_version(*map(int, v.split("."))), "SPIR-V")
                                 for v in IL_VERSIONS]}


def cpu_device_info(units: int) -> dict[str, Any]:
    model, mhz = _cpu_model()
    global_mem = _physical_memory()
    return {
        "NAME": "oclpy cpu", "VENDOR": "oclpy", "VENDOR_ID": 0,
        "VERSION": "OpenCL 3.0 oclpy", "OPENCL_C_VERSION": "OpenCL C 1.2 oclpy",
        "DRIVER_VERSION": "0.1", "PROFILE": "FULL_PROFILE", "EXTENSIONS": EXTENSIONS,
        "BUILT_IN_KERNELS": "", "MAX_COMPUTE_UNITS": units, "MAX_CLOCK_FREQUENCY": mhz,
        "MAX_WORK_ITEM_DIMENSIONS": 3, "MAX_WORK_GROUP_SIZE": 1024,
        "MAX_WORK_ITEM_SIZES": [1024, 1024, 1024], "ADDRESS_BITS": 64,
        "GLOBAL_MEM_SIZE": global_mem, "MAX_MEM_ALLOC_SIZE": max(global_mem // 2, 128 << 20),
        "LOCAL_MEM_SIZE": 256 << 10, "LOCAL_MEM_TYPE": device_local_mem_type.GLOBAL,
        "MAX_CONSTANT_BUFFER_SIZE": 1 << 20, "MAX_CONSTANT_ARGS": 8,
        "MAX_PARAMETER_SIZE": 4096, "MEM_BASE_ADDR_ALIGN": ALIGNMENT * 8,
        "MIN_DATA_TYPE_ALIGN_SIZE": ALIGNMENT,
        "GLOBAL_MEM_CACHE_TYPE": device_mem_cache_type.READ_WRITE_CACHE,
        "GLOBAL_MEM_CACHELINE_SIZE": 64, "GLOBAL_MEM_CACHE_SIZE": 1 << 20,
        "SINGLE_FP_CONFIG": _FP_CONFIG, "DOUBLE_FP_CONFIG": _FP_CONFIG, "HALF_FP_CONFIG": _FP_CONFIG,
        "ERROR_CORRECTION_SUPPORT": False, "PROFILING_TIMER_RESOLUTION": 1,
        "ENDIAN_LITTLE": True, "AVAILABLE": True, "COMPILER_AVAILABLE": True,
        "LINKER_AVAILABLE": False, "HOST_UNIFIED_MEMORY": True, "IMAGE_SUPPORT": True,
        "MAX_READ_IMAGE_ARGS": 128, "MAX_WRITE_IMAGE_ARGS": 64, "MAX_READ_WRITE_IMAGE_ARGS": 64,
        "MAX_SAMPLERS": 16, "IMAGE2D_MAX_WIDTH": 16384, "IMAGE2D_MAX_HEIGHT": 16384,
        "IMAGE3D_MAX_WIDTH": 2048, "IMAGE3D_MAX_HEIGHT": 2048, "IMAGE3D_MAX_DEPTH": 2048,
        "IMAGE_MAX_BUFFER_SIZE": 1 << 16, "IMAGE_MAX_ARRAY_SIZE": 2048,
        "IMAGE_PITCH_ALIGNMENT": 1, "IMAGE_BASE_ADDRESS_ALIGNMENT": 1,  # texels: any whole-texel pitch
        "EXECUTION_CAPABILITIES": device_exec_capabilities.KERNEL,
        "QUEUE_PROPERTIES": (command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                             | command_queue_properties.PROFILING_ENABLE),
        "PREFERRED_VECTOR_WIDTH_CHAR": 16, "PREFERRED_VECTOR_WIDTH_SHORT": 8,
        "PREFERRED_VECTOR_WIDTH_INT": 4, "PREFERRED_VECTOR_WIDTH_LONG": 2,
        "PREFERRED_VECTOR_WIDTH_FLOAT": 4, "PREFERRED_VECTOR_WIDTH_DOUBLE": 2,
        "PREFERRED_VECTOR_WIDTH_HALF": 8, "NATIVE_VECTOR_WIDTH_CHAR": 16,
        "NATIVE_VECTOR_WIDTH_SHORT": 8, "NATIVE_VECTOR_WIDTH_INT": 4,
        "NATIVE_VECTOR_WIDTH_LONG": 2, "NATIVE_VECTOR_WIDTH_FLOAT": 4,
        "NATIVE_VECTOR_WIDTH_DOUBLE": 2, "NATIVE_VECTOR_WIDTH_HALF": 8,
        "PRINTF_BUFFER_SIZE": 1 << 20, "PREFERRED_INTEROP_USER_SYNC": True,
        "PARTITION_MAX_SUB_DEVICES": 0, "PARTITION_PROPERTIES": [], "PARTITION_AFFINITY_DOMAIN": 0,
        "REFERENCE_COUNT": 1, "MAX_NUM_SUB_GROUPS": 1024,
        "NUMERIC_VERSION": (3 << 22), "HOST_CPU_MODEL": model,
        **il_info(),  # SPIR-V programs (clCreateProgramWithIL) through frontend/spirv
    }


HOST_MEMORY = "host"  # the memory domain of every cpu driver (see base.Driver.memory_domain)


class CpuDriver(Driver):
    kind = "cpu"
    eager = True
    memory_domain = HOST_MEMORY
    # Kernels run on the driver's stream thread (stream.py), never inside the
    # enqueue, so a wait on the calling thread can be interrupted (Ctrl-C); the
    # stream runs its work in order, and its markers complete in that order.
    issues_markers = True
    ordered_markers = True

    def __init__(self, workers: int | None = None, cores: tuple[int, ...] | None = None) -> None:
        """The whole host (`workers` threads, default one per core), or with `cores` a
        sub-device: its stream and workers pinned to those cores, one worker per core."""
        self.pinned = cores  # a sub-device's cores, or None
        self.cores = tuple(cores) if cores else host_cores()[:workers or None]
        self.units = len(cores) if cores else (workers or compute_units())
        self._pool: StackPool | None = None
        self._pool_lock = threading.Lock()
        self._chunks: dict[int, tuple[NDRange, list[tuple[int, int]]]] = {}  # by id of the shape
        self._stream = Stream(f"oclpy-cpu-stream{_cores_tag(cores)}", cores=self.pinned)
        self._big_pools: dict[int, StackPool] = {}  # stack size -> its workers
        self.target = host_target()
        cache.prepare()  # the compiler version, hashed once before the first build

    def describe(self) -> DeviceDescription:
        info = cpu_device_info(self.units)
        info.update(partition_info(self.cores))
        return DeviceDescription("cpu", device_type.CPU, info)

    def sub_driver(self, cores: tuple[int, ...]) -> CpuDriver:
        """A driver for a sub-device of these `cores` (a subset of this driver's)."""
        return CpuDriver(cores=cores)

    # -- memory ---------------------------------------------------------------

    def allocate(self, nbytes: int) -> Allocation:
        array = aligned_zeros(nbytes)
        return Allocation(nbytes, array.ctypes.data, array)

    def wrap_host(self, host: memoryview) -> Allocation | None:
        if host.readonly or not host.contiguous:
            return None
        array = np.frombuffer(host.cast("B"), dtype=np.uint8)
        return Allocation(array.nbytes, array.ctypes.data, array, host_owned=True)

    def host_address(self, alloc: Allocation) -> int | None:
        return alloc.address

    def free(self, alloc: Allocation) -> None:
        """Nothing to do: the numpy array goes with the last reference to `alloc`."""

    # Copies run at once on the calling thread when the stream is idle (a copy is
    # bounded work; DONE then: no marker to ask for), else behind the stream's
    # work, in order.

    def write(self, dst: Allocation, offset: int, src: memoryview) -> str | None:
        if self._stream.pending:  # behind other work: the host memory may change meanwhile
            self._stream.submit(_write, (dst, offset, memoryview(bytes(src.cast("B")))))
            return None
        data = np.frombuffer(src.cast("B"), dtype=np.uint8)
        dst.handle[offset:offset + data.nbytes] = data
        return DONE

    def read(self, src: Allocation, offset: int, dst: memoryview) -> str | None:
        if self._stream.pending:
            self._stream.submit(_read, (src, offset, dst))
            return None
        out = np.frombuffer(dst.cast("B"), dtype=np.uint8)
        out[...] = src.handle[offset:offset + out.nbytes]
        return DONE

    def copy(self, dst: Allocation, dst_offset: int, src: Allocation, src_offset: int,
             nbytes: int) -> str | None:
        return self._stream.run_or_submit(_copy, (dst, dst_offset, src, src_offset, nbytes))

    def fill(self, dst: Allocation, offset: int, pattern: bytes, nbytes: int) -> str | None:
        return self._stream.run_or_submit(_fill, (dst, offset, pattern, nbytes))

    # -- completion: the stream's markers (see stream.py) ---------------------

    def completion(self, profiling: bool = False) -> Any:
        """The marker of all the stream's work so far (None when it has none left): a
        command, whatever its action did, completes after the work queued before it."""
        stream = self._stream
        if not stream.pending and stream.local.__dict__.get("mine") is None:
            return None
        return stream.pending_marker()

    def is_complete(self, marker: Any) -> bool:
        return marker.check()

    def wait_complete(self, marker: Any) -> None:
        marker.wait()

    def failure(self, marker: Any) -> BaseException | None:
        return getattr(marker, "error", None)

    def order_after(self, markers: list[Any]) -> None:
        """Nothing to do: a marker not yet complete means the stream is busy, and then
        every action of this driver goes behind it on the stream."""

    def device_times(self, start: Any, end: Any) -> tuple[int, int] | None:
        return end.times()

    def begin(self, profiling: bool = False) -> Any:
        return True if profiling else None  # device_times needs a start: the end marker has it

    def synchronize(self) -> None:
        last = self._stream.last
        if last is not None and not last.done:
            self._stream.drain()

    # -- execution ------------------------------------------------------------

    def _workers(self) -> StackPool:
        with self._pool_lock:
            if self._pool is None:
                self._pool = StackPool(self.units, DEFAULT_STACK, f"oclpy-cpu{_cores_tag(self.pinned)}",
                                       cores=self.pinned)
            return self._pool

    def launch(self, kernel: Any, blob: Any, ndrange: NDRange) -> str | None:
        """Run the launch here, or queue it on the stream: when the stream has work to
        run first, or when the main thread launches native code not known to be quick.

        Ctrl-C reaches only the main thread, and not while it is inside native code:
        a kernel of unknown duration (the first launch of each shape, or one whose
        last launch of that shape took QUICK_SECONDS or more) runs on the stream, and
        the enqueue returns at once. A shape that ran quickly before runs here, as
        does any launch from another thread (a command thread running an out-of-order
        queue's kernels side by side, a host thread of the user's): no hand-off, which
        costs more than a small kernel. The quick shape's launch is the hot path: a
        dictionary look-up and a clock read beside the native call, and DONE, so that
        the runtime asks for no marker. A sub-device runs every launch on its stream,
        whose thread and workers are pinned to its cores: never on the caller's."""
        if self.pinned:
            private = getattr(kernel, "private_bytes", None)
            stack = DEFAULT_STACK if private is None or private <= SMALL_PRIVATE else stack_for(private)
            self._stream.submit(self._run_launch, (kernel, blob, ndrange, stack))
            return None
        try:
            quick = kernel.quick_shapes
        except AttributeError:  # a test's fake kernel: Python code, interruptible
            quick = _NO_SHAPES
        shape = quick.get(id(ndrange))
        if shape is not None and shape[0] is ndrange and not self._stream.pending:
            parts = shape[1]
            start = perf_counter()
            if len(parts) == 1:
                kernel.launch(blob, ndrange.work_dim, ndrange.global_size, ndrange.local_size,
                              ndrange.global_offset, parts[0][0], parts[0][1])
            else:
                run_chunks(parts, _launcher(kernel, blob, ndrange), self._workers(),
                           min(self.units, len(parts)))
            if perf_counter() - start >= QUICK_SECONDS:
                quick.pop(id(ndrange), None)
            return DONE  # (the stream was idle: no marker to ask for)
        private = getattr(kernel, "private_bytes", None)
        stack = DEFAULT_STACK if private is None or private <= SMALL_PRIVATE else stack_for(private)
        if self._stream.pending or (private is not None and (
                private > INLINE_PRIVATE or get_ident() == _MAIN_IDENT)):
            self._stream.submit(self._run_launch, (kernel, blob, ndrange, stack))
        else:
            self._run_launch(kernel, blob, ndrange, stack)

    def _run_launch(self, kernel: Any, blob: Any, ndrange: NDRange, stack: int) -> None:
        """Run every work-group, and remember whether this shape of `kernel` was quick
        (with its chunks: `launch` runs it at once next time)."""
        start = perf_counter()
        chunks = self._chunks.get(id(ndrange))
        if chunks is None or chunks[0] is not ndrange:
            chunks = self._split(ndrange)
        parts = chunks[1]
        if len(parts) == 1 and stack == DEFAULT_STACK:  # one chunk: on this thread, no hand-off
            kernel.launch(blob, ndrange.work_dim, ndrange.global_size, ndrange.local_size,
                          ndrange.global_offset, parts[0][0], parts[0][1])
        elif parts:
            run = _launcher(kernel, blob, ndrange)
            if stack > DEFAULT_STACK:  # large private arrays: workers with room for them
                run_chunks(parts, run, self._big_pool(stack), min(self.units, len(parts)), on_caller=False)
            else:
                run_chunks(parts, run, self._workers(), min(self.units, len(parts)))
        private = getattr(kernel, "private_bytes", None)
        if private is None or private > INLINE_PRIVATE or not parts or self.pinned:
            return  # never run on the calling thread (or nothing to run)
        quick = kernel.quick_shapes  # shapes of `kernel` that ran quickly, with their chunks
        if perf_counter() - start < QUICK_SECONDS:
            if len(quick) >= CHUNK_CACHE_SIZE:
                quick.clear()
            quick[id(ndrange)] = chunks  # holds the NDRange: its id keys nothing else
        else:
            quick.pop(id(ndrange), None)

    def _big_pool(self, stack: int) -> StackPool:
        with self._pool_lock:
            pool = self._big_pools.get(stack)
            if pool is None:
                pool = self._big_pools[stack] = StackPool(self.units, stack, cores=self.pinned)
            return pool

    def _split(self, ndrange: NDRange) -> tuple[NDRange, list[tuple[int, int]]]:
        """`ndrange`'s chunks, remembered for the next launch of the same (cached) shape."""
        total = ndrange.group_count
        parts = split_groups(total, ndrange, self.units) if total else []
        if self.units == 1 and len(parts) > 1:
            parts = [(0, total)]
        found = (ndrange, parts)  # holds the NDRange, so its id keys nothing else
        if len(self._chunks) >= CHUNK_CACHE_SIZE:
            self._chunks.clear()
        self._chunks[id(ndrange)] = found
        return found


def _cores_tag(cores: tuple[int, ...] | None) -> str:
    """A sub-device's threads are named after its cores ("oclpy-cpu-stream@0.1")."""
    return "@" + ".".join(map(str, cores)) if cores else ""


def partition_info(cores: tuple[int, ...]) -> dict[str, Any]:
    """clGetDeviceInfo's partition answers for a cpu device of `cores`."""
    levels = available_levels(cores)
    domains = 0
    for level in levels:
        domains |= AFFINITY_BITS[level]
    return {"PARTITION_MAX_SUB_DEVICES": len(cores),
            "PARTITION_PROPERTIES": [device_partition_property.EQUALLY,
                                     device_partition_property.BY_COUNTS,
                                     device_partition_property.BY_AFFINITY_DOMAIN],
            "PARTITION_AFFINITY_DOMAIN": domains | device_affinity_domain.NEXT_PARTITIONABLE}


AFFINITY_BITS = {"numa": device_affinity_domain.NUMA, "L4": device_affinity_domain.L4_CACHE,
                 "L3": device_affinity_domain.L3_CACHE, "L2": device_affinity_domain.L2_CACHE,
                 "L1": device_affinity_domain.L1_CACHE}


def split_groups(total: int, ndrange: NDRange, units: int) -> list[tuple[int, int]]:
    """[begin, end) chunks of linear group ids: a few per worker, or one for a tiny launch.

    The size of a launch says little about its cost (an n-body step has 4096
    work-items, each looping over all bodies), so any launch of a few hundred
    work-items or more is spread over every worker."""
    l = ndrange.local_size
    items = total * l[0] * l[1] * l[2]
    count = 1 if items < MIN_ITEMS_TO_SPLIT else max(1, min(total, units * CHUNKS_PER_WORKER))
    size = -(-total // count)
    return [(b, min(b + size, total)) for b in range(0, total, size)]


def _write(dst: Allocation, offset: int, src: memoryview) -> None:
    data = np.frombuffer(src.cast("B"), dtype=np.uint8)
    dst.handle[offset:offset + data.nbytes] = data


def _read(src: Allocation, offset: int, dst: memoryview) -> None:
    out = np.frombuffer(dst.cast("B"), dtype=np.uint8)
    out[...] = src.handle[offset:offset + out.nbytes]


def _copy(dst: Allocation, dst_offset: int, src: Allocation, src_offset: int, nbytes: int) -> None:
    dst.handle[dst_offset:dst_offset + nbytes] = src.handle[src_offset:src_offset + nbytes]


def _fill(dst: Allocation, offset: int, pattern: bytes, nbytes: int) -> None:
    region = dst.handle[offset:offset + nbytes].reshape(-1, len(pattern))
    region[...] = np.frombuffer(pattern, dtype=np.uint8)


def _launcher(kernel: Any, blob: Any, ndrange: NDRange) -> Callable[[int, int], None]:
    def run(begin: int, end: int) -> None:
        kernel.launch(blob, ndrange.work_dim, ndrange.global_size, ndrange.local_size,
                      ndrange.global_offset, begin, end)
    return run


def run_chunks(chunks: list[tuple[int, int]], run: Callable[[int, int], None],
               pool: Any, threads: int, on_caller: bool = True) -> None:
    """Run every chunk once, on the calling thread plus `threads - 1` pool threads
    (or on `threads` pool threads and not the caller, when not `on_caller`).

    Chunks are taken from a shared cursor, so a slow chunk does not hold the
    others back; the first exception stops further chunks and is re-raised.
    """
    lock = threading.Lock()
    state = {"next": 0, "error": None}

    def worker() -> None:
        while True:
            with lock:
                i = state["next"]
                if i >= len(chunks) or state["error"] is not None:
                    return
                state["next"] = i + 1
            try:
                run(*chunks[i])
            except BaseException as exc:  # handed to the launching thread below
                with lock:
                    if state["error"] is None:
                        state["error"] = exc
                return

    helpers: list[Future] = []
    try:
        for _ in range(threads - (1 if on_caller else 0)):
            helpers.append(pool.submit(worker))
    except BaseException as exc:  # no thread for another helper: those there do the work
        if not (on_caller or helpers):
            raise exc
    if on_caller:
        worker()
    for f in helpers:
        f.result()
    if state["error"] is not None:
        raise state["error"]  # type: ignore[misc]
