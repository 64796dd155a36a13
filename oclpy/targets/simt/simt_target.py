"""The simt target: IR module -> simt machine code (the code generator's one pipeline).

- `PIPELINE`: what runs after the level's target-independent passes. As on
  nvptx, work-items are lanes and barriers stay barriers (no work-group
  formation); `inline` keeps `noinline` helpers, helpers above its threshold
  called from several places, and recursive ones (which sema rejects) as
  real calls; `expand-atomics` turns private atomics into read-modify-writes and
  8/16-bit ones into compare-and-swap loops on their 32-bit word.
- `compile_simt(module, machine) -> SimtProgram`: instruction selection
  (`isel.select_module`, virtual registers), machine CSE
  (`machine_cse.py`: a block's repeated pure vector instructions go), register allocation for the
  device's register files (`regalloc.allocate_module`; `check=True` runs the
  allocation checker on every function), frame lowering
  (`frame_lowering.py`: SP moves once per function, slots become offsets),
  pseudo lowering (`pseudo_lowering.py`: copies become moves).
  `allocate=False` stops after selection and lowers frames only, so that
  tests run virtual registers against allocated ones.
- `compile_for(module, target, options)`: the compiler's entry
  (`toolchain.BACKENDS`), for the device a simt `Target` names
  (`device_config.machine_of`).

The program (`simt_program.SimtProgram`) carries each kernel's argument
layout, local and scratch memory and `__constant` data.
"""

from __future__ import annotations

from ...diagnostics import CompileError
from ...ir.values import Module
from ..kernel_abi import kernel_args
from ..target import Target
from .alloc_checker import AllocCheckError
from .constant_data import layout_data
from .device_config import SimtMachine, machine_of
from .frame_lowering import lower_frames
from .isel import select_module
from .isel_context import SelectError
from .linear_scan import AllocError
from .machine_cse import cse_module
from .memory_model import SIMT_LAYOUT
from .pseudo_lowering import lower_pseudos
from .regalloc import allocate_module
from .resources import scratch_bytes
from .simt_program import SimtKernel, SimtProgram

PIPELINE = "inline,split-irreducible,expand-atomics"


def compile_simt(module: Module, machine: SimtMachine = SimtMachine(), *, allocate: bool = True,
                 check: bool = False, filename: str = "<kernel>") -> SimtProgram:
    """Machine code for every kernel of `module` (after PIPELINE) through the whole pipeline
    (the module docstring). What simt cannot compile is a CompileError whose log says why
    (`isel.SelectError`'s sentence, or the allocator's)."""
    try:
        mmodule = select_module(module, SIMT_LAYOUT)
        cse_module(mmodule)
        if allocate:
            strings = mmodule.strings
            mmodule = allocate_module(mmodule, machine.files, check)
            mmodule.strings = strings
    except (SelectError, AllocError) as exc:
        raise CompileError(f"{filename}: error: {exc}\n") from None
    except AllocCheckError as exc:
        raise CompileError(f"{filename}: error: internal compiler error: {exc}\n") from exc
    lower_frames(mmodule)
    if allocate:
        lower_pseudos(mmodule, machine.files)
    data = layout_data(module, SIMT_LAYOUT)
    program = SimtProgram(mmodule, {}, machine, global_data=data.globals, constant_data=data.constants,
                          relocations=data.relocations)
    for fn in module.kernels():
        args, size = kernel_args(fn, SIMT_LAYOUT)
        attrs = mmodule.function(fn.name).attrs
        reqd = fn.attrs.get("reqd_work_group_size")
        program.add(SimtKernel(fn.name, args, size, int(attrs.get("local_bytes", 0)),
                               scratch_bytes(mmodule, fn.name),
                               tuple(reqd) if reqd else None,  # type: ignore[arg-type]
                               bool(attrs.get("printf"))))
    return program


def compile_for(module: Module, target: Target, options: str = "") -> SimtProgram:
    """The compiler's entry (`toolchain.BACKENDS`): `module` for the device `target` names."""
    return compile_simt(module, machine_of(target))
