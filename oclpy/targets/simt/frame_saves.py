"""After assignment: the callee-saved registers a function writes, saved and restored.

The allocator's last phase (`regalloc.py` drives them all), on a function
whose registers are all physical:
- `save_callee_saved`: a `func` that writes callee-saved registers (the
  ABI's table in docs/simt.md: `s33, s34, s36..s63, v32..v63`; the stack
  pointer `s32` is kept by frame lowering's discipline) stores each one to a
  frame slot of its own at entry and loads it back before every return
  (`s_setpc_b64`). A return address held in a register being restored is
  first moved to `s[30:31]`, which is not. Vector registers are saved under
  the caller's exec: the lanes off are the lanes the callee never writes. A
  kernel has no caller and saves nothing.
The frame itself (SP moved once in the prologue, slots resolved) is
`frame_lowering.py`'s, after allocation: spill code and saves address the
frame as `(s32, %stack.K)`, the stack pointer at entry.

Requires: `spilling.rewrite_function` (no virtual register left).
"""

from __future__ import annotations

from typing import Mapping

from .calling_convention import RETURN_ADDRESS, STACK_POINTER, callee_saved
from .machine import FrameSlot, MFunction, MInstr, PReg
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
