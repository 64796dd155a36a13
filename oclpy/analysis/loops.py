"""Natural loops: header, body blocks, latches, exits and nesting.

A back edge is an edge `latch -> header` where the header dominates the latch;
the natural loop of a header is the header plus every block that reaches one of
its latches without passing through the header. Back edges to one header make
one loop. A cycle entered at two places (irreducible control flow) has no
dominating header and is not reported as a loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oclpy.ir.cfg import predecessors, successors
from oclpy.ir.dominance import DomTree
from oclpy.ir.values import Block, Function


@dataclass(eq=False)
class Loop:
    header: Block
    blocks: set[Block]
    latches: list[Block]
    parent: Loop | None = None
    children: list[Loop] = field(default_factory=list)

    @property
    def depth(self) -> int:
        """1 for an outermost loop, 2 for a loop inside it, ..."""
        return 1 if self.parent is None else self.parent.depth + 1

    def contains(self, block: Block) -> bool:
        return block in self.blocks

    @property
    def exits(self) -> list[Block]:
        """Blocks outside the loop that a loop block branches to (distinct)."""
        out: list[Block] = []
        for block in self.ordered_blocks():
            for succ in successors(block):
                if succ not in self.blocks and succ not in out:
                    out.append(succ)
        return out

    @property
    def exiting(self) -> list[Block]:
        """Loop blocks with a successor outside the loop."""
        return [b for b in self.ordered_blocks()
                if any(s not in self.blocks for s in successors(b))]

    def ordered_blocks(self) -> list[Block]:
        fn = self.header.parent
        assert fn is not None
        return [b for b in fn.blocks if b in self.blocks]

    def __repr__(self) -> str:
        return f"<Loop header={self.header.name} depth={self.depth} blocks={len(self.blocks)}>"


@dataclass
class LoopInfo:
    """All natural loops of a function. `top_level` are the outermost loops."""

    loops: list[Loop]
    top_level: list[Loop]
    _innermost: dict[Block, Loop]

    @classmethod
    def compute(cls, fn: Function, domtree: DomTree | None = None) -> LoopInfo:
        dt = domtree or DomTree.compute(fn)
        preds = predecessors(fn)
        loops = [_natural_loop(h, latches, preds, dt)
                 for h, latches in _back_edges(dt, preds).items()]
        loops.sort(key=lambda lp: len(lp.blocks))
        for i, loop in enumerate(loops):
            for outer in loops[i + 1:]:
                if loop.header in outer.blocks and outer.header is not loop.header:
                    loop.parent = outer
                    outer.children.append(loop)
                    break
        innermost: dict[Block, Loop] = {}
        for loop in loops:  # smallest first, so the innermost loop claims a block first
            for block in loop.blocks:
                innermost.setdefault(block, loop)
        top = [lp for lp in loops if lp.parent is None]
        rpo_index = {b: i for i, b in enumerate(dt.rpo)}
        top.sort(key=lambda lp: rpo_index[lp.header])
        return cls(loops, top, innermost)

    def loop_for(self, block: Block) -> Loop | None:
        """The innermost loop containing `block`, or None."""
        return self._innermost.get(block)

    def depth(self, block: Block) -> int:
        loop = self.loop_for(block)
        return 0 if loop is None else loop.depth

    def is_header(self, block: Block) -> bool:
        loop = self.loop_for(block)
        return loop is not None and loop.header is block


def _back_edges(dt: DomTree, preds: dict[Block, list[Block]]) -> dict[Block, list[Block]]:
    """Header -> latches, for headers in reverse post-order."""
    edges: dict[Block, list[Block]] = {}
    for block in dt.rpo:
        for pred in preds.get(block, []):
            if dt.contains(pred) and dt.block_dominates(block, pred):
                edges.setdefault(block, []).append(pred)
    return edges


def _natural_loop(header: Block, latches: list[Block], preds: dict[Block, list[Block]],
                  dt: DomTree) -> Loop:
    body = {header}
    work = [lat for lat in latches if lat is not header]
    body.update(work)
    while work:
        block = work.pop()
        for pred in preds.get(block, []):
            if pred not in body and dt.contains(pred):
                body.add(pred)
                work.append(pred)
    return Loop(header, body, list(latches))
