"""Helpers for the simt selection tests: OpenCL C -> IR -> machine code -> the simulator."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from oclpy.compiler.toolchain import frontend_for
from oclpy.passes.manager import PIPELINES, run_pipeline
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.sim_memory import GlobalMemory
from oclpy.targets.simt.simt_target import PIPELINE, SimtProgram, compile_simt, pack_args
from oclpy.targets.simt.simulator import RunStats, SimConfig, run_kernel


def compile_cl(source: str, level: int = 2, options: str = "") -> SimtProgram:
    front = frontend_for(source, options)
    pipeline = ",".join(p for p in (PIPELINES[f"O{level}"], PIPELINE) if p)
    run_pipeline(front.module, pipeline, verify_each=True)
    return compile_simt(front.module)


class Local:
    """A `__local` argument of `size` bytes."""

    def __init__(self, size: int) -> None:
        self.size = size


def run_cl(source: str, kernel: str, args: Sequence[Any], global_size: Sequence[int],
           local_size: Sequence[int], level: int = 2, config: SimConfig | None = None,
           program: SimtProgram | None = None, options: str = "") -> tuple[list[Any], RunStats]:
    """Run `kernel`; NumPy arrays are buffers (read back after the run), `Local(n)` local
    memory, NumPy scalars by value. Returns the arguments with arrays replaced by their new
    contents."""
    program = program or compile_cl(source, level, options)
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
    blob, local = pack_args(program.kernels[kernel], values)
    stats = run_kernel(program.module, kernel, memory, global_size=global_size, local_size=local_size,
                       args=blob, local_bytes=local, config=config or SimConfig())
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            address, array = addresses.pop(0)
            out.append(memory.download(address, array.dtype, array.size).reshape(array.shape))
        else:
            out.append(a)
    return out, stats


def asm_of(source: str, level: int = 2) -> str:
    return format_module(compile_cl(source, level).module)
