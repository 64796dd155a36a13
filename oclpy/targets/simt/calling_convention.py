"""The simt ABI as one table: register roles, saved sets, argument places, kernel entry.

docs/simt.md (the ABI page) is the prose form; the caller's call sequence
and the callee's prologue both read this module, so they cannot disagree.
- `assign_arguments(classes)`: where each argument goes, uniform ones from
  `s0`, per-lane ones from `v0`, 64-bit values in the next even pair, wider
  ones in the next 4-aligned tuple, the rest on the stack at natural
  alignment (offsets from the callee's incoming SP); `assign_returns`
  likewise, or None when the values go through memory (a hidden first
  uniform argument then points at the caller's return area);
- `INDIRECT_AGGREGATE_BYTES`: a struct or array value larger than this is passed,
  returned and held by reference, as a 32-bit private address of a copy (the
  caller's copy for an argument; for a result, the caller's slot, whose address
  goes as the last argument);
- the fixed registers (`RETURN_ADDRESS`, `STACK_POINTER`, `FRAME_POINTER`,
  `BASE_POINTER`) and the register sets of a file of a given size
  (`caller_saved`, `callee_saved`, `spill_pool`, `allocatable`);
- `KernelEntry`: what a kernel's wave holds when it starts;
- the kernarg segment: the address of the program-scope `__constant` block
  after the explicit arguments (`constants_offset`, `kernarg_bytes`), then the hidden
  block (`HIDDEN_FIELDS`, `hidden_offset`, `kernarg_size`, `pack_hidden`).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Sequence

from .machine import PReg

ARGUMENT_REGISTERS = {"s": 16, "v": 16}  # s0..s15, v0..v15 carry arguments and return values
RETURN_ADDRESS = PReg("s", 30, 64)
STACK_POINTER = PReg("s", 32)
FRAME_POINTER = PReg("s", 33)
BASE_POINTER = PReg("s", 34)
STACK_ALIGN = 16
SPILL_POOL = 8  # the top registers of each file, reserved for reloads of spilled operands
CALLEE_SAVED = {"s": (32, 33, 34, *range(36, 64)), "v": tuple(range(32, 64))}
MIN_REGISTERS = {"s": 48, "v": 24}
DEFAULT_REGISTERS = {"s": 128, "v": 256}
INDIRECT_AGGREGATE_BYTES = 256  # larger struct and array values go by reference (clang's byval/sret line)


@dataclass(frozen=True)
class ArgClass:
    """One argument or return value: its file ("s" uniform, "v" per lane) and its width in bits."""

    file: str
    bits: int


@dataclass(frozen=True)
class Location:
    """Where a value is passed: a register, or a stack offset from the callee's incoming SP."""

    reg: PReg | None = None
    stack_offset: int | None = None


def register_alignment(bits: int) -> int:
    return 1 if bits <= 32 else 2 if bits == 64 else 4


def assign_arguments(classes: Sequence[ArgClass]) -> tuple[list[Location], int]:
    """Each value's place, and the bytes of stack the values take (a multiple of 16)."""
    next_free = {"s": 0, "v": 0}
    locations, stack = [], 0
    for c in classes:
        count, align = max(1, c.bits // 32), register_alignment(c.bits)
        index = (next_free[c.file] + align - 1) // align * align
        if index + count <= ARGUMENT_REGISTERS[c.file]:
            locations.append(Location(reg=PReg(c.file, index, max(32, c.bits))))
            next_free[c.file] = index + count
            continue
        size = max(4, c.bits // 8)
        stack = (stack + size - 1) // size * size
        locations.append(Location(stack_offset=stack))
        stack += size
    return locations, (stack + STACK_ALIGN - 1) // STACK_ALIGN * STACK_ALIGN


def assign_returns(classes: Sequence[ArgClass]) -> list[Location] | None:
    """The return values' registers, or None when they do not all fit (returned through memory)."""
    locations, stack = assign_arguments(classes)
    return None if stack else locations


def assign_memory_returns(classes: Sequence[ArgClass], start: int) -> tuple[list[int], int]:
    """Return values that do not fit the registers: each one's offset from the callee's
    incoming SP (after the `start` bytes of stack arguments, at natural alignment), and the
    end of the area (a multiple of 16)."""
    offsets, at = [], start
    for c in classes:
        size = max(4, c.bits // 8)
        at = (at + size - 1) // size * size
        offsets.append(at)
        at += size
    return offsets, (at + STACK_ALIGN - 1) // STACK_ALIGN * STACK_ALIGN


def check_file_size(file: str, size: int) -> str | None:
    """Why a register file of `size` cannot hold the ABI (None: it can)."""
    if size % 4 or size < MIN_REGISTERS[file]:
        return (f"{'scalar' if file == 's' else 'vector'} register file of {size} registers: "
                f"must be a multiple of 4 and at least {MIN_REGISTERS[file]}")
    return None


def spill_pool(file: str, size: int) -> range:
    return range(size - SPILL_POOL, size)


def callee_saved(file: str, size: int) -> tuple[int, ...]:
    pool = spill_pool(file, size)
    return tuple(r for r in CALLEE_SAVED[file] if r < size and r not in pool)


def caller_saved(file: str, size: int) -> tuple[int, ...]:
    keep = set(callee_saved(file, size)) | set(spill_pool(file, size))
    return tuple(r for r in range(size) if r not in keep)


def allocatable(file: str, size: int) -> tuple[int, ...]:
    """Registers an allocator may hand out: all but the spill pool and the fixed ones."""
    fixed = {30, 31, 32, 33, 34} if file == "s" else set()
    return tuple(r for r in range(size) if r not in fixed and r not in spill_pool(file, size))


@dataclass(frozen=True)
class KernelEntry:
    """The registers a kernel's wave starts with (docs/simt.md, the ABI page)."""

    kernarg: PReg = PReg("s", 0, 64)
    group_id: tuple[PReg, PReg, PReg] = (PReg("s", 2), PReg("s", 3), PReg("s", 4))
    wave_id: PReg = PReg("s", 5)
    stack_pointer: PReg = STACK_POINTER
    local_id: tuple[PReg, PReg, PReg] = (PReg("v", 0), PReg("v", 1), PReg("v", 2))


KERNEL_ENTRY = KernelEntry()

# The hidden block after the explicit kernel arguments: name -> (offset, bytes per element, count)
HIDDEN_FIELDS: dict[str, tuple[int, int, int]] = {
    "num_groups": (0, 4, 3), "work_dim": (12, 4, 1), "local_size": (16, 4, 3),
    "global_offset": (32, 8, 3), "printf_buffer": (56, 8, 1), "global_size": (64, 4, 3),
}
HIDDEN_BYTES = 80
CONSTANTS_ALIGN = 16  # the __constant block's address follows the explicit arguments at this alignment


def hidden_offset(explicit_bytes: int) -> int:
    return (explicit_bytes + 7) // 8 * 8


def kernarg_size(explicit_bytes: int) -> int:
    return (hidden_offset(explicit_bytes) + HIDDEN_BYTES + 15) // 16 * 16


def pack_hidden(num_groups: Sequence[int], work_dim: int, local_size: Sequence[int],
                global_offset: Sequence[int], printf_buffer: int) -> bytes:
    """The hidden block's bytes (little-endian)."""
    global_size = [n * l for n, l in zip(num_groups, local_size)]
    return (struct.pack("<4I", *num_groups, work_dim) + struct.pack("<4I", *local_size, 0)
            + struct.pack("<3Q", *global_offset) + struct.pack("<Q", printf_buffer)
            + struct.pack("<4I", *global_size, 0))


GLOBALS_SLOT = 0  # where the constant block holds the address of the program's __global data


def constants_offset(explicit_bytes: int) -> int:
    """Where the slot of the `__constant` block's address is in the kernarg segment, after the
    explicit arguments."""
    return (explicit_bytes + CONSTANTS_ALIGN - 1) // CONSTANTS_ALIGN * CONSTANTS_ALIGN


def kernarg_bytes(explicit_bytes: int, has_constants: bool) -> int:
    """The bytes a launch passes before the hidden block: the arguments, then the constant
    block's address when the program has one."""
    if not has_constants:
        return explicit_bytes
    return constants_offset(explicit_bytes) + 8
