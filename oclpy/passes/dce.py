"""Dead-code elimination by marking: everything with an effect is live, and so
is every instruction a live one uses; the rest is deleted.

An instruction has an effect unless the opcode table marks it `pure`, it is a
call to a pure intrinsic, or it is an `alloca` (dead when nothing live uses it).
Marking (rather than "delete what has no users") also removes dead cycles of
phis in loops.

Requires: nothing. Invalidates: nothing about the CFG.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir.intrinsics import intrinsic_info
from oclpy.ir.values import Function, Instr, Module

from .manager import defined_functions, register


def is_removable(instr: Instr) -> bool:
    """Whether `instr` may be deleted when its result is unused."""
    if instr.info.pure or instr.op == "alloca":
        return True
    if instr.op == "call":
        info = intrinsic_info(instr.attrs["callee"])
        return info is not None and info.pure
    return False


def eliminate_dead_code(fn: Function) -> bool:
    """Delete the instructions of `fn` that nothing with an effect needs."""
    live: set[Instr] = set()
    work = [i for i in fn.instructions() if not is_removable(i)]
    live.update(work)
    while work:
        instr = work.pop()
        for op in instr.operands:
            if isinstance(op, Instr) and op not in live:
                live.add(op)
                work.append(op)
    dead = {i for i in fn.instructions() if i not in live}
    if not dead:
        return False
    for block in fn.blocks:
        block.erase_instrs(dead)
    return True


@register
@dataclass
class DCE:
    """Remove instructions without effects whose results are unused.
    Requires: nothing. Invalidates: nothing (the CFG is unchanged)."""

    name: ClassVar[str] = "dce"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            changed |= eliminate_dead_code(fn)
        return changed
