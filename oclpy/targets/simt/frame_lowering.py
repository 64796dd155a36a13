"""Frame lowering: the stack pointer moves once per function, and frame slots become offsets.

Runs after register allocation (or straight after selection, on virtual
registers: the simulator runs those too), when the frame's slots are final
(`machine.frame_layout`: incoming stack arguments in slot 0, allocas, spill
slots, the allocator's saves of callee-saved registers). The discipline, for
a function whose frame is `F` bytes per lane (a multiple of 16):

- prologue: `s_add_u32 s32, s32, F` right after the entry block's copy of
  the stack pointer (selection's `p_copy %fb, s32`, the frame base), so SP is
  the end of the frame for the whole body. Outgoing stack arguments, which
  selection stores at `s32 + offset` before a call, land above the frame,
  where the callee finds them at its incoming SP; nothing moves SP around
  calls (the allocator's saves and spills need no SP moves either);
- epilogue: `s_sub_u32 s32, s32, F` just before each `s_setpc_b64`, after
  the allocator's restores, so a caller gets back the SP it called with.

Slots: every `%stack.N` operand becomes an immediate. Addressed from `s32`
(spill code, saves, restores) it is the slot's offset minus what SP has
moved at that point (so `-F + offset` in the body); from any other base (the
frame base copy, for allocas and incoming arguments) it is the offset.
A kernel starts with SP = 0 and ends with `s_endpgm`: it only gets the
prologue. `scc` is dead where SP moves: at entry, and before a return (a
caller-saved register).

Requires: every slot declared, the entry block not a branch target.
Invalidates: nothing (adds instructions; slots stay declared for the frame size).
"""

from __future__ import annotations

from .calling_convention import STACK_POINTER
from .machine import Imm, MFunction, MInstr, MModule, PReg, Slot, frame_layout


def lower_frames(module: MModule) -> None:
    for fn in module.functions:
        lower_frame(fn)


def prologue_position(fn: MFunction) -> int:
    """Where SP moves: just after the entry block's first copy of SP (0 when there is none)."""
    for k, instr in enumerate(fn.blocks[0].instrs):
        if instr.op == "p_copy" and instr.operands[1] == STACK_POINTER:
            return k + 1
    return 0


def lower_frame(fn: MFunction) -> None:
    offsets, size = frame_layout(fn)
    fn.attrs["frame_bytes"] = size
    if not fn.blocks:
        return
    if size:
        fn.blocks[0].instrs.insert(prologue_position(fn), sp_move("s_add_u32", size))
        for block in fn.blocks:
            at = [k for k, i in enumerate(block.instrs) if i.op == "s_setpc_b64"]
            for k in reversed(at):
                block.instrs.insert(k, sp_move("s_sub_u32", size))
    for index, block in enumerate(fn.blocks):
        moved = 0 if index == 0 else size
        for instr in block.instrs:
            if is_sp_move(instr):
                moved += instr.operands[2].value if instr.op == "s_add_u32" else -instr.operands[2].value  # type: ignore[union-attr,operator]
                continue
            resolve_slots(instr, offsets, moved)


def sp_move(op: str, size: int) -> MInstr:
    return MInstr(op, [STACK_POINTER, STACK_POINTER, Imm(size)])


def is_sp_move(instr: MInstr) -> bool:
    ops = instr.operands
    return (instr.op in ("s_add_u32", "s_sub_u32") and ops[0] == STACK_POINTER and ops[1] == STACK_POINTER
            and isinstance(ops[2], Imm))


def resolve_slots(instr: MInstr, offsets: list[int], moved: int) -> None:
    """Each `%stack.N` of `instr` as an immediate: from SP, less what SP has moved."""
    from_sp = any(isinstance(o, PReg) and o == STACK_POINTER for _, o in instr.uses())
    for k, operand in enumerate(instr.operands):
        if isinstance(operand, Slot):
            instr.set_operand(k, Imm(offsets[operand.index] - (moved if from_sp else 0)))
