"""The kernel-argument blob every target shares with the runtime.

Each kernel argument gets a kind and a place in one packed blob, as
docs/ARCHITECTURE.md ("Target: IR module -> compiled program") defines it:
global/constant buffers as a 64-bit device address, `__local` arguments as
their 64-bit byte size, scalars/vectors/structs as their bytes in the
target's DataLayout, each at its natural alignment. Hidden arguments added
by target passes (`attrs["hidden"]`) are not part of the blob.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir.datalayout import DataLayout
from ..ir.types import AddressSpace, PtrType, Type
from ..ir.values import Function

POINTER_ARG_KINDS = {AddressSpace.GLOBAL: "global", AddressSpace.CONSTANT: "constant",
                     AddressSpace.LOCAL: "local"}


@dataclass(frozen=True)
class KernelArg:
    name: str
    kind: str  # "global" | "constant" | "local" | "scalar"
    size: int
    offset: int
    type: Type
    attrs: dict[str, Any] = field(default_factory=dict)


def align_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def kernel_args(fn: Function, layout: DataLayout) -> tuple[list[KernelArg], int]:
    """Each visible argument's kind, size and blob offset, and the blob's size."""
    args, offset = [], 0
    for arg in fn.args:
        if "hidden" in arg.attrs:
            continue
        space = arg.type.space if isinstance(arg.type, PtrType) else None
        kind = POINTER_ARG_KINDS.get(space, "scalar") if space is not None else "scalar"
        size = 8 if kind != "scalar" else layout.size_of(arg.type)
        align = 8 if kind != "scalar" else layout.align_of(arg.type)
        offset = align_up(offset, align)
        args.append(KernelArg(arg.name, kind, size, offset, arg.type, dict(arg.attrs)))
        offset += size
    return args, align_up(offset, 8) if args else 0
