"""Liveness of machine code with virtual registers: live sets per block, live intervals.

The register allocator's first phase (`regalloc.py` drives them all). Over
the machine CFG (`machine.successors`: branch targets and fallthroughs) a
backward dataflow gives each block's live-in and live-out sets of *keys*: a
virtual register (`VReg`) or one 32-bit unit of a physical register
(`("s", 5)`, `("v", 12)`; a pair `s[4:5]` is two units). The fixed point is
found on block summaries (`BlockFlow`: the keys a block reads before writing,
and per exit the keys written before it), made in one walk of each block. `exec` and `scc` are
never allocated and not tracked.

Instructions are numbered in layout order (block after block); instruction
`n` reads its uses at point `2n` and writes its defs at point `2n + 1`, so a
value last read by an instruction and a value it writes do not overlap. What
an instruction reads and writes (`effects`):
- its explicit use and def operands, and its implicit `uses[...]`/`defs[...]`;
- a call (`s_call_b64`) also writes every caller-saved unit of both files
  (the calling convention's clobbers), so no value lives across a call in
  one;
- a *partial* def (`v_writelane_b32` writes one lane and keeps the others)
  reads its destination too.

Each key's live range is a list of segments `[start, end]` (inclusive points).
A virtual register gets one `Interval`, the hull of its segments (no holes):
on exec-mask code a wave walks both sides of a divergent branch, and a
register that another value shares in a hole of the CFG liveness could be
written while some lane still needs the old value; the hull over the layout
(which docs/simt.md's rule makes the wave's walking order) keeps that from
happening. Physical units keep their exact segments (`fixed`): a virtual
register may take a unit only where it has none.

`Interval.weight` is the spill cost (its reads and writes, each counted
10^loop depth, loops found from back edges of the layout) over its length:
the allocator spills the lightest first. `Interval.hints` are the registers
a `p_copy`, `p_join` or `p_split` ties it to, each with the word offset at
which it would sit in them (a part of a tuple sits at its place in the whole),
so that the pseudo becomes no move at all.

Requires: blocks with unique names, labels that exist (`function_problems`).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Mapping, Union

from .calling_convention import caller_saved
from .machine import Imm, Label, MFunction, MInstr, PReg, VReg, successors

Unit = tuple[str, int]
Key = Union[VReg, Unit]
Segment = tuple[int, int]

PARTIAL_DEFS = frozenset({"v_writelane_b32"})  # the def keeps the lanes it does not write


@dataclass
class Interval:
    """One virtual register's live interval (the hull of its live points)."""

    reg: VReg
    start: int
    end: int
    weight: float = 0.0
    hints: list[tuple[PReg | VReg, int]] = field(default_factory=list)  # (register, word offset)

    def overlaps(self, start: int, end: int) -> bool:
        return self.start <= end and start <= self.end


@dataclass
class LiveIntervals:
    """The liveness of one function (see the module docstring)."""

    instrs: list[MInstr]  # layout order
    block_first: list[int]  # each block's first instruction number (its length follows)
    live_in: list[set[Key]]
    live_out: list[set[Key]]
    intervals: dict[VReg, Interval]
    fixed: dict[Unit, list[Segment]]  # physical units: sorted, disjoint segments
    loop_depth: list[int]  # per block
    calls: list[int] = field(default_factory=list)  # instruction numbers of calls

    fixed_ends: dict[Unit, list[int]] = field(default_factory=dict)  # per unit, its segments' ends (sorted)

    def fixed_overlap(self, unit: Unit, start: int, end: int) -> bool:
        """Whether physical unit `unit` is live (or written) anywhere in [start, end]."""
        segments = self.fixed.get(unit)
        if not segments:
            return False
        ends = self.fixed_ends.get(unit)
        if ends is None:
            ends = self.fixed_ends[unit] = [e for _, e in segments]
        k = bisect.bisect_left(ends, start)  # the first segment that ends at or after `start`
        return k < len(segments) and segments[k][0] <= end


def units(reg: PReg) -> list[Unit]:
    return [(reg.file, i) for i in reg.units()]


def call_clobbers(files: Mapping[str, int]) -> list[Unit]:
    """The units a call may overwrite: the caller-saved registers of both files."""
    return [(f, i) for f in ("s", "v") for i in caller_saved(f, files[f])]


def keys_of(regs: list) -> list[Key]:
    out: list[Key] = []
    for r in regs:
        if isinstance(r, VReg):
            out.append(r)
        elif isinstance(r, PReg):
            out += units(r)
    return out


def effects(instr: MInstr, files: Mapping[str, int]) -> tuple[list[Key], list[Key]]:
    """The keys an instruction reads and the keys it writes (see the module docstring)."""
    uses = keys_of([o for _, o in instr.uses()] + list(instr.implicit_uses))
    defs = keys_of([o for _, o in instr.defs()] + list(instr.implicit_defs))
    if instr.op in PARTIAL_DEFS:
        uses += defs
    if instr.op == "s_call_b64":
        defs += [u for u in call_clobbers(files) if u not in defs]
    return list(dict.fromkeys(uses)), list(dict.fromkeys(defs))


def block_numbers(fn: MFunction) -> list[int]:
    firsts, n = [], 0
    for block in fn.blocks:
        firsts.append(n)
        n += len(block.instrs)
    return firsts


def exits(fn: MFunction, k: int) -> tuple[list[tuple[int, str]], str | None]:
    """Where control leaves block `k`: (offset in the block, target) for each branch, wherever it
    stands (a conditional branch may stand inside a block), and the fallthrough block, if any."""
    block = fn.blocks[k]
    branches = [(j, str(o)) for j, i in enumerate(block.instrs) if i.info.branch
                for o in i.operands if isinstance(o, Label)]
    ends = bool(block.instrs) and block.instrs[-1].info.terminator
    fall = fn.blocks[k + 1].name if not ends and k + 1 < len(fn.blocks) else None
    return branches, fall


@dataclass
class BlockFlow:
    """Block `k`'s liveness as a function of its successors' live-in sets: live-in =
    `gen` | the union over `exits` of (target's live-in - kill), where an exit's kill is
    every key the instructions up to it (the branch included; every instruction for the
    fallthrough) write: what the backward walk of the block computes, without walking."""

    gen: frozenset[Key]
    exits: list[tuple[str, frozenset[Key]]]  # (target block, keys written before control leaves there)


def block_flow(fn: MFunction, k: int, per_instr: list[tuple[list[Key], list[Key]]], first: int) -> BlockFlow:
    branches, fall = exits(fn, k)
    at: dict[int, list[str]] = {}
    for j, target in branches:
        at.setdefault(j, []).append(target)
    gen: set[Key] = set()
    killed: set[Key] = set()
    out: list[tuple[str, frozenset[Key]]] = []
    for j in range(len(fn.blocks[k].instrs)):  # forwards: keys read before anything in the block writes them
        uses, defs = per_instr[first + j]
        gen |= {u for u in uses if u not in killed}
        killed |= set(defs)
        out += [(target, frozenset(killed)) for target in at.get(j, ())]
    if fall:
        out.append((fall, frozenset(killed)))
    return BlockFlow(frozenset(gen), out)


def solve_live_sets(fn: MFunction, per_instr: list[tuple[list[Key], list[Key]]],
                    firsts: list[int]) -> tuple[list[set[Key]], list[set[Key]]]:
    """Backward dataflow to a fixed point: each block's live-in and live-out sets."""
    names = [b.name for b in fn.blocks]
    flows = [block_flow(fn, k, per_instr, firsts[k]) for k in range(len(names))]
    live_in: dict[str, set[Key]] = {name: set() for name in names}
    changed = True
    while changed:
        changed = False
        for k in reversed(range(len(fn.blocks))):
            new = set(flows[k].gen)
            for target, kill in flows[k].exits:
                new |= live_in[target] - kill
            if new != live_in[names[k]]:
                live_in[names[k]], changed = new, True
    live_out = [set().union(*(live_in[s] for s in successors(fn, k))) for k in range(len(names))]
    return [live_in[n] for n in names], live_out


def segments_of(fn: MFunction, per_instr: list[tuple[list[Key], list[Key]]], firsts: list[int],
                live_in: list[set[Key]]) -> dict[Key, list[Segment]]:
    """Each key's live segments, block by block, walking backwards from the block's exits."""
    index = {b.name: k for k, b in enumerate(fn.blocks)}
    segs: dict[Key, list[Segment]] = {}
    for k, block in enumerate(fn.blocks):
        if not block.instrs:
            continue
        first, last = firsts[k], firsts[k] + len(block.instrs) - 1
        branches, fall = exits(fn, k)
        open_end: dict[Key, int] = {key: 2 * last + 1 for key in (live_in[index[fall]] if fall else ())}
        at = dict(branches)
        for n in reversed(range(first, last + 1)):
            if n - first in at:
                for key in live_in[index[at[n - first]]]:
                    open_end.setdefault(key, 2 * n + 1)
            uses, defs = per_instr[n]
            for d in defs:
                segs.setdefault(d, []).append((2 * n + 1, open_end.pop(d, 2 * n + 1)))
            for u in uses:
                open_end.setdefault(u, 2 * n)
        for key, end in open_end.items():
            segs.setdefault(key, []).append((2 * first, end))
    return segs


def merge(segments: list[Segment]) -> list[Segment]:
    out: list[Segment] = []
    for s, e in sorted(segments):
        if out and s <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def loop_depths(fn: MFunction) -> list[int]:
    """Loop depth per block: the back edges (to a block at or above the source in the layout)
    whose span [target, source] holds it."""
    index = {b.name: k for k, b in enumerate(fn.blocks)}
    depth = [0] * len(fn.blocks)
    for k in range(len(fn.blocks)):
        for target in (index[name] for name in successors(fn, k)):
            if target <= k:
                for b in range(target, k + 1):
                    depth[b] += 1
    return depth


def copy_hints(instr: MInstr) -> list[tuple[VReg, PReg | VReg, int]]:
    """(virtual register, register it would like to share, its word offset there) for the pseudos
    that copy, join and split: each part next to the whole at its offset."""
    if instr.op not in ("p_copy", "p_join", "p_split") or any(isinstance(o, (Imm, Label)) for o in instr.operands):
        return []
    defs = [o for _, o in instr.defs()]
    uses = [o for _, o in instr.uses()]
    whole, parts = (uses[0], defs) if instr.op == "p_split" else (defs[0], uses)
    out: list[tuple[VReg, PReg | VReg, int]] = []
    offset = 0
    for part in parts:
        if isinstance(part, (PReg, VReg)) and isinstance(whole, (PReg, VReg)) and part.file == whole.file:
            if isinstance(part, VReg):
                out.append((part, whole, offset))
            if isinstance(whole, VReg):
                out.append((whole, part, -offset))
        offset += getattr(part, "width", 32) // 32
    return out


def compute_liveness(fn: MFunction, files: Mapping[str, int]) -> LiveIntervals:
    """Live sets, intervals of virtual registers and segments of physical units of `fn`."""
    instrs = fn.instrs()
    firsts = block_numbers(fn)
    per_instr = [effects(i, files) for i in instrs]
    live_in, live_out = solve_live_sets(fn, per_instr, firsts)
    segs = segments_of(fn, per_instr, firsts, live_in)
    depth = loop_depths(fn)
    block_of = [k for k, b in enumerate(fn.blocks) for _ in b.instrs]
    intervals: dict[VReg, Interval] = {}
    fixed: dict[Unit, list[Segment]] = {}
    for key, parts in segs.items():
        if isinstance(key, VReg):
            intervals[key] = Interval(key, min(s for s, _ in parts), max(e for _, e in parts))
        else:
            fixed[key] = merge(parts)
    cost: dict[VReg, float] = {}
    for n, (uses, defs) in enumerate(per_instr):
        for key in dict.fromkeys(uses + defs):
            if isinstance(key, VReg):
                cost[key] = cost.get(key, 0.0) + 10.0 ** min(depth[block_of[n]], 6)
        for reg, hint, offset in copy_hints(instrs[n]):
            intervals[reg].hints.append((hint, offset))
    for reg, iv in intervals.items():
        iv.weight = cost.get(reg, 0.0) / (iv.end - iv.start + 8)
    calls = [n for n, i in enumerate(instrs) if i.op == "s_call_b64"]
    return LiveIntervals(instrs, firsts, live_in, live_out, intervals, fixed, depth, calls)
