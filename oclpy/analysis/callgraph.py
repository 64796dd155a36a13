"""Call-graph queries: what a kernel reaches through the functions it calls."""

from __future__ import annotations

from ..ir.types import AddressSpace
from ..ir.values import Function, GlobalVar


def functions_reached(root: Function) -> list[Function]:
    """`root` and every function it calls, directly or not, each once."""
    seen: dict[int, Function] = {}
    work = [root]
    while work:
        fn = work.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = fn
        work.extend(i.attrs["callee"] for i in fn.instructions() if i.op == "call")
    return list(seen.values())


def local_vars_reached(kernel: Function) -> list[GlobalVar]:
    """The `__local` variables used by `kernel` or any function it calls."""
    found: dict[str, GlobalVar] = {}
    for fn in functions_reached(kernel):
        for instr in fn.instructions():
            for op in instr.operands:
                if isinstance(op, GlobalVar) and op.space is AddressSpace.LOCAL:
                    found[op.name] = op
    return list(found.values())
