"""dead-allocas: delete the private variables that are only ever written.

An `alloca` whose address (through `getelementptr`, `bitcast` and
`addrspacecast`) is used only as the address of non-volatile stores is never
read: it goes, with its stores and address computations. A variable whose
address was the *value* of such a store can be write-only once that store is
gone (`int *q[2] = {&x, &x};` with `q` never read frees `x`), so the pass
repeats until nothing changes. Volatile stores stay (and keep their variable).

LLVM deletes such stores itself while the variable is an alloca, but
form-workgroups moves every private variable of a kernel with barriers into
the work-item frames, memory LLVM must keep writing. A loop whose body only
initialises a dead array then stays a loop, even where LLVM could otherwise
compute its exit value: CLSmith's
`for (g = -18; g != 12; g += 9) { int l[7][5] = {...}; }` ran its 2.9e9
iterations in every work-item.

Requires: nothing. Invalidates: nothing about the CFG.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir.values import Function, Instr, Module

from .manager import defined_functions, register

_THROUGH = ("getelementptr", "bitcast", "addrspacecast")


def write_only(alloca: Instr) -> list[Instr] | None:
    """The alloca, the pointers derived from it and the stores through them, when
    nothing else uses it; None when something may read it."""
    found, work = [alloca], [alloca]
    while work:
        pointer = work.pop()
        for user in pointer.users:
            if user.op in _THROUGH and user.operands[0] is pointer:
                found.append(user)
                work.append(user)
            elif (user.op == "store" and user.operands[1] is pointer and user.operands[0] is not pointer
                  and not user.attrs.get("volatile")):
                found.append(user)
            else:
                return None
    return found


def delete_dead_allocas(fn: Function) -> bool:
    """Delete `fn`'s write-only allocas, repeating until none is left."""
    changed = False
    while True:
        doomed: set[Instr] = set()
        for instr in fn.instructions():
            if instr.op == "alloca" and instr not in doomed:
                doomed.update(write_only(instr) or ())
        if not doomed:
            return changed
        for block in fn.blocks:
            block.erase_instrs(doomed)
        changed = True


@register
@dataclass
class DeadAllocas:
    """Delete allocas that are only stored to, with their stores.
    Requires: nothing. Invalidates: nothing (the CFG is unchanged)."""

    name: ClassVar[str] = "dead-allocas"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            changed |= delete_dead_allocas(fn)
        return changed
