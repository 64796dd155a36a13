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

Programs are built for `target`, the host CPU (`compiler.host_target()`),
through the compiler's build cache (in memory, then on disk), so a program
built once is not compiled again, even by a new process.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from ...compiler import IL_VERSIONS, cache, host_target
from ..constants import (NameVersion, command_queue_properties, device_exec_capabilities, device_fp_config,
                         device_local_mem_type, device_mem_cache_type, device_type, make_version)
from .base import Allocation, DeviceDescription, Driver, NDRange

ALIGNMENT = 128  # bytes; also CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8
CHUNKS_PER_WORKER = 4  # a few per worker: a worker slowed by other processes holds back little
CHUNK_CACHE_SIZE = 256  # launch shapes whose chunks the driver remembers
MIN_ITEMS_TO_SPLIT = 512  # below this, handing chunks to other threads costs more than it saves


def compute_units() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


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
EXTENSIONS = ("cl_khr_byte_addressable_store cl_khr_fp64 "
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
        "SINGLE_FP_CONFIG": _FP_CONFIG, "DOUBLE_FP_CONFIG": _FP_CONFIG, "HALF_FP_CONFIG": 0,
        "ERROR_CORRECTION_SUPPORT": False, "PROFILING_TIMER_RESOLUTION": 1,
        "ENDIAN_LITTLE": True, "AVAILABLE": True, "COMPILER_AVAILABLE": True,
        "LINKER_AVAILABLE": False, "HOST_UNIFIED_MEMORY": True, "IMAGE_SUPPORT": False,
        "MAX_READ_IMAGE_ARGS": 0, "MAX_WRITE_IMAGE_ARGS": 0, "MAX_SAMPLERS": 0,
        "EXECUTION_CAPABILITIES": device_exec_capabilities.KERNEL,
        "QUEUE_PROPERTIES": (command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                             | command_queue_properties.PROFILING_ENABLE),
        "PREFERRED_VECTOR_WIDTH_CHAR": 16, "PREFERRED_VECTOR_WIDTH_SHORT": 8,
        "PREFERRED_VECTOR_WIDTH_INT": 4, "PREFERRED_VECTOR_WIDTH_LONG": 2,
        "PREFERRED_VECTOR_WIDTH_FLOAT": 4, "PREFERRED_VECTOR_WIDTH_DOUBLE": 2,
        "PREFERRED_VECTOR_WIDTH_HALF": 0, "NATIVE_VECTOR_WIDTH_CHAR": 16,
        "NATIVE_VECTOR_WIDTH_SHORT": 8, "NATIVE_VECTOR_WIDTH_INT": 4,
        "NATIVE_VECTOR_WIDTH_LONG": 2, "NATIVE_VECTOR_WIDTH_FLOAT": 4,
        "NATIVE_VECTOR_WIDTH_DOUBLE": 2, "NATIVE_VECTOR_WIDTH_HALF": 0,
        "PRINTF_BUFFER_SIZE": 1 << 20, "PREFERRED_INTEROP_USER_SYNC": True,
        "PARTITION_MAX_SUB_DEVICES": 0, "REFERENCE_COUNT": 1, "MAX_NUM_SUB_GROUPS": 1024,
        "NUMERIC_VERSION": (3 << 22), "HOST_CPU_MODEL": model,
        **il_info(),  # SPIR-V programs (clCreateProgramWithIL) through frontend/spirv
    }


class CpuDriver(Driver):
    kind = "cpu"
    eager = True

    def __init__(self, workers: int | None = None) -> None:
        self.units = workers or compute_units()
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._chunks: dict[int, tuple[NDRange, list[tuple[int, int]]]] = {}  # by id of the shape
        self.target = host_target()
        cache.prepare()  # the compiler version, hashed once before the first build

    def describe(self) -> DeviceDescription:
        return DeviceDescription("cpu", device_type.CPU, cpu_device_info(self.units))

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

    def write(self, dst: Allocation, offset: int, src: memoryview) -> None:
        data = np.frombuffer(src.cast("B"), dtype=np.uint8)
        dst.handle[offset:offset + data.nbytes] = data

    def read(self, src: Allocation, offset: int, dst: memoryview) -> None:
        out = np.frombuffer(dst.cast("B"), dtype=np.uint8)
        out[...] = src.handle[offset:offset + out.nbytes]

    def copy(self, dst: Allocation, dst_offset: int, src: Allocation, src_offset: int,
             nbytes: int) -> None:
        dst.handle[dst_offset:dst_offset + nbytes] = src.handle[src_offset:src_offset + nbytes]

    def fill(self, dst: Allocation, offset: int, pattern: bytes, nbytes: int) -> None:
        region = dst.handle[offset:offset + nbytes].reshape(-1, len(pattern))
        region[...] = np.frombuffer(pattern, dtype=np.uint8)

    # -- execution ------------------------------------------------------------

    def _workers(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.units,
                                                thread_name_prefix="oclpy-cpu")
            return self._pool

    def launch(self, kernel: Any, blob: Any, ndrange: NDRange) -> None:
        chunks = self._chunks.get(id(ndrange))
        if chunks is None or chunks[0] is not ndrange:
            chunks = self._split(ndrange)
        parts = chunks[1]
        if len(parts) == 1:  # one chunk: on this thread, no hand-off
            kernel.launch(blob, ndrange.work_dim, ndrange.global_size, ndrange.local_size,
                          ndrange.global_offset, parts[0][0], parts[0][1])
            return
        if not parts:
            return

        def run(begin: int, end: int) -> None:
            kernel.launch(blob, ndrange.work_dim, ndrange.global_size, ndrange.local_size,
                          ndrange.global_offset, begin, end)

        run_chunks(parts, run, self._workers(), min(self.units, len(parts)))

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


def run_chunks(chunks: list[tuple[int, int]], run: Callable[[int, int], None],
               pool: ThreadPoolExecutor, threads: int) -> None:
    """Run every chunk once, on the calling thread plus `threads - 1` pool threads.

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

    helpers: list[Future] = [pool.submit(worker) for _ in range(threads - 1)]
    worker()
    for f in helpers:
        f.result()
    if state["error"] is not None:
        raise state["error"]  # type: ignore[misc]
