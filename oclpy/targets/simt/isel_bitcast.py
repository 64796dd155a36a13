"""`bitcast`: the same bits in another type (`as_int(f)`, `as_char4(i)`, `as_short2(c4)`).

A value is a list of parts, one per scalar leaf (`isel_context`). When the source
and the destination have as many leaves of the same widths, the parts pass as they
are. Otherwise the bits are regrouped through 32-bit words, lowest first (the
little-endian order OpenCL's `as_type` keeps in memory):

- a 64-bit part is two words (`p_split`), a 32-bit part one word;
- narrow parts (8 or 16 bits, whose high bits are undefined in a register) are
  masked and shifted into the word they share (`and`, `lshl`, `or`);
- a 64-bit destination part joins two words, a 32-bit one is a word, a narrow one
  is its word shifted right to bit 0 (its high bits stay undefined, as narrow
  registers allow).

The words are scalar when every source part is a scalar register or an immediate
(a uniform value), else vector.
"""

from __future__ import annotations

from ...ir.values import Instr
from .isel_context import Ctx, bits_of, float_bits, is_vector, leaves
from .machine import Imm, Operand

WORD = 32


def bitcast(ctx: Ctx, instr: Instr) -> list[Operand]:
    parts = ctx.parts(instr.operands[0])
    src = [bits_of(t, ctx.layout) for t, _ in leaves(instr.operands[0].type, ctx.layout)]
    dst = [bits_of(t, ctx.layout) for t, _ in leaves(instr.type, ctx.layout)]
    if src == dst:
        return list(parts)
    for bits in src + dst:
        if bits not in (8, 16, 32, 64):
            raise ctx.error(f"bitcast of {bits}-bit elements is not supported on simt")
    file = "v" if any(is_vector(p) for p in parts) else "s"
    return unpack(ctx, pack(ctx, list(zip(parts, src)), file), dst, file)


def pack(ctx: Ctx, parts: list[tuple[Operand, int]], file: str) -> list[Operand]:
    """The 32-bit words holding `parts` (operand, bits), lowest first."""
    words: list[Operand] = []
    word: Operand | None = None
    used = 0
    for p, bits in parts:
        if bits == 64:
            words += list(ctx.split64(immediate_bits(p, bits)))
            continue
        if bits == WORD:
            words.append(immediate_bits(p, bits))
            continue
        piece = masked(ctx, immediate_bits(p, bits), bits, file)
        piece = shifted(ctx, piece, used, file, "lshl")
        word = piece if word is None else combine(ctx, word, piece, file)
        used += bits
        if used == WORD:
            words.append(word)
            word, used = None, 0
    if word is not None:
        words.append(word)
    return words


def unpack(ctx: Ctx, words: list[Operand], dst: list[int], file: str) -> list[Operand]:
    """The destination parts of widths `dst` from `words`."""
    out: list[Operand] = []
    used = 0
    for bits in dst:
        if bits == 64:
            out.append(ctx.join64(words.pop(0), words.pop(0), file if file == "v" else None))
        elif bits == WORD:
            out.append(words.pop(0))
        else:
            out.append(shifted(ctx, words[0], used, file, "lshr"))
            used += bits
            if used == WORD:
                words.pop(0)
                used = 0
    return out


def immediate_bits(p: Operand, bits: int) -> Operand:
    """An immediate as its integer bits (a float immediate's encoding)."""
    if isinstance(p, Imm) and isinstance(p.value, float):
        return Imm(float_bits(p.value, bits))
    return p


def masked(ctx: Ctx, p: Operand, bits: int, file: str) -> Operand:
    mask = (1 << bits) - 1
    if isinstance(p, Imm):
        return Imm(int(p.value) & mask)
    return ctx.op(f"{file}_and_b32", file, WORD, p, Imm(mask))


def shifted(ctx: Ctx, p: Operand, amount: int, file: str, how: str) -> Operand:
    if amount == 0:
        return p
    if isinstance(p, Imm):
        v = int(p.value) & 0xFFFFFFFF
        return Imm((v << amount if how == "lshl" else v >> amount) & 0xFFFFFFFF)
    return ctx.op(f"{file}_{how}_b32", file, WORD, p, Imm(amount))


def combine(ctx: Ctx, a: Operand, b: Operand, file: str) -> Operand:
    if isinstance(a, Imm) and isinstance(b, Imm):
        return Imm(int(a.value) | int(b.value))
    return ctx.op(f"{file}_or_b32", file, WORD, a, b)
