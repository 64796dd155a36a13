"""Rewrite: virtual registers become physical ones, spilled ones go through scratch.

The allocator's third phase (`regalloc.py` drives them all). A spilled
virtual register has no physical register: its value lives in frame slots
of its own (`spill_slots`, one per 128 bits: a 256-bit tuple takes two), read
and written as `(s32, %stack.K)`, the frame base and the slot (docs/simt.md:
frame slots are offsets from the stack pointer at the function's entry;
frame lowering resolves them). Around each instruction that names one:
- every spilled register it reads is reloaded just before it, into the
  reserved pool (the top `SPILL_POOL` registers of its file), different
  registers for different spilled sources;
- every spilled register it writes is written to the pool and stored just
  after it, different registers for different spilled destinations (a
  destination may take a register a source had: an instruction reads all its
  sources before it writes; a register both read and written keeps one);
- so a pool register holds a value for one instruction only, and pairs and
  tuples take aligned places in the pool and move whole.
Vector values move per lane (`scratch_load/store_bN`, under exec, like any
vector write), scalar ones at lane 0's slot (`s_scratch_load/store_bN`,
whatever exec holds). None of these touches `scc`. Spill code and physical
operands are never spilled: they hold no virtual register.

Requires: a `linear_scan.Assignment` for every virtual register of the function.
"""

from __future__ import annotations

from typing import Mapping

from .calling_convention import STACK_POINTER, spill_pool
from .linear_scan import AllocError, Assignment, alignment
from .live_intervals import PARTIAL_DEFS
from .machine import FrameSlot, MFunction, MInstr, Operand, PReg, Register, Slot, VReg

PIECE_BITS = 128  # the widest scratch access: a 256-bit value moves in two pieces

# (file, bits) -> (store, load)
SPILL_OPS = {
    ("s", 32): ("s_scratch_store_b32", "s_scratch_load_b32"),
    ("s", 64): ("s_scratch_store_b64", "s_scratch_load_b64"),
    ("s", 128): ("s_scratch_store_b128", "s_scratch_load_b128"),
    ("v", 32): ("scratch_store_b32", "scratch_load_b32"),
    ("v", 64): ("scratch_store_b64", "scratch_load_b64"),
    ("v", 128): ("scratch_store_b128", "scratch_load_b128"),
}


def add_spill_slots(fn: MFunction, spilled: list[VReg]) -> dict[VReg, list[int]]:
    """A frame slot per 128-bit piece of each spilled register, appended to `fn.slots`."""
    slots: dict[VReg, list[int]] = {}
    for reg in spilled:
        size = reg.width // 8
        pieces = [min(size, PIECE_BITS // 8)] * max(1, reg.width // PIECE_BITS)
        slots[reg] = []
        for bytes_ in pieces:
            slots[reg].append(len(fn.slots))
            fn.slots.append(FrameSlot(bytes_, min(bytes_, 16)))
    return slots


def pieces(reg: PReg) -> list[PReg]:
    if reg.width <= PIECE_BITS:
        return [reg]
    step = PIECE_BITS // 32
    return [PReg(reg.file, i, PIECE_BITS) for i in range(reg.index, reg.index + reg.count, step)]


def store_code(reg: PReg, slots: list[int]) -> list[MInstr]:
    """Store `reg` to its slots (just after the instruction that wrote it)."""
    out = []
    for part, slot in zip(pieces(reg), slots):
        store, _ = SPILL_OPS[(part.file, part.width)]
        operands: list[Operand] = [part, STACK_POINTER] if part.file == "s" else [STACK_POINTER, part]
        out.append(MInstr(store, operands + [Slot(slot)]))
    return out


def reload_code(reg: PReg, slots: list[int]) -> list[MInstr]:
    """Load `reg` from its slots (just before the instruction that reads it)."""
    return [MInstr(SPILL_OPS[(part.file, part.width)][1], [part, STACK_POINTER, Slot(slot)])
            for part, slot in zip(pieces(reg), slots)]


def pool_places(regs: list[VReg], files: Mapping[str, int], taken: set[tuple[str, int]],
                instr: MInstr) -> dict[VReg, PReg]:
    """Aligned places in the pool, widest first (so they pack), avoiding the units `taken`."""
    places: dict[VReg, PReg] = {}
    used = set(taken)
    for reg in sorted(regs, key=lambda r: (-r.width, r.file, r.id)):
        pool, count = spill_pool(reg.file, files[reg.file]), reg.width // 32
        start = next((i for i in range(pool.start, pool.stop - count + 1, alignment(reg.width))
                      if not any((reg.file, u) in used for u in range(i, i + count))), None)
        if start is None:
            raise AllocError(f"'{instr.op}' needs more than the {len(pool)} reserved "
                             f"{'scalar' if reg.file == 's' else 'vector'} registers for its spilled operands")
        places[reg] = PReg(reg.file, start, reg.width)
        used |= {(reg.file, u) for u in places[reg].units()}
    return places


def read_and_written(instr: MInstr) -> tuple[list[VReg], list[VReg]]:
    """The virtual registers an instruction reads (a partial def reads its destination) and writes."""
    uses = [o for _, o in instr.uses()] + list(instr.implicit_uses)
    defs = [o for _, o in instr.defs()] + list(instr.implicit_defs)
    if instr.op in PARTIAL_DEFS:
        uses += defs
    read = [r for r in dict.fromkeys(uses) if isinstance(r, VReg)]
    written = [r for r in dict.fromkeys(defs) if isinstance(r, VReg)]
    return read, written


def rewrite_instr(instr: MInstr, assignment: Assignment, slots: dict[VReg, list[int]],
                  files: Mapping[str, int]) -> list[MInstr]:
    """The instruction with physical registers, with its reloads before and its stores after."""
    read, written = read_and_written(instr)
    if not any(r in slots for r in read) and not any(r in slots for r in written):  # nothing spilled here
        return [MInstr(instr.op, [assigned(o, instr, assignment) for o in instr.operands],
                       [assigned(r, instr, assignment) for r in instr.implicit_uses],  # type: ignore[misc]
                       [assigned(r, instr, assignment) for r in instr.implicit_defs], instr.loc)]  # type: ignore[misc]
    sources = pool_places([r for r in read if r in slots], files, set(), instr)
    shared = {r: sources[r] for r in written if r in sources}
    taken = {(p.file, u) for p in shared.values() for u in p.units()}
    dests = {**pool_places([r for r in written if r in slots and r not in sources], files, taken, instr),
             **shared}

    def place(reg: Operand | Register, places: dict[VReg, PReg]) -> Operand:
        if not isinstance(reg, VReg):
            return reg
        return places[reg] if reg in places else assigned(reg, instr, assignment)

    def_indices = {i for i, _ in instr.defs()}
    operands = [place(o, dests if i in def_indices else sources) for i, o in enumerate(instr.operands)]
    new = MInstr(instr.op, operands, [place(r, sources) for r in instr.implicit_uses],  # type: ignore[misc]
                 [place(r, dests) for r in instr.implicit_defs], instr.loc)  # type: ignore[misc]
    before = [i for r in read if r in sources for i in reload_code(sources[r], slots[r])]
    after = [i for r in written if r in dests for i in store_code(dests[r], slots[r])]
    return before + [new] + after


def assigned(reg: Operand | Register, instr: MInstr, assignment: Assignment) -> Operand:
    """An operand with its virtual register replaced by the one the scan assigned."""
    if not isinstance(reg, VReg):
        return reg
    if reg not in assignment.registers:
        raise AllocError(f"virtual register {reg} of '{instr.op}' has no register and no slot")
    return assignment.registers[reg]


def rewrite_function(fn: MFunction, assignment: Assignment, files: Mapping[str, int]) -> dict[VReg, list[int]]:
    """Rewrite `fn` in place (see the module docstring); the spilled registers' slots."""
    slots = add_spill_slots(fn, assignment.spilled)
    for block in fn.blocks:
        block.instrs = [new for instr in block.instrs for new in rewrite_instr(instr, assignment, slots, files)]
    return slots
