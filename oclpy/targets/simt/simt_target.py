"""The simt target: IR module -> simt machine code, and the kernel-argument packing of a launch.

- `PIPELINE`: what runs after the level's target-independent passes. As on
  nvptx, work-items are lanes and barriers stay barriers (no work-group
  formation); `inline` keeps `noinline` helpers, helpers above its threshold
  called from several places, and recursive ones (which sema rejects) as
  real calls.
- `compile_simt(module, files) -> SimtProgram`: the code generator's one
  pipeline: instruction selection (`isel.select_module`, virtual
  registers), register allocation for register files of `files` sizes
  (`regalloc.allocate_module`; `check=True` runs the allocation checker on
  every function), frame lowering (`frame_lowering.py`: SP moves once per
  function, slots become offsets), pseudo lowering (`pseudo_lowering.py`:
  copies become moves). `allocate=False` stops after selection and lowers
  frames only, so that tests run virtual registers against allocated ones.
- `pack_args(kernel, values)`: what a launch puts before the kernarg
  segment's hidden block: `targets/kernel_abi.py`'s blob of the explicit
  arguments (each `__local` argument its 32-bit offset after the static
  `__local` memory and the `__local` arguments before it), then the
  program's `__constant` data (`constant_data.py`); and the work-group's
  local memory size.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ...diagnostics import CompileError
from ...ir.values import Module
from ..kernel_abi import KernelArg, align_up, kernel_args
from .alloc_checker import AllocCheckError
from .calling_convention import DEFAULT_REGISTERS
from .constant_data import constants_offset, kernarg_bytes, layout_constants
from .frame_lowering import lower_frames
from .isel import select_module
from .isel_context import SelectError
from .linear_scan import AllocError
from .machine import MModule
from .memory_model import SIMT_LAYOUT
from .pseudo_lowering import lower_pseudos
from .regalloc import allocate_module

PIPELINE = "inline"
LOCAL_ARG_ALIGN = 16


@dataclass
class SimtKernel:
    name: str
    args: list[KernelArg]
    kernarg_bytes: int  # explicit arguments
    local_bytes: int  # static __local memory
    constants: bytes = b""  # program-scope __constant data, placed after the arguments


@dataclass
class SimtProgram:
    module: MModule
    kernels: dict[str, SimtKernel] = field(default_factory=dict)


def compile_simt(module: Module, files: Mapping[str, int] = DEFAULT_REGISTERS, *, allocate: bool = True,
                 check: bool = False, filename: str = "<kernel>") -> SimtProgram:
    """Machine code for every kernel of `module` (after PIPELINE) through the whole pipeline
    (the module docstring). What simt cannot compile is a CompileError whose log says why
    (`isel.SelectError`'s sentence, or the allocator's)."""
    try:
        mmodule = select_module(module, SIMT_LAYOUT)
        if allocate:
            mmodule = allocate_module(mmodule, files, check)
    except (SelectError, AllocError) as exc:
        raise CompileError(f"{filename}: error: {exc}\n") from None
    except AllocCheckError as exc:
        raise CompileError(f"{filename}: error: internal compiler error: {exc}\n") from exc
    lower_frames(mmodule)
    if allocate:
        lower_pseudos(mmodule, files)
    program = SimtProgram(mmodule)
    _, constants = layout_constants(module, SIMT_LAYOUT)
    for fn in module.kernels():
        args, size = kernel_args(fn, SIMT_LAYOUT)
        local = int(mmodule.function(fn.name).attrs.get("local_bytes", 0))
        program.kernels[fn.name] = SimtKernel(fn.name, args, size, local, constants)
    return program


def pack_args(kernel: SimtKernel, values: Sequence[Any]) -> tuple[bytes, int]:
    """(explicit kernarg bytes, local memory bytes) for a launch. A global/constant argument is
    an int (its address), a `__local` one an int (its size in bytes), a scalar its bytes
    (`bytes`) or a NumPy scalar."""
    if len(values) != len(kernel.args):
        raise ValueError(f"kernel {kernel.name} takes {len(kernel.args)} arguments, {len(values)} given")
    blob = bytearray(kernarg_bytes(kernel.kernarg_bytes, kernel.constants))
    at = constants_offset(kernel.kernarg_bytes)
    blob[at:at + len(kernel.constants)] = kernel.constants if kernel.constants else b""
    local = align_up(kernel.local_bytes, LOCAL_ARG_ALIGN)
    for arg, value in zip(kernel.args, values):
        if arg.kind in ("global", "constant"):
            blob[arg.offset:arg.offset + 8] = struct.pack("<Q", int(value))
        elif arg.kind == "local":
            blob[arg.offset:arg.offset + 8] = struct.pack("<Q", local)
            local = align_up(local + int(value), LOCAL_ARG_ALIGN)
        else:
            data = value if isinstance(value, (bytes, bytearray)) else value.tobytes()
            if len(data) != arg.size:
                raise ValueError(f"argument {arg.name} of {kernel.name} takes {arg.size} bytes, {len(data)} given")
            blob[arg.offset:arg.offset + arg.size] = data
    return bytes(blob), local
