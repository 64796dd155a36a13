"""global-dce: delete the helper functions that no kernel calls, directly or not.

A program is whole when it is built (linking joins the units' sources before
the build), so a defined function that is not a kernel and that no kernel
reaches through calls can run nowhere. Libraries included whole leave many:
hashcat's kernels include some 250 helpers of which their two kernels reach
77 (5% of the code), and every later pass and the code generator would
otherwise work on the other 95%. Declarations (intrinsics) and global
variables stay.

A module without kernels (IR written by hand for `oclpy opt`) is left as it
is: it has no roots to keep helpers for.

Requires: nothing. Invalidates: the call graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.callgraph import functions_reached
from oclpy.ir.values import Function, Module

from .manager import register


def uncalled_helpers(module: Module) -> list[Function]:
    """The defined non-kernel functions of `module` that no kernel reaches."""
    kernels = [fn for fn in module.functions if fn.is_kernel]
    if not kernels:
        return []
    live = {id(fn) for kernel in kernels for fn in functions_reached(kernel)}
    return [fn for fn in module.functions if not fn.is_declaration and id(fn) not in live]


@register
@dataclass
class GlobalDCE:
    """Delete the defined functions that no kernel reaches.
    Requires: nothing. Invalidates: the call graph."""

    name: ClassVar[str] = "global-dce"

    def run(self, module: Module) -> bool:
        dead = uncalled_helpers(module)
        if not dead:
            return False
        gone = {id(fn) for fn in dead}
        module.functions = [fn for fn in module.functions if id(fn) not in gone]
        for fn in dead:
            fn.erase_body()
        return True
