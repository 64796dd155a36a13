"""Integer constant expressions (C99 6.6), folded with C semantics.

`eval_int_const(expr, rules, diags)` folds literals, enum constants, unary, binary and
conditional operators, casts to integer types and `sizeof`/`__alignof__`/
`vec_step` of types (and of expressions, given a `type_of` for them); it returns None
when the expression is not an integer constant expression (the caller says so in its
own words). The parser uses it
for array sizes (where const integer variables fold too, as in clang), enum values
and attribute arguments; sema for `case` labels.
Values are computed in the type C gives them (int, uint, long, ulong) and wrap
as that type does. `type_size`/`type_align` give the OpenCL sizes of types
under `SizeRules`: the target's DataLayout (pointer widths per address space)
and the address space an unqualified pointee gets in the language version.
"""

from __future__ import annotations

from typing import Callable, Optional

from ...diagnostics import DiagnosticEngine
from ...ir.types import AddressSpace
from ..size_rules import SizeRules
from . import ast
from . import c_types as ct
from .c_types import ScalarKind as K
from .type_rules import arith_kind

Value = tuple[int, K]  # (value, integer kind)





def wrap(value: int, kind: K) -> int:
    """Reduce `value` to the range of integer kind `kind`."""
    if kind is K.BOOL:
        return int(value != 0)
    bits = kind.size * 8
    value &= (1 << bits) - 1
    if kind.signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _fits(value: int, kind: K) -> bool:
    return wrap(value, kind) == value


def literal_kind(value: int, suffix: str, decimal: bool) -> K:
    """The type of an integer literal (C99 6.4.4.1, with OpenCL's 64-bit long)."""
    if "u" in suffix:
        candidates = [K.UINT, K.ULONG] if "l" not in suffix else [K.ULONG]
    elif "l" in suffix:
        candidates = [K.LONG] if decimal else [K.LONG, K.ULONG]
    else:
        candidates = [K.INT, K.LONG] if decimal else [K.INT, K.UINT, K.LONG, K.ULONG]
    return next((k for k in candidates if _fits(value, k)), K.ULONG)


def _promote(kind: K) -> K:
    return K.INT if kind.rank < K.INT.rank else kind


def _div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _mod(a: int, b: int) -> int:
    return a - b * _div(a, b)


_ARITH: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _div,
    "%": _mod,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b,
}
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "<": lambda a, b: a < b,
    ">": lambda a, b: a > b,
    "<=": lambda a, b: a <= b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


Lookup = Callable[[str], object]  # a name -> what the parser's scopes bind it to
TypeOf = Callable[[ast.Expr], Optional[ct.CType]]  # an expression's type, or None: not known


class _Folder:
    def __init__(self, diags: Optional[DiagnosticEngine], rules: SizeRules, lookup: Optional[Lookup] = None,
                 type_of: Optional[TypeOf] = None) -> None:
        self.diags = diags
        self.rules = rules
        self.lookup = lookup
        self.type_of = type_of
        self.visiting: set[int] = set()

    def fold(self, e: ast.Expr) -> Optional[Value]:
        method = _FOLDERS.get(type(e))
        return method(self, e) if method is not None else None

    def int_literal(self, e: ast.IntLiteral) -> Optional[Value]:
        decimal = getattr(e, "radix", 10) == 10
        return e.value, literal_kind(e.value, e.suffix, decimal)

    def identifier(self, e: ast.Identifier) -> Optional[Value]:
        if isinstance(e.decl, ast.EnumConstant):
            return e.decl.value, K.INT
        var = self.lookup(e.name) if self.lookup is not None and e.decl is None else None
        if not (isinstance(var, ast.VarDecl) and var.init is not None and _const_integer(var.ctype)):
            return None
        if id(var) in self.visiting:
            return None
        self.visiting.add(id(var))
        try:
            v = self.fold(var.init)
        finally:
            self.visiting.discard(id(var))
        kind = var.ctype.kind  # type: ignore[attr-defined]
        return None if v is None else (wrap(v[0], kind), kind)

    def unary(self, e: ast.Unary) -> Optional[Value]:
        v = self.fold(e.operand)
        if v is None:
            return None
        value, kind = v[0], _promote(v[1])
        table = {"-": lambda: (wrap(-value, kind), kind), "+": lambda: (value, kind),
                 "~": lambda: (wrap(~value, kind), kind), "!": lambda: (int(value == 0), K.INT)}
        op = table.get(e.op)
        return op() if op is not None else None

    def binary(self, e: ast.Binary) -> Optional[Value]:
        if e.op in ("&&", "||"):
            return self._logical(e)
        lhs, rhs = self.fold(e.lhs), self.fold(e.rhs)
        if lhs is None or rhs is None or e.op == ",":
            return None
        if e.op in ("<<", ">>"):  # OpenCL C 6.3(j): the count is taken modulo the width, as clang does
            kind = _promote(lhs[1])
            count, value = rhs[0] & (kind.size * 8 - 1), wrap(lhs[0], kind)
            return wrap(value << count if e.op == "<<" else value >> count, kind), kind
        kind = arith_kind(lhs[1], rhs[1])
        a, b = wrap(lhs[0], kind), wrap(rhs[0], kind)
        if e.op in _COMPARE:
            return int(_COMPARE[e.op](a, b)), K.INT
        if e.op in ("/", "%") and b == 0:
            if self.diags is not None:
                self.diags.warning(e.loc, f"{'division' if e.op == '/' else 'remainder'} by zero is undefined")
            return None
        fn = _ARITH.get(e.op)
        return (wrap(fn(a, b), kind), kind) if fn is not None else None

    def _logical(self, e: ast.Binary) -> Optional[Value]:
        lhs = self.fold(e.lhs)
        if lhs is None:
            return None
        if (e.op == "&&" and lhs[0] == 0) or (e.op == "||" and lhs[0] != 0):
            return int(e.op == "||"), K.INT
        rhs = self.fold(e.rhs)
        return None if rhs is None else (int(rhs[0] != 0), K.INT)

    def conditional(self, e: ast.Conditional) -> Optional[Value]:
        cond = self.fold(e.cond)
        a, b = self.fold(e.then), self.fold(e.else_)
        if cond is None or a is None or b is None:
            return None
        kind = arith_kind(a[1], b[1])
        return wrap((a if cond[0] else b)[0], kind), kind

    def cast(self, e: ast.Cast) -> Optional[Value]:
        to = e.to
        if isinstance(to, ct.Enum):
            to = ct.INT
        if not isinstance(to, ct.Scalar) or to.kind.is_float:
            return None
        if isinstance(e.operand, ast.FloatLiteral):
            return wrap(int(e.operand.value), to.kind), to.kind
        v = self.fold(e.operand)
        return None if v is None else (wrap(v[0], to.kind), to.kind)

    def sizeof(self, e: ast.SizeOf) -> Optional[Value]:
        t = e.operand if isinstance(e.operand, ct.CType) else \
            self.type_of(e.operand) if self.type_of is not None else None
        if t is None:
            return None  # an expression whose type needs sema
        if e.kind == "vec_step":
            value = vec_step(t)
        else:
            value = (type_size if e.kind == "sizeof" else type_align)(t, self.rules)
        return None if value is None else (value, K.ULONG if e.kind != "vec_step" else K.INT)


_FOLDERS: dict[type, Callable[[_Folder, ast.Expr], Optional[Value]]] = {
    ast.IntLiteral: _Folder.int_literal,  # type: ignore[dict-item]
    ast.Identifier: _Folder.identifier,  # type: ignore[dict-item]
    ast.Unary: _Folder.unary,  # type: ignore[dict-item]
    ast.Binary: _Folder.binary,  # type: ignore[dict-item]
    ast.Conditional: _Folder.conditional,  # type: ignore[dict-item]
    ast.Cast: _Folder.cast,  # type: ignore[dict-item]
    ast.SizeOf: _Folder.sizeof,  # type: ignore[dict-item]
    ast.ImplicitCast: lambda f, e: f.fold(e.operand),  # type: ignore[attr-defined]
}


def eval_int_const(expr: ast.Expr, rules: SizeRules, diags: Optional[DiagnosticEngine] = None,
                   lookup: Optional[Lookup] = None, type_of: Optional[TypeOf] = None) -> Optional[int]:
    """The value of integer constant expression `expr`, or None if it is not one. With
    `lookup` (array sizes), a const integer variable whose initializer folds counts as its
    value, as clang folds `const int n = 4; int a[n];` (C would make it a VLA). With
    `type_of`, `sizeof`, `__alignof__` and `vec_step` of an expression fold too (the
    parser's `decl_types.declared_type`)."""
    v = eval_int_const_typed(expr, rules, diags, lookup, type_of)
    return None if v is None else v[0]


def eval_int_const_typed(expr: ast.Expr, rules: SizeRules, diags: Optional[DiagnosticEngine] = None,
                         lookup: Optional[Lookup] = None, type_of: Optional[TypeOf] = None) -> Optional[Value]:
    """Like `eval_int_const`, also returning the integer kind C gives the value."""
    try:
        return _Folder(diags, rules, lookup, type_of).fold(expr)
    except RecursionError:  # a pathologically deep expression: not folded
        return None


def _const_integer(t: ct.CType) -> bool:
    """A const (or __constant) integer type, whose variable clang folds into array sizes."""
    return isinstance(t, ct.Scalar) and not t.kind.is_float and t.kind is not K.BOOL and \
        (t.const or t.space is AddressSpace.CONSTANT)


# -- sizes and alignments of types ----------------------------------------------

def vec_step(t: ct.CType) -> Optional[int]:
    """vec_step: the element count of a vector (4 for 3-vectors, as OpenCL C 6.15.13
    says and sema's `size_value` gives), 1 for a scalar (and void, as clang)."""
    if isinstance(t, ct.Vector):
        return 4 if t.count == 3 else t.count
    return 1 if isinstance(t, (ct.Scalar, ct.Enum, ct.Void)) else None  # clang: vec_step(void) is 1


def struct_offsets(d: ct.StructDef, rules: SizeRules) -> Optional[dict[str, int]]:
    """The byte offset of each member of a complete struct or union (`__builtin_offsetof`)."""
    offsets: dict[str, int] = {}
    return offsets if _struct_layout(d, rules, offsets) is not None else None


def _struct_layout(d: ct.StructDef, rules: SizeRules,
                   offsets: Optional[dict[str, int]] = None) -> Optional[tuple[int, int]]:
    """(size, align) of a struct or union, C layout rules, bit-fields packed in their unit;
    fills `offsets` with each member's byte offset when given."""
    if d.fields is None:
        return None
    size = bit_offset = 0
    align = 1
    for f in d.fields:
        fs, fa = type_size(f.type, rules), type_align(f.type, rules)
        if fs is None or fa is None:
            return None
        fa = max(1 if d.packed else fa, f.align)
        align = max(align, fa)
        if d.is_union:
            size = max(size, fs)
            if offsets is not None:
                offsets[f.name] = 0
            continue
        if f.bit_width is not None:
            bit_offset = _place_bitfield(bit_offset, size, f.bit_width, fs)
            size = (bit_offset + 7) // 8
            continue
        start = (size + fa - 1) // fa * fa
        if offsets is not None:
            offsets[f.name] = start
        size = start + fs
        bit_offset = size * 8
    align = max(align, d.align)
    return (size + align - 1) // align * align, align


def _place_bitfield(bit_offset: int, size: int, width: int, unit: int) -> int:
    """Bit offset after placing a `width`-bit field of a `unit`-byte type."""
    bit_offset = max(bit_offset, size * 8)
    unit_bits = unit * 8
    if width == 0:
        return (bit_offset + unit_bits - 1) // unit_bits * unit_bits
    if bit_offset // unit_bits != (bit_offset + width - 1) // unit_bits:
        bit_offset = (bit_offset + unit_bits - 1) // unit_bits * unit_bits
    return bit_offset + width


def type_size(t: ct.CType, rules: SizeRules) -> Optional[int]:
    """sizeof(t) in bytes, or None for incomplete types."""
    if isinstance(t, ct.Scalar):
        return t.kind.size
    if isinstance(t, ct.Vector):
        return t.elem.size * (4 if t.count == 3 else t.count)
    if isinstance(t, ct.Pointer):
        return rules.pointer_size(t)
    if isinstance(t, ct.Enum):
        return 4
    if isinstance(t, ct.Array):
        elem = type_size(t.elem, rules)
        return None if elem is None or t.count is None else elem * t.count
    if isinstance(t, ct.Struct):
        layout = _struct_layout(t.definition, rules)
        return None if layout is None else layout[0]
    return None


def type_align(t: ct.CType, rules: SizeRules) -> Optional[int]:
    """The alignment of t in bytes (vectors align to their size; an `aligned` typedef's more)."""
    explicit = getattr(t, "align", 0)
    if isinstance(t, ct.Array):
        natural = type_align(t.elem, rules)
    elif isinstance(t, ct.Struct):
        layout = _struct_layout(t.definition, rules)
        natural = None if layout is None else layout[1]
    else:
        natural = type_size(t, rules)
    return None if natural is None else max(natural, explicit)
