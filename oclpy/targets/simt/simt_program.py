"""What a compiled simt program is at run time: its machine code and its kernels' ABI facts.

`SimtProgram` holds the final machine code (`MModule`, physical registers),
the device it was compiled for (`device_config.SimtMachine`) and, per
kernel (`SimtKernel`), the explicit arguments' layout (`targets/kernel_abi.py`,
with simt's data layout), the static `__local` memory and the scratch bytes a
lane needs (its frame and its deepest chain of callees' frames); and the
program's data blocks (`constant_data`, `global_data`: their initial bytes)
with their `relocations` (`constant_data.py`).

- `load_data(program, memory)`: the loader: both blocks allocated in global
  memory (the constant one read-only), each relocation's pointer slot written
  with the address it names (`relocated`); the blocks' addresses.
- `kernarg_blob(kernel, blob, constants_address)`: the runtime's argument blob
  (buffers as addresses, each `__local` argument as its size) made into the
  kernarg segment's explicit part: each `__local` argument becomes its offset in
  the work-group's local memory (after the static memory and the `__local`
  arguments before it, each 16-aligned), then the constant block's address
  when the program has one; and the work-group's local memory size.
- `pack_args(kernel, values, constants_address)`: the same from Python values (tests, tools).
- `program_instance(program)`: `program` as one build's own: a copy of it and its
  kernels when it has `__global` data (the runtime loads data blocks per program
  object), so that two builds of one source do not share their variables; the
  machine code is shared.
- `program_record` / `program_from_record`: the build cache's form (JSON data
  plus the machine code's text, `asm_printer`'s, with debug locations), checked field by field on
  the way back (ValueError). Kept apart from `simt_target.py` so that loading
  a cached program imports no code generator.
"""

from __future__ import annotations

import dataclasses
import struct
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..kernel_abi import (KernelArg, align_up, arg_record, args_from_record, checked_dict, checked_int,
                          checked_str, reqd_from_record, MAX_BLOB_BYTES, MAX_MEMORY_BYTES)
from .asm_parser import parse_asm
from .asm_printer import format_module
from .calling_convention import constants_offset, kernarg_bytes
from .device_config import SimtMachine, checked
from .machine import MModule

LOCAL_ARG_ALIGN = 16  # each __local argument's start in the work-group's local memory


@dataclass(frozen=True)
class Relocation:
    """A pointer slot (8 bytes, little-endian) at `offset` in the `block` ("constant" or
    "global") that holds the address of byte `addend` of the block `target`."""

    block: str
    offset: int
    target: str
    addend: int


@dataclass
class SimtKernel:
    """One kernel of a SimtProgram: what the runtime and the simulator need."""

    name: str
    args: list[KernelArg]
    blob_size: int  # the explicit arguments' bytes
    static_local_bytes: int  # static __local memory
    private_bytes: int = 0  # scratch per lane: the kernel's frame and its deepest callee chain's
    reqd_work_group_size: tuple[int, int, int] | None = None
    uses_printf: bool = False  # the launch passes a printf buffer (`isel_printf.py`)
    program: SimtProgram = field(default=None, repr=False, compare=False)  # type: ignore[assignment]

    @property
    def frame_size(self) -> int:
        """CL_KERNEL_PRIVATE_MEM_SIZE."""
        return self.private_bytes


@dataclass
class SimtProgram:
    module: MModule
    kernels: dict[str, SimtKernel] = field(default_factory=dict)
    machine: SimtMachine = field(default_factory=SimtMachine)
    sources: dict[str, str] = field(default_factory=dict, compare=False)  # file -> text, for check reports
    global_data: bytes = b""  # program-scope __global variables' initial bytes (constant_data.py)
    constant_data: bytes = b""  # program-scope __constant data's bytes (constant_data.py)
    relocations: list[Relocation] = field(default_factory=list)  # pointer slots in the two blocks

    def asm(self) -> str:
        return format_module(self.module)

    def add(self, kernel: SimtKernel) -> None:
        kernel.program = self
        self.kernels[kernel.name] = kernel


def program_instance(program: SimtProgram) -> SimtProgram:
    """`program` itself when it has no program-scope `__global` data; else a copy of it
    and its kernels, whose data blocks the runtime loads for it alone (`load_data`, at its
    first launch), starting from their initial bytes. The module (and the simulator's
    decoded form of it) stays shared."""
    if not program.global_data:
        return program
    own = dataclasses.replace(program, kernels={})
    for kernel in program.kernels.values():
        own.add(dataclasses.replace(kernel))
    return own


def relocated(program: SimtProgram, constants_address: int, globals_address: int) -> tuple[bytes, bytes]:
    """The constant and global blocks' bytes once placed at these addresses: every pointer
    slot holds the address its relocation names."""
    blocks = {"constant": bytearray(program.constant_data), "global": bytearray(program.global_data)}
    bases = {"constant": constants_address, "global": globals_address}
    for r in program.relocations:
        struct.pack_into("<Q", blocks[r.block], r.offset, (bases[r.target] + r.addend) & (1 << 64) - 1)
    return bytes(blocks["constant"]), bytes(blocks["global"])


def load_data(program: SimtProgram, memory: Any) -> tuple[int, int]:
    """Place the program's blocks in `memory` (a `sim_memory.GlobalMemory`): the constant
    block read-only, both relocated; their addresses (0 for an empty block)."""
    constants = memory.alloc(len(program.constant_data), read_only=True, name="program constants") \
        if program.constant_data else 0
    globals_ = memory.alloc(len(program.global_data), name="program globals") if program.global_data else 0
    constant_bytes, global_bytes = relocated(program, constants, globals_)
    if constants:
        memory.write(constants, constant_bytes)
    if globals_:
        memory.write(globals_, global_bytes)
    return constants, globals_


def has_constants(kernel: SimtKernel) -> bool:
    return kernel.program is not None and bool(kernel.program.constant_data)


def kernarg_blob(kernel: SimtKernel, blob: bytes | bytearray | memoryview,
                 constants_address: int = 0) -> tuple[bytes, int]:
    """(the kernarg segment's explicit part, the work-group's local memory bytes) of a launch
    whose runtime blob is `blob`, the program's constant block being at `constants_address`
    (see the module docstring)."""
    out = bytearray(kernarg_bytes(kernel.blob_size, has_constants(kernel)))
    out[:kernel.blob_size] = bytes(blob[:kernel.blob_size])
    if has_constants(kernel):
        struct.pack_into("<Q", out, constants_offset(kernel.blob_size), constants_address)
    local = align_up(kernel.static_local_bytes, LOCAL_ARG_ALIGN)
    for arg in kernel.args:
        if arg.kind == "local":
            size = struct.unpack_from("<Q", out, arg.offset)[0]
            struct.pack_into("<Q", out, arg.offset, local)
            local = align_up(local + size, LOCAL_ARG_ALIGN)
    return bytes(out), local


def pack_args(kernel: SimtKernel, values: Sequence[Any], constants_address: int = 0) -> tuple[bytes, int]:
    """`kernarg_blob` from Python values: a global/constant argument is an int (its address),
    a `__local` one an int (its size in bytes), a scalar its bytes or a NumPy scalar."""
    if len(values) != len(kernel.args):
        raise ValueError(f"kernel {kernel.name} takes {len(kernel.args)} arguments, {len(values)} given")
    blob = bytearray(kernel.blob_size)
    for arg, value in zip(kernel.args, values):
        if arg.kind in ("global", "constant", "local"):
            struct.pack_into("<Q", blob, arg.offset, int(value))
            continue
        data = value if isinstance(value, (bytes, bytearray)) else value.tobytes()
        if len(data) != arg.size:
            raise ValueError(f"argument {arg.name} of {kernel.name} takes {arg.size} bytes, {len(data)} given")
        blob[arg.offset:arg.offset + arg.size] = data
    return kernarg_blob(kernel, blob, constants_address)


# -- the build cache's view of a program (compiler/cache.py) --------------------------

KERNEL_KEYS = ("args", "blob_size", "static_local_bytes", "private_bytes", "reqd", "printf")
PROGRAM_KEYS = ("kernels", "machine", "strings", "global_data", "constant_data", "relocations")
MAX_RELOCATIONS = 1 << 20
MAX_STRINGS = 1 << 16  # printf's formats and string arguments of one program
MACHINE_KEYS = ("wave_width", "sgprs", "vgprs")


def program_record(program: SimtProgram) -> tuple[dict[str, Any], bytes]:
    """(JSON data, the machine code's text) that `program_from_record` turns back into `program`."""
    kernels = {name: {"args": [arg_record(a) for a in k.args], "blob_size": k.blob_size,
                      "static_local_bytes": k.static_local_bytes, "private_bytes": k.private_bytes,
                      "reqd": list(k.reqd_work_group_size or ()) or None,
                      "printf": k.uses_printf}
               for name, k in program.kernels.items()}
    m = program.machine
    machine = {"wave_width": m.wave_width, "sgprs": m.sgprs, "vgprs": m.vgprs}
    strings = [t.hex() for t in program.module.strings]
    record = {"kernels": kernels, "machine": machine, "strings": strings, "global_data": program.global_data.hex(),
              "constant_data": program.constant_data.hex(),
              "relocations": [[r.block, r.offset, r.target, r.addend] for r in program.relocations]}
    return record, format_module(program.module, True).encode()


def program_from_record(record: Any, text: bytes) -> SimtProgram:
    """The SimtProgram `program_record` described; ValueError when any field is out of bounds
    or the machine code does not parse or lacks a kernel."""
    data = checked_dict(record, PROGRAM_KEYS, "program record")
    m = checked_dict(data["machine"], MACHINE_KEYS, "machine")
    machine = checked(SimtMachine(*(checked_int(m[k], 1, 1 << 16, k) for k in MACHINE_KEYS)))
    try:
        module = parse_asm(text.decode("utf-8"), "<cached simt program>")
    except Exception as exc:  # AsmParseError, UnicodeDecodeError: a damaged entry
        raise ValueError(f"the machine code does not parse: {exc}") from None
    if type(data["kernels"]) is not dict:
        raise ValueError("program record: kernels is not an object")
    if type(data["strings"]) is not list or len(data["strings"]) > MAX_STRINGS:
        raise ValueError("program record: strings is not a list of printf strings")
    try:
        module.strings = [bytes.fromhex(checked_str(t, "printf string", MAX_BLOB_BYTES)) for t in data["strings"]]
    except ValueError:
        raise ValueError("program record: a printf string is not hexadecimal bytes") from None
    global_data, constant_data = (block_from_record(data[f"{b}_data"], b) for b in ("global", "constant"))
    relocations = relocations_from_record(data["relocations"], len(constant_data), len(global_data))
    program = SimtProgram(module, {}, machine, global_data=global_data, constant_data=constant_data,
                          relocations=relocations)
    kinds = {fn.name: fn.kind for fn in module.functions}
    for name, k in data["kernels"].items():
        name = checked_str(name, "kernel name")
        if kinds.get(name) != "kernel":
            raise ValueError(f"program record: no kernel @{name[:40]} in the machine code")
        program.add(kernel_from_record(name, k))
    return program


def block_from_record(text: Any, name: str) -> bytes:
    try:
        return bytes.fromhex(checked_str(text, f"{name} data", 2 * MAX_MEMORY_BYTES))
    except ValueError:
        raise ValueError(f"program record: the {name} data is not hexadecimal bytes") from None


def relocations_from_record(rows: Any, constant_bytes: int, global_bytes: int) -> list[Relocation]:
    """Each relocation of the record, its slot inside its block (an addend may point before
    its target block's start: C's `t - 1` is an address constant too)."""
    if type(rows) is not list or len(rows) > MAX_RELOCATIONS:
        raise ValueError("program record: relocations is not a list")
    sizes = {"constant": constant_bytes, "global": global_bytes}
    out = []
    for row in rows:
        if type(row) is not list or len(row) != 4 or row[0] not in sizes or row[2] not in sizes:
            raise ValueError("program record: a relocation is not [block, offset, target, addend]")
        offset = checked_int(row[1], 0, max(0, sizes[row[0]] - 8), "relocation offset")
        addend = checked_int(row[3], -MAX_MEMORY_BYTES, MAX_MEMORY_BYTES, "relocation addend")
        out.append(Relocation(row[0], offset, row[2], addend))
    return out


def kernel_from_record(name: str, data: Any) -> SimtKernel:
    k = checked_dict(data, KERNEL_KEYS, f"kernel {name[:40]!r}")
    blob_size = checked_int(k["blob_size"], 0, MAX_BLOB_BYTES, "blob size")
    return SimtKernel(name, args_from_record(k["args"], blob_size), blob_size,
                      checked_int(k["static_local_bytes"], 0, MAX_MEMORY_BYTES, "static local bytes"),
                      checked_int(k["private_bytes"], 0, MAX_MEMORY_BYTES, "private bytes"),
                      reqd_from_record(k["reqd"]), checked_bool(k["printf"], "printf"))


def checked_bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise ValueError(f"{what}: not a bool")
    return value
