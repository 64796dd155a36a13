"""split-irreducible: make an irreducible CFG reducible by node splitting.

A CFG is reducible when every strongly connected component has one entry (a block
with a predecessor outside it), and so does every component inside it once the
edges back to that entry are taken away. A `goto` into the middle of a loop makes a
component with several entries; code generators that lay loops out header first
(simt's exec-mask linearisation) cannot run it.

Each multi-entry component is cloned once for each of its entries but the first
(in block order): the edges from outside into entry `E` go to `E`'s copy instead,
the copy's edges stay among the copies (or leave the component, as the original's
do). Each copy then has one entry and the original keeps one; nested components
are checked the same way, until none has two entries. Phis follow the edges:
a copied entry's phis keep the incoming values of the edges moved to it, the
original's drop them, and a phi after the component gains the copies' edges.
A value defined in the component and used after it has two definitions once the
component is copied, so it is first *demoted*: an `alloca` in the entry block, a
`store` right after the definition (copied with it), a `load` before each use
outside the component (at the end of the incoming block for a phi).

Copies are bounded (`max_blocks`: the function may grow to that many blocks);
past the bound the function is left as it is, and a target that needs a
reducible CFG reports it.

Requires: nothing. Invalidates: the CFG.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir import types as ir
from oclpy.ir.builder import Builder
from oclpy.ir.cfg import predecessors, reachable_blocks
from oclpy.ir.values import Block, Function, Instr, Module, Value

from .manager import defined_functions, register


def components(blocks: set[Block], header: Block | None) -> list[set[Block]]:
    """The strongly connected components of `blocks` (edges into `header` left out) that
    hold a cycle (Tarjan's algorithm, iterative)."""
    index: dict[Block, int] = {}
    low: dict[Block, int] = {}
    stack: list[Block] = []
    on_stack: set[Block] = set()
    out: list[set[Block]] = []

    def succs(b: Block) -> list[Block]:
        return [s for s in b.successors() if s in blocks and s is not header]

    for root in sorted(blocks, key=lambda b: b.parent.blocks.index(b)):  # type: ignore[union-attr]
        if root in index:
            continue
        work = [(root, iter(succs(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succs(nxt))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp: set[Block] = set()
                while True:
                    b = stack.pop()
                    on_stack.discard(b)
                    comp.add(b)
                    if b is node:
                        break
                if len(comp) > 1 or node in succs(node):
                    out.append(comp)
    return out


def multi_entry_component(fn: Function) -> tuple[set[Block], list[Block]] | None:
    """A component with several entries (and its entries, in block order), or None when the
    CFG is reducible."""
    preds = predecessors(fn)
    order = {b: k for k, b in enumerate(fn.blocks)}
    work: list[tuple[set[Block], Block | None]] = [(reachable_blocks(fn), None)]
    while work:
        blocks, header = work.pop()
        for comp in components(blocks, header):
            entries = sorted((b for b in comp if b is fn.entry or any(p not in comp for p in preds.get(b, []))),
                             key=order.__getitem__)
            if len(entries) > 1:
                return comp, entries
            work.append((comp, entries[0] if entries else None))
    return None


def outside_uses(value: Instr, comp: set[Block]) -> list[tuple[Instr, int]]:
    """The uses of `value` outside `comp`: (user, operand index)."""
    uses = []
    for user in list(value.users):
        for k, op in enumerate(user.operands):
            if op is not value:
                continue
            where = user.blocks[k] if user.op == "phi" else user.parent
            if where not in comp:
                uses.append((user, k))
    return uses


def demote(fn: Function, comp: set[Block]) -> None:
    """Values defined in `comp` and used outside it go through a private slot."""
    allocas = Builder(fn.entry)
    allocas.index = 0  # type: ignore[attr-defined]
    for block in [b for b in fn.blocks if b in comp]:
        for value in list(block.instrs):
            uses = outside_uses(value, comp) if value.type != ir.VOID else []
            if not uses:
                continue
            mem_t = ir.I8 if value.type == ir.I1 else value.type
            slot = allocas.alloca(mem_t, 0, name=f"{value.name or 'v'}.demoted")
            b = Builder(block)
            b.position_before(block.instrs[len(block.phis())] if value.op == "phi" else next_instr(value))
            b.store(b.cast("zext", value, ir.I8) if mem_t != value.type else value, slot)
            for user, k in uses:
                b = Builder(user.blocks[k] if user.op == "phi" else user.parent)  # type: ignore[arg-type]
                b.position_before(user.blocks[k].terminator if user.op == "phi" else user)  # type: ignore[arg-type]
                loaded: Value = b.load(mem_t, slot)
                if mem_t != value.type:
                    loaded = b.cast("trunc", loaded, ir.I1)
                user.set_operand(k, loaded)


def next_instr(value: Instr) -> Instr:
    block = value.parent
    assert block is not None
    return block.instrs[block.instrs.index(value) + 1]


def clone_component(fn: Function, comp: set[Block], entry: Block, preds: list[Block]) -> None:
    """A copy of `comp` entered at `entry`'s copy by the edges from `preds` (outside `comp`)."""
    bmap = {b: Block(fn.unique_block_name(f"{b.name}.split"), parent=fn) for b in fn.blocks if b in comp}
    for copy in bmap.values():
        fn.blocks.append(copy)
    vmap: dict[Value, Value] = {}
    for b, copy in bmap.items():
        for instr in b.instrs:
            clone = Instr(instr.op, instr.type, list(instr.operands), dict(instr.attrs),
                          [bmap.get(t, t) for t in instr.targets], list(instr.blocks), "")
            vmap[instr] = clone
            copy.append(clone)
    for b, copy in bmap.items():
        for clone in copy.instrs:
            if clone.op == "phi":
                pairs = [(vmap.get(v, v), bmap[p]) for v, p in zip(clone.operands, clone.blocks) if p in comp]
                if b is entry:
                    pairs += [(v, p) for v, p in zip(clone.operands, clone.blocks) if p in preds]
                clone.operands = [v for v, _ in pairs]
                clone.blocks = [p for _, p in pairs]
            else:
                clone.operands = [vmap.get(v, v) for v in clone.operands]
    for phi in entry.phis():  # the moved edges leave the original
        keep = [(v, p) for v, p in zip(phi.operands, phi.blocks) if p not in preds]
        phi.operands, phi.blocks = [v for v, _ in keep], [p for _, p in keep]
    for p in preds:
        term = p.terminator
        assert term is not None
        term.targets = [bmap[entry] if t is entry else t for t in term.targets]
    for b, copy in bmap.items():  # phis after the component gain the copies' edges
        for succ in {id(s): s for s in b.successors()}.values():
            if succ in comp:
                continue
            for phi in succ.phis():
                for v, p in list(zip(phi.operands, phi.blocks)):
                    if p is b:
                        phi.add_incoming(vmap.get(v, v), copy)


def split_irreducible(fn: Function, max_blocks: int) -> bool:
    changed = False
    while len(fn.blocks) <= max_blocks:
        found = multi_entry_component(fn)
        if found is None:
            break
        comp, entries = found
        if len(fn.blocks) + len(comp) * (len(entries) - 1) > max_blocks:
            break
        demote(fn, comp)
        preds = predecessors(fn)
        for entry in entries[1:]:
            clone_component(fn, comp, entry, [p for p in dict.fromkeys(preds.get(entry, [])) if p not in comp])
        changed = True
    return changed


@register
@dataclass
class SplitIrreducible:
    """Copy each multi-entry loop once per extra entry, until the CFG is reducible (within
    `max_blocks` blocks per function).
    Requires: nothing. Invalidates: the CFG."""

    name: ClassVar[str] = "split-irreducible"
    max_blocks: int = 2000

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            changed |= split_irreducible(fn, self.max_blocks)
        return changed
