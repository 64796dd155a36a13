"""IR values and containers: constants, arguments, instructions, blocks,
functions, global variables and modules.

Every value has `.type` (an `ir.types.Type`). An instruction is one class,
`Instr`, whose `op` names an entry in the opcode table (`ir/ops.py`); its
operands are values, its successor blocks are in `targets` (terminators) and
its incoming blocks in `blocks` (phis), and opcode-specific data is in `attrs`.

Use-lists: every value with an identity in a module (an instruction, an
argument, a global, a function) knows its users, the instructions that hold
it as an operand (`value.users`), so `replace_all_uses_with` costs O(uses).
Constants are values too but keep no use-list (they may be shared and are
cheap to make). The lists stay right because operands only change through
`Instr.operands` (a tuple: set it whole) and `Instr.set_operand`, and an
instruction leaves the IR through `Instr.erase()` or `Block.erase_instrs()`,
which drop its operands. An instruction that is detached without being erased
(`block.instrs.remove(i)`, to move it) keeps its operands and stays a user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Container, Iterable, Iterator

from ..diagnostics import SourceLocation
from .ops import OPS, OpInfo
from .types import FunctionType, PtrType, Type, AddressSpace


class Value:
    """Anything an instruction can use as an operand."""

    type: Type
    name: str
    # user -> how many of its operands are this value; None: no use-list (constants)
    _users: dict[Instr, int] | None = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'name', '')}: {self.type}>"

    @property
    def keeps_uses(self) -> bool:
        """Whether this value has a use-list (constants have none)."""
        return self._users is not None

    @property
    def users(self) -> list[Instr]:
        """The instructions that use this value, each once, in order of first use."""
        if self._users is None:
            raise TypeError(f"{self!r} keeps no use-list (constants do not)")
        return list(self._users)

    @property
    def uses(self) -> list[tuple[Instr, int]]:
        """Each use as (user, operand index)."""
        return [(user, k) for user in self.users
                for k, op in enumerate(user.operands) if op is self]

    def use_count(self, user: Instr) -> int | None:
        """How many operands of `user` this value's use-list records (None: it keeps
        no use-list); for the verifier."""
        return self._users.get(user, 0) if self._users is not None else None

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every user of this value use `new` instead."""
        if new is self:
            return
        for user in self.users:
            user.replace_uses_of(self, new)


def _add_use(value: Value, user: Instr) -> None:
    users = value._users
    if users is not None:
        users[user] = users.get(user, 0) + 1


def _drop_use(value: Value, user: Instr) -> None:
    users = value._users
    if users is not None:
        count = users[user] - 1
        if count:
            users[user] = count
        else:
            del users[user]


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


@dataclass(eq=False, repr=False)
class ConstOffset(Value):
    """A pointer constant: the address of the global `base` plus `offset` bytes (C's
    `&t[2]`, `&s.f`, `t + 1` in a program-scope initializer). Its type is the global's
    pointer type, or, with `space`, a pointer into that space (the generic address of a
    global: `generic int *gp = &g;`); it appears in global initializers only. Text:
    `getelementptr (i8, ptr<constant> @t, i64 8)`, as LLVM's constant expression, inside
    `addrspacecast (ptr<global> ... to ptr<generic>)` with `space`."""

    base: GlobalVar
    offset: int
    space: AddressSpace | None = None
    name: str = field(default="", repr=False)

    @property
    def type(self) -> PtrType:  # type: ignore[override]
        return self.base.type if self.space is None else PtrType(self.space)


@dataclass(eq=False, repr=False)
class Argument(Value):
    type: Type
    name: str
    index: int
    attrs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._users = {}


class Instr(Value):
    """One instruction. `operands` is a tuple that only its setter (and
    `set_operand`) changes, so the operands' use-lists follow every change."""

    def __init__(self, op: str, type: Type, operands: Iterable[Value] = (),
                 attrs: dict[str, Any] | None = None, targets: list[Block] | None = None,
                 blocks: list[Block] | None = None, name: str = "",
                 parent: Block | None = None) -> None:
        self.op = op
        self.type = type
        self.attrs = {} if attrs is None else attrs
        self.targets = [] if targets is None else targets
        self.blocks = [] if blocks is None else blocks
        self.name = name
        self.parent = parent
        self.loc: SourceLocation | None = None  # the source construct it comes from (debug location)
        self._users = {}
        self._operands: tuple[Value, ...] = tuple(operands)
        for value in self._operands:  # _add_use, inlined: every instruction made comes here
            users = value._users
            if users is not None:
                users[self] = users.get(self, 0) + 1

    @property
    def operands(self) -> tuple[Value, ...]:
        return self._operands

    @operands.setter
    def operands(self, values: Iterable[Value]) -> None:
        new = tuple(values)
        for value in self._operands:
            _drop_use(value, self)
        for value in new:
            _add_use(value, self)
        self._operands = new

    def set_operand(self, index: int, value: Value) -> None:
        old = self._operands[index]
        if old is value:
            return
        _drop_use(old, self)
        _add_use(value, self)
        ops = self._operands
        self._operands = (*ops[:index], value, *ops[index + 1:])

    def erase(self) -> None:
        """Take this instruction out of its block (if any) and drop its operands."""
        if self.parent is not None:
            self.parent.instrs.remove(self)
            self.parent = None
        self.operands = ()

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
        self.operands = [new if v is old else v for v in self._operands]

    def add_incoming(self, value: Value, block: Block) -> None:
        """For a phi: one more (value, predecessor block) pair."""
        _add_use(value, self)
        self._operands = (*self._operands, value)
        self.blocks.append(block)


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

    def erase_instrs(self, doomed: Container[Instr] | None = None) -> bool:
        """Erase the instructions in `doomed` (all of them when it is None); return
        whether any was."""
        if doomed is None:
            gone, kept = self.instrs, []
        else:
            kept = [i for i in self.instrs if i not in doomed]
            if len(kept) == len(self.instrs):
                return False
            gone = [i for i in self.instrs if i in doomed]
        for instr in gone:
            instr.parent = None
            instr.operands = ()
        self.instrs = kept
        return bool(gone)


@dataclass(eq=False, repr=False)
class Function(Value):
    """A kernel, a helper function, or a declaration (no blocks), e.g. an intrinsic."""

    name: str
    type: FunctionType  # the signature; a function used as a value is called, not addressed
    args: list[Argument] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    is_kernel: bool = False
    attrs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._users = {}

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

    def erase_body(self) -> None:
        """Erase every instruction (the function becomes a declaration)."""
        for block in self.blocks:
            block.erase_instrs()
        self.blocks = []


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

    def __post_init__(self) -> None:
        self._users = {}

    @property
    def type(self) -> PtrType:  # type: ignore[override]
        return PtrType(self.space)


@dataclass(eq=False)
class Module:
    name: str = "module"
    functions: list[Function] = field(default_factory=list)
    globals: list[GlobalVar] = field(default_factory=list)
    # name -> function, for `functions` as it was when indexed (see `_function_index`)
    _by_name: dict[str, Function] = field(default_factory=dict, init=False, repr=False)
    _indexed: list[Function] | None = field(default=None, init=False, repr=False)
    _indexed_len: int = field(default=-1, init=False, repr=False)

    def get_function(self, name: str) -> Function | None:
        fn = self._function_index().get(name)
        if fn is not None and fn.name == name:
            return fn
        # not indexed under that name: a function renamed since is found by looking
        return next((f for f in self.functions if f.name == name), None)

    def _function_index(self) -> dict[str, Function]:
        """The functions by name, rebuilt when `functions` was replaced or grew or
        shrank (passes assign new lists; the list indexed is held, so its identity
        cannot be reused). A module of n functions is built in O(n), not O(n**2)."""
        if self._indexed is not self.functions or self._indexed_len != len(self.functions):
            self._by_name = {f.name: f for f in reversed(self.functions)}
            self._indexed, self._indexed_len = self.functions, len(self.functions)
        return self._by_name

    def get_global(self, name: str) -> GlobalVar | None:
        return next((g for g in self.globals if g.name == name), None)

    def add_function(self, fn: Function) -> Function:
        """Append `fn`; its name must be new. Names are checked against the index, so a
        function renamed after it was added must be renamed with `rename_function`."""
        index = self._function_index()
        known = index.get(fn.name)
        if known is not None and known.name == fn.name:
            raise ValueError(f"function @{fn.name} already exists")
        self.functions.append(fn)
        index[fn.name] = fn
        self._indexed_len += 1
        return fn

    def rename_function(self, fn: Function, name: str) -> None:
        """Give `fn` (a function of this module) a new name, keeping the index true."""
        index = self._function_index()
        if index.get(fn.name) is fn:
            del index[fn.name]
        fn.name = name
        index[name] = fn

    def add_global(self, gv: GlobalVar) -> GlobalVar:
        if self.get_global(gv.name) is not None:
            raise ValueError(f"global @{gv.name} already exists")
        self.globals.append(gv)
        return gv

    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.is_kernel]
