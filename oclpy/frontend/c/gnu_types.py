"""`__typeof__(expression)`: a type the parser cannot know yet.

Types are resolved while parsing, but an expression's type is sema's to find,
so the parser leaves a `TypeOf` placeholder holding the expression (with any
qualifiers written around it) wherever the type goes: a variable, a typedef,
a cast, a pointer to it... Sema replaces every placeholder when it first meets
the declaration or expression (`resolve_typeof`, called by `ExprChecker.spaces`,
which every declared type passes through), in the scope where it was written.
The result is the expression's type as clang gives it: qualifiers and the
address space kept, arrays not decayed; the expression is not evaluated.
`__typeof__(type-name)` needs no placeholder: the parser returns the type.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional

from ...ir.types import AddressSpace
from . import c_types as ct
from .c_types import CType

TYPEOF_KEYWORDS = frozenset(["__typeof__", "__typeof"])  # `typeof` is an identifier unless used so


@dataclass(frozen=True)
class TypeOf(CType):
    """The type of `expr` (an `ast.Expr`), plus the qualifiers written with it."""

    expr: Any = field(compare=False)
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TypeOf) and other.expr is self.expr and \
            (other.const, other.volatile, other.space) == (self.const, self.volatile, self.space)

    def __hash__(self) -> int:
        return id(self.expr)

    def __str__(self) -> str:
        q = self.qualifiers_str()
        return f"{q} __typeof__(...)" if q else "__typeof__(...)"


def resolve_typeof(t: CType, type_of: Callable[[Any], CType]) -> CType:
    """`t` with every `TypeOf` in it replaced; `type_of(expr)` checks an expression
    and gives its type (the error type when it has none)."""
    if isinstance(t, TypeOf):
        found = type_of(t.expr)
        if isinstance(found, ct.FunctionType) or not (t.const or t.volatile or t.space):
            return found
        return replace(found, const=found.const or t.const, volatile=found.volatile or t.volatile,
                       space=t.space or found.space)
    if isinstance(t, ct.Pointer):
        inner = resolve_typeof(t.pointee, type_of)
        return t if inner is t.pointee else replace(t, pointee=inner)
    if isinstance(t, ct.Array):
        inner = resolve_typeof(t.elem, type_of)
        return t if inner is t.elem else replace(t, elem=inner)
    if isinstance(t, ct.FunctionType):
        ret = resolve_typeof(t.ret, type_of)
        params = tuple(resolve_typeof(p, type_of) for p in t.params)
        return replace(t, ret=ret, params=params)
    return t
