"""Dominator trees and dominance queries.

The tree is built with the Cooper-Harvey-Kennedy iterative algorithm ("A
Simple, Fast Dominance Algorithm"): walk the blocks in reverse post-order and
intersect the immediate dominators of each block's processed predecessors
until nothing changes. Dominance queries are O(1) through pre/post numbers
of a walk over the finished tree.

Blocks unreachable from the entry are not in the tree; by convention (as in
LLVM) every block dominates an unreachable block, and an unreachable block
dominates nothing reachable. Nothing is cached on the IR: a pass that changes
the CFG computes a new tree.

This lives in `ir/` (as LLVM's `IR/Dominators.h` and MLIR's `IR/Dominance.h`
do) because the verifier checks SSA dominance; `analysis/dominators.py`
builds post-dominators and iterated frontiers on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, TypeVar

from .cfg import predecessors, successors
from .values import Block, Function, Instr

N = TypeVar("N", bound=Hashable)


def _rpo(entry: N, succs: Callable[[N], Iterable[N]]) -> list[N]:
    order: list[N] = []
    visited = {entry}
    stack: list[tuple[N, list[N]]] = [(entry, list(succs(entry)))]
    while stack:
        node, rest = stack[-1]
        if rest:
            nxt = rest.pop(0)
            if nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, list(succs(nxt))))
        else:
            stack.pop()
            order.append(node)
    return order[::-1]


def compute_idoms(entry: N, succs: Callable[[N], Iterable[N]],
                  preds: Callable[[N], Iterable[N]]) -> tuple[dict[N, N | None], list[N]]:
    """Immediate dominators of every node reachable from `entry` (entry maps to None),
    and those nodes in reverse post-order."""
    rpo = _rpo(entry, succs)
    index = {n: i for i, n in enumerate(rpo)}
    idom: dict[N, N | None] = {entry: entry}

    def intersect(a: N, b: N) -> N:
        while a is not b:
            while index[a] > index[b]:
                a = idom[a]  # type: ignore[assignment]
            while index[b] > index[a]:
                b = idom[b]  # type: ignore[assignment]
        return a

    changed = True
    while changed:
        changed = False
        for node in rpo[1:]:
            done = [p for p in preds(node) if p in idom and p in index]
            new = done[0]
            for p in done[1:]:
                new = intersect(p, new)
            if idom.get(node) is not new:
                idom[node] = new
                changed = True
    idom[entry] = None
    return idom, rpo


@dataclass
class DomTree:
    """The dominator tree of one function (or, from `post_dominators`, the
    post-dominator tree, whose root is a virtual exit named by `root is None`)."""

    idom: dict[Block, Block | None]
    rpo: list[Block]
    children: dict[Block, list[Block]] = field(init=False)
    _pre: dict[Block, int] = field(init=False, repr=False)
    _post: dict[Block, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.children = {b: [] for b in self.idom}
        for block in self.rpo:
            parent = self.idom.get(block)
            if parent is not None:
                self.children[parent].append(block)
        self._number()

    def _number(self) -> None:
        self._pre, self._post = {}, {}
        counter = 0
        for root in [b for b in self.rpo if self.idom.get(b) is None]:
            stack: list[tuple[Block, bool]] = [(root, False)]
            while stack:
                block, done = stack.pop()
                counter += 1
                if done:
                    self._post[block] = counter
                    continue
                self._pre[block] = counter
                stack.append((block, True))
                stack.extend((c, False) for c in reversed(self.children[block]))

    @classmethod
    def compute(cls, fn: Function) -> DomTree:
        preds = predecessors(fn)
        idom, rpo = compute_idoms(fn.entry, successors, lambda b: preds[b])
        return cls(idom, rpo)

    def contains(self, block: Block) -> bool:
        return block in self._pre

    def block_dominates(self, a: Block, b: Block) -> bool:
        """Whether every path from the root to `b` goes through `a` (a block dominates itself)."""
        if b not in self._pre:
            return True
        if a not in self._pre:
            return False
        return self._pre[a] <= self._pre[b] and self._post[b] <= self._post[a]

    def dominates(self, a: Block | Instr, b: Block | Instr) -> bool:
        """Block dominance, or for instructions: `a` runs before `b` on every path
        (an instruction does not dominate itself)."""
        if isinstance(a, Block) and isinstance(b, Block):
            return self.block_dominates(a, b)
        if isinstance(a, Instr) and isinstance(b, Instr):
            assert a.parent is not None and b.parent is not None
            if a.parent is b.parent:
                instrs = a.parent.instrs
                return instrs.index(a) < instrs.index(b)
            return self.block_dominates(a.parent, b.parent)
        raise TypeError("dominates() compares two blocks or two instructions")

    def strictly_dominates(self, a: Block, b: Block) -> bool:
        return a is not b and self.block_dominates(a, b)

    def preorder(self) -> list[Block]:
        """Tree nodes in depth-first pre-order (each block after its dominator)."""
        return sorted(self._pre, key=self._pre.__getitem__)

    def frontiers(self, preds: dict[Block, list[Block]]) -> dict[Block, set[Block]]:
        """Dominance frontier of every block in the tree (Cooper-Harvey-Kennedy)."""
        df: dict[Block, set[Block]] = {b: set() for b in self._pre}
        for block in self._pre:
            ps = [p for p in preds.get(block, []) if p in self._pre]
            # A join point; a root is one as soon as it has any predecessor (the other
            # is the function's start).
            if len(ps) < 2 and not (ps and self.idom[block] is None):
                continue
            for p in ps:
                runner: Block | None = p
                while runner is not None and runner is not self.idom[block]:
                    df[runner].add(block)
                    runner = self.idom[runner]
        return df
