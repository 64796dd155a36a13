"""The allocation checker: does the allocated function read what the virtual one meant?

In the spirit of regalloc2's `checker.rs`. `check_allocation(before, after,
files)` takes a function before register allocation (virtual registers) and
after it (physical registers, spill code, saves) and returns its problems as
sentences naming the block, the instruction and the register; it trusts
nothing the allocator computed.

1. *Pairing.* Block by block, each instruction of `after` is either the
   counterpart of the next instruction of `before` (same opcode and
   non-register operands; a virtual register stands as a physical one of its
   file and width, a physical one as itself) or code the allocator may
   insert: a scratch load or store between a register and one of the frame
   slots the allocator added, addressed from `s32`; `s_add_u32`/`s_sub_u32
   s32, s32, imm` (the frame moved around a call); a move of the return
   address to `s[30:31]`.
2. *Abstract values.* A forward dataflow over the CFG tracks, for every
   32-bit register unit and every word of the new slots, the set of facts it
   holds: `(value, word)`, where a value is a virtual register (`%v7`, word
   1 of a pair is its high half), or `$s5`, the value the original code last
   wrote to physical `s5` (its incoming value at entry), or `in:s5`, the
   incoming value (what a callee-saved register must hold at a return), or
   `$s32+16`, the stack pointer moved. Writing a value removes its stale copies everywhere;
   spill code copies facts between registers and slots; a call empties every
   caller-saved unit (the callee may write them), then its return registers
   hold their new values. The reserved pool holds values for one
   instruction only: the checker empties it at each block start and around
   each original instruction, keeping what the reloads just before wrote
   and, after it, what it wrote. Joins intersect the sets.
3. *Checks.* At each original instruction every register it reads must hold
   the value the virtual code reads there (on every path: the meet is an
   intersection); spill code must address the frame from `s32` at the frame
   base; at a return every callee-saved unit must hold what the original
   holds there (the incoming value, unless the original wrote it).

Lanes and exec are not modelled: the check is per wave, over the CFG.
"""

from __future__ import annotations

import re
from typing import Mapping

from .calling_convention import RETURN_ADDRESS, STACK_POINTER, callee_saved, caller_saved, spill_pool
from .machine import Label, MBlock, MFunction, MInstr, PReg, Slot, VReg, instr_problems

Loc = tuple[str, int]  # ("s", 5), ("v", 12), or ("stack.K", word)
Fact = tuple[str, int]  # (value, word)
State = dict[Loc, frozenset[Fact]]

SPILL_STORES = {"s_scratch_store_b32", "s_scratch_store_b64", "s_scratch_store_b128",
                "scratch_store_b32", "scratch_store_b64", "scratch_store_b128"}
SPILL_LOADS = {"s_scratch_load_b32", "s_scratch_load_b64", "s_scratch_load_b128",
               "scratch_load_b32", "scratch_load_b64", "scratch_load_b128"}
FRAME_BASE: Fact = ("$s32", 0)


class AllocCheckError(Exception):
    """The allocated function does not compute what the virtual one did."""


def default(loc: Loc) -> frozenset[Fact]:
    """At entry a register holds the original's value of it, which is its incoming value."""
    if loc[0] not in ("s", "v"):
        return frozenset()
    return frozenset({(f"${loc[0]}{loc[1]}", 0), (f"in:{loc[0]}{loc[1]}", 0)})


def get(state: State, loc: Loc) -> frozenset[Fact]:
    return state[loc] if loc in state else default(loc)


UNDEFINED: Loc = ("undefined", 0)  # not a place: the values the original has not yet written on this path


def meet(a: State | None, b: State) -> State:
    """What holds on both paths. A value the original has not written on one path holds anywhere
    on it (the original reads garbage there too)."""
    if a is None:
        return dict(b)
    ua, ub = a.get(UNDEFINED, frozenset()), b.get(UNDEFINED, frozenset())
    out = {UNDEFINED: ua & ub}
    for loc in (set(a) | set(b)) - {UNDEFINED}:
        fa, fb = get(a, loc), get(b, loc)
        out[loc] = (fa & fb) | {f for f in fa if (f[0], 0) in ub} | {f for f in fb if (f[0], 0) in ua}
    return out


def holds(state: State, loc: Loc, fact: Fact) -> bool:
    return fact in get(state, loc) or (fact[0], 0) in state.get(UNDEFINED, frozenset())


def units(reg: PReg) -> list[Loc]:
    return [(reg.file, u) for u in reg.units()]


def value_facts(reg: VReg | PReg) -> list[Fact]:
    """What the units of the register hold when it holds its value, word by word."""
    if isinstance(reg, VReg):
        return [(f"%{reg.file}{reg.id}", w) for w in range(reg.width // 32)]
    return [(f"${reg.file}{u}", 0) for u in reg.units()]


def define(state: State, reg: PReg, value: VReg | PReg) -> None:
    facts = value_facts(value)
    names = {name for name, _ in facts}
    for loc in list(state):
        if any(name in names for name, _ in state[loc]):
            state[loc] = frozenset(f for f in state[loc] if f[0] not in names)
    for loc, fact in zip(units(reg), facts):
        state[loc] = frozenset({fact})


def describe(facts: frozenset[Fact]) -> str:
    shown = sorted(name + (f" (word {w})" if w else "") for name, w in facts if not name.startswith("in:"))
    if not shown:
        return "its incoming value" if facts else "no known value on some path"
    return ", ".join(shown)


# -- pairing ---------------------------------------------------------------------------------

def same_operand(b: object, a: object) -> bool:
    if isinstance(b, VReg):
        return isinstance(a, PReg) and a.file == b.file and a.width == b.width
    return type(a) is type(b) and str(a) == str(b)


def corresponds(b: MInstr, a: MInstr) -> bool:
    lists = ((b.operands, a.operands), (b.implicit_uses, a.implicit_uses), (b.implicit_defs, a.implicit_defs))
    return b.op == a.op and all(len(x) == len(y) and all(map(same_operand, x, y)) for x, y in lists)


def is_inserted(a: MInstr, new_slots: set[int]) -> bool:
    ops = a.operands
    if a.op in SPILL_STORES | SPILL_LOADS:
        slot = ops[-1]
        return isinstance(slot, Slot) and slot.index in new_slots and STACK_POINTER in ops
    if a.op in ("s_add_u32", "s_sub_u32"):
        return ops[0] == STACK_POINTER and ops[1] == STACK_POINTER
    return a.op == "s_mov_b64" and ops[0] == RETURN_ADDRESS and isinstance(ops[1], PReg)


def pair_block(b: MBlock, a: MBlock, new_slots: set[int], fn: str) -> tuple[list[tuple[MInstr, MInstr | None]],
                                                                              list[str]]:
    """Each instruction of `a` with its original in `b` (None: inserted), and what does not pair."""
    pairs: list[tuple[MInstr, MInstr | None]] = []
    i = 0
    for instr in a.instrs:
        if i < len(b.instrs) and corresponds(b.instrs[i], instr):
            pairs.append((instr, b.instrs[i]))
            i += 1
        elif is_inserted(instr, new_slots):
            pairs.append((instr, None))
        else:
            want = f" (expected '{show(b.instrs[i])}')" if i < len(b.instrs) else ""
            return pairs, [f"@{fn}: block '{a.name}': '{show(instr)}' is neither an original instruction "
                           f"nor spill code{want}"]
    missing = [f"@{fn}: block '{a.name}': '{show(x)}' is missing after allocation" for x in b.instrs[i:]]
    return pairs, missing


def show(instr: MInstr) -> str:
    text = instr.op + (" " + ", ".join(str(o) for o in instr.operands) if instr.operands else "")
    if instr.implicit_uses:
        text += " uses[" + ", ".join(map(str, instr.implicit_uses)) + "]"
    return text


# -- the abstract interpretation ------------------------------------------------------------

class Checker:
    """One function's check (see the module docstring)."""

    def __init__(self, before: MFunction, after: MFunction, files: Mapping[str, int]) -> None:
        self.before, self.after, self.files = before, after, dict(files)
        self.new_slots = set(range(len(before.slots), len(after.slots)))
        self.pool = {(f, u) for f in ("s", "v") for u in spill_pool(f, files[f])}
        self.clobbers = [(f, u) for f in ("s", "v") for u in caller_saved(f, files[f])]
        self.saved = [(f, u) for f in ("s", "v") for u in callee_saved(f, files[f])]
        self.errors: list[str] | None = None
        self.block_name = ""
        self.fallthrough = ""

    def error(self, instr: MInstr, original: MInstr | None, message: str) -> None:
        if self.errors is None:
            return
        was = f" (for '{show(original)}')" if original is not None and original is not instr else ""
        self.errors.append(f"@{self.after.name}: block '{self.block_name}', '{show(instr)}'{was}: {message}")

    def expect(self, state: State, instr: MInstr, original: MInstr | None, reg: PReg, value: VReg | PReg) -> None:
        for loc, fact in zip(units(reg), value_facts(value)):
            facts = get(state, loc)
            if not holds(state, loc, fact):
                what = str(value) if fact[1] == 0 else f"word {fact[1]} of {value}"
                self.error(instr, original, f"{loc[0]}{loc[1]} should hold {what} but holds {describe(facts)}")

    def run_block(self, state: State, pairs: list[tuple[MInstr, MInstr | None]]) -> list[tuple[str, State]]:
        """Walk one block from its entry state; the state along each way out (target block, state)."""
        state = dict(state)
        fresh: set[Loc] = set()
        out: list[tuple[str, State]] = []
        for loc in self.pool:
            state[loc] = frozenset()
        for instr, original in pairs:
            if original is None:
                fresh |= self.inserted(state, instr)
                continue
            for loc in self.pool - fresh:
                state[loc] = frozenset()
            written = self.original(state, instr, original)
            for loc in self.pool - written:
                state[loc] = frozenset()
            fresh = set()
            out += [(str(o), dict(state)) for o in instr.operands if instr.info.branch and isinstance(o, Label)]
        return out + [(self.fallthrough, state)]

    def inserted(self, state: State, instr: MInstr) -> set[Loc]:
        """Spill code, saves, SP moves: facts move between registers and slots. The units written."""
        ops = instr.operands
        if instr.op in ("s_add_u32", "s_sub_u32"):
            amount = int(ops[2].value)  # type: ignore[union-attr]
            delta = amount if instr.op == "s_add_u32" else -amount
            state[("s", 32)] = frozenset(moved for f in get(state, ("s", 32)) if (moved := move_sp(f, delta)))
            return {("s", 32)}
        if instr.op == "s_mov_b64":
            for dst, src in zip(units(ops[0]), units(ops[1])):  # type: ignore[arg-type]
                state[dst] = get(state, src)
            return set(units(ops[0]))  # type: ignore[arg-type]
        if FRAME_BASE not in get(state, ("s", 32)):
            self.error(instr, None, f"addresses the frame from s32, which holds {describe(get(state, ('s', 32)))}, "
                                    "not the frame base")
        slot, reg = ops[-1], next(o for o in ops if isinstance(o, PReg) and o != STACK_POINTER)
        words = [(f"stack.{slot.index}", w) for w in range(reg.count)]  # type: ignore[union-attr]
        if instr.op in SPILL_STORES:
            for word, unit in zip(words, units(reg)):
                state[word] = get(state, unit)
            return set()
        for word, unit in zip(words, units(reg)):
            state[unit] = get(state, word)
        return set(units(reg))

    def original(self, state: State, instr: MInstr, original: MInstr) -> set[Loc]:
        """Check the reads of an original instruction, then apply its writes. The units written."""
        used = list(zip(original.uses(), instr.uses()))
        for (_, b), (_, a) in used + [((0, x), (0, y)) for x, y in zip(original.implicit_uses, instr.implicit_uses)]:
            if isinstance(a, PReg):
                self.expect(state, instr, original, a, b)  # type: ignore[arg-type]
        if original.op == "v_writelane_b32":
            self.expect(state, instr, original, instr.operands[0], original.operands[0])  # type: ignore[arg-type]
        if original.op == "s_setpc_b64" and self.after.kind == "func":
            for loc in self.saved:
                if (f"in:{loc[0]}{loc[1]}", 0) not in get(state, loc):
                    self.error(instr, original, f"callee-saved {loc[0]}{loc[1]} should hold its incoming value "
                                                f"at the return but holds {describe(get(state, loc))}")
        if original.op == "s_call_b64":
            for loc in self.clobbers:
                state[loc] = frozenset()
        written: set[Loc] = set()
        defs = [(b, a) for (_, b), (_, a) in zip(original.defs(), instr.defs())]
        for b, a in defs + list(zip(original.implicit_defs, instr.implicit_defs)):
            if isinstance(a, PReg):
                define(state, a, b)  # type: ignore[arg-type]
                written |= set(units(a))
        return written

    def solve(self, pairs: list[list[tuple[MInstr, MInstr | None]]]) -> list[State | None]:
        """The state at each block's entry: a forward dataflow to a fixed point (None: unreached)."""
        blocks = self.after.blocks
        index = {b.name: k for k, b in enumerate(blocks)}
        ins: list[State | None] = [None] * len(blocks)
        ins[0] = {UNDEFINED: frozenset((f"%{r.file}{r.id}", 0) for i in self.before.instrs()
                                       for r in i.registers() if isinstance(r, VReg))}
        work = list(range(len(blocks)))
        while work:
            k = work.pop(0)
            if ins[k] is None:
                continue
            self.enter(k)
            for target, out in self.run_block(ins[k], pairs[k]):  # type: ignore[arg-type]
                s = index.get(target)
                if s is None:
                    continue
                new = meet(ins[s], out)
                if new != ins[s]:
                    ins[s] = new
                    if s not in work:
                        work.append(s)
        return ins

    def enter(self, k: int) -> None:
        """Name block `k` in messages and note where it falls through to."""
        blocks = self.after.blocks
        self.block_name = blocks[k].name
        ends = bool(blocks[k].instrs) and blocks[k].instrs[-1].info.terminator
        self.fallthrough = blocks[k + 1].name if not ends and k + 1 < len(blocks) else ""

    def check(self) -> list[str]:
        problems = self.structure()
        if problems:
            return problems
        pairs = []
        for b, a in zip(self.before.blocks, self.after.blocks):
            paired, missing = pair_block(b, a, self.new_slots, self.after.name)
            problems += missing
            pairs.append(paired)
        if problems:
            return problems
        ins = self.solve(pairs)
        self.errors = []
        for k, state in enumerate(ins):
            if state is not None:
                self.enter(k)
                self.run_block(state, pairs[k])
        return list(dict.fromkeys(self.errors))

    def structure(self) -> list[str]:
        """What must hold before any dataflow: same blocks, physical registers inside the files."""
        name = self.after.name
        if [b.name for b in self.before.blocks] != [b.name for b in self.after.blocks]:
            return [f"@{name}: the allocated function's blocks differ from the original's"]
        problems = []
        for instr in self.after.instrs():
            problems += [f"@{name}: '{show(instr)}': {p}" for p in instr_problems(instr)]
            for reg in instr.registers():
                if isinstance(reg, VReg):
                    problems.append(f"@{name}: '{show(instr)}': virtual register {reg} left after allocation")
                elif isinstance(reg, PReg) and reg.index + reg.count > self.files[reg.file]:
                    size = self.files[reg.file]
                    problems.append(f"@{name}: '{show(instr)}': {reg} is outside the {size}-register file")
        return problems


SP_FACT = re.compile(r"(\$s32|in:s32)([+-]\d+)?\Z")


def move_sp(fact: Fact, delta: int) -> Fact | None:
    """The fact about the stack pointer after it moves by `delta` (`$s32` -> `$s32+16`)."""
    m = SP_FACT.match(fact[0])
    if m is None:
        return None
    offset = int(m.group(2) or 0) + delta
    return (m.group(1) + (f"{offset:+d}" if offset else ""), 0)


def check_allocation(before: MFunction, after: MFunction, files: Mapping[str, int]) -> list[str]:
    """The problems of `after` as an allocation of `before` (empty: it is right)."""
    return Checker(before, after, files).check()


def assert_allocation(before: MFunction, after: MFunction, files: Mapping[str, int]) -> None:
    problems = check_allocation(before, after, files)
    if problems:
        raise AllocCheckError("register allocation check failed:\n  " + "\n  ".join(problems))

