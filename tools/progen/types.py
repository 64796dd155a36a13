"""The C types a generated program uses, and C's rules over them.

Integer scalars (char..ulong), OpenCL vectors of them, structs, unions,
arrays and pointers, with the integer promotions and the usual arithmetic
conversions (`promote`, `uac`, `never_overflows`) that decide when an operation may overflow
and so needs a safe wrapper.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class IntType:
    name: str
    bits: int
    signed: bool

    @property
    def lo(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def hi(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    @property
    def unsigned(self) -> IntType:
        return INT_BY_NAME["u" + self.name] if self.signed else self

    @property
    def signed_twin(self) -> IntType:
        return INT_BY_NAME[self.name[1:]] if not self.signed else self


@dataclass(frozen=True)
class FloatType:
    """`float` (the float mode uses only exactly rounded operations on it)."""

    name: str = "float"


@dataclass(frozen=True)
class VecType:
    elem: IntType
    n: int

    @property
    def name(self) -> str:
        return f"{self.elem.name}{self.n}"


@dataclass(frozen=True)
class ArrayType:
    elem: "CType"
    n: int

    @property
    def name(self) -> str:
        return f"{self.elem.name}[{self.n}]"


@dataclass(frozen=True)
class PtrType:
    """A pointer to `elem` in `space`, valid for indices [0, extent)."""

    elem: IntType
    space: str
    extent: int

    @property
    def name(self) -> str:
        return f"{self.space} {self.elem.name} *".strip()


@dataclass(frozen=True, eq=False)
class RecordType:
    """A struct or union; members are (name, type) pairs."""

    kind: str  # "struct" | "union"
    tag: str
    members: tuple[tuple[str, "CType"], ...] = field(default=())

    @property
    def name(self) -> str:
        return f"{self.kind} {self.tag}"


CType = IntType | FloatType | VecType | ArrayType | PtrType | RecordType

INT_TYPES = [IntType("char", 8, True), IntType("uchar", 8, False),
             IntType("short", 16, True), IntType("ushort", 16, False),
             IntType("int", 32, True), IntType("uint", 32, False),
             IntType("long", 64, True), IntType("ulong", 64, False)]
INT_BY_NAME = {t.name: t for t in INT_TYPES}
INT, UINT, LONG, ULONG = (INT_BY_NAME[n] for n in ("int", "uint", "long", "ulong"))
FLOAT = FloatType()
VEC_SIZES = (2, 4, 8, 16)


def promote(t: IntType) -> IntType:
    """C's integer promotions: everything narrower than int becomes int."""
    return INT if t.bits < 32 else t


def uac(a: IntType, b: IntType) -> IntType:
    """C's usual arithmetic conversions over two integer types."""
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.bits > b.bits else b
    u, s = (a, b) if not a.signed else (b, a)
    if u.bits >= s.bits:
        return u
    return s


def never_overflows(op: str, a: IntType, b: IntType) -> bool:
    """Whether `a op b` (op one of + - *) is defined for every pair of values: its type
    (`uac`) is unsigned, or both operands are narrower than int and every result fits in an
    int (not `ushort * ushort`: 65535 * 65535 is past INT_MAX, undefined)."""
    if not uac(a, b).signed:
        return True
    if a.bits >= 32 or b.bits >= 32:
        return False
    apply = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op]
    results = [apply(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return INT.lo <= min(results) and max(results) <= INT.hi


def sizeof(t: CType) -> int:
    """Bytes of a vector or scalar (what as_* needs)."""
    if isinstance(t, IntType):
        return t.bits // 8
    if isinstance(t, VecType):
        return t.elem.bits // 8 * t.n
    raise TypeError(t)


def literal(t: IntType, v: int) -> str:
    """A C expression of type `t` and value `v`."""
    suffix = {"uint": "U", "long": "L", "ulong": "UL"}.get(t.name, "")
    if t.name in ("char", "uchar", "short", "ushort"):
        return f"({t.name}){v}" if v >= 0 else f"({t.name})({v})"
    if v == t.lo and t.signed:
        return f"({t.name})({v + 1}{suffix} - 1{suffix})"
    if v < 0:
        return f"({v}{suffix})"
    return f"{v}{suffix}" if t.name != "int" else str(v)
