"""Pseudo lowering: `p_copy`, `p_join`, `p_split` become moves, `p_undef` disappears.

The last step of the simt pipeline, after register allocation and frame
lowering, on a function whose registers are all physical (a function that
still has virtual registers keeps its pseudos: the simulator runs those).

Each pseudo is a *parallel copy* of 32-bit words: every destination unit
takes the word of the source unit (or immediate word) at its place in the
whole, all read before any is written. The words become moves:
`s_mov_b32` into a scalar register, `v_mov_b32` into a vector one (a scalar
source broadcasts; under exec, as the pseudo itself writes a vector
register), and a word already in place is no move at all. Moves are ordered
so that no source is overwritten before it is read; a cycle (`p_join
s[4:5], s5, s4`) is broken through a temporary: a register of the spill
pool that the instruction does not name (pool registers hold a value for
one instruction only, so the others are free), else by exchanging two
registers with three xors (`v_xor_b32`; `s_xor_b32` only where `scc` is
dead, since it writes `scc`).

Requires: physical registers (else the function is left as it is).
Invalidates: nothing.
"""

from __future__ import annotations

import struct
from typing import Callable, Mapping, Union

from .calling_convention import DEFAULT_REGISTERS, spill_pool
from .machine import Imm, MBlock, MInstr, MModule, Operand, PReg, VReg

Unit = tuple[str, int]  # ("s", 5)
Word = Union[Unit, int]  # a source unit, or an immediate word


class PseudoLoweringError(Exception):
    """A pseudo that cannot become moves (a copy cycle with no free register and a live scc)."""


def lower_pseudos(module: MModule, files: Mapping[str, int] = DEFAULT_REGISTERS) -> None:
    for fn in module.functions:
        if all(not isinstance(r, VReg) for i in fn.instrs() for r in i.registers()):
            for block in fn.blocks:
                lower_block(block, files)


def lower_block(block: MBlock, files: Mapping[str, int]) -> None:
    out: list[MInstr] = []
    for k, instr in enumerate(block.instrs):
        if instr.info.family != "pseudo":
            out.append(instr)
        elif instr.op != "p_undef":
            out += sequence(word_moves(instr), free_temps(instr, files), lambda k=k: scc_dead(block.instrs[k + 1:]))
    block.instrs = out


def imm_words(value: int | float, bits: int) -> list[int]:
    """An immediate as the 32-bit words of a `bits`-wide value, low first."""
    if isinstance(value, float):
        value = struct.unpack("<I", struct.pack("<f", value))[0] if bits == 32 else \
            struct.unpack("<Q", struct.pack("<d", value))[0]
    value &= (1 << bits) - 1
    return [(value >> (32 * k)) & 0xFFFFFFFF for k in range(max(1, bits // 32))]


def operand_words(operand: Operand, bits: int) -> list[Word]:
    if isinstance(operand, Imm):
        return list(imm_words(operand.value, bits))
    assert isinstance(operand, PReg), f"pseudo lowering needs physical registers, found {operand}"
    return [(operand.file, u) for u in operand.units()]


def word_moves(instr: MInstr) -> dict[Unit, Word]:
    """The parallel copy of a pseudo: destination unit -> source word."""
    defs = [o for _, o in instr.defs()]
    uses = [o for _, o in instr.uses()]
    width = sum(d.width for d in defs)  # type: ignore[union-attr]
    if instr.op == "p_copy" and isinstance(uses[0], Imm):
        sources = operand_words(uses[0], width)
    else:
        sources = [w for u in uses for w in operand_words(u, u.width)]  # type: ignore[union-attr]
    dests = [w for d in defs for w in operand_words(d, d.width)]  # type: ignore[union-attr]
    return {d: s for d, s in zip(dests, sources) if d != s}  # type: ignore[misc]


def free_temps(instr: MInstr, files: Mapping[str, int]) -> dict[str, list[int]]:
    named = {(r.file, u) for r in instr.registers() if isinstance(r, PReg) for u in r.units()}
    return {f: [u for u in spill_pool(f, files[f]) if (f, u) not in named] for f in ("s", "v")}


def scc_dead(rest: list[MInstr]) -> bool:
    """Whether `scc` is dead after the pseudo: written before any read in the rest of its block."""
    for instr in rest:
        if instr.info.scc == "use":
            return False
        if instr.info.scc == "def" or instr.op == "s_call_b64":
            return True
    return False


def move(dst: Unit, src: Word) -> MInstr:
    operand: Operand = Imm(src) if isinstance(src, int) else PReg(src[0], src[1])
    return MInstr("s_mov_b32" if dst[0] == "s" else "v_mov_b32", [PReg(dst[0], dst[1]), operand])


def sequence(moves: dict[Unit, Word], temps: dict[str, list[int]],
             scc_is_dead: Callable[[], bool]) -> list[MInstr]:
    """Moves in an order that reads every source before overwriting it; cycles broken."""
    out: list[MInstr] = []
    pending = dict(moves)
    while pending:
        read = {s for s in pending.values() if not isinstance(s, int)}
        ready = [d for d in pending if d not in read]
        if ready:
            for d in ready:
                out.append(move(d, pending.pop(d)))
            continue
        out += break_cycle(pending, temps, scc_is_dead)
    return out


def break_cycle(pending: dict[Unit, Word], temps: dict[str, list[int]],
                scc_is_dead: Callable[[], bool]) -> list[MInstr]:
    """Every destination is also a source, so only cycles remain (within one file). Free one unit."""
    dst = next(iter(pending))
    src = pending[dst]
    assert not isinstance(src, int)
    if temps[dst[0]]:
        temp = (dst[0], temps[dst[0]][0])
        redirect(pending, dst, temp)
        return [move(temp, dst)]
    if dst[0] == "s" and not scc_is_dead():
        raise PseudoLoweringError(f"cannot break the copy cycle through {PReg(*dst)}: no free register "
                                  "and scc is live")
    op = "s_xor_b32" if dst[0] == "s" else "v_xor_b32"
    a, b = PReg(*dst), PReg(*src)
    del pending[dst]  # a takes b's word; b now holds a's old word
    redirect(pending, dst, src)
    if pending.get(src) == src:
        del pending[src]
    return [MInstr(op, [a, a, b]), MInstr(op, [b, a, b]), MInstr(op, [a, a, b])]


def redirect(pending: dict[Unit, Word], old: Unit, new: Unit) -> None:
    """The moves reading `old` read `new` instead."""
    for d, s in pending.items():
        if s == old:
            pending[d] = new
