"""The state of lowering, declared in one place and passed explicitly.

`UnitContext` is what every function of a translation unit shares: the IR
module, the options, the IR function of each C function, the storage of
program-scope variables and the string literals' globals.
`LoweringContext` is the lowering of one function: the builders, the storage
of its locals, the block names used, the targets of `break`, `continue`,
`case` and `goto`, and the three entry points of the walk, `rv(e)`, `lv(e)`
and `stmt(s)`, which set the builder's debug location to the node's and
dispatch through `Handlers` (node class -> function of the context; `unit.py`
puts the tables together from `exprs`, `stmts` and `gnu_lowering`). Every lowering function takes the context as its first
argument, `cx`; it is also the `BuiltinContext` the builtins lower into.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Union

from ....ir import types as ir
from ....ir.block_names import BlockNames
from ....ir.datalayout import DataLayout
from ....ir.builder import Builder
from ....ir.values import Block, ConstAggregate, ConstInt, ConstZero, Function, GlobalVar, Module, Value
from .. import ast
from ..builtins.table import Builtin
from ..c_types import CType
from ..layout import align_of, mem_type
from .builtin_calls import lower_builtin_call
from .constant_init import constant_value
from .helpers import LValue, convert

RvHandler = Callable[["LoweringContext", Any], Value]
LvHandler = Callable[["LoweringContext", Any], LValue]
StmtHandler = Callable[["LoweringContext", Any], None]

# Per switch being lowered: its (value, block) cases, [default block], and its case
# ranges too wide to list value by value, (low, high, block).
SwitchCases = tuple[list[tuple[int, Block]], list[Optional[Block]], list[tuple[int, int, Block]]]


@dataclass(frozen=True)
class Handlers:
    """The lowering of each AST node class: rvalues, lvalues (`lv_other` for the rest) and statements."""

    rv: Mapping[type, RvHandler]
    lv: Mapping[type, LvHandler]
    lv_other: LvHandler
    stmt: Mapping[type, StmtHandler]


def link_name(d: ast.FunctionDecl) -> str:
    """The IR name of a function: its C name, or the mangled name sema gave an overload."""
    return d.link_name or d.name


@dataclass
class UnitContext:
    """What the lowering of every function of one translation unit shares."""

    module: Module
    options: object
    functions: dict[str, Function] = field(default_factory=dict)  # link name -> IR function
    globals: dict[int, Value] = field(default_factory=dict)  # id(program-scope VarDecl) -> its global
    strings: dict[bytes, GlobalVar] = field(default_factory=dict)  # string literal -> its global

    @property
    def layout(self) -> DataLayout:
        """The target's DataLayout (sizes of pointers and of what holds them)."""
        return self.options.layout  # type: ignore[attr-defined]

    def string_global(self, data: bytes) -> GlobalVar:
        """A NUL-terminated string literal as constant data, one global per distinct text."""
        gv = self.strings.get(data)
        if gv is None:
            body = data + b"\0"
            t = ir.ArrayType(ir.I8, len(body))
            init = ConstAggregate(t, [ConstInt(ir.I8, c) for c in body])
            gv = GlobalVar(f".str.{len(self.strings)}", t, ir.AddressSpace.CONSTANT, init, constant=True, align=1)
            self.strings[data] = self.module.add_global(gv)
        return gv

    def address_global(self, base: ast.VarDecl | ast.StringLiteral) -> GlobalVar:
        """The global an address constant points into (a program-scope variable lowered before)."""
        if isinstance(base, ast.StringLiteral):
            return self.string_global(base.value)
        gv = self.globals[id(base)]
        assert isinstance(gv, GlobalVar)
        return gv

    def local_global(self, kernel: str, d: ast.VarDecl) -> GlobalVar:
        """The `local` global of kernel-scope `__local` variable `d`, named `<kernel>.<var>`."""
        name = f"{kernel}.{d.name}"
        n = 1
        while self.module.get_global(name) is not None:
            name, n = f"{kernel}.{d.name}.{n}", n + 1
        gv = GlobalVar(name, mem_type(d.ctype, self.layout), ir.AddressSpace.LOCAL, None,
                       align=max(align_of(d.ctype, self.layout), int(d.attributes.get("aligned", 0) or 0)))
        return self.module.add_global(gv)

    def constant_global(self, d: ast.VarDecl, name: str) -> GlobalVar:
        """The global of a program-scope or static variable, with its constant initializer."""
        space = d.ctype.space or ir.AddressSpace.CONSTANT
        mt = mem_type(d.ctype, self.layout)
        init = constant_value(d.init, d.ctype, self.layout, self.address_global) if d.init is not None \
            else ConstZero(mt)
        gv = GlobalVar(name, mt, space, init, constant=space is ir.AddressSpace.CONSTANT,
                       align=max(align_of(d.ctype, self.layout), int(d.attributes.get("aligned", 0) or 0)))
        return self.module.add_global(gv)


@dataclass
class LoweringContext:
    """The lowering of one function: `b` builds at the current point, `allocas` in the entry block."""

    unit: UnitContext
    decl: ast.FunctionDecl
    fn: Function
    handlers: Handlers
    b: Builder = field(init=False)
    allocas: Builder = field(init=False)
    locals: dict[int, Value] = field(default_factory=dict)  # id(local Decl) -> its address
    local_names: set[str] = field(default_factory=set)  # alloca names given
    block_names: BlockNames = field(init=False)  # block names given
    break_targets: list[Block] = field(default_factory=list)
    continue_targets: list[Block] = field(default_factory=list)
    switch_stack: list[SwitchCases] = field(default_factory=list)
    label_blocks: dict[str, Block] = field(default_factory=dict)

    def __post_init__(self) -> None:
        entry = self.fn.add_block("entry")
        self.block_names = BlockNames(self.fn)
        self.allocas = Builder(entry)
        self.allocas.index = 0
        self.b = Builder(entry)

    @property
    def module(self) -> Module:
        return self.unit.module

    @property
    def layout(self) -> DataLayout:
        return self.unit.layout

    # -- the walk -----------------------------------------------------------
    def rv(self, e: ast.Expr) -> Value:
        """The value of expression `e` (an rvalue), emitted at the builder."""
        handler = self.handlers.rv.get(type(e))
        if handler is None:
            raise NotImplementedError(f"cannot lower expression {type(e).__name__}")
        outer, self.b.loc = self.b.loc, e.loc
        try:
            return handler(self, e)
        finally:
            self.b.loc = outer

    def lv(self, e: ast.Expr) -> LValue:
        """The object expression `e` designates (an lvalue)."""
        outer, self.b.loc = self.b.loc, e.loc
        try:
            return self.handlers.lv.get(type(e), self.handlers.lv_other)(self, e)
        finally:
            self.b.loc = outer

    def stmt(self, s: Union[ast.Stmt, ast.Decl]) -> None:
        """Lower statement or declaration `s` at the builder."""
        handler = self.handlers.stmt.get(type(s))
        if handler is None and isinstance(s, ast.VarDecl):
            handler = self.handlers.stmt[ast.VarDecl]
        if handler is not None:
            outer, self.b.loc = self.b.loc, s.loc
            try:
                handler(self, s)
            finally:
                self.b.loc = outer

    # -- blocks -------------------------------------------------------------
    def new_block(self, name: str) -> Block:
        """A new block named as `Function.add_block` names it (`name`, else `name1`,
        `name2`, ...), in constant time (`BlockNames`; add_block rescans every block)."""
        block = Block(self.block_names.unique(name), parent=self.fn)
        self.fn.blocks.append(block)
        return block

    def current_block(self) -> Block:
        assert self.b.block is not None
        return self.b.block

    def terminated(self) -> bool:
        return self.current_block().terminator is not None

    def jump(self, dest: Block) -> None:
        """Branch to `dest` unless the current block already ended."""
        if not self.terminated():
            self.b.br(dest)

    def start(self, block: Block) -> None:
        """Fall through (or jump) into `block` and continue there."""
        self.jump(block)
        self.b.position_at_end(block)

    def after_terminator(self) -> None:
        """Continue in a fresh block no path reaches (`remove_unreachable` deletes it)."""
        self.b.position_at_end(self.new_block("dead"))

    def label_block(self, name: str) -> Block:
        """The block of C label `name` (made at its first `goto` or its definition)."""
        if name not in self.label_blocks:
            self.label_blocks[name] = self.new_block(f"label.{name}")
        return self.label_blocks[name]

    # -- storage ------------------------------------------------------------
    def storage(self, decl: ast.Decl) -> Value:
        """The address of a variable or parameter."""
        addr = self.locals.get(id(decl)) or self.unit.globals.get(id(decl))
        if addr is None:
            raise KeyError(f"no storage for '{decl.name}'")
        return addr

    def alloca(self, t: CType, name: str, align: int = 0) -> Value:
        """A private object of type `t` in the entry block, named uniquely after `name`."""
        align = max(align, align_of(t, self.layout))
        return self.allocas.alloca(mem_type(t, self.layout), align, name=self._unique(name))

    def temporary(self, t: CType) -> Value:
        return self.alloca(t, "tmp")

    def _unique(self, name: str) -> str:
        base, n = name, 1
        while name in self.local_names:
            name, n = f"{base}.{n}", n + 1
        self.local_names.add(name)
        return name

    def string_constant(self, data: bytes) -> Value:
        return self.unit.string_global(data)

    # -- what the builtins ask of their caller (BuiltinContext) -------------
    def convert(self, v: Value, frm: CType, to: CType) -> Value:
        return convert(self.b, v, frm, to)

    def lower_builtin_call(self, sig: Builtin, args: list[Value], call: Optional[ast.Call]) -> Optional[Value]:
        return lower_builtin_call(self, sig, args, call)
