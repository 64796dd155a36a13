"""The simt device: oclpy's own GPU, its kernels run by the NumPy simulator.

The device is the one the environment configures (`OCLPY_SIMT_WAVE`,
`OCLPY_SIMT_SGPRS`, `OCLPY_SIMT_VGPRS`: wave width and register files,
`targets/simt/device_config.py`); programs are built for its Target
(`compiler.simt_target(machine)`), through the build cache like every
device's, so they come allocated for its register files.

Memory: one simulated global address space (`sim_memory.GlobalMemory`); an
allocation's address is the 64-bit device address a kernel receives. Reads,
writes, copies and fills go to the simulator's arena. Everything is
synchronous host work (`eager`), under one lock: the simulator runs one
launch at a time.

Launches: the runtime's argument blob becomes the kernarg segment's explicit
part (`simt_program.kernarg_blob`: `__local` arguments as offsets, then the
address of the program's `__constant` block). The program's data blocks,
`__constant` and program-scope `__global` variables, are loaded at its first
launch (`simt_program.load_data`: allocated, their address slots relocated)
and kept while it lives; each build has its own (the compiler hands each
build a copy of a program with `__global` data: `simt_program.program_instance`); the simulator
runs every work-group of the NDRange (`simulator.run_kernel`), its code decoded
once per compiled module (`load_program`). A kernel that breaks the machine's rules (an access out of
every buffer, barrier divergence) raises `SimError`, naming the instruction,
the wave and the lane; under `OCLPY_CHECK` (`runtime/checking.py`) the
launch runs with the checker instead, which reports what it finds (naming
the arguments' buffers, `check.check_session.arg_buffers`) and goes on.
Buffers remember their kernel access mode (`set_access`) for the checker. A
kernel that calls printf gets a fresh printf buffer of `PRINTF_BUFFER_BYTES`
per launch; its records are formatted
(`runtime/printf_records.py`) and written to stdout when the launch ends.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict
from typing import Any

from ...compiler import cache, simt_target
from ...targets.simt.device_config import SimtMachine, machine_from_env
from ...targets.simt.check.check_session import Checker, Launch, arg_buffers
from ...targets.simt.machine import MModule
from ...targets.simt.memory_model import BUFFER_ALIGN, LOCAL_MEMORY_BYTES
from ...targets.simt.sim_memory import GlobalMemory
from ...targets.simt.simt_program import SimtKernel, SimtProgram, kernarg_blob, load_data
from ...targets.simt.simulator import Program, SimConfig, load_program, run_kernel
from .. import checking
from ..printf_records import format_records, new_buffer_header
from ..constants import command_queue_properties, device_local_mem_type, device_type
from .base import Allocation, DeviceDescription, Driver, NDRange
from .cpu import cpu_device_info

ALIGNMENT = BUFFER_ALIGN  # CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8
GLOBAL_MEMORY = 1 << 30  # what the device reports; the arena grows as buffers come
PRINTF_BUFFER_BYTES = 1 << 20  # CL_DEVICE_PRINTF_BUFFER_SIZE
PROGRAMS_KEPT = 64  # decoded programs the driver keeps (least recently used dropped)
EXTENSIONS = ("cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_fp16 cl_khr_3d_image_writes "
              "cl_khr_image2d_from_buffer "
              "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics "
              "cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics "
              "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics")


def simt_device_info(machine: SimtMachine) -> dict[str, Any]:
    """A GPU-like device: 64 KiB of local memory, work-groups of up to 1024, our extensions."""
    info = cpu_device_info(1)
    info.update({
        "NAME": f"oclpy simt (wave {machine.wave_width}, {machine.sgprs} sgprs, {machine.vgprs} vgprs)",
        "VERSION": "OpenCL 3.0 oclpy simt", "EXTENSIONS": EXTENSIONS, "MAX_COMPUTE_UNITS": 1,
        "MAX_CLOCK_FREQUENCY": 0, "MAX_WORK_GROUP_SIZE": 1024, "MAX_WORK_ITEM_SIZES": [1024, 1024, 1024],
        "GLOBAL_MEM_SIZE": GLOBAL_MEMORY, "MAX_MEM_ALLOC_SIZE": GLOBAL_MEMORY // 4,
        "LOCAL_MEM_SIZE": LOCAL_MEMORY_BYTES, "LOCAL_MEM_TYPE": device_local_mem_type.LOCAL,
        "MEM_BASE_ADDR_ALIGN": ALIGNMENT * 8, "MIN_DATA_TYPE_ALIGN_SIZE": ALIGNMENT,
        "HOST_UNIFIED_MEMORY": False, "PRINTF_BUFFER_SIZE": PRINTF_BUFFER_BYTES, "HOST_CPU_MODEL": "",
        "QUEUE_PROPERTIES": (command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                             | command_queue_properties.PROFILING_ENABLE),
        "PREFERRED_VECTOR_WIDTH_CHAR": 1, "PREFERRED_VECTOR_WIDTH_SHORT": 1, "PREFERRED_VECTOR_WIDTH_INT": 1,
        "PREFERRED_VECTOR_WIDTH_LONG": 1, "PREFERRED_VECTOR_WIDTH_FLOAT": 1, "PREFERRED_VECTOR_WIDTH_DOUBLE": 1,
        "NATIVE_VECTOR_WIDTH_CHAR": 1, "NATIVE_VECTOR_WIDTH_SHORT": 1, "NATIVE_VECTOR_WIDTH_INT": 1,
        "NATIVE_VECTOR_WIDTH_LONG": 1, "NATIVE_VECTOR_WIDTH_FLOAT": 1, "NATIVE_VECTOR_WIDTH_DOUBLE": 1,
        "MAX_NUM_SUB_GROUPS": 1024 // machine.wave_width,
    })
    return info


class SimtDriver(Driver):
    kind = "simt"
    eager = True

    def __init__(self, machine: SimtMachine | None = None) -> None:
        self.machine = machine or machine_from_env()
        self.target = simt_target(self.machine)
        self.config = SimConfig(self.machine.wave_width, self.machine.sgprs, self.machine.vgprs)
        self.memory = GlobalMemory()
        self._lock = threading.RLock()
        self._programs: OrderedDict[int, tuple[MModule, Program]] = OrderedDict()
        self.checker = Checker(checking.SESSION.log)  # runs a launch's checks when OCLPY_CHECK asks
        self._data: dict[int, tuple[int, int]] = {}  # id(program) -> its data blocks' addresses
        cache.prepare()

    def describe(self) -> DeviceDescription:
        return DeviceDescription("simt", device_type.GPU, simt_device_info(self.machine))

    # -- memory ---------------------------------------------------------------

    def allocate(self, nbytes: int) -> Allocation:
        if nbytes > GLOBAL_MEMORY // 4:
            raise MemoryError(f"{nbytes} bytes is more than one simt allocation may take")
        with self._lock:
            return Allocation(nbytes, self.memory.alloc(nbytes, name="buffer"), None)

    def free(self, alloc: Allocation) -> None:
        with self._lock:
            self.memory.free(alloc.address)

    def set_access(self, alloc: Allocation, mode: str) -> None:
        with self._lock:
            self.memory.set_mode(alloc.address, mode)

    def write(self, dst: Allocation, offset: int, src: memoryview) -> None:
        with self._lock:
            self.memory.write(dst.address + offset, bytes(src.cast("B")))

    def read(self, src: Allocation, offset: int, dst: memoryview) -> None:
        out = dst.cast("B")
        with self._lock:
            out[:] = self.memory.read(src.address + offset, len(out))

    def copy(self, dst: Allocation, dst_offset: int, src: Allocation, src_offset: int,
             nbytes: int) -> None:
        with self._lock:
            self.memory.write(dst.address + dst_offset, self.memory.read(src.address + src_offset, nbytes))

    def fill(self, dst: Allocation, offset: int, pattern: bytes, nbytes: int) -> None:
        with self._lock:
            self.memory.write(dst.address + offset, bytes(pattern) * (nbytes // len(pattern)))

    # -- execution ------------------------------------------------------------

    def decoded(self, program: SimtProgram) -> Program:
        """The simulator's decoded form of `program`'s module, made once (the copies of
        `simt_program.program_instance` share it)."""
        key = id(program.module)
        found = self._programs.get(key)
        if found is None or found[0] is not program.module:
            found = (program.module, load_program(program.module, self.config))
            self._programs[key] = found
            while len(self._programs) > PROGRAMS_KEPT:
                self._programs.popitem(last=False)
        self._programs.move_to_end(key)
        return found[1]

    def constants_of(self, program: SimtProgram) -> int:
        """The address of `program`'s `__constant` block (0: none): its data blocks are
        loaded at its first launch (`simt_program.load_data`), kept while the program lives
        (OpenCL 2.0's program-scope variables keep their values between launches), freed
        with it."""
        if not program.constant_data:
            return 0
        with self._lock:
            addresses = self._data.get(id(program))
            if addresses is None:
                addresses = load_data(program, self.memory)
                self._data[id(program)] = addresses
                weakref.finalize(program, self._free_data, id(program))
            return addresses[0]

    def _free_data(self, key: int) -> None:
        with self._lock:
            for address in self._data.pop(key, ()):
                if address:
                    self.memory.free(address)

    def launch(self, kernel: SimtKernel, blob: Any, ndrange: NDRange) -> None:
        explicit, local = kernarg_blob(kernel, blob, self.constants_of(kernel.program))
        dims = ndrange.work_dim
        with self._lock:
            printf_buffer = 0
            if kernel.uses_printf:
                printf_buffer = self.memory.alloc(PRINTF_BUFFER_BYTES, name="printf")
                self.memory.write(printf_buffer, new_buffer_header(PRINTF_BUFFER_BYTES))
            decoded = self.decoded(kernel.program)
            checker, launch = None, None
            if checking.requested():
                checker = self.checker
                checking.SESSION.sources.update(kernel.program.sources)
                launch = Launch(kernel.name, decoded.near_locs, arg_buffers(kernel, explicit, self.memory),
                                sources=kernel.program.sources)
            try:
                run_kernel(decoded, kernel.name, self.memory,
                           global_size=ndrange.global_size[:dims], local_size=ndrange.local_size[:dims],
                           global_offset=ndrange.global_offset[:dims], args=explicit, local_bytes=local,
                           private_bytes=kernel.private_bytes, printf_buffer=printf_buffer,
                           config=self.config, checker=checker, launch=launch)
                if printf_buffer:
                    text = format_records(self.memory.read(printf_buffer, PRINTF_BUFFER_BYTES),
                                          kernel.program.module.strings)
                    sys.stdout.write(text)
                    sys.stdout.flush()
            finally:
                if printf_buffer:
                    self.memory.free(printf_buffer)
