"""mem2reg: promote private allocas that are only loaded and stored to SSA values.

The frontend gives every local variable an `alloca`; this pass turns each
promotable one into SSA values the classic way (Cytron et al.):

1. An alloca is promotable when it is in the private space, holds a scalar,
   vector or pointer, and its address is used only as the address operand of
   non-volatile loads and stores of exactly that type (it does not escape: it
   is not stored, passed to a call, offset with getelementptr or cast).
2. Phis go on the iterated dominance frontier of the blocks that store to it.
3. A walk over the dominator tree renames: each load becomes the value
   reaching it (`undef` when nothing was stored yet), each store sets it, and
   successor phis receive it. Loads and stores in unreachable blocks become
   `undef` and disappear.
4. Phis that nothing (transitively) uses are removed.

Requires: nothing. Invalidates: nothing about the CFG (no edges change);
instructions are added and removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.dominators import iterated_frontier
from oclpy.ir.builder import add_incomings
from oclpy.ir.cfg import predecessors
from oclpy.ir.dominance import DomTree
from oclpy.ir.types import AddressSpace, FloatType, IntType, PtrType, Type, VectorType
from oclpy.ir.values import Block, Function, Instr, Module, Undef, Value

from .manager import defined_functions, register

_PROMOTABLE_TYPES = (IntType, FloatType, PtrType, VectorType)


@register
@dataclass
class Mem2Reg:
    """Promote allocas to SSA registers. Requires: nothing. Invalidates: nothing
    (the CFG is unchanged)."""

    name: ClassVar[str] = "mem2reg"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            changed |= promote_function(fn)
        return changed


def is_promotable(alloca: Instr, users: list[Instr]) -> bool:
    """Whether `alloca` (with these users) can become an SSA value."""
    elem: Type = alloca.attrs.get("elem")  # type: ignore[assignment]
    if alloca.attrs.get("space", AddressSpace.PRIVATE) is not AddressSpace.PRIVATE:
        return False
    if not isinstance(elem, _PROMOTABLE_TYPES):
        return False
    for user in users:
        if user.attrs.get("volatile"):
            return False
        if user.op == "load" and user.type == elem:
            continue
        if (user.op == "store" and user.operands[1] is alloca and user.operands[0] is not alloca
                and user.operands[0].type == elem):
            continue
        return False
    return True


def promote_function(fn: Function) -> bool:
    users = {i: i.users for i in fn.instructions() if i.op == "alloca"}
    promoted = [a for a, us in users.items() if is_promotable(a, us)]
    if not promoted:
        return False
    dt = DomTree.compute(fn)
    preds = predecessors(fn)
    df = dt.frontiers(preds)
    phi_of: dict[Instr, Instr] = {}  # inserted phi -> its alloca
    placed: dict[Block, int] = {}  # phis inserted per block, to keep them in alloca order
    for alloca in promoted:
        def_blocks = {u.parent for u in users[alloca] if u.op == "store" and dt.contains(u.parent)}
        for block in iterated_frontier(df, def_blocks):  # type: ignore[arg-type]
            phi = Instr("phi", alloca.attrs["elem"], name=alloca.name)
            block.insert(placed.get(block, 0), phi)
            placed[block] = placed.get(block, 0) + 1
            phi_of[phi] = alloca
    repl = _rename(fn, dt, set(promoted), phi_of)
    _finish(fn, promoted, users, phi_of, preds, repl)
    return True


def _rename(fn: Function, dt: DomTree, promoted: set[Instr],
            phi_of: dict[Instr, Instr]) -> dict[Value, Value]:
    """Walk the dominator tree; return the value that replaces each load."""
    repl: dict[Value, Value] = {}
    incoming: dict[Instr, tuple[list[Value], list[Block]]] = {}  # phi -> its incoming pairs so far
    entry_values = {a: Undef(a.attrs["elem"]) for a in promoted}  # type: dict[Instr, Value]
    stack: list[tuple[Block, dict[Instr, Value]]] = [(fn.entry, entry_values)]
    while stack:
        block, current = stack.pop()
        current = dict(current)
        for instr in block.instrs:
            if instr in phi_of:
                current[phi_of[instr]] = instr
            elif instr.op == "load" and instr.operands[0] in promoted:
                repl[instr] = current[instr.operands[0]]  # type: ignore[index]
            elif instr.op == "store" and instr.operands[1] in promoted:
                current[instr.operands[1]] = instr.operands[0]  # type: ignore[index]
        for succ in dict.fromkeys(block.successors()):
            for phi in succ.phis():
                if phi in phi_of:
                    values, blocks = incoming.pop(phi, None) or ([], [])
                    values.append(current[phi_of[phi]])
                    blocks.append(block)
                    incoming[phi] = values, blocks  # (re)inserted last: phis in the order of their last pair
        stack.extend((child, current) for child in dt.children[block])
    _add_incoming(incoming)
    return repl


def _add_incoming(incoming: dict[Instr, tuple[list[Value], list[Block]]]) -> None:
    """Give each new phi its incoming pairs at once. `add_incoming` per pair rebuilt the
    operands each time (quadratic in a join's predecessors: a 4,000-case switch took 30 s).
    The result is the same to the order of each value's users: a phi is last among the
    users of its operands, in the order in which the phis got their last pair."""
    for phi, (values, blocks) in incoming.items():
        assert not phi.operands and not phi.blocks
        phi.operands = values
        phi.blocks.extend(blocks)


def _resolve(value: Value, repl: dict[Value, Value]) -> Value:
    while value in repl:
        value = repl[value]
    return value


def _finish(fn: Function, promoted: list[Instr], users: dict[Instr, list[Instr]],
            phi_of: dict[Instr, Instr], preds: dict[Block, list[Block]],
            repl: dict[Value, Value]) -> None:
    """Remove the allocas, their loads and stores; rewrite uses; fill phi gaps."""
    doomed: set[Instr] = set(promoted)
    for alloca in promoted:
        for user in users[alloca]:
            doomed.add(user)
            if user.op == "load" and user not in repl:  # in an unreachable block
                repl[user] = Undef(user.type)
    for phi in phi_of:  # edges from unreachable predecessors carry undef
        assert phi.parent is not None
        have = {id(b) for b in phi.blocks}  # a join after a switch has thousands
        add_incomings(phi, [(Undef(phi.type), pred) for pred in preds.get(phi.parent, [])
                            if id(pred) not in have])
    for load in repl:
        load.replace_all_uses_with(_resolve(load, repl))
    for block in fn.blocks:
        block.erase_instrs(doomed)
    _remove_dead_phis(fn, set(phi_of))


def _remove_dead_phis(fn: Function, candidates: set[Instr]) -> None:
    """Drop inserted phis that no non-candidate instruction reaches through uses."""
    live = {phi for phi in candidates if any(u not in candidates for u in phi.users)}
    work = list(live)
    while work:
        phi = work.pop()
        for op in phi.operands:
            if op in candidates and op not in live:
                live.add(op)  # type: ignore[arg-type]
                work.append(op)  # type: ignore[arg-type]
    dead = candidates - live
    for block in fn.blocks:
        block.erase_instrs(dead)
