"""After assignment: callee-saved registers saved and restored, the frame kept out of calls' way.

The allocator's last phase (`regalloc.py` drives them all), on a function
whose registers are all physical:
- `save_callee_saved`: a `func` that writes callee-saved registers (the
  ABI's table in docs/simt.md: `s33, s34, s36..s63, v32..v63`; the stack
  pointer `s32` is kept by the frame discipline below) stores each one to a
  frame slot of its own at entry and loads it back before every return
  (`s_setpc_b64`). A return address held in a register being restored is
  first moved to `s[30:31]`, which is not. Vector registers are saved under
  the caller's exec: the lanes off are the lanes the callee never writes. A
  kernel has no caller and saves nothing.
- `protect_frame`: slots are addressed from `s32`, the frame base; a callee's
  frame starts at the SP it is called with, so around each call in a
  function with a frame, SP moves past the frame (`s_add_u32 s32, s32, F`
  just before, `s_sub_u32` just after; `scc` is dead there, a call clobbers
  it). Frame lowering, when it settles where outgoing stack arguments go,
  may do this in the prologue instead.

Requires: `spilling.rewrite_function` (no virtual register left).
"""

from __future__ import annotations

from typing import Mapping

from .calling_convention import RETURN_ADDRESS, STACK_POINTER, callee_saved
from .machine import FrameSlot, Imm, MFunction, MInstr, PReg, frame_layout
from .spilling import reload_code, store_code


def written_callee_saved(fn: MFunction, files: Mapping[str, int]) -> list[PReg]:
    """The callee-saved 32-bit registers `fn` writes, but the stack pointer."""
    saved = {f: set(callee_saved(f, files[f])) - ({STACK_POINTER.index} if f == "s" else set())
             for f in ("s", "v")}
    found = set()
    for instr in fn.instrs():
        for reg in [o for _, o in instr.defs()] + list(instr.implicit_defs):
            if isinstance(reg, PReg):
                found |= {(reg.file, u) for u in reg.units() if u in saved[reg.file]}
    return [PReg(f, i) for f, i in sorted(found)]


def save_callee_saved(fn: MFunction, files: Mapping[str, int]) -> list[PReg]:
    """Save and restore what a `func` clobbers of the callee-saved registers; the registers saved."""
    if fn.kind != "func":
        return []
    regs = written_callee_saved(fn, files)
    if not regs:
        return []
    slots = []
    for _ in regs:
        slots.append(len(fn.slots))
        fn.slots.append(FrameSlot(4, 4))
    fn.blocks[0].instrs[:0] = [i for reg, slot in zip(regs, slots) for i in store_code(reg, [slot])]
    restores = [i for reg, slot in zip(regs, slots) for i in reload_code(reg, [slot])]
    restored = {(r.file, r.index) for r in regs}
    for block in fn.blocks:
        out: list[MInstr] = []
        for instr in block.instrs:
            if instr.op == "s_setpc_b64":
                target = instr.operands[0]
                if isinstance(target, PReg) and any((target.file, u) in restored for u in target.units()):
                    out.append(MInstr("s_mov_b64", [RETURN_ADDRESS, target]))
                    instr.operands[0] = RETURN_ADDRESS
                out += [MInstr(r.op, list(r.operands)) for r in restores]
            out.append(instr)
        block.instrs = out
    return regs


def protect_frame(fn: MFunction) -> int:
    """Move SP past the frame around each call; the frame's size (bytes per lane)."""
    size = frame_layout(fn)[1]
    if not size:
        return 0
    for block in fn.blocks:
        out: list[MInstr] = []
        for instr in block.instrs:
            if instr.op != "s_call_b64":
                out.append(instr)
                continue
            out += [MInstr("s_add_u32", [STACK_POINTER, STACK_POINTER, Imm(size)]), instr,
                    MInstr("s_sub_u32", [STACK_POINTER, STACK_POINTER, Imm(size)])]
        block.instrs = out
    return size
