"""The types of expressions that follow from the declarations in scope alone, for
`sizeof`, `__alignof__` and `vec_step` of an expression in the parser's integer
constant expressions (array sizes, enum values, bit-field widths, `_Static_assert`),
which are folded before sema gives expressions their types.

`declared_type(e, lookup)` answers for names (variables, parameters, enum constants),
calls of the program's functions, literals, member access (`.`, `->`, swizzles),
indexing, `*`, `&`, casts, `sizeof`, comparisons, the arithmetic and bitwise operators
on scalars and vectors, `?:`, assignments, the comma, and calls of builtins:
`convert_T`/`as_T`, a builtin whose overloads of that many arguments all return one
type (`get_global_id`, `dot`...), else the overload better than every other for
arithmetic arguments, ranked as sema's `ranking.py` ranks them (the same type, a
promotion, a conversion, a splat: `sin(f)`, `max(i, 2)`, `fmax(f, 1)`); None for
anything else (a call clang finds ambiguous, pointer
arguments to an overloaded builtin, compound literals...), and the caller then says
the size is not a constant, as before. `sizeof` does not evaluate
its operand, so only the type matters: `sizeof(x)`, `sizeof(a) / sizeof(a[0])`,
`sizeof(s->f)`, `sizeof(v.xy)`, `sizeof(p)` (a pointer's size depends on its space).
"""

from __future__ import annotations

from typing import Callable, Optional

from ...ir.types import AddressSpace
from . import ast
from . import c_types as ct
from .c_types import ScalarKind as K
from .builtins import table as bi
from .consteval import Lookup, literal_kind
from .type_rules import arith_kind, decay, same_unqualified

_COMPARISONS = frozenset(("<", ">", "<=", ">=", "==", "!=", "&&", "||"))
_ARITHMETIC = frozenset(("+", "-", "*", "/", "%", "&", "|", "^"))


def declared_type(e: ast.Expr, lookup: Lookup) -> Optional[ct.CType]:
    """The C type of `e` as sema would give it (arrays not decayed), or None."""
    rule = _RULES.get(type(e))
    return rule(e, lookup) if rule is not None else None


def _identifier(e: ast.Identifier, lookup: Lookup) -> Optional[ct.CType]:
    found = lookup(e.name)
    if isinstance(found, ast.EnumConstant):
        return ct.INT
    if isinstance(found, ast.ParamDecl):  # a parameter declared as an array is a pointer
        t = found.ctype
        return ct.Pointer(t.elem) if isinstance(t, ct.Array) else t
    if isinstance(found, ast.VarDecl):
        return found.ctype
    return None


def _int_literal(e: ast.IntLiteral, lookup: Lookup) -> Optional[ct.CType]:
    return ct.Scalar(literal_kind(e.value, e.suffix, getattr(e, "radix", 10) == 10))


def _float_literal(e: ast.FloatLiteral, lookup: Lookup) -> Optional[ct.CType]:
    return {"f": ct.FLOAT, "h": ct.HALF}.get(e.suffix, ct.DOUBLE)


def _string_literal(e: ast.StringLiteral, lookup: Lookup) -> Optional[ct.CType]:
    return ct.Array(ct.CHAR.with_space(AddressSpace.CONSTANT), len(e.value) + 1)


def _member(e: ast.Member, lookup: Lookup) -> Optional[ct.CType]:
    base = declared_type(e.base, lookup)
    if e.arrow:
        base = _pointee(base)
    if isinstance(base, ct.Vector) and not e.arrow:
        count = _swizzle_count(e.name, base.count)
        return None if count is None else ct.Scalar(base.elem) if count == 1 else ct.Vector(base.elem, count)
    if not isinstance(base, ct.Struct) or base.definition.fields is None:
        return None
    d = base.definition
    for f in d.anonymous_path(e.name) or []:
        d = f.type.definition  # type: ignore[attr-defined]
    found = d.field(e.name)
    return None if found is None else found.type


def _swizzle_count(name: str, count: int) -> Optional[int]:
    if name in ("lo", "hi", "even", "odd"):
        return (4 if count == 3 else count) // 2
    if name[0] in "sS" and len(name) > 1:
        return len(name) - 1
    return len(name) if all(c in "xyzw" for c in name) or all(c in "rgba" for c in name) else None


def _index(e: ast.Index, lookup: Lookup) -> Optional[ct.CType]:
    base = declared_type(e.base, lookup)
    if isinstance(base, ct.Vector):
        return ct.Scalar(base.elem)
    if not isinstance(base, (ct.Array, ct.Pointer)):  # `2[a]`
        base = declared_type(e.index, lookup)
    return _pointee(base)


def _pointee(t: Optional[ct.CType]) -> Optional[ct.CType]:
    if isinstance(t, ct.Pointer):
        return t.pointee
    if isinstance(t, ct.Array):
        return t.elem
    return None


def _unary(e: ast.Unary, lookup: Lookup) -> Optional[ct.CType]:
    t = declared_type(e.operand, lookup)
    if t is None:
        return None
    if e.op == "*":
        return _pointee(t)
    if e.op == "&":
        return ct.Pointer(t)
    if e.op == "!":
        return ct.INT if isinstance(t, (ct.Scalar, ct.Pointer)) else _comparison(t)
    if e.op in ("-", "+", "~"):
        return _promoted(t)
    return t.unqualified()  # ++ and --


def _promoted(t: ct.CType) -> Optional[ct.CType]:
    if isinstance(t, ct.Vector):
        return t.unqualified()
    if isinstance(t, ct.Enum):
        return ct.INT
    if isinstance(t, ct.Scalar):
        return ct.INT if not t.kind.is_float and t.kind.rank < K.INT.rank else t.unqualified()
    return None


def _comparison(t: ct.CType) -> Optional[ct.CType]:
    """A comparison's result: int, or the signed integer vector of the operands' width."""
    if not isinstance(t, ct.Vector):
        return ct.INT
    signed = {1: K.CHAR, 2: K.SHORT, 4: K.INT, 8: K.LONG}[t.elem.size]
    return ct.Vector(signed, t.count)


def _binary(e: ast.Binary, lookup: Lookup) -> Optional[ct.CType]:
    if e.op == ",":
        return declared_type(e.rhs, lookup)
    a, b = declared_type(e.lhs, lookup), declared_type(e.rhs, lookup)
    if a is None or b is None:
        return None
    if e.op in ("<<", ">>"):
        return _promoted(a)
    if e.op in _COMPARISONS:
        return _comparison(a if isinstance(a, ct.Vector) else b)
    if e.op not in _ARITHMETIC:
        return None
    return _arithmetic(e.op, a, b)


def _arithmetic(op: str, a: ct.CType, b: ct.CType) -> Optional[ct.CType]:
    if isinstance(a, ct.Vector) or isinstance(b, ct.Vector):  # a scalar operand is widened
        return (a if isinstance(a, ct.Vector) else b).unqualified()
    pointer = a if isinstance(a, (ct.Pointer, ct.Array)) else b if isinstance(b, (ct.Pointer, ct.Array)) else None
    if pointer is not None:
        both = isinstance(a, (ct.Pointer, ct.Array)) and isinstance(b, (ct.Pointer, ct.Array))
        if op == "-" and both:
            return ct.Scalar(K.LONG)  # ptrdiff_t
        return ct.Pointer(_pointee(pointer)) if op in ("+", "-") else None  # type: ignore[arg-type]
    pa, pb = _promoted(a), _promoted(b)
    if not isinstance(pa, ct.Scalar) or not isinstance(pb, ct.Scalar):
        return None
    return ct.Scalar(arith_kind(pa.kind, pb.kind))


def _conditional(e: ast.Conditional, lookup: Lookup) -> Optional[ct.CType]:
    a, b = declared_type(e.then, lookup), declared_type(e.else_, lookup)
    if a is None or b is None:
        return None
    if a.unqualified() == b.unqualified():
        return a.unqualified()
    return _arithmetic("+", a, b) if not isinstance(a, (ct.Pointer, ct.Array)) else None


def _assign(e: ast.Assign, lookup: Lookup) -> Optional[ct.CType]:
    t = declared_type(e.target, lookup)
    return None if t is None else t.unqualified()


def _cast(e: ast.Cast, lookup: Lookup) -> Optional[ct.CType]:
    return e.to


def _sizeof(e: ast.SizeOf, lookup: Lookup) -> Optional[ct.CType]:
    return ct.INT if e.kind == "vec_step" else ct.ULONG


def _call(e: ast.Call, lookup: Lookup) -> Optional[ct.CType]:
    """A call of a function of the program, else of a builtin (`_builtin_result`)."""
    if not isinstance(e.callee, ast.Identifier):
        return None
    fn = lookup(e.callee.name)
    if isinstance(fn, ast.FunctionDecl):
        return fn.ctype.ret if isinstance(fn.ctype, ct.FunctionType) else None
    return None if fn is not None else _builtin_result(e.callee.name, e.args, lookup)


def _builtin_result(name: str, args: list[ast.Expr], lookup: Lookup) -> Optional[ct.CType]:
    """The type a builtin call returns where the overload is plain (see the module docstring)."""
    conv = bi.conversion_target(name)
    if conv is not None:
        return conv[0] if len(args) == 1 else None
    nan = bi.nan_builtin(name)
    if nan is not None:
        return nan
    cands = [c for c in bi.overloads(name) if len(c.params) == len(args)]
    if not cands:
        return None
    if all(c.ret == cands[0].ret for c in cands):
        return cands[0].ret
    types = [declared_type(a, lookup) for a in args]
    if any(t is None for t in types):
        return None
    types = [decay(t) if isinstance(t, ct.Array) else t for t in types]  # type: ignore[arg-type]
    costs = [(c, [_rank(t, p) for t, p in zip(types, c.params)]) for c in cands]  # type: ignore[arg-type]
    viable = [(c, r) for c, r in costs if None not in r]
    best = [c for c, r in viable if all(all(x <= y for x, y in zip(r, o)) for _, o in viable)]  # type: ignore[operator]
    return best[0].ret if len(best) == 1 else None


_PROMOTED = frozenset((K.BOOL, K.CHAR, K.UCHAR, K.SHORT, K.USHORT))


def _rank(t: ct.CType, p: ct.CType) -> Optional[int]:
    """How well an argument of type `t` fits parameter `p`, as sema's ranking (lower is
    better) for arithmetic arguments: the same type, a promotion, a conversion, a splat;
    None where it cannot be passed (vectors and pointers do not convert here)."""
    if same_unqualified(t, p):
        return 0
    if isinstance(t, ct.Scalar) and isinstance(p, ct.Scalar):
        promoted = (t.kind is K.FLOAT and p.kind is K.DOUBLE) or (t.kind in _PROMOTED and p.kind is K.INT)
        return 1 if promoted else 2
    if isinstance(t, ct.Scalar) and isinstance(p, ct.Vector):
        return 3
    return None


def _implicit(e: ast.ImplicitCast, lookup: Lookup) -> Optional[ct.CType]:
    return e.ctype


_RULES: dict[type, Callable[[ast.Expr, Lookup], Optional[ct.CType]]] = {
    ast.Identifier: _identifier,  # type: ignore[dict-item]
    ast.IntLiteral: _int_literal,  # type: ignore[dict-item]
    ast.FloatLiteral: _float_literal,  # type: ignore[dict-item]
    ast.StringLiteral: _string_literal,  # type: ignore[dict-item]
    ast.Member: _member,  # type: ignore[dict-item]
    ast.Index: _index,  # type: ignore[dict-item]
    ast.Unary: _unary,  # type: ignore[dict-item]
    ast.Binary: _binary,  # type: ignore[dict-item]
    ast.Conditional: _conditional,  # type: ignore[dict-item]
    ast.Assign: _assign,  # type: ignore[dict-item]
    ast.Cast: _cast,  # type: ignore[dict-item]
    ast.VectorLiteral: _cast,  # type: ignore[dict-item]
    ast.SizeOf: _sizeof,  # type: ignore[dict-item]
    ast.Call: _call,  # type: ignore[dict-item]
    ast.ImplicitCast: _implicit,  # type: ignore[dict-item]
}
