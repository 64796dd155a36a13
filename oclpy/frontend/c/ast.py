"""The OpenCL C abstract syntax tree.

The parser builds it with types already resolved (declarators become
`cltypes` objects; typedef names are looked up in the parser's scopes; array
sizes are integer constant expressions the parser folds). Sema fills each
expression's `ctype`, records what each identifier refers to in `decl`, and
wraps operands in `ImplicitCast` nodes where C's conversions apply; the
lowering to IR reads only that typed tree.

Every node has `loc` (a `SourceLocation`), used by every diagnostic about it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from ...diagnostics import SourceLocation
from .c_types import CType


@dataclass(eq=False)
class Node:
    loc: SourceLocation


# -- expressions --------------------------------------------------------------

@dataclass(eq=False)
class Expr(Node):
    # Filled by sema: the expression's type, and whether it designates an object (lvalue).
    ctype: Optional[CType] = field(default=None, kw_only=True)
    is_lvalue: bool = field(default=False, kw_only=True)


@dataclass(eq=False)
class IntLiteral(Expr):
    value: int
    suffix: str = ""  # lower-case: "", "u", "l", "ul", "ll", "ull"; char literals too
    radix: int = 10  # 8, 10 or 16: C gives hex/octal literals unsigned types more readily


@dataclass(eq=False)
class FloatLiteral(Expr):
    value: float
    suffix: str = ""  # "", "f", "h" (half)


@dataclass(eq=False)
class StringLiteral(Expr):
    value: bytes  # without the terminating NUL


@dataclass(eq=False)
class Identifier(Expr):
    name: str
    decl: Optional[Decl] = None  # sema: the VarDecl / ParamDecl / FunctionDecl / EnumConstant


@dataclass(eq=False)
class Unary(Expr):
    op: str  # "-", "+", "!", "~", "*", "&", "++pre", "--pre", "++post", "--post"
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    op: str  # "+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=",
    #          "&", "|", "^", "&&", "||", ","
    lhs: Expr
    rhs: Expr


@dataclass(eq=False)
class Assign(Expr):
    op: str  # "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="
    target: Expr
    value: Expr
    # Filled by sema for a compound assignment: the type `target op value` is computed in.
    compute_type: Optional[CType] = field(default=None, kw_only=True)


@dataclass(eq=False)
class Conditional(Expr):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass(eq=False)
class Call(Expr):
    callee: Expr  # an Identifier naming a function or a builtin
    args: list[Expr]
    builtin: Any = None  # sema: the resolved builtin overload, when callee is a builtin
    end_loc: Optional[SourceLocation] = None  # the closing ')'


@dataclass(eq=False)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(eq=False)
class Member(Expr):
    """`base.name` or `base->name`; on a vector, `name` is a swizzle (`xyz`, `s01`, `lo`)."""

    base: Expr
    name: str
    arrow: bool = False
    swizzle: Optional[tuple[int, ...]] = None  # sema: element indices when base is a vector


@dataclass(eq=False)
class Cast(Expr):
    """An explicit cast `(type)expr`."""

    to: CType
    operand: Expr


@dataclass(eq=False)
class VectorLiteral(Expr):
    """`(float4)(a, b.xy, c)`: components are scalars or vectors, filling `to` in order;
    a single scalar component is replicated to every element. `braced` is the
    compound literal `(float4){a, b}`: missing trailing elements are zero, never replicated."""

    to: CType
    components: list[Expr]
    braced: bool = False
    brace_loc: Optional[SourceLocation] = None  # braced: where its '{' is


@dataclass(eq=False)
class CompoundLiteral(Expr):
    """`(struct S){1, .b = 2}`, `(int[]){1, 2, 3}`: an unnamed object (an lvalue) of type
    `to` initialized by `init`, anew each time it is evaluated."""

    to: CType
    init: InitList


@dataclass(eq=False)
class SizeOf(Expr):
    """`sizeof expr` / `sizeof(type)`; also `__alignof__`/`_Alignof` and `vec_step`."""

    kind: str  # "sizeof", "alignof", "vec_step"
    operand: Union[Expr, CType]
    value: Optional[int] = field(default=None, kw_only=True)  # sema's: under the target's DataLayout


Designator = Union[int, str, tuple[int, int]]  # `[2]`, `.x`, GNU range `[1 ... 3]`


@dataclass(eq=False)
class InitList(Expr):
    """A brace initializer `{a, b, [2] = c, .x = d}`; `designators` parallels `items`."""

    items: list[Expr]
    designators: list[Optional[list[Designator]]] = field(default_factory=list)
    # Where each designator was written: (its '.' or '[', then the name or each index).
    designator_locs: list[Optional[list[tuple[SourceLocation, ...]]]] = field(default_factory=list)
    # Filled by sema: (member or element index, checked initializer) in the order written.
    slots: list[tuple[int, Expr]] = field(default_factory=list, kw_only=True)


@dataclass(eq=False)
class StmtExpr(Expr):
    """GNU `({ stmt; ... expr; })`: runs the block; its value is the last statement's
    when that is an expression statement (`result`, filled by sema), else void."""

    body: Compound
    result: Optional[ExprStmt] = None  # sema: the statement giving the value


@dataclass(eq=False)
class ImplicitCast(Expr):
    """Inserted by sema. kind: "lvalue-to-rvalue", "array-decay", "function-decay",
    "int", "float", "int-to-float", "float-to-int", "to-bool", "pointer",
    "null-to-pointer", "null-to-event" (`event_t e = 0`), "addrspace" (to generic),
    "splat" (scalar to vector)."""

    kind: str
    operand: Expr


# -- statements ---------------------------------------------------------------

@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Compound(Stmt):
    items: list[Union[Stmt, Decl]]
    end_loc: Optional[SourceLocation] = None  # the closing '}' (missing-return warnings point there)


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Optional[Expr]  # None: the empty statement `;`


@dataclass(eq=False)
class DeclStmt(Stmt):
    decls: list[Decl]


@dataclass(eq=False)
class If(Stmt):
    cond: Expr
    then: Stmt
    else_: Optional[Stmt] = None


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: Stmt


@dataclass(eq=False)
class DoWhile(Stmt):
    body: Stmt
    cond: Expr


@dataclass(eq=False)
class For(Stmt):
    init: Optional[Union[DeclStmt, ExprStmt]]
    cond: Optional[Expr]
    step: Optional[Expr]
    body: Stmt


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Optional[Expr] = None


@dataclass(eq=False)
class Switch(Stmt):
    cond: Expr
    body: Stmt


@dataclass(eq=False)
class Case(Stmt):
    value: Expr  # an integer constant expression
    body: Stmt
    const_value: Optional[int] = None  # sema: the folded value
    high: Optional[Expr] = None  # GNU case range `case value ... high:`
    const_high: Optional[int] = None  # sema: the folded `high`


@dataclass(eq=False)
class Default(Stmt):
    body: Stmt


@dataclass(eq=False)
class Label(Stmt):
    name: str
    body: Stmt


@dataclass(eq=False)
class Goto(Stmt):
    name: str


# -- declarations -------------------------------------------------------------

@dataclass(eq=False)
class Decl(Node):
    name: str


@dataclass(eq=False)
class VarDecl(Decl):
    ctype: CType  # with its address space, if one was written
    init: Optional[Expr] = None
    storage: Optional[str] = None  # "static", "extern" or None
    attributes: dict[str, Any] = field(default_factory=dict)  # e.g. {"aligned": 16}
    is_global_scope: bool = False
    array_loc: Optional[SourceLocation] = None  # an array's '[' as written, where clang reports its element


@dataclass(eq=False)
class ParamDecl(Decl):
    ctype: CType
    access: Optional[str] = None  # "read_only", "write_only", "read_write" when written (images, pipes)
    type_name: Optional[str] = None  # the type as written with typedef names ("my_struct_t*"), if one was used


@dataclass(eq=False)
class FunctionDecl(Decl):
    ctype: CType  # a cltypes.FunctionType
    params: list[ParamDecl]
    body: Optional[Compound] = None  # None: a prototype
    is_kernel: bool = False
    is_inline: bool = False
    storage: Optional[str] = None
    attributes: dict[str, Any] = field(default_factory=dict)
    # e.g. {"reqd_work_group_size": (16, 16, 1), "work_group_size_hint": (...),
    #       "vec_type_hint": CType}
    link_name: str = ""  # sema: the IR function's name (mangled for an `overloadable` overload)


@dataclass(eq=False)
class TypedefDecl(Decl):
    ctype: CType


@dataclass(eq=False)
class EnumConstant(Decl):
    value: int


@dataclass(eq=False)
class TagDecl(Decl):
    """A struct/union/enum declared without declarators (`struct S { ... };`)."""

    ctype: CType


@dataclass(eq=False)
class StaticAssert(Decl):
    """`_Static_assert(cond, "message")` at file scope, in a block or in a struct; `name` is ""."""

    cond: Expr
    message: Optional[bytes] = None  # None: C2x's form without a message
    text: str = ""  # the condition as written (clang quotes it in the diagnostic)


@dataclass(eq=False)
class TranslationUnit(Node):
    decls: list[Decl]


def start_loc(e: Expr) -> SourceLocation:
    """Where an expression's text begins (the parser places binary nodes at their operator)."""
    while True:
        nxt = _FIRST_CHILD.get(type(e))
        if nxt is None:
            return e.loc
        child = nxt(e)
        if child.loc.line > e.loc.line or (child.loc.line == e.loc.line and child.loc.col > e.loc.col):
            return e.loc
        e = child


_FIRST_CHILD: dict[type, Callable[[Any], Expr]] = {
    Binary: lambda e: e.lhs, Assign: lambda e: e.target, Index: lambda e: e.base,
    Member: lambda e: e.base, Conditional: lambda e: e.cond, Call: lambda e: e.callee,
    ImplicitCast: lambda e: e.operand, Unary: lambda e: e.operand,
}
