"""Helpers for the simt code generator's tests: OpenCL C -> IR -> machine code -> the simulator.

`regs` picks the register files a test compiles for: "virtual" (selection
only, virtual registers run as they are), "default" (the default files) or
"tiny" (the smallest files the ABI allows: spills in every kernel with more
than a handful of live values). Allocated code is checked by the allocation
checker on every function, and run with a simulator of the same files.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from oclpy.compiler.toolchain import frontend_for
from oclpy.passes.manager import PIPELINES, run_pipeline
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.sim_memory import GlobalMemory
from oclpy.targets.simt.device_config import SimtMachine
from oclpy.targets.simt.simt_program import SimtProgram, load_data, pack_args
from oclpy.targets.simt.memory_model import SIMT_LAYOUT
from oclpy.targets.simt.simt_target import PIPELINE, compile_simt
from oclpy.targets.simt.calling_convention import DEFAULT_REGISTERS, MIN_REGISTERS
from oclpy.targets.simt.simulator import RunStats, SimConfig, run_kernel

REGISTER_FILES = {"virtual": None, "default": DEFAULT_REGISTERS, "tiny": MIN_REGISTERS}


def compile_cl(source: str, level: int = 2, options: str = "", regs: str = "default") -> SimtProgram:
    front = frontend_for(source, options, layout=SIMT_LAYOUT)
    pipeline = ",".join(p for p in (PIPELINES[f"O{level}"], PIPELINE) if p)
    run_pipeline(front.module, pipeline, verify_each=True)
    files = REGISTER_FILES[regs]
    if files is None:
        return compile_simt(front.module, allocate=False)
    return compile_simt(front.module, SimtMachine(sgprs=files["s"], vgprs=files["v"]), check=True)


def sim_config(regs: str, **fields: Any) -> SimConfig:
    """A simulator whose register files are those `regs` compiles for."""
    files = REGISTER_FILES[regs] or DEFAULT_REGISTERS
    return SimConfig(**{"sgprs": files["s"], "vgprs": files["v"], **fields})


class Local:
    """A `__local` argument of `size` bytes."""

    def __init__(self, size: int) -> None:
        self.size = size


def run_cl(source: str, kernel: str, args: Sequence[Any], global_size: Sequence[int],
           local_size: Sequence[int], level: int = 2, config: SimConfig | None = None,
           program: SimtProgram | None = None, options: str = "",
           regs: str = "default") -> tuple[list[Any], RunStats]:
    """Run `kernel`; NumPy arrays are buffers (read back after the run), `Local(n)` local
    memory, NumPy scalars by value. Returns the arguments with arrays replaced by their new
    contents."""
    program = program or compile_cl(source, level, options, regs)
    memory = GlobalMemory()
    values, addresses = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            address = memory.upload(a)
            addresses.append((address, a))
            values.append(address)
        elif isinstance(a, Local):
            values.append(a.size)
        else:
            values.append(a)
    constants_address, _ = load_data(program, memory)
    blob, local = pack_args(program.kernels[kernel], values, constants_address)
    stats = run_kernel(program.module, kernel, memory, global_size=global_size, local_size=local_size,
                       args=blob, local_bytes=local, private_bytes=program.kernels[kernel].private_bytes,
                       config=config or sim_config(regs))
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            address, array = addresses.pop(0)
            out.append(memory.download(address, array.dtype, array.size).reshape(array.shape))
        else:
            out.append(a)
    return out, stats


def asm_of(source: str, level: int = 2, regs: str = "virtual") -> str:
    return format_module(compile_cl(source, level, regs=regs).module)
