"""simplify: constant folding, algebraic identities, dead code and CFG cleanup.

Local rewrites are the pattern table of `passes/fold.py`, applied by one
worklist driver (`simplify_instructions`). The global clean-ups are plain code
over the CFG:

- a `condbr` on a constant (or with both targets equal), or a `switch` on a
  constant, becomes a `br`, and the dropped edges leave the phis;
- blocks unreachable from the entry are deleted, and leave the phis;
- a block whose single predecessor has it as its single successor is merged
  into that predecessor;
- an empty block that only branches on (`br`) is bypassed: its predecessors
  branch straight to its successor, which then gets phi entries from them;
- dead instructions are removed (`passes/dce.py`).

Everything repeats until nothing changes. Phis carry one entry per distinct
predecessor block.

Requires: nothing. Invalidates: the CFG (blocks and edges change), hence
dominators and loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir.builder import Builder
from oclpy.ir.cfg import predecessors, reachable_blocks
from oclpy.ir.values import Block, ConstInt, Function, Instr, Module

from .fold import simplify_instr
from .manager import defined_functions, register
from .dce import eliminate_dead_code


@register
@dataclass
class Simplify:
    """Fold constants, apply identities, remove dead code, clean up the CFG.
    Requires: nothing. Invalidates: CFG, dominators, loops."""

    name: ClassVar[str] = "simplify"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            changed |= simplify_function(fn)
        return changed


def simplify_function(fn: Function) -> bool:
    # Imported here: pass modules load each other through the registry in manager.py.

    changed_any = False
    while True:
        changed = simplify_instructions(fn)
        changed |= fold_branches(fn)
        changed |= remove_unreachable(fn)
        changed |= merge_blocks(fn)
        changed |= bypass_forwarders(fn)
        changed |= eliminate_dead_code(fn)
        if not changed:
            return changed_any
        changed_any = True


# -- the worklist driver -----------------------------------------------------------------


def simplify_instructions(fn: Function) -> bool:
    """Apply `fold.PATTERNS` until no pattern matches; replaced instructions are deleted."""
    work = list(fn.instructions())
    changed = False
    while work:
        instr = work.pop()
        if instr.parent is None:
            continue
        new = simplify_instr(instr)
        if new is None:
            continue
        users = instr.users
        instr.replace_all_uses_with(new)
        work += users
        instr.erase()
        changed = True
    return changed


# -- CFG clean-ups --------------------------------------------------------------------------


def remove_incoming(block: Block, pred: Block) -> None:
    """Drop `pred`'s entries from the phis of `block`."""
    for phi in block.phis():
        keep = [k for k, b in enumerate(phi.blocks) if b is not pred]
        phi.operands = [phi.operands[k] for k in keep]
        phi.blocks = [phi.blocks[k] for k in keep]


def _constant_target(term: Instr) -> Block | None:
    """The one block a condbr/switch goes to, when that is known."""
    if term.op == "condbr":
        cond = term.operands[0]
        if term.targets[0] is term.targets[1]:
            return term.targets[0]
        return term.targets[0 if cond.value else 1] if isinstance(cond, ConstInt) else None
    if term.op == "switch" and isinstance(term.operands[0], ConstInt):
        value = term.operands[0].value
        for case, dest in zip(term.attrs["cases"], term.targets[1:]):
            if case & ((1 << term.operands[0].type.bits) - 1) == value:  # type: ignore[attr-defined]
                return dest
        return term.targets[0]
    if term.op == "switch" and all(t is term.targets[0] for t in term.targets):
        return term.targets[0]
    return None


def fold_branches(fn: Function) -> bool:
    changed = False
    for block in fn.blocks:
        term = block.terminator
        dest = _constant_target(term) if term is not None else None
        if dest is None:
            continue
        for other in {id(t): t for t in term.targets if t is not dest}.values():  # type: ignore[union-attr]
            remove_incoming(other, block)
        term.erase()  # type: ignore[union-attr]
        Builder(block).br(dest)
        changed = True
    return changed


def remove_unreachable(fn: Function) -> bool:
    live = reachable_blocks(fn)
    dead = [b for b in fn.blocks if b not in live]
    if not dead:
        return False
    for block in dead:
        for succ in block.successors():
            if succ in live:
                remove_incoming(succ, block)
    fn.blocks = [b for b in fn.blocks if b in live]
    for block in dead:
        block.erase_instrs()
    return True


def merge_blocks(fn: Function) -> bool:
    """Merge each block into its single predecessor when it is that block's only successor."""
    changed = False
    preds = predecessors(fn)
    merged: set[Block] = set()
    for block in list(fn.blocks[1:]):
        ps = preds.get(block, [])
        if block in merged or len(ps) != 1 or ps[0] is block:
            continue
        pred = ps[0]
        term = pred.terminator
        if term is None or term.op != "br":
            continue
        _merge_into(fn, pred, block)
        merged.add(block)
        for succ in block.successors():
            preds[succ] = [pred if p is block else p for p in preds.get(succ, [])]
        changed = True
    return changed


def _merge_into(fn: Function, pred: Block, block: Block) -> None:
    for phi in block.phis():  # one predecessor: each phi is its single incoming value
        phi.replace_all_uses_with(phi.operands[0])
    block.erase_instrs(set(block.phis()))
    pred.instrs[-1].erase()
    for instr in block.instrs:
        pred.append(instr)
    for succ in {id(s): s for s in block.successors()}.values():
        for phi in succ.phis():
            phi.blocks = [pred if b is block else b for b in phi.blocks]
    block.instrs = []
    fn.blocks.remove(block)


def bypass_forwarders(fn: Function) -> bool:
    """Redirect predecessors of blocks that hold nothing but `br S` straight to S."""
    changed = False
    preds = predecessors(fn)
    for block in fn.blocks[1:]:
        term = block.terminator
        if len(block.instrs) != 1 or term is None or term.op != "br":
            continue
        dest = term.targets[0]
        if dest is block:
            continue
        for pred in list(preds.get(block, [])):
            if any(p is pred for p in preds.get(dest, [])) and dest.phis():
                continue  # the phi would need two different entries from `pred`
            _redirect(pred, block, dest)
            preds[block].remove(pred)
            if pred not in preds.setdefault(dest, []):
                preds[dest].append(pred)
            changed = True
    return changed


def _redirect(pred: Block, via: Block, dest: Block) -> None:
    term = pred.terminator
    assert term is not None
    term.targets = [dest if t is via else t for t in term.targets]
    for phi in dest.phis():
        value = phi.operands[phi.blocks.index(via)]
        if not any(b is pred for b in phi.blocks):
            phi.add_incoming(value, pred)
