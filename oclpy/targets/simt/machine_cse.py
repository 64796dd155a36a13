"""Machine CSE: a pure vector instruction that repeats an earlier one of its block is dropped.

`cse_module(module)` (in place, on selected code in virtual registers, before
register allocation) runs `cse_function` on every function. Within one block,
an instruction whose opcode and sources equal an earlier instruction's, under
the same exec mask, computes the same value in the same lanes: its
definitions are replaced, everywhere in the function, by the earlier one's,
and the instruction goes. The math formulas (`math_formulas.py`) are the
reason: `sin(a)` and `cos(a)` expand to the same reduction and the same two
kernels (only the final choice differs), a formula takes `fabs(x)` or a
word of x several times, and no pass below the IR sees that.

What counts as the same:
- candidates are vector ALU rows (`valu`), vector compares (`vcmp`, a mask
  of the lanes on) and `p_split`/`p_join` of vector registers: no memory, no
  `scc`, no implicit operands, no physical register among the operands;
- every definition is a virtual register defined once in the function (a
  phi's register, defined in each predecessor, never is), so the earlier
  value still holds wherever the later one was read;
- sources are compared as operands (a register by identity, an immediate by
  its type and bits: `0` and `0.0` differ, and so do `0.0` and `-0.0`);
- a remembered instruction is forgotten when one of its sources is written
  again, and all are forgotten when exec is written (`saveexec`, a call).
"""

from __future__ import annotations

import struct
from collections import Counter
from typing import Any

from .machine import EXEC, Imm, MFunction, MInstr, MModule, Operand, VReg

FAMILIES = ("valu", "vcmp")
PSEUDOS = ("p_split", "p_join")


def cse_module(module: MModule) -> int:
    """Run `cse_function` on each function; the instructions removed in all."""
    return sum(cse_function(fn) for fn in module.functions)


def cse_function(fn: MFunction) -> int:
    """Drop the repeated pure vector instructions of each block of `fn`; how many went."""
    defined = Counter(o for b in fn.blocks for i in b.instrs for _, o in i.defs() if isinstance(o, VReg))
    replace: dict[VReg, VReg] = {}
    removed = 0
    for block in fn.blocks:
        seen: dict[tuple[Any, ...], list[VReg]] = {}
        readers: dict[Operand, list[tuple[Any, ...]]] = {}
        kept: list[MInstr] = []
        for instr in block.instrs:
            rename(instr, replace)
            key = candidate_key(instr, defined)
            if key is not None and key in seen:
                for (_, new), old in zip(instr.defs(), seen[key]):
                    replace[new] = old  # type: ignore[index]
                removed += 1
                continue
            kept.append(instr)
            writes = instr.writes()
            if EXEC in writes or instr.info.family == "call":
                seen.clear()
                readers.clear()
            for reg in writes:
                for stale in readers.pop(reg, []):
                    seen.pop(stale, None)
            if key is not None:
                seen[key] = [o for _, o in instr.defs()]  # type: ignore[misc]
                for _, src in instr.uses():
                    if isinstance(src, VReg):
                        readers.setdefault(src, []).append(key)
        block.instrs = kept
    if replace:
        for block in fn.blocks:
            for instr in block.instrs:
                rename(instr, replace)
    return removed


def rename(instr: MInstr, replace: dict[VReg, VReg]) -> None:
    """Point the instruction's sources at the kept definitions."""
    if not replace:
        return
    for i, src in instr.uses():
        if isinstance(src, VReg) and src in replace:
            instr.set_operand(i, replace[src])
    instr.implicit_uses = [replace.get(r, r) if isinstance(r, VReg) else r for r in instr.implicit_uses]


def candidate_key(instr: MInstr, defined: Counter) -> tuple[Any, ...] | None:
    """The instruction's value as a key, or None when it is not a candidate."""
    info = instr.info
    if info.family not in FAMILIES and instr.op not in PSEUDOS:
        return None
    if info.scc or info.memory is not None or info.terminator or instr.implicit_uses or instr.implicit_defs:
        return None
    defs = instr.defs()
    if not defs or any(not isinstance(o, VReg) or defined[o] != 1 for _, o in defs):
        return None
    if instr.op in PSEUDOS and any(not (isinstance(o, VReg) and o.file == "v") for o in instr.operands):
        return None
    sources = []
    for _, src in instr.uses():
        if isinstance(src, VReg):
            sources.append(("reg", src))
        elif isinstance(src, Imm):
            value = src.value
            sources.append(("f", struct.pack("<d", value)) if isinstance(value, float) else ("i", int(value)))
        else:
            return None  # a physical register (may be written again), a slot, a label
    return (instr.op, len(defs), tuple(o.width for _, o in defs), tuple(sources))
