"""SSA liveness: per-block live-in/live-out sets and "live across" queries.

The tracked values are instruction results (non-void) and function arguments;
constants and globals are never live. Conventions (the usual ones for SSA):

- a phi's operand is used at the end of its incoming block, so it is live-out
  of that predecessor and not live-in of the phi's block;
- a phi's result is defined at the top of its block: it is not in the block's
  live-in set;
- `live_in[B]` are the values live on entry to B, `live_out[B]` on exit.

Computed by backward iteration to a fixpoint over the reachable blocks in
post-order (few passes for reducible CFGs). Used by `form-workgroups` (what
must survive a barrier) and by register allocation (what interferes).

Requires: nothing. Invalidated by any change to the function.
"""

from __future__ import annotations

from dataclasses import dataclass

from oclpy.ir.cfg import post_order
from oclpy.ir.types import VOID
from oclpy.ir.values import Argument, Block, Function, Instr, Value


def is_tracked(v: Value) -> bool:
    """Whether liveness tracks `v`: non-void instruction results and arguments."""
    return isinstance(v, Argument) or (isinstance(v, Instr) and v.type != VOID)


def _block_summary(block: Block) -> tuple[set[Value], set[Value]]:
    """(upward-exposed uses ignoring phis, all definitions) of one block."""
    uses: set[Value] = set()
    defs: set[Value] = set()
    for instr in block.instrs:
        if instr.op != "phi":
            for op in instr.operands:
                if is_tracked(op) and op not in defs:
                    uses.add(op)
        defs.add(instr)
    return uses, defs


def _phi_uses(fn: Function) -> dict[Block, set[Value]]:
    """Per predecessor block, the values its successors' phis read on its edge."""
    out: dict[Block, set[Value]] = {b: set() for b in fn.blocks}
    for block in fn.blocks:
        for phi in block.phis():
            for value, pred in phi.incoming():
                if is_tracked(value):
                    out.setdefault(pred, set()).add(value)
    return out


@dataclass
class Liveness:
    fn: Function
    live_in: dict[Block, set[Value]]
    live_out: dict[Block, set[Value]]

    def live_after(self, instr: Instr) -> set[Value]:
        """The values live immediately after `instr` executes (for a terminator: live-out)."""
        block = instr.parent
        assert block is not None
        live = set(self.live_out.get(block, set()))
        for other in reversed(block.instrs):
            if other is instr:
                return live
            live.discard(other)
            if other.op != "phi":
                live.update(op for op in other.operands if is_tracked(op))
        raise ValueError("instruction is not in its parent block")

    def live_across(self, instr: Instr) -> set[Value]:
        """Values live both before and after `instr` (not its own result)."""
        return {v for v in self.live_after(instr) if v is not instr}


def compute_liveness(fn: Function) -> Liveness:
    """Live-in and live-out sets of every block of `fn` reachable from its entry."""
    order = post_order(fn)
    summaries = {b: _block_summary(b) for b in order}
    phi_uses = _phi_uses(fn)
    live_in: dict[Block, set[Value]] = {b: set() for b in order}
    live_out: dict[Block, set[Value]] = {b: set() for b in order}
    changed = True
    while changed:
        changed = False
        for block in order:
            out = set(phi_uses.get(block, set()))
            for succ in block.successors():
                out |= live_in.get(succ, set())
            uses, defs = summaries[block]
            new_in = uses | (out - defs)
            if out != live_out[block] or new_in != live_in[block]:
                live_out[block], live_in[block] = out, new_in
                changed = True
    return Liveness(fn, live_in, live_out)
