"""`Ops`: a small expression builder for the vectorisable math library.

The math functions of `vecmath*.py` are written once and built for a scalar
or for a vector of `lanes` elements: every constant `Ops` makes is splatted to
the current shape, and every operation works elementwise, the way a NumPy
expression does. Only plain LLVM instructions and the intrinsics LLVM lowers
inline on every target (fabs, copysign, sqrt, rint, fmuladd) are used, so the
loop vectoriser can widen a function inlined into a work-item loop.
"""

from __future__ import annotations

from typing import Sequence

from llvmlite import ir as ll

from .. import exact_half

F16, F32, F64 = ll.HalfType(), ll.FloatType(), ll.DoubleType()
I1, I32, I64 = ll.IntType(1), ll.IntType(32), ll.IntType(64)

_SUFFIX = {"half": "f16", "float": "f32", "double": "f64", "i32": "i32", "i64": "i64", "i1": "i1"}

# 1.5 * 2^52: adding it to a double of magnitude below 2^51 rounds to an integer
# and leaves that integer in the low bits of the mantissa (two's complement)
SHIFTER = 6755399441055744.0


def type_suffix(ty: ll.Type) -> str:
    """LLVM's overload suffix of a type: f32, v4f64, i32."""
    if isinstance(ty, ll.VectorType):
        return f"v{ty.count}{type_suffix(ty.element)}"
    return _SUFFIX[str(ty)]


class Ops:
    """Elementwise operations on values of one shape (scalar, or `lanes` wide)."""

    def __init__(self, builder: ll.IRBuilder, lanes: int | None) -> None:
        self.b = builder
        self.lanes = lanes
        self.module: ll.Module = builder.module

    # -- types and constants ------------------------------------------------------
    def ty(self, elem: ll.Type) -> ll.Type:
        return elem if self.lanes is None else ll.VectorType(elem, self.lanes)

    def const(self, elem: ll.Type, value: float | int) -> ll.Constant:
        if self.lanes is None:
            return ll.Constant(elem, value)
        return ll.Constant(self.ty(elem), [ll.Constant(elem, value)] * self.lanes)

    def d(self, value: float) -> ll.Constant:
        return self.const(F64, value)

    def i32(self, value: int) -> ll.Constant:
        return self.const(I32, value)

    def i64(self, value: int) -> ll.Constant:
        return self.const(I64, value)

    # -- arithmetic -----------------------------------------------------------------
    def add(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fadd(x, y)

    def sub(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fsub(x, y)

    def mul(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fmul(x, y)

    def div(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fdiv(x, y)

    def neg(self, x: ll.Value) -> ll.Value:
        return self.b.fneg(x)

    def mad(self, x: ll.Value, y: ll.Value, z: ll.Value) -> ll.Value:
        """x*y + z, fused where the target has FMA (llvm.fmuladd)."""
        return self.intrinsic("fmuladd", [x, y, z])

    def fma(self, x: ll.Value, y: ll.Value, z: ll.Value) -> ll.Value:
        """x*y + z rounded once (llvm.fma: an instruction on FMA hosts, a libm call elsewhere)."""
        return self.intrinsic("fma", [x, y, z])

    def poly(self, x: ll.Value, coeffs: Sequence[float]) -> ll.Value:
        """c0 + c1*x + c2*x^2 + ... by Horner's rule."""
        acc: ll.Value = self.d(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.mad(acc, x, self.d(c))
        return acc

    def intrinsic(self, name: str, args: list[ll.Value]) -> ll.Value:
        ty = args[0].type
        full = f"llvm.{name}.{type_suffix(ty)}"
        fn = self.module.globals.get(full)
        if not isinstance(fn, ll.Function):
            fn = ll.Function(self.module, ll.FunctionType(ty, [a.type for a in args]), full)
        return self.b.call(fn, args)

    def fabs(self, x: ll.Value) -> ll.Value:
        return self.intrinsic("fabs", [x])

    def copysign(self, mag: ll.Value, sign: ll.Value) -> ll.Value:
        return self.intrinsic("copysign", [mag, sign])

    def sqrt(self, x: ll.Value) -> ll.Value:
        return self.intrinsic("sqrt", [x])

    def rint(self, x: ll.Value) -> ll.Value:
        return self.intrinsic("rint", [x])

    # -- comparisons and selection ----------------------------------------------------
    def lt(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fcmp_ordered("<", x, y)

    def gt(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fcmp_ordered(">", x, y)

    def le(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fcmp_ordered("<=", x, y)

    def ge(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fcmp_ordered(">=", x, y)

    def eq(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fcmp_ordered("==", x, y)

    def ne(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.fcmp_unordered("!=", x, y)

    def isnan(self, x: ll.Value) -> ll.Value:
        return self.b.fcmp_unordered("uno", x, x)

    def sel(self, cond: ll.Value, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.select(cond, x, y)

    def and_(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.and_(x, y)

    def or_(self, x: ll.Value, y: ll.Value) -> ll.Value:
        return self.b.or_(x, y)

    def not_(self, x: ll.Value) -> ll.Value:
        return self.b.not_(x)

    def clamp(self, x: ll.Value, lo: float, hi: float) -> ll.Value:
        """x limited to [lo, hi]; NaN stays NaN (select, not minnum)."""
        x = self.sel(self.lt(x, self.d(lo)), self.d(lo), x)
        return self.sel(self.gt(x, self.d(hi)), self.d(hi), x)

    # -- conversions and bits ---------------------------------------------------------
    def widen(self, x: ll.Value) -> ll.Value:
        return self.b.fpext(x, self.ty(F64)) if _elem(x.type) != F64 else x

    def narrow(self, x: ll.Value, elem: ll.Type) -> ll.Value:
        return exact_half.fptrunc(self.b, x, self.ty(elem)) if elem != F64 else x

    def bits(self, x: ll.Value) -> ll.Value:
        """The IEEE bits of a float (i32) or double (i64) value."""
        width = 32 if _elem(x.type) == F32 else 64
        return self.b.bitcast(x, self.ty(ll.IntType(width)))

    def from_bits(self, x: ll.Value, elem: ll.Type) -> ll.Value:
        return self.b.bitcast(x, self.ty(elem))

    def signbit(self, x: ll.Value) -> ll.Value:
        """True where the sign bit of float or double `x` is set (-0.0 included)."""
        bits = self.bits(x)
        return self.b.icmp_signed("<", bits, ll.Constant(bits.type, None))

    def negate_if(self, cond: ll.Value, x: ll.Value) -> ll.Value:
        return self.sel(cond, self.neg(x), x)

    def sitofp(self, x: ll.Value) -> ll.Value:
        return self.b.sitofp(x, self.ty(F64))


def _elem(ty: ll.Type) -> ll.Type:
    return ty.element if isinstance(ty, ll.VectorType) else ty
