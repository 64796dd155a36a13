"""The state of selecting one function, and the helpers every selection pattern uses.

Instruction selection (`isel.py`) walks a function's IR blocks in layout
order and hands each instruction to a pattern (`isel_arith.py`,
`isel_memory.py`, `isel_calls.py`, `isel_control.py`); the patterns share
one `Ctx`, which holds:

- the value map: each IR value is a list of *parts*, one per scalar leaf of
  its type (a `float4` has four, a `{i32, float}` two, an `i64` one), each an
  operand: a virtual register (`%s` when the value is uniform and the scalar
  unit can compute it, `%v` otherwise) or an immediate. 8- and 16-bit
  integers live in 32-bit registers whose high bits are undefined (patterns
  that read them, compares, divisions, right shifts, extensions, conversions,
  normalise first); an `i1` is 0 or 1. 64-bit values (`i64`, `double`,
  global and generic pointers) are 64-bit registers; private and local
  pointers are 32-bit offsets (the simt `DataLayout`). A struct or array
  larger than `INDIRECT_AGGREGATE_BYTES` is one part, the private address of
  memory that holds it (`is_large`, `isel_aggregates.py`);
- `emit` (append to the current machine block), `new` (a virtual register);
- bank conversions: `sreg`/`ssrc` make a scalar operand (a vector register
  becomes `v_readfirstlane_b32`: done only for values the uniformity analysis
  calls uniform), `vreg` makes a vector register;
- `preamble`: instructions placed at the top of the entry block (copies of
  the kernel's entry registers, hidden-argument loads), which dominates
  every use.

A pattern that cannot select what it is given raises `SelectError` with a
sentence naming the function and the instruction: a build error, never an
internal exception.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from ...ir.datalayout import DataLayout
from ...ir.printer import print_instr
from ...ir.types import AddressSpace, ArrayType, FloatType, IntType, PtrType, StructType, Type, VectorType
from ...ir.values import (
    Argument, Block, ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Function, GlobalVar,
    Instr, Undef, Value,
)
from ...analysis.uniformity import Uniformity
from .calling_convention import GLOBALS_SLOT, INDIRECT_AGGREGATE_BYTES
from .machine import EXEC, Imm, MBlock, MFunction, MInstr, Operand, PReg, VReg


class SelectError(Exception):
    """IR that simt's instruction selection does not support, or a limit it exceeds:
    a build error whose text says which function and instruction."""


# -- types as leaves ---------------------------------------------------------------------

PRIVATE_PTR = PtrType(AddressSpace.PRIVATE)


def is_large(t: Type, layout: DataLayout) -> bool:
    """Whether values of type `t` are held by reference: a struct or array larger than
    `INDIRECT_AGGREGATE_BYTES` (`isel_aggregates.py`)."""
    return isinstance(t, (StructType, ArrayType)) and layout.size_of(t) > INDIRECT_AGGREGATE_BYTES


def leaves(t: Type, layout: DataLayout) -> list[tuple[Type, int]]:
    """The scalar leaves of a value of type `t` with their byte offsets, in order (a large
    aggregate's one leaf is its private address: `memory_leaves` gives its contents')."""
    if is_large(t, layout):
        return [(PRIVATE_PTR, 0)]
    return memory_leaves(t, layout)


def memory_leaves(t: Type, layout: DataLayout) -> list[tuple[Type, int]]:
    """The scalar leaves of a type as laid out in memory, with their byte offsets, in order."""
    if isinstance(t, (IntType, FloatType, PtrType)):
        return [(t, 0)]
    if isinstance(t, (VectorType, ArrayType)):
        step = layout.size_of(t.elem)
        inner = memory_leaves(t.elem, layout)
        return [(lt, k * step + off) for k in range(t.count) for lt, off in inner]
    if isinstance(t, StructType):
        offsets = layout.struct_layout(t).offsets
        return [(lt, base + off) for f, base in zip(t.fields, offsets) for lt, off in memory_leaves(f, layout)]
    raise SelectError(f"values of type {t} are not supported")


def leaf_count(t: Type, layout: DataLayout) -> int:
    return len(leaves(t, layout))


def bits_of(t: Type, layout: DataLayout) -> int:
    """The bits of a scalar leaf (a pointer's from the layout)."""
    if isinstance(t, PtrType):
        return layout.pointer_bits[t.space]
    return t.bits  # type: ignore[attr-defined]


def reg_width(t: Type, layout: DataLayout) -> int:
    """The register width that holds a scalar leaf: 32 or 64."""
    return 64 if bits_of(t, layout) == 64 else 32


def is_reg(o: Operand, file: str | None = None) -> bool:
    return isinstance(o, (VReg, PReg)) and (file is None or o.file == file)


def is_vector(o: Operand) -> bool:
    return is_reg(o, "v")


def float_bits(value: float, bits: int) -> int:
    """The IEEE bits of `value` as a float of `bits` bits."""
    return struct.unpack("<I", struct.pack("<f", value))[0] if bits == 32 else \
        struct.unpack("<Q", struct.pack("<d", value))[0]


# -- per-module decisions made before any function is selected ---------------------------

@dataclass
class FunctionInfo:
    """How a function is called: each IR argument's file ("s" uniform, "v" per lane), its
    return value's file, and the work-item queries it gets as hidden trailing arguments."""

    arg_files: list[str]
    ret_file: str
    queries: list[tuple[str, int]] = field(default_factory=list)
    uniformity: Uniformity | None = None


@dataclass
class ModuleInfo:
    layout: DataLayout
    functions: dict[Function, FunctionInfo] = field(default_factory=dict)
    local_offsets: dict[GlobalVar, int] = field(default_factory=dict)
    local_bytes: int = 0
    barrier_functions: set[Function] = field(default_factory=set)  # those that reach a barrier
    constant_offsets: dict[GlobalVar, int] = field(default_factory=dict)  # in the constant block
    constants: bytes = b""  # program-scope __constant data (`constant_data.py`)
    global_offsets: dict[GlobalVar, int] = field(default_factory=dict)  # in the program's __global data
    strings: list[bytes] = field(default_factory=list)  # printf's formats and strings (`isel_printf.py`)


# -- the context ---------------------------------------------------------------------------

@dataclass
class Ctx:
    fn: Function
    mfn: MFunction
    info: FunctionInfo
    module: ModuleInfo
    uni: Uniformity
    values: dict[Value, list[Operand]] = field(default_factory=dict)
    shadows: dict[Value, list[Operand]] = field(default_factory=dict)  # uniform values seen after their loop
    shadow_loops: dict[Value, set[Block]] = field(default_factory=dict)
    fused: set[Instr] = field(default_factory=set)  # compares selected at their one user
    preamble: MBlock = field(default_factory=lambda: MBlock("preamble"))
    entry: dict[str, Operand] = field(default_factory=dict)  # entry registers, hidden values
    block: MBlock = field(default_factory=lambda: MBlock("none"))
    ir_block: Block | None = None
    instr: Instr | None = None
    next_id: int = 0
    block_cache: dict[Any, Operand] = field(default_factory=dict)
    # values kept for the rest of the IR block (`ir_block_cached`): its machine blocks run in
    # order under one exec (a math region's restores it), and nothing in them is written twice
    ir_cache: dict[Any, Any] = field(default_factory=dict)

    @property
    def layout(self) -> DataLayout:
        return self.module.layout

    # -- errors ----------------------------------------------------------------------------
    def error(self, message: str, instr: Instr | None = None) -> SelectError:
        instr = instr or self.instr
        where = f"in function '{self.fn.name}'"
        if instr is not None:
            try:
                text = print_instr(instr)
            except Exception:  # noqa: BLE001 (a message must not fail)
                text = instr.op
            where += f", instruction '{text.strip()}'"
        return SelectError(f"simt: {where}: {message}")

    # -- emission --------------------------------------------------------------------------
    def new(self, file: str, width: int = 32) -> VReg:
        self.next_id += 1
        return VReg(file, self.next_id, width)

    def emit(self, op: str, *operands: Operand, uses: list[Any] | tuple[Any, ...] = (),
             defs: list[Any] | tuple[Any, ...] = ()) -> MInstr:
        instr = MInstr(op, list(operands), list(uses), list(defs))
        if self.instr is not None:
            instr.loc = self.instr.loc
        for k, o in enumerate(instr.operands):
            if isinstance(o, Imm) and isinstance(o.value, float):
                field_type = instr.field_of(k).type
                if field_type not in ("f32", "f64", "b32", "b64", "any"):  # an integer field: the float's bits
                    instr.operands[k] = Imm(float_bits(o.value, instr.field_of(k).bits))
        self.block.instrs.append(instr)
        return instr

    def op(self, opcode: str, file: str, width: int, *sources: Operand) -> VReg:
        """`opcode d, sources...` into a new register of `file` and `width`; returns d."""
        d = self.new(file, width)
        self.emit(opcode, d, *sources)
        return d

    def in_preamble(self, make: Any) -> Any:
        """Run `make()` with emission going to the top of the entry block (which dominates
        every use), and return what it returns."""
        saved, saved_cache = self.block, self.block_cache
        self.block, self.block_cache = self.preamble, {}
        try:
            return make()
        finally:
            self.block, self.block_cache = saved, saved_cache

    def start_block(self, block: MBlock) -> None:
        """Emit into `block` from now on (conversions made in other blocks are not reused)."""
        self.block = block
        self.block_cache = {}

    def ir_block_cached(self, key: Any, make: Any) -> Any:
        """`make()` once per IR block for `key` (operands and constants): a later request in
        the same IR block gets the first one's registers, even from a later machine block."""
        full = (id(self.ir_block), key)
        if full not in self.ir_cache:
            self.ir_cache[full] = make()
        return self.ir_cache[full]

    # -- values ----------------------------------------------------------------------------
    def uniform(self, value: Value) -> bool:
        return self.uni.is_uniform(value)

    def set(self, value: Value, parts: list[Operand]) -> None:
        self.values[value] = parts

    def parts(self, value: Value) -> list[Operand]:
        """The parts of an operand value, as seen from the current block."""
        if value in self.shadows and self.ir_block is not None and self.ir_block not in self.shadow_loops[value]:
            return self.shadows[value]
        found = self.values.get(value)
        if found is not None:
            return found
        if isinstance(value, (Instr, Argument)):
            raise self.error(f"value %{value.name or '?'} is used before it is selected")
        return self.constant_parts(value)

    def part(self, value: Value) -> Operand:
        found = self.parts(value)
        if len(found) != 1:
            raise self.error(f"expected a scalar value, found {value.type}")
        return found[0]

    def constant_parts(self, value: Value) -> list[Operand]:
        t = value.type
        if isinstance(value, ConstInt):
            return [Imm(value.value)]
        if isinstance(value, ConstFloat):
            if t.bits == 16:  # type: ignore[attr-defined]
                return [Imm(struct.unpack("<H", struct.pack("<e", value.value))[0])]
            return [Imm(float(value.value))]
        if isinstance(value, ConstNull):
            return [Imm(self.layout.null_value[t.space])]  # type: ignore[attr-defined]
        if isinstance(value, (Undef, ConstZero)):
            return [Imm(0.0 if isinstance(lt, FloatType) and lt.bits != 16 else 0)
                    for lt, _ in memory_leaves(t, self.layout)]
        if isinstance(value, ConstAggregate):
            return [p for e in value.elements for p in self.constant_parts(e)]
        if isinstance(value, GlobalVar):
            if value.space is AddressSpace.LOCAL and value in self.module.local_offsets:
                return [Imm(self.module.local_offsets[value])]
            if value in self.module.constant_offsets:
                return [self.constant_address(value)]
            if value in self.module.global_offsets:
                return [self.global_address(value)]
            raise self.error(f"program-scope {value.space} variable @{value.name} is not supported on simt yet")
        if isinstance(value, Function):
            raise self.error(f"function @{value.name} used as a value")
        raise self.error(f"unsupported operand {value!r}")

    def constant_address(self, gv: GlobalVar) -> Operand:
        """The address of a program-scope __constant variable: the constant block's base (a
        work-item query, so a helper receives it) plus the variable's offset."""
        from_block = self.module.constant_offsets[gv]
        key = ("constant", gv)
        if key not in self.block_cache:
            base = self.entry.get("constants")
            if base is None:
                raise self.error(f"@{gv.name} in a function that did not receive the constant block")
            self.block_cache[key] = self.op("s_add_u64", "s", 64, base, Imm(from_block)) if from_block else base
        return self.block_cache[key]

    def global_address(self, gv: GlobalVar) -> Operand:
        """The address of a program-scope __global variable: the address the loader wrote in
        the constant block's first slot, plus the variable's offset in the program's data."""
        key = ("globals",)
        if key not in self.block_cache:
            base = self.entry.get("constants")
            if base is None:
                raise self.error(f"@{gv.name} in a function that did not receive the constant block")
            self.block_cache[key] = self.op("s_load_b64", "s", 64, base, Imm(GLOBALS_SLOT))
        offset = self.module.global_offsets[gv]
        data = self.block_cache[key]
        return self.op("s_add_u64", "s", 64, data, Imm(offset)) if offset else data

    # -- banks -----------------------------------------------------------------------------
    def sreg(self, o: Operand, width: int = 32) -> Operand:
        """A scalar register holding `o` (an immediate is moved, a vector register read
        from its first active lane: only for values known to be uniform)."""
        if isinstance(o, Imm):
            return self.op(f"s_mov_b{width}", "s", width, o)
        if is_reg(o, "s") or o is EXEC:
            return o
        key = ("readfirstlane", o)
        if key in self.block_cache:
            return self.block_cache[key]
        if o.width == 32:
            d = self.op("v_readfirstlane_b32", "s", 32, o)
        else:
            lo, hi = self.new("v"), self.new("v")
            self.emit("p_split", lo, hi, o)
            d = self.new("s", 64)
            self.emit("p_join", d, self.op("v_readfirstlane_b32", "s", 32, lo),
                      self.op("v_readfirstlane_b32", "s", 32, hi))
        self.block_cache[key] = d
        return d

    def ssrc(self, o: Operand, width: int = 32) -> Operand:
        """A scalar source: an immediate stays one."""
        return o if isinstance(o, Imm) else self.sreg(o, width)

    def vreg(self, o: Operand, width: int = 32) -> Operand:
        """A vector register holding `o`."""
        if is_reg(o, "v"):
            return o
        d = self.new("v", width)
        self.emit(f"v_mov_b{width}", d, o)
        return d

    def copy(self, dst: Operand, src: Operand) -> None:
        """dst = src across banks (a vector source into a scalar destination reads its first
        active lane)."""
        if is_reg(dst, "s") and is_vector(src):
            src = self.sreg(src, dst.width)  # type: ignore[union-attr]
        if dst == src:
            return
        self.emit("p_copy", dst, src)

    def split64(self, o: Operand) -> tuple[Operand, Operand]:
        """The low and high words of a 64-bit operand."""
        if isinstance(o, Imm):
            v = o.value
            if isinstance(v, float):
                v = float_bits(v, 64)
            v &= (1 << 64) - 1
            return Imm(v & 0xFFFFFFFF), Imm(v >> 32)
        key = ("split", o)
        if key in self.block_cache:
            return self.block_cache[key]  # type: ignore[return-value]
        lo, hi = self.new(o.file), self.new(o.file)  # type: ignore[union-attr]
        self.emit("p_split", lo, hi, o)
        self.block_cache[key] = (lo, hi)  # type: ignore[assignment]
        return lo, hi

    def join64(self, lo: Operand, hi: Operand, file: str | None = None) -> Operand:
        if isinstance(lo, Imm) and isinstance(hi, Imm):
            return Imm((int(hi.value) & 0xFFFFFFFF) << 32 | (int(lo.value) & 0xFFFFFFFF))
        file = file or ("v" if is_vector(lo) or is_vector(hi) else "s")
        lo = self.vreg(lo) if file == "v" else self.sreg(lo)
        hi = self.vreg(hi) if file == "v" else self.sreg(hi)
        d = self.new(file, 64)
        self.emit("p_join", d, lo, hi)
        return d
