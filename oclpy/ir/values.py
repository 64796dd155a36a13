"""IR values and containers: constants, arguments, instructions, blocks,
functions, global variables and modules.

Every value has `.type` (an `ir.types.Type`). An instruction is one class,
`Instr`, whose `op` names an entry in the opcode table (`ir/ops.py`); its
operands are values, its successor blocks are in `targets` (terminators) and
its incoming blocks in `blocks` (phis), and opcode-specific data is in `attrs`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from .ops import OPS, OpInfo
from .types import FunctionType, PtrType, Type, AddressSpace


class Value:
    """Anything an instruction can use as an operand."""

    type: Type
    name: str

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'name', '')}: {self.type}>"


@dataclass(eq=False, repr=False)
class ConstInt(Value):
    type: Type
    value: int  # stored as the unsigned bit pattern, 0 <= value < 2**bits
    name: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        bits = self.type.bits  # type: ignore[attr-defined]
        self.value &= (1 << bits) - 1

    def signed(self) -> int:
        bits = self.type.bits  # type: ignore[attr-defined]
        v = self.value
        return v - (1 << bits) if v >> (bits - 1) else v


@dataclass(eq=False, repr=False)
class ConstFloat(Value):
    type: Type
    value: float
    name: str = field(default="", repr=False)


@dataclass(eq=False, repr=False)
class ConstNull(Value):
    """The null pointer of a pointer type (its bit value is the DataLayout's business)."""

    type: Type
    name: str = field(default="", repr=False)


@dataclass(eq=False, repr=False)
class Undef(Value):
    type: Type
    name: str = field(default="", repr=False)


@dataclass(eq=False, repr=False)
class ConstZero(Value):
    """The all-zero value of any type (zeroinitializer)."""

    type: Type
    name: str = field(default="", repr=False)


@dataclass(eq=False, repr=False)
class ConstAggregate(Value):
    """A constant vector, array or struct made of constant elements."""

    type: Type
    elements: list[Value]
    name: str = field(default="", repr=False)
    name: str = field(default="", repr=False)


@dataclass(eq=False, repr=False)
class Argument(Value):
    type: Type
    name: str
    index: int
    attrs: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, repr=False)
class Instr(Value):
    op: str
    type: Type
    operands: list[Value] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    targets: list[Block] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    name: str = ""
    parent: Block | None = None

    @property
    def info(self) -> OpInfo:
        return OPS[self.op]

    @property
    def is_terminator(self) -> bool:
        return OPS[self.op].terminator

    def incoming(self) -> list[tuple[Value, Block]]:
        """For a phi: (value, predecessor block) pairs."""
        return list(zip(self.operands, self.blocks))

    def replace_uses_of(self, old: Value, new: Value) -> None:
        self.operands = [new if v is old else v for v in self.operands]


@dataclass(eq=False)
class Block:
    name: str
    instrs: list[Instr] = field(default_factory=list, repr=False)
    parent: Function | None = field(default=None, repr=False)

    @property
    def terminator(self) -> Instr | None:
        if self.instrs and self.instrs[-1].is_terminator:
            return self.instrs[-1]
        return None

    def successors(self) -> list[Block]:
        term = self.terminator
        return list(term.targets) if term else []

    def phis(self) -> list[Instr]:
        return [i for i in self.instrs if i.op == "phi"]

    def append(self, instr: Instr) -> Instr:
        instr.parent = self
        self.instrs.append(instr)
        return instr

    def insert(self, index: int, instr: Instr) -> Instr:
        instr.parent = self
        self.instrs.insert(index, instr)
        return instr


@dataclass(eq=False, repr=False)
class Function(Value):
    """A kernel, a helper function, or a declaration (no blocks), e.g. an intrinsic."""

    name: str
    type: FunctionType  # the signature; a function used as a value is called, not addressed
    args: list[Argument] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    is_kernel: bool = False
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def is_declaration(self) -> bool:
        return not self.blocks

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    def add_block(self, name: str) -> Block:
        block = Block(self.unique_block_name(name), parent=self)
        self.blocks.append(block)
        return block

    def unique_block_name(self, name: str) -> str:
        taken = {b.name for b in self.blocks}
        if name not in taken:
            return name
        n = 1
        while f"{name}{n}" in taken:
            n += 1
        return f"{name}{n}"

    def instructions(self) -> Iterator[Instr]:
        for block in self.blocks:
            yield from block.instrs

    def replace_all_uses(self, old: Value, new: Value) -> None:
        for instr in self.instructions():
            if any(v is old for v in instr.operands):
                instr.replace_uses_of(old, new)

    def users(self, value: Value) -> list[Instr]:
        return [i for i in self.instructions() if any(v is value for v in i.operands)]


@dataclass(eq=False, repr=False)
class GlobalVar(Value):
    """A module-level variable in `space` (e.g. program-scope `__constant` data,
    or a kernel's `__local` array). Its value as an operand is a pointer to it."""

    name: str
    value_type: Type
    space: AddressSpace
    initializer: Value | None = None
    constant: bool = False
    align: int = 0

    @property
    def type(self) -> PtrType:  # type: ignore[override]
        return PtrType(self.space)


@dataclass(eq=False)
class Module:
    name: str = "module"
    functions: list[Function] = field(default_factory=list)
    globals: list[GlobalVar] = field(default_factory=list)

    def get_function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    def get_global(self, name: str) -> GlobalVar | None:
        return next((g for g in self.globals if g.name == name), None)

    def add_function(self, fn: Function) -> Function:
        if self.get_function(fn.name) is not None:
            raise ValueError(f"function @{fn.name} already exists")
        self.functions.append(fn)
        return fn

    def add_global(self, gv: GlobalVar) -> GlobalVar:
        if self.get_global(gv.name) is not None:
            raise ValueError(f"global @{gv.name} already exists")
        self.globals.append(gv)
        return gv

    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.is_kernel]
