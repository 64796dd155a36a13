"""Dominance analyses built on the IR's dominator tree (`ir/dominance.py`):
dominance frontiers, iterated frontiers (where mem2reg puts phis) and the
post-dominator tree (a virtual exit joined from every block without
successors).
"""

from __future__ import annotations

from typing import Iterable

from oclpy.ir.cfg import predecessors, successors
from oclpy.ir.dominance import DomTree, compute_idoms
from oclpy.ir.values import Block, Function


def dominance_frontiers(fn: Function) -> dict[Block, set[Block]]:
    return DomTree.compute(fn).frontiers(predecessors(fn))


def iterated_frontier(df: dict[Block, set[Block]], blocks: Iterable[Block]) -> set[Block]:
    """DF+ of a set of blocks: where phis go for a variable defined in `blocks`."""
    result: set[Block] = set()
    work = list(blocks)
    while work:
        block = work.pop()
        for f in df.get(block, ()):
            if f not in result:
                result.add(f)
                work.append(f)
    return result


def post_dominators(fn: Function) -> DomTree:
    """The post-dominator tree. Its root is a virtual exit (not a block) joined
    from every block without successors; blocks that cannot reach an exit
    (infinite loops) are not in the tree. Tree roots have idom None."""
    exit_node = _VirtualExit()
    preds = predecessors(fn)
    exits = [b for b in fn.blocks if not successors(b)]

    def rsuccs(n: object) -> list[object]:
        return list(exits) if n is exit_node else list(preds.get(n, []))  # type: ignore[arg-type]

    def rpreds(n: object) -> list[object]:
        if n is exit_node:
            return []
        succs: list[object] = list(successors(n))  # type: ignore[arg-type]
        return succs if succs else [exit_node]

    idom, rpo = compute_idoms(exit_node, rsuccs, rpreds)  # type: ignore[arg-type]
    blocks = [b for b in rpo if b is not exit_node]
    pidom = {b: (None if idom[b] is exit_node else idom[b]) for b in blocks}
    return DomTree(pidom, blocks)  # type: ignore[arg-type]


class _VirtualExit:
    """The post-dominator tree's root: stands for "the function returned"."""
