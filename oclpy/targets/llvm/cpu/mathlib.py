"""OpenCL math builtins (`ocl.<fn>.<type>`) lowered for the cpu target.

Three kinds of lowering, chosen by one table each:
- `LLVM_INTRINSICS`: LLVM has the operation (`llvm.sqrt.f32`, `llvm.minnum.f64`);
  its backend inlines it or calls the C library for us.
- `LIBM`: a C99 libm function (`tanf`/`tan`); the JIT resolves it in the process
  (`binding.py` loads libm permanently). Half precision goes through float.
- `FORMULAS`: functions C lacks (rsqrt, sinpi, ..., rootn), written in LLVM IR.
  For half and float they compute in double and round once at the end, which
  keeps them well inside OpenCL's ULP bounds; for double they reduce the
  argument exactly first (sinpi: `x - 2*rint(x/2)`, then fold into [0, 1/2]).

On the cpu target (`lower_math`), builtins that the vectorisable math library
covers (`vecmath.covers`: most float and half ones, the exp/log/trig doubles)
go through `vecmath.call` instead, so a work-item loop full of math still
vectorises. The rest use the tables above; their vectors are lowered element
by element (LLVM's SLP vectoriser may re-vectorise). The nvptx target reuses
`MathLowering` alone.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

from llvmlite import ir as ll

from .. import exact_half
from ..vecmath import library as vecmath
from ..emit_types import EmitError

if TYPE_CHECKING:
    from ..emit import FunctionEmitter

Args = list[ll.Value]

LLVM_INTRINSICS: dict[str, str] = {
    "sqrt": "sqrt", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "round": "round", "rint": "rint", "fma": "fma", "fmin": "minnum", "fmax": "maxnum",
    "copysign": "copysign", "sin": "sin", "cos": "cos", "exp": "exp", "exp2": "exp2",
    "log": "log", "log2": "log2", "log10": "log10", "pow": "pow", "exp10": "exp10",
}

LIBM: tuple[str, ...] = (
    "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "cbrt", "expm1", "log1p", "fmod", "hypot", "erf", "erfc", "tgamma", "lgamma",
    "logb", "nextafter", "fdim", "remainder", "ldexp",
)

F16, F32, F64 = ll.HalfType(), ll.FloatType(), ll.DoubleType()


class MathLowering:
    """Builds scalar math for one function emitter."""

    # double -> half through `exact_half` (LLVM's x86 lowering calls a library the JIT lacks)
    half_without_library = True

    def __init__(self, fe: FunctionEmitter) -> None:
        self.fe = fe
        self.b = fe.builder

    # -- building blocks ------------------------------------------------------
    def intrinsic(self, name: str, ty: ll.Type, args: Args) -> ll.Value:
        fn = self.fe.me.declare_external(f"llvm.{name}.{_suffix(ty)}", ty, [a.type for a in args])
        return self.b.call(fn, args)

    def libm(self, name: str, ty: ll.Type, args: Args) -> ll.Value:
        if isinstance(ty, ll.HalfType):
            wide = [self.b.fpext(a, F32) if a.type == ty else a for a in args]
            return self.b.fptrunc(self.libm(name, F32, wide), ty)
        cname = name + ("f" if ty == F32 else "")
        fn = self.fe.me.declare_external(cname, ty, [a.type for a in args])
        return self.b.call(fn, args)

    def const(self, ty: ll.Type, value: float) -> ll.Constant:
        return ll.Constant(ty, value)

    def widen(self, x: ll.Value) -> ll.Value:
        return x if x.type == F64 else self.b.fpext(x, F64)

    def narrow(self, x: ll.Value, ty: ll.Type) -> ll.Value:
        if ty == F64:
            return x
        return exact_half.fptrunc(self.b, x, ty) if self.half_without_library else self.b.fptrunc(x, ty)

    def in_double(self, ty: ll.Type, args: Args, body: Callable[[Args], ll.Value]) -> ll.Value:
        """Compute `body` in double from float operands, rounding once at the end."""
        wide = [self.widen(a) if a.type == ty else a for a in args]
        return self.narrow(body(wide), ty)

    # -- formulas (operands already in double) --------------------------------------
    def reduce_pi(self, x: ll.Value) -> ll.Value:
        """x - 2*rint(x/2): exact, in [-1, 1], same sinpi/cospi as x."""
        half = self.b.fmul(x, self.const(x.type, 0.5))
        k = self.intrinsic("rint", x.type, [half])
        return self.b.fsub(x, self.b.fmul(k, self.const(x.type, 2.0)))

    def sinpi(self, x: ll.Value) -> ll.Value:
        ty = x.type
        r = self.reduce_pi(x)
        a = self.intrinsic("fabs", ty, [r])
        big = self.b.fcmp_ordered(">", a, self.const(ty, 0.5))
        s = self.b.select(big, self.b.fsub(self.const(ty, 1.0), a), a)
        res = self.intrinsic("sin", ty, [self.b.fmul(s, self.const(ty, math.pi))])
        res = self.intrinsic("copysign", ty, [res, r])
        zero = self.b.fcmp_ordered("==", s, self.const(ty, 0.0))
        signed_zero = self.intrinsic("copysign", ty, [self.const(ty, 0.0), x])
        return self.b.select(zero, signed_zero, res)

    def cospi(self, x: ll.Value) -> ll.Value:
        ty = x.type
        a = self.intrinsic("fabs", ty, [self.reduce_pi(x)])
        t = self.b.fsub(self.const(ty, 0.5), a)
        return self.intrinsic("sin", ty, [self.b.fmul(t, self.const(ty, math.pi))])

    def over_pi(self, name: str, args: Args) -> ll.Value:
        return self.b.fdiv(self.libm(name, F64, args), self.const(F64, math.pi))

    def rootn(self, x: ll.Value, n: ll.Value) -> ll.Value:
        ty = x.type
        nf = self.b.sitofp(n, ty)
        r = self.intrinsic("pow", ty, [self.intrinsic("fabs", ty, [x]), self.b.fdiv(self.const(ty, 1.0), nf)])
        nan = self.const(ty, math.nan)
        odd = self.b.trunc(n, ll.IntType(1))
        neg = self.b.fcmp_ordered("<", x, self.const(ty, 0.0))
        even_res = self.b.select(neg, nan, r)
        res = self.b.select(odd, self.intrinsic("copysign", ty, [r, x]), even_res)  # rootn(-0, odd) = -0 / -inf
        n_zero = self.b.icmp_signed("==", n, ll.Constant(n.type, 0))
        return self.b.select(n_zero, nan, res)

    def powr(self, ty: ll.Type, x: ll.Value, y: ll.Value) -> ll.Value:
        """pow for x >= 0 (with +0 for -0); NaN for x < 0, 0^0, inf^0, 1^inf and NaN operands."""
        b, c = self.b, lambda v: self.const(ty, v)
        ax = self.intrinsic("fabs", ty, [x])
        ay = self.intrinsic("fabs", ty, [y])
        y_zero = b.fcmp_ordered("==", y, c(0.0))
        bad = b.or_(b.fcmp_ordered("<", x, c(0.0)), b.fcmp_unordered("uno", x, y))
        bad = b.or_(bad, b.and_(b.fcmp_ordered("==", x, c(0.0)), y_zero))
        bad = b.or_(bad, b.and_(b.fcmp_ordered("==", x, c(math.inf)), y_zero))
        bad = b.or_(bad, b.and_(b.fcmp_ordered("==", x, c(1.0)), b.fcmp_ordered("==", ay, c(math.inf))))
        return b.select(bad, c(math.nan), self.intrinsic("pow", ty, [ax, y]))

    def pown(self, x: ll.Value, n: ll.Value) -> ll.Value:
        return self.intrinsic("pow", x.type, [x, self.b.sitofp(n, x.type)])

    def rsqrt(self, x: ll.Value) -> ll.Value:
        return self.b.fdiv(self.const(x.type, 1.0), self.intrinsic("sqrt", x.type, [x]))

    def cbrt_refined(self, x: ll.Value) -> ll.Value:
        """libm's cbrt (glibc: up to 4 ulp) plus one Newton step on the exact
        residual y^3 - x (two fmas), which brings it within 1 ulp."""
        ty = x.type
        y = self.libm("cbrt", ty, [x])
        yy = self.b.fmul(y, y)
        yy_lo = self.intrinsic("fma", ty, [y, y, self.b.fneg(yy)])
        resid = self.intrinsic("fma", ty, [yy, y, self.b.fneg(x)])
        resid = self.intrinsic("fma", ty, [yy_lo, y, resid])
        step = self.b.fdiv(resid, self.b.fmul(self.const(ty, 3.0), yy))
        ok = self.b.fcmp_ordered("<", self.intrinsic("fabs", ty, [step]),
                                 self.intrinsic("fabs", ty, [y]))  # false for 0, inf, NaN
        return self.b.select(ok, self.b.fsub(y, step), y)

    def scalar(self, base: str, ty: ll.Type, args: Args) -> ll.Value:
        """One element of math builtin `base` on scalar operands of float type `ty`."""
        if base == "cbrt" and ty == F64:
            return self.cbrt_refined(args[0])
        if base in LLVM_INTRINSICS:
            return self.intrinsic(LLVM_INTRINSICS[base], ty, args)
        if base in LIBM:
            return self.libm(base, ty, args)
        formula = _FORMULAS.get(base)
        if formula is None:
            raise EmitError(f"cpu target: no lowering for math builtin '{base}'")
        return formula(self, ty, args)


def _suffix(ty: ll.Type) -> str:
    if isinstance(ty, ll.VectorType):
        return f"v{ty.count}{_suffix(ty.element)}"
    names = {ll.HalfType: "f16", ll.FloatType: "f32", ll.DoubleType: "f64"}
    return names[type(ty)]


_FORMULAS: dict[str, Callable[[MathLowering, ll.Type, Args], ll.Value]] = {
    # float: 1/sqrt in float is within 1.5 ulp (the bound is 2) and vectorises;
    # half and double keep the double computation
    "rsqrt": lambda m, ty, a: (m.rsqrt(a[0]) if ty == F32
                               else m.in_double(ty, a, lambda w: m.rsqrt(w[0]))),
    "sinpi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.sinpi(w[0])),
    "cospi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.cospi(w[0])),
    "tanpi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.b.fdiv(m.sinpi(w[0]), m.cospi(w[0]))),
    "asinpi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.over_pi("asin", w)),
    "acospi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.over_pi("acos", w)),
    "atanpi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.over_pi("atan", w)),
    "atan2pi": lambda m, ty, a: m.in_double(ty, a, lambda w: m.over_pi("atan2", w)),
    "powr": lambda m, ty, a: m.powr(ty, a[0], a[1]),
    "pown": lambda m, ty, a: m.in_double(ty, a, lambda w: m.pown(w[0], w[1])),
    "rootn": lambda m, ty, a: m.in_double(ty, a, lambda w: m.rootn(w[0], w[1])),
}


def lower_math(fe: FunctionEmitter, base: str, ret: ll.Type, args: Args,
               inline: bool = False) -> ll.Value:
    """Lower math builtin `base` returning `ret` (scalar or vector) on `args`;
    `inline`: always vecmath's body, never the C library (for loops that the
    outer-loop vectoriser widens: it turns a library call into one call per lane)."""
    if base == "fma" and _element(ret) == F16:  # LLVM's own needs __truncdfhf2 (exact_half.py)
        return exact_half.fma_half(fe.builder, *args)
    if _vectorisable(base, ret, args):
        return vecmath.call(fe.builder, base, ret, args, library=not inline)
    m = MathLowering(fe)
    if not isinstance(ret, ll.VectorType):
        return m.scalar(base, ret, args)
    out: ll.Value = ll.Constant(ret, ll.Undefined)
    for i in range(ret.count):
        idx = ll.Constant(ll.IntType(32), i)
        elems = [fe.builder.extract_element(a, idx) if isinstance(a.type, ll.VectorType) else a
                 for a in args]
        out = fe.builder.insert_element(out, m.scalar(base, ret.element, elems), idx)
    return out


def _vectorisable(base: str, ret: ll.Type, args: Args) -> bool:
    """Whether vecmath covers this call: its element type, every operand of the result's shape."""
    if not isinstance(ret, ll.VectorType):
        return vecmath.covers(base, ret) and not any(isinstance(a.type, ll.VectorType) for a in args)
    return vecmath.covers(base, ret.element) and all(
        isinstance(a.type, ll.VectorType) and a.type.count == ret.count for a in args)


def _element(t: ll.Type) -> ll.Type:
    return t.element if isinstance(t, ll.VectorType) else t


def is_math(base: str) -> bool:
    return base in LLVM_INTRINSICS or base in LIBM or base in _FORMULAS
