"""Control-flow graph queries over one function: successors, predecessors,
reverse post-order, reachability and strongly connected components.

Everything here is computed from the blocks' terminators on each call; nothing
is cached on the IR, so a pass that edits the CFG just asks again. These live
in `ir/` (as LLVM's `IR/CFG.h` does) because the verifier needs them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .values import Block, Function


def successors(block: Block) -> list[Block]:
    """The distinct successor blocks of `block`, in terminator order."""
    targets = block.successors()
    if len(targets) < 2:
        return targets
    seen: set[int] = set()
    out: list[Block] = []
    for succ in targets:  # a switch may have thousands: no scan of those seen
        if id(succ) not in seen:
            seen.add(id(succ))
            out.append(succ)
    return out


def predecessors(fn: Function) -> dict[Block, list[Block]]:
    """Every block of `fn` mapped to its distinct predecessors, in block order."""
    preds: dict[Block, list[Block]] = {b: [] for b in fn.blocks}
    for block in fn.blocks:
        for succ in successors(block):
            preds.setdefault(succ, []).append(block)
    return preds


def post_order(fn: Function) -> list[Block]:
    """Blocks reachable from the entry, in depth-first post-order (iterative)."""
    if fn.is_declaration:
        return []
    order: list[Block] = []
    visited = {fn.entry}
    stack: list[tuple[Block, list[Block]]] = [(fn.entry, successors(fn.entry)[::-1])]
    while stack:
        block, succs = stack[-1]  # successors still to visit, the next one last
        if succs:
            nxt = succs.pop()
            if nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, successors(nxt)[::-1]))
        else:
            stack.pop()
            order.append(block)
    return order


def reverse_post_order(fn: Function) -> list[Block]:
    """Blocks reachable from the entry in reverse post-order (entry first)."""
    return post_order(fn)[::-1]


def reachable_blocks(fn: Function) -> set[Block]:
    return set(post_order(fn))


@dataclass
class CFG:
    """A snapshot of one function's CFG; recompute it after changing edges."""

    fn: Function
    preds: dict[Block, list[Block]]
    succs: dict[Block, list[Block]]
    rpo: list[Block]
    rpo_index: dict[Block, int] = field(init=False)

    def __post_init__(self) -> None:
        self.rpo_index = {b: i for i, b in enumerate(self.rpo)}

    @classmethod
    def compute(cls, fn: Function) -> CFG:
        succs = {b: successors(b) for b in fn.blocks}
        return cls(fn, predecessors(fn), succs, reverse_post_order(fn))

    def reachable(self, block: Block) -> bool:
        return block in self.rpo_index


def strongly_connected_components(roots: list[Block]) -> list[list[Block]]:
    """The strongly connected components of the blocks reachable from `roots`, each
    after every component it reaches (Tarjan's algorithm, without recursion)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[Block] = []
    on_stack: set[int] = set()
    out: list[list[Block]] = []
    for root in roots:
        if id(root) in index:
            continue
        work = [(root, iter(root.successors()))]
        index[id(root)] = low[id(root)] = len(index)
        stack.append(root)
        on_stack.add(id(root))
        while work:
            block, succs = work[-1]
            nxt = next(succs, None)
            if nxt is not None:
                if id(nxt) not in index:
                    index[id(nxt)] = low[id(nxt)] = len(index)
                    stack.append(nxt)
                    on_stack.add(id(nxt))
                    work.append((nxt, iter(nxt.successors())))
                elif id(nxt) in on_stack:
                    low[id(block)] = min(low[id(block)], index[id(nxt)])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[id(parent)] = min(low[id(parent)], low[id(block)])
            if low[id(block)] == index[id(block)]:
                members = []
                while True:
                    b = stack.pop()
                    on_stack.discard(id(b))
                    members.append(b)
                    if b is block:
                        break
                out.append(members)
    return out
