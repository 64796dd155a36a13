"""Per-kernel statistics of an IR module, for `oclpy build --stats`.

For each kernel: how many instructions it has, how many of its memory
operations (loads, stores, atomics) go through `ptr<generic>` and how many
through a named space, how many of its branches are divergent
(`analysis/uniformity.py`) and how many `alloca`s are left. `kernel_stats`
computes them; `format_stats` lays them out as a small table.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .uniformity import analyze_uniformity
from ..ir.types import AddressSpace, PtrType
from ..ir.values import Function, Instr, Module

# The address operand of each memory operation.
MEMORY_ADDRESS_OPERAND: dict[str, int] = {"load": 0, "store": 1, "atomicrmw": 0, "cmpxchg": 0}


@dataclass(frozen=True)
class KernelStats:
    kernel: str
    instructions: int
    generic_memory_ops: int
    named_memory_ops: int
    divergent_branches: int
    allocas: int


def memory_space(instr: Instr) -> AddressSpace | None:
    """The address space a load, store or atomic accesses; None for other instructions."""
    index = MEMORY_ADDRESS_OPERAND.get(instr.op)
    if index is None or index >= len(instr.operands):
        return None
    t = instr.operands[index].type
    return t.space if isinstance(t, PtrType) else None


def function_stats(fn: Function) -> KernelStats:
    instrs = list(fn.instructions())
    spaces = [memory_space(i) for i in instrs]
    uniformity = analyze_uniformity(fn)
    return KernelStats(
        kernel=fn.name,
        instructions=len(instrs),
        generic_memory_ops=sum(1 for s in spaces if s is AddressSpace.GENERIC),
        named_memory_ops=sum(1 for s in spaces if s is not None and s is not AddressSpace.GENERIC),
        divergent_branches=len(uniformity.divergent_branches),
        allocas=sum(1 for i in instrs if i.op == "alloca"),
    )


def kernel_stats(module: Module) -> list[KernelStats]:
    """Statistics of every defined kernel of `module`, in module order."""
    return [function_stats(fn) for fn in module.kernels() if not fn.is_declaration]


_HEADERS = {
    "kernel": "kernel", "instructions": "instrs", "generic_memory_ops": "generic mem",
    "named_memory_ops": "named mem", "divergent_branches": "div branches", "allocas": "allocas",
}


def format_stats(stats: list[KernelStats]) -> str:
    """A plain-text table, one row per kernel, numbers right-aligned."""
    names = [f.name for f in fields(KernelStats)]
    rows = [[_HEADERS[n] for n in names]] + [[str(getattr(s, n)) for n in names] for s in stats]
    widths = [max(len(row[k]) for row in rows) for k in range(len(names))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    if not stats:
        lines.append("(no kernels)")
    return "\n".join(lines) + "\n"
