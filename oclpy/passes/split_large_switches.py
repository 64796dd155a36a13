"""split-large-switches: turn a switch of thousands of cases into a tree of small ones.

Why
---
LLVM 20's SimplifyCFG looks for switch cases whose blocks are duplicates
(`simplifyDuplicateSwitchArms`) by hashing the case blocks; once earlier
folding has reduced every case of a switch to a branch to a common block
(`case k: r = x * 3 + k; break;` becomes a constant per case), every block
hashes alike and the search compares every pair. A kernel with one
5,000-case switch spent 22 of its 23 seconds of LLVM time there (clang 14,
without that search, takes under a second), and the time grows with the
square of the number of cases.

What it does
------------
A switch with more than `max_cases` cases is replaced by a binary search over
its case values (unsigned order, `icmp ult` against a pivot) whose leaves are
switches of at most `max_cases` consecutive cases, each with the original
default. Every value still reaches the block it reached before: a value
between two leaves' cases falls to a leaf's default. The pivots are range
checks, not equality tests, so SimplifyCFG does not fold the leaves back into
one switch. A phi in a target of the switch gets, for the switch's block, one
entry per leaf that branches to the target, with the same value. LLVM's code
generator still makes a jump table of each dense leaf, so the cost at run
time is a few compares before it.

Requires: nothing. Invalidates: the CFG of the functions it changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir.block_names import BlockNames
from oclpy.ir.builder import Builder, add_incomings, const_int
from oclpy.ir.values import Block, Function, Instr, Module

from .manager import PassError, register

Case = tuple[int, int, Block]  # (value as unsigned, value as written, target)


@register
@dataclass
class SplitLargeSwitches:
    """Replace each switch of more than `max_cases` cases by a search tree of small switches.
    Requires: nothing. Invalidates: the CFG."""

    name: ClassVar[str] = "split-large-switches"
    max_cases: int = 128

    def run(self, module: Module) -> bool:
        if self.max_cases < 1:
            raise PassError(self.name, f"max_cases must be at least 1, not {self.max_cases}")
        changed = False
        for fn in module.functions:
            for block in list(fn.blocks):
                term = block.terminator
                if term is not None and term.op == "switch" and len(term.attrs["cases"]) > self.max_cases:
                    split_switch(fn, block, term, self.max_cases)
                    changed = True
        return changed


def split_switch(fn: Function, block: Block, switch: Instr, max_cases: int) -> None:
    """Rewrite `switch`, the terminator of `block`, as a search tree of switches of at
    most `max_cases` cases."""
    value = switch.operands[0]
    mask = (1 << value.type.bits) - 1  # type: ignore[attr-defined]
    default = switch.targets[0]
    cases = sorted(((c & mask, c, t) for c, t in zip(switch.attrs["cases"], switch.targets[1:])),
                   key=lambda case: case[0])
    chunks = [cases[k:k + max_cases] for k in range(0, len(cases), max_cases)]
    targets = list({id(t): t for t in switch.targets}.values())
    incoming = {id(t): _values_from(t, block) for t in targets}
    switch.erase()
    leaves: list[Block] = []
    _build_tree(fn, BlockNames(fn), block, value, default, chunks, leaves)
    leaves_to: dict[int, list[Block]] = {}
    for leaf in leaves:
        for target in {id(t): t for t in leaf.successors()}.values():
            leaves_to.setdefault(id(target), []).append(leaf)
    for target in targets:
        _repoint_phis(target, block, incoming[id(target)], leaves_to[id(target)])


def _build_tree(fn: Function, names: BlockNames, here: Block, value, default: Block,
                chunks: list[list[Case]], leaves: list[Block]) -> None:
    """Fill `here` with the search over `chunks`: a leaf switch for one chunk, else a
    branch on the first case value of the upper half."""
    builder = Builder(here)
    if len(chunks) == 1:
        builder.switch(value, default, [(written, target) for _, written, target in chunks[0]])
        leaves.append(here)
        return
    mid = len(chunks) // 2
    pivot = chunks[mid][0][0]
    low, high = (Block(names.unique(f"{here.name}.{half}"), parent=fn) for half in ("lt", "ge"))
    fn.blocks += (low, high)
    below = builder.icmp("ult", value, const_int(value.type, pivot))
    builder.condbr(below, low, high)
    _build_tree(fn, names, low, value, default, chunks[:mid], leaves)
    _build_tree(fn, names, high, value, default, chunks[mid:], leaves)


def _values_from(target: Block, pred: Block) -> list:
    """The incoming value of each phi of `target` for the edge from `pred`."""
    return [phi.operands[phi.blocks.index(pred)] for phi in target.phis()]


def _repoint_phis(target: Block, old_pred: Block, values: list, preds: list[Block]) -> None:
    """Give each phi of `target` one entry per leaf in `preds` (the leaves that branch
    to it), with the value it had for `old_pred`, which no longer branches to it."""
    for phi, value in zip(target.phis(), values):
        k = phi.blocks.index(old_pred)
        phi.blocks[k] = preds[0]
        add_incomings(phi, [(value, leaf) for leaf in preds[1:]])
