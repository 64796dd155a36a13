"""Frame lowering: the stack pointer's moves and the saves of callee-saved registers.

Runs after register allocation (or right after selection, on virtual
registers: the simulator runs those too), when the frame's slots are final
(`machine.frame_layout`: incoming stack arguments in slot 0, allocas, spill
slots). For each function of frame size `F` (a multiple of 16):

- prologue, after the instructions at the top of the entry block that read
  the stack pointer as the frame base (selection puts `p_copy %fb, s32`
  first): stores of the callee-saved registers the function writes (a
  helper only: `calling_convention.callee_saved`, but not SP, FP, BP, whose
  values the code keeps itself) into new slots at `s32 + %stack.N`, then
  `s_add_u32 s32, s32, F`, so that SP is the end of the frame and the
  outgoing stack arguments of calls sit at `s32 + offset`;
- epilogue, before each `s_setpc_b64`: `s_sub_u32 s32, s32, F`, then the
  reloads.

A kernel starts with SP = 0 and never returns, so it only moves SP.
Vector registers are saved under the exec the function was called with
(lanes off keep their values anyway: nothing writes them).

Requires: every slot declared. Invalidates: nothing (adds slots and instructions).
"""

from __future__ import annotations

from .calling_convention import (
    BASE_POINTER, FRAME_POINTER, RETURN_ADDRESS, STACK_POINTER, callee_saved,
)
from .machine import FrameSlot, Imm, MFunction, MInstr, MModule, PReg, Slot, frame_layout

FIXED = {STACK_POINTER.index, FRAME_POINTER.index, BASE_POINTER.index, *RETURN_ADDRESS.units()}


def lower_frames(module: MModule, sgprs: int = 128, vgprs: int = 256) -> None:
    for fn in module.functions:
        lower_frame(fn, sgprs, vgprs)


def written_callee_saved(fn: MFunction, sgprs: int, vgprs: int) -> list[PReg]:
    """The callee-saved 32-bit registers the function writes, in order."""
    keep = {"s": set(callee_saved("s", sgprs)) - FIXED, "v": set(callee_saved("v", vgprs))}
    found: dict[tuple[str, int], PReg] = {}
    for instr in fn.instrs():
        regs = [o for _, o in instr.defs()] + list(instr.implicit_defs)
        for reg in regs:
            if isinstance(reg, PReg):
                for unit in reg.units():
                    if unit in keep[reg.file]:
                        found[(reg.file, unit)] = PReg(reg.file, unit)
    return [found[k] for k in sorted(found)]


def reads_sp(instr: MInstr) -> bool:
    uses = [o for _, o in instr.uses()] + list(instr.implicit_uses)
    defs = [o for _, o in instr.defs()] + list(instr.implicit_defs)
    return STACK_POINTER in uses and STACK_POINTER not in defs


def save(reg: PReg, slot: Slot) -> MInstr:
    if reg.file == "s":
        return MInstr("s_scratch_store_b32", [reg, STACK_POINTER, slot])
    return MInstr("scratch_store_b32", [STACK_POINTER, reg, slot])


def restore(reg: PReg, slot: Slot) -> MInstr:
    if reg.file == "s":
        return MInstr("s_scratch_load_b32", [reg, STACK_POINTER, slot])
    return MInstr("scratch_load_b32", [reg, STACK_POINTER, slot])


def lower_frame(fn: MFunction, sgprs: int = 128, vgprs: int = 256) -> None:
    saved: list[tuple[PReg, Slot]] = []
    if fn.kind != "kernel":
        for reg in written_callee_saved(fn, sgprs, vgprs):
            fn.slots.append(FrameSlot(4, 4))
            saved.append((reg, Slot(len(fn.slots) - 1)))
    size = frame_layout(fn)[1]
    entry = fn.blocks[0].instrs
    at = 0
    while at < len(entry) and reads_sp(entry[at]):
        at += 1
    prologue = [save(r, s) for r, s in saved]
    if size:
        prologue.append(MInstr("s_add_u32", [STACK_POINTER, STACK_POINTER, Imm(size)]))
    entry[at:at] = prologue
    for block in fn.blocks:
        out: list[MInstr] = []
        for instr in block.instrs:
            if instr.op == "s_setpc_b64":
                if size:
                    out.append(MInstr("s_sub_u32", [STACK_POINTER, STACK_POINTER, Imm(size)]))
                out += [restore(r, s) for r, s in saved]
            out.append(instr)
        block.instrs = out
