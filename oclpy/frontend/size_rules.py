"""What the size of an OpenCL C type depends on beyond the type: the target's DataLayout
(pointer widths per address space) and the address space of a pointee written without
one (private before OpenCL C 2.0, generic from 2.0). `BuildOptions.size_rules` makes
one; the parser's constant folding, sema and lowering use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..ir.datalayout import CPU_LAYOUT, DataLayout
from ..ir.types import AddressSpace

if TYPE_CHECKING:  # the C types' package is the frontend proper, which a cached build never loads
    from .c import c_types as ct


@dataclass(frozen=True)
class SizeRules:
    """What sizes depend on beyond the C type: the target's DataLayout, and the space of a
    pointee written without one (private before OpenCL C 2.0, generic from 2.0)."""

    layout: DataLayout
    default_space: AddressSpace = AddressSpace.PRIVATE

    def pointer_size(self, t: ct.Pointer) -> int:
        return self.layout.pointer_size(t.pointee.space or self.default_space)


CPU_SIZE_RULES = SizeRules(CPU_LAYOUT)  # a parse with no target: the host's (clang's default triple)
