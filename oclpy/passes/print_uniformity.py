"""print-uniformity: print each function's uniformity, an analysis printer.

It changes nothing. For each defined function it writes the function's
instructions, each followed by `; uniform` or `; divergent` when it has a
result, and each conditional terminator by `; uniform branch` or
`; divergent branch`, to its output stream (the pass manager's print stream:
stdout for `oclpy opt`, the text before the module for FileCheck tests):

    ; uniformity of @k
    entry:
      %0 = call i64 @ocl.get_local_id(i32 0) ; divergent
      condbr i1 %c, label %a, label %b ; divergent branch

Requires: nothing. Invalidates: nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import ClassVar, TextIO

from oclpy.analysis.uniformity import Uniformity, analyze_uniformity
from oclpy.ir.printer import Names, format_name, print_instr
from oclpy.ir.types import VOID
from oclpy.ir.values import Function, Instr, Module

from .manager import defined_functions, register


@register
@dataclass
class PrintUniformity:
    """Print which values and branches are uniform. Requires: nothing. Invalidates: nothing."""

    name: ClassVar[str] = "print-uniformity"
    out: TextIO | None = field(default=None, init=False)  # set by the pass manager; None: stdout

    def run(self, module: Module) -> bool:
        out = self.out or sys.stdout
        for fn in defined_functions(module):
            out.write(format_uniformity(fn, analyze_uniformity(fn)))
        return False


def format_uniformity(fn: Function, info: Uniformity) -> str:
    """The annotated listing of one function."""
    names = Names(fn)
    lines = [f"; uniformity of @{format_name(fn.name)}"]
    for block in fn.blocks:
        lines.append(f"{names.local(block)[1:]}:")
        lines += [f"  {print_instr(i, names)}{_note(i, info)}" for i in block.instrs]
    return "\n".join(lines) + "\n\n"


def _note(instr: Instr, info: Uniformity) -> str:
    if instr.op in ("condbr", "switch"):
        block = instr.parent
        kind = "divergent" if block is not None and info.is_divergent_branch(block) else "uniform"
        return f" ; {kind} branch"
    if instr.type == VOID:
        return ""
    return " ; divergent" if info.is_divergent(instr) else " ; uniform"
