"""Register allocation for simt: machine code with virtual registers in, physical registers out.

`allocate_function(fn, files)` returns an `AllocResult` (the allocated copy
of `fn`, where each virtual register went, the statistics); `allocate_module`
does every function. `fn` itself is left as it was, so that the checker
(`alloc_checker.check_allocation(fn, result.function, files)`; `check=True`
runs it) can compare the two. `files` are the register file sizes,
`{"s": 128, "v": 256}` by default (the simulator's `SimConfig.sgprs/vgprs`,
`OCLPY_SIMT_SGPRS/VGPRS`); tests pass the smallest the ABI allows,
`{"s": 48, "v": 24}`, to force spills.

How it works, in four phases whose outputs are data:

1. *Liveness* (`live_intervals.py`). A backward dataflow over the CFG gives
   live sets; numbering the instructions in layout order gives each virtual
   register one interval, the hull of the points where it is live, and each
   physical unit its exact live segments. A call writes every caller-saved
   unit. Hull intervals are the conservative choice that exec-mask code
   needs: a wave walks both sides of a divergent branch in layout order, and
   a register shared in a hole of the CFG liveness could be written while a
   lane that went the other way still needs it.
2. *Assignment* (`linear_scan.py`). Intervals in order of start, each file
   apart: a `p_copy`'s hint if free, else the first free aligned position
   (pairs even, 128 bits and up 4-aligned; never the ABI's fixed `s30..s34`
   or the spill pool; never a unit a physical register holds then; across a
   call only callee-saved ones are free), else the lightest interval(s) by
   spill weight (reads and writes, 10x per loop level, over length) are
   spilled, whole: a spilled virtual register has no register at all.
3. *Rewrite* (`spilling.py`). Virtual registers become their physical
   registers; each spilled one gets frame slots of its own, is reloaded just
   before each instruction that reads it into the reserved pool (the top 8
   registers of its file; different sources, different registers) and
   stored just after each one that writes it. Physical operands and spill
   code are never spilled.
4. *Saves* (`frame_saves.py`). A `func` saves the callee-saved registers it
   writes at entry and restores them before each return. The stack pointer
   does not move here: `frame_lowering.py` moves it once per function,
   after allocation, and resolves the slots.

The statistics (`AllocStats`: registers used per file, spill slots, frame
bytes per lane) also go on the function as attributes (`sgprs`, `vgprs`,
`spill_slots`, `frame_bytes`) for `--stats`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .alloc_checker import assert_allocation
from .calling_convention import DEFAULT_REGISTERS, check_file_size, spill_pool
from .frame_saves import save_callee_saved
from .linear_scan import AllocError, Assignment, scan
from .live_intervals import compute_liveness
from .machine import MFunction, MModule, PReg, VReg, frame_layout, function_problems, instr_problems
from .spilling import rewrite_function


@dataclass(frozen=True)
class AllocStats:
    """What one allocated function takes (for `--stats` and occupancy)."""

    sgprs: int  # scalar registers used: the highest one + 1
    vgprs: int  # vector registers used: the highest one + 1
    spilled: int  # virtual registers spilled
    spill_slots: int  # frame slots holding them
    saved: int  # callee-saved registers saved and restored
    frame_bytes: int  # the function's frame, per lane (spill slots, saves, allocas)


@dataclass
class AllocResult:
    function: MFunction  # the allocated copy
    assignment: Assignment  # each virtual register's register, or spilled
    slots: dict[VReg, list[int]]  # the spilled registers' frame slots
    stats: AllocStats


def input_problems(fn: MFunction, files: Mapping[str, int]) -> list[str]:
    """What makes `fn` unfit for allocation."""
    problems = [p for p in (check_file_size("s", files["s"]), check_file_size("v", files["v"])) if p]
    problems += function_problems(fn) + [p for i in fn.instrs() for p in instr_problems(i)]
    for instr in fn.instrs():
        for reg in instr.registers():
            if isinstance(reg, PReg) and reg.index + reg.count > files[reg.file]:
                problems.append(f"'{instr.op}' names {reg}, outside the {files[reg.file]}-register file")
            elif isinstance(reg, PReg) and any(u in spill_pool(reg.file, files[reg.file]) for u in reg.units()):
                problems.append(f"'{instr.op}' names {reg}, a register of the spill pool")
    return problems


def registers_used(fn: MFunction, file: str) -> int:
    top = [r.index + r.count for i in fn.instrs() for r in i.registers() if isinstance(r, PReg) and r.file == file]
    return max(top, default=0)


def allocate_function(fn: MFunction, files: Mapping[str, int] = DEFAULT_REGISTERS,
                      check: bool = False) -> AllocResult:
    """Allocate a copy of `fn` (see the module docstring); `check` runs the allocation checker."""
    files = dict(files)
    problems = input_problems(fn, files)
    if problems:
        raise AllocError(f"@{fn.name}: cannot allocate registers:\n  " + "\n  ".join(problems))
    out = fn.copy()
    assignment = scan(compute_liveness(out, files), files, out.kind)
    slots = rewrite_function(out, assignment, files)
    saved = save_callee_saved(out, files)
    frame = frame_layout(out)[1]
    stats = AllocStats(registers_used(out, "s"), registers_used(out, "v"), len(assignment.spilled),
                       sum(len(s) for s in slots.values()), len(saved), frame)
    out.attrs.update(sgprs=stats.sgprs, vgprs=stats.vgprs, spill_slots=stats.spill_slots, frame_bytes=frame)
    if check:
        assert_allocation(fn, out, files)
    return AllocResult(out, assignment, slots, stats)


def allocate_module(module: MModule, files: Mapping[str, int] = DEFAULT_REGISTERS,
                    check: bool = False) -> MModule:
    """Every function of `module` allocated (a new module; `module` is left as it was)."""
    return MModule([allocate_function(fn, files, check).function for fn in module.functions])
