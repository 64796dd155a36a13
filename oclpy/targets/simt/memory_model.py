"""The simt memory model as data: address widths, nulls, apertures, where things live.

docs/simt.md (the memory page) is the prose form. Private and local pointers
are 32-bit offsets whose null is all ones (offset 0 is valid); global,
constant and generic pointers are 64-bit addresses with null 0. A generic
address whose high word is an aperture's is a local or private offset in its
low word. `SIMT_LAYOUT` is the target's `DataLayout`.
"""

from __future__ import annotations

from ...ir.datalayout import DataLayout
from ...ir.types import AddressSpace

NULL32 = 0xFFFFFFFF  # the null of private and local pointers
LOCAL_APERTURE_HI = 0x00010000  # high word of generic addresses into local memory
PRIVATE_APERTURE_HI = 0x00020000  # high word of generic addresses into the lane's private memory
GLOBAL_BASE = 1 << 32  # the first global address: a truncated pointer is never a valid one
CODE_BASE = 0x0000_4000_0000_0000  # address of instruction 0; instruction k is at CODE_BASE + 4k
RED_ZONE = 256  # bytes left unmapped after each global buffer
BUFFER_SPACING = 1 << 34  # global buffer k starts at GLOBAL_BASE + k * this (high words stay odd: no aperture)
BUFFER_ALIGN = 256  # global buffers start at multiples of this
LOCAL_MEMORY_BYTES = 65536  # a work-group's local memory

POINTER_BITS = {AddressSpace.PRIVATE: 32, AddressSpace.LOCAL: 32, AddressSpace.GLOBAL: 64,
                AddressSpace.CONSTANT: 64, AddressSpace.GENERIC: 64}
NULLS = {AddressSpace.PRIVATE: NULL32, AddressSpace.LOCAL: NULL32, AddressSpace.GLOBAL: 0,
         AddressSpace.CONSTANT: 0, AddressSpace.GENERIC: 0}

SIMT_LAYOUT = DataLayout("simt", pointer_bits=dict(POINTER_BITS), null_value=dict(NULLS))


def to_generic(space: AddressSpace, value: int) -> int:
    """A named pointer's bits as a generic address (null to null)."""
    if space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT, AddressSpace.GENERIC):
        return value
    if value == NULL32:
        return 0
    hi = LOCAL_APERTURE_HI if space is AddressSpace.LOCAL else PRIVATE_APERTURE_HI
    return hi << 32 | value


def from_generic(space: AddressSpace, address: int) -> int:
    """A generic address as a pointer of `space`: its null when it does not point there."""
    hi = address >> 32
    if space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
        return 0 if hi in (LOCAL_APERTURE_HI, PRIVATE_APERTURE_HI) else address
    want = LOCAL_APERTURE_HI if space is AddressSpace.LOCAL else PRIVATE_APERTURE_HI
    return address & 0xFFFFFFFF if hi == want else NULL32
