"""Lowering of builtin calls: one function per `impl` key of the builtin table.

`IMPLS` maps each key of `builtins.TABLE` to a function
`impl(cx, sig, args, call)` of a `BuiltinContext` (see
`builtins/builtin_context.py`), so the OpenCL C lowering and the SPIR-V reader
share every builtin. Math functions become overloaded intrinsics
(`ocl.sqrt.v4f32`); work-item queries and barriers become `ocl.*` intrinsics;
integer, common, geometric, relational, conversion, vector load/store and
atomic builtins become IR instruction sequences here. Other modules add to
`IMPLS`: `builtin_math` (maxmag, ilogb, nan, frexp, fract, modf, sincos,
lgamma_r, remquo), `builtin_geometric` (length, distance, normalize without
overflow), `builtin_convert` (directed rounding to floating types, used by
`b_convert`), and the families of `builtins/` (async copies, CL2.0
synchronisation, atomics and collectives, GNU builtins and aliases, printf)
and `sema/generic_space` (to_global and friends).
"""

from __future__ import annotations

import math
from typing import Optional

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.values import ConstFloat, ConstInt, Undef, Value
from .. import ast
from ..builtins import table as bi
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..builtins.async_copy import ASYNC_IMPLS
from ..builtins.gnu_aliases import ALIAS_IMPLS
from ..builtins.builtin_context import BuiltinContext, BuiltinImpl
from ..builtins.gnu_builtins import GNU_IMPLS
from ..builtins.images import IMAGE_IMPLS
from ..builtins.intrinsic_calls import call_intrinsic, call_math, minmax, select_cmp
from ..sema.generic_space import GENERIC_IMPLS
from ..builtins.cl20_sync import SYNC_IMPLS
from ..builtins.cl20_atomics import ATOMIC_IMPLS
from ..builtins.collectives import COLLECTIVE_IMPLS
from ..layout import plain_type
from . import builtin_int64 as int64
from .builtin_convert import directed_round, needs_directed
from .builtin_geometric import GEOMETRIC_IMPLS, dot, reduce
from .builtin_math import MATH_IMPLS, half_nextafter
from ..builtins.printf_format import PRINTF_IMPLS
from .helpers import bool_to_int, const_of, convert, is_unsigned, round_to_odd_float, scalar_bits, splat, vector_type


def _widen(t: ir.Type, bits: int) -> ir.Type:
    return ir.VectorType(ir.IntType(bits), t.count) if isinstance(t, ir.VectorType) else ir.IntType(bits)


def lower_builtin_call(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Optional[Value]:
    """The lowering of builtin `sig` on already lowered `args` (aliases call their targets so)."""
    impl = IMPLS.get(sig.impl)
    if impl is None:
        raise NotImplementedError(f"builtin '{sig.name}' ({sig.impl})")
    return impl(cx, sig, args, e)


# -- helpers ------------------------------------------------------------

def widen_args(cx: BuiltinContext, sig: bi.Builtin, args: list[Value]) -> list[Value]:
    """Splat scalar arguments of a vector overload to the vector type."""
    ret = next((t for t in (sig.ret, *sig.params) if isinstance(t, ct.Vector)), None)
    if ret is None:
        return args
    out = []
    for a, p in zip(args, sig.params):
        if st.is_vector(p) or isinstance(p, ct.Pointer):
            out.append(a)
        else:
            kind = st.scalar_kind(p)
            assert kind is not None
            out.append(splat(cx.b, a, ct.Vector(kind, ret.count)))
    return out


# -- math, work-items, synchronisation ----------------------------------
def b_math(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    base = bi.math_base(sig.name)
    if base == "recip":
        return cx.b.binop("fdiv", const_of(args[0].type, 1.0), args[0])
    if base == "nextafter" and scalar_bits(args[0].type) == 16:
        return half_nextafter(cx, args[0], args[1])
    return call_intrinsic(cx, base, plain_type(sig.ret), args, plain_type(sig.ret))


def b_math_splat(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    assert isinstance(sig.ret, ct.Vector)
    args = widen_args(cx, sig, args) if sig.params[1] != ct.INT else \
        [args[0], splat(cx.b, args[1], ct.Vector(ct.ScalarKind.INT, sig.ret.count))]
    return call_intrinsic(cx, bi.math_base(sig.name), plain_type(sig.ret), args, plain_type(sig.ret))


def b_fdiv(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return cx.b.binop("fdiv", args[0], args[1])


def b_workitem(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return call_intrinsic(cx, sig.name, plain_type(sig.ret), args, None)


def b_barrier(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return call_intrinsic(cx, "barrier", ir.VOID, args, None)


def b_mem_fence(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return call_intrinsic(cx, "mem_fence", ir.VOID, args, None)


def b_const_inf(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return ConstFloat(plain_type(sig.ret), math.inf)


def b_const_nan(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return ConstFloat(plain_type(sig.ret), math.nan)


# -- common -------------------------------------------------------------
def b_minmax(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b = widen_args(cx, sig, args)
    return minmax(cx, sig.name, a, b, is_unsigned(sig.ret))


def b_clamp(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x, lo, hi = widen_args(cx, sig, args)
    u = is_unsigned(sig.ret)
    return minmax(cx, "min", minmax(cx, "max", x, lo, u), hi, u)


def b_common(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    if sig.name == "degrees":
        return cx.b.binop("fmul", x, const_of(x.type, 180.0 / math.pi))
    if sig.name == "radians":
        return cx.b.binop("fmul", x, const_of(x.type, math.pi / 180.0))
    zero = const_of(x.type, 0.0)
    r = cx.b.select(cx.b.fcmp("uno", x, x), zero, x)
    r = cx.b.select(cx.b.fcmp("olt", x, zero), const_of(x.type, -1.0), r)
    return cx.b.select(cx.b.fcmp("ogt", x, zero), const_of(x.type, 1.0), r)


def b_mix(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x, y, a = widen_args(cx, sig, args)
    return cx.b.binop("fadd", x, cx.b.binop("fmul", cx.b.binop("fsub", y, x), a))


def b_step(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    edge, x = widen_args(cx, sig, args)
    lt = cx.b.fcmp("olt", x, edge)
    return cx.b.select(lt, const_of(x.type, 0.0), const_of(x.type, 1.0))


def b_smoothstep(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    e0, e1, x = widen_args(cx, sig, args)
    t: Value = cx.b.binop("fdiv", cx.b.binop("fsub", x, e0), cx.b.binop("fsub", e1, e0))
    t = minmax(cx, "min", minmax(cx, "max", t, const_of(t.type, 0.0), False), const_of(t.type, 1.0), False)
    three_minus = cx.b.binop("fsub", const_of(t.type, 3.0), cx.b.binop("fmul", const_of(t.type, 2.0), t))
    return cx.b.binop("fmul", cx.b.binop("fmul", t, t), three_minus)


# -- geometric ----------------------------------------------------------


def b_dot(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    return dot(cx, args[0], args[1])


def b_cross(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b = args
    vt = vector_type(a.type)
    n = vt.count
    sh = lambda v, m: cx.b.shufflevector(v, v, m + [3] * (n - 3))  # noqa: E731
    l = cx.b.binop("fmul", sh(a, [1, 2, 0]), sh(b, [2, 0, 1]))
    r = cx.b.binop("fmul", sh(a, [2, 0, 1]), sh(b, [1, 2, 0]))
    res: Value = cx.b.binop("fsub", l, r)
    if n == 4:
        res = cx.b.insertelement(res, const_of(vt.elem, 0.0), ConstInt(ir.I32, 3))
    return res


# -- integer ------------------------------------------------------------
def b_abs(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    if is_unsigned(sig.params[0]):
        return x
    neg = cx.b.binop("sub", const_of(x.type, 0), x)
    return cx.b.select(cx.b.icmp("slt", x, const_of(x.type, 0)), neg, x)


def b_abs_diff(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b = args
    gt = select_cmp(cx, "ogt", a, b, is_unsigned(sig.params[0]))
    return cx.b.select(gt, cx.b.binop("sub", a, b), cx.b.binop("sub", b, a))


def ext(cx: BuiltinContext, v: Value, bits: int, unsigned: bool) -> Value:
    return cx.b.cast("zext" if unsigned else "sext", v, _widen(v.type, bits))


def saturate(cx: BuiltinContext, wide: Value, t: ir.Type, unsigned: bool, nonnegative: bool = False) -> Value:
    """`wide` clamped to `t`'s range; `nonnegative`: `wide` is an unsigned value (compared unsigned)."""
    bits = scalar_bits(t)
    lo, hi = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    w = wide.type
    if not nonnegative:
        wide = cx.b.select(cx.b.icmp("slt", wide, const_of(w, lo)), const_of(w, lo), wide)
    wide = cx.b.select(cx.b.icmp("ugt" if nonnegative else "sgt", wide, const_of(w, hi)), const_of(w, hi), wide)
    return cx.b.cast("trunc", wide, t)


def wide_bits(bits: int) -> int:
    """The width in which the add/mul-then-narrow builtins are exact for lanes of up to 32 bits
    (sums within 2^34, products of 32-bit values within 2^64, shifted right logically when
    unsigned); 64-bit lanes use builtin_int64 instead of a wider integer."""
    assert bits <= 32, "64-bit lanes: builtin_int64"
    return 64


def b_intop(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b = args
    t, bits, u = a.type, scalar_bits(a.type), is_unsigned(sig.ret)
    name = sig.name
    if name == "mul24":
        return cx.b.binop("mul", a, b)
    if name == "rotate":
        n = cx.b.binop("and", b, const_of(t, bits - 1))
        left = cx.b.binop("shl", a, n)
        rn = cx.b.binop("and", cx.b.binop("sub", const_of(t, bits), n), const_of(t, bits - 1))
        return cx.b.binop("or", left, cx.b.binop("lshr", a, rn))
    if bits == 64:
        return intop64(cx.b, name, a, b, u)
    wa, wb = ext(cx, a, wide_bits(bits), u), ext(cx, b, wide_bits(bits), u)
    op = {"add_sat": "add", "sub_sat": "sub", "hadd": "add", "rhadd": "add", "mul_hi": "mul"}[name]
    w = cx.b.binop(op, wa, wb)
    if name in ("add_sat", "sub_sat"):
        return saturate(cx, w, t, u)
    if name == "rhadd":
        w = cx.b.binop("add", w, const_of(w.type, 1))
    shift = bits if name == "mul_hi" else 1
    w = cx.b.binop("lshr" if u else "ashr", w, const_of(w.type, shift))
    return cx.b.cast("trunc", w, t)


def intop64(b: Builder, name: str, x: Value, y: Value, unsigned: bool) -> Value:
    """A two-operand builtin of 64-bit lanes, in 64-bit arithmetic (builtin_int64)."""
    if name == "add_sat":
        return int64.add_sat(b, x, y, unsigned)
    if name == "sub_sat":
        return int64.sub_sat(b, x, y, unsigned)
    if name in ("hadd", "rhadd"):
        return int64.hadd(b, x, y, unsigned, round_up=name == "rhadd")
    return int64.mul_hi(b, x, y, unsigned)


def b_intop3(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b, c = args
    t, bits, u = a.type, scalar_bits(a.type), is_unsigned(sig.ret)
    if sig.name == "mad24":
        return cx.b.binop("add", cx.b.binop("mul", a, b), c)
    if bits == 64:
        if sig.name == "mad_sat":
            return int64.mad_sat(cx.b, a, b, c, u)
        return cx.b.binop("add", int64.mul_hi(cx.b, a, b, u), c)
    wa, wb, wc = (ext(cx, v, wide_bits(bits), u) for v in (a, b, c))
    prod = cx.b.binop("mul", wa, wb)
    if sig.name == "mad_sat":
        return saturate(cx, cx.b.binop("add", prod, wc), t, u, nonnegative=u)
    hi = cx.b.cast("trunc", cx.b.binop("lshr" if u else "ashr", prod, const_of(prod.type, bits)), t)
    return cx.b.binop("add", hi, c)


def b_bitcount(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    if sig.name == "popcount":
        return popcount(cx, x)
    if sig.name == "ctz":  # popcount of the trailing zeros turned to ones; ctz(0) is the width
        low = cx.b.binop("and", x, cx.b.binop("sub", const_of(x.type, 0), x))
        return popcount(cx, cx.b.binop("sub", low, const_of(x.type, 1)))
    shift = 1
    while shift < scalar_bits(x.type):  # smear the highest set bit rightwards
        x = cx.b.binop("or", x, cx.b.binop("lshr", x, const_of(x.type, shift)))
        shift *= 2
    return cx.b.binop("sub", const_of(x.type, scalar_bits(x.type)), popcount(cx, x))


def popcount(cx: BuiltinContext, x: Value) -> Value:
    """The SWAR population count, for 8-, 16-, 32- and 64-bit lanes."""
    t, bits = x.type, scalar_bits(x.type)
    rep = lambda byte: int.from_bytes(bytes([byte]) * (bits // 8), "little")  # noqa: E731
    op = cx.b.binop
    x = op("sub", x, op("and", op("lshr", x, const_of(t, 1)), const_of(t, rep(0x55))))
    x = op("add", op("and", x, const_of(t, rep(0x33))), op("and", op("lshr", x, const_of(t, 2)), const_of(t, rep(0x33))))
    x = op("and", op("add", x, op("lshr", x, const_of(t, 4))), const_of(t, rep(0x0F)))
    if bits == 8:
        return x
    return op("lshr", op("mul", x, const_of(t, rep(0x01))), const_of(t, bits - 8))


def b_upsample(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    hi, lo = args
    wt = plain_type(sig.ret)
    bits = scalar_bits(hi.type)
    h = cx.b.cast("zext" if is_unsigned(sig.ret) else "sext", hi, wt)
    h = cx.b.binop("shl", h, const_of(wt, bits))
    return cx.b.binop("or", h, cx.b.cast("zext", lo, wt))


# -- relational ---------------------------------------------------------
_FCMP_PREDICATES = {"isequal": "oeq", "isnotequal": "une", "isgreater": "ogt", "isgreaterequal": "oge",
                    "isless": "olt", "islessequal": "ole", "islessgreater": "one", "isordered": "ord",
                    "isunordered": "uno"}


def b_fcmp(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    c = cx.b.fcmp(_FCMP_PREDICATES[sig.name], args[0], args[1])
    return bool_to_int(cx.b, c, sig.ret)


def b_fclass(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    name = sig.name
    if name == "isnan":
        c = cx.b.fcmp("uno", x, x)
    elif name == "signbit":
        arg_t = sig.params[0]
        it = plain_type(st.relational_result(arg_t)) if st.is_vector(arg_t) else _widen(x.type, scalar_bits(x.type))
        c = cx.b.icmp("slt", cx.b.cast("bitcast", x, it), const_of(it, 0))
    else:
        ax = call_math(cx, "fabs", [x])
        inf = const_of(x.type, math.inf)
        if name == "isinf":
            c = cx.b.fcmp("oeq", ax, inf)
        elif name == "isfinite":
            c = cx.b.fcmp("olt", ax, inf)
        else:
            tiny = 2.2250738585072014e-308 if scalar_bits(x.type) == 64 else 1.1754943508222875e-38
            lo = cx.b.fcmp("oge", ax, const_of(x.type, tiny))
            c = cx.b.binop("and", lo, cx.b.fcmp("olt", ax, inf))
    return bool_to_int(cx.b, c, sig.ret)


def b_anyall(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    neg = cx.b.icmp("slt", x, const_of(x.type, 0))
    r = reduce(cx, "or" if sig.name == "any" else "and", neg)
    return cx.b.cast("zext", r, ir.I32)


def as_int(cx: BuiltinContext, v: Value) -> Value:
    if v.type.is_int_or_int_vector():
        return v
    return cx.b.cast("bitcast", v, _widen(v.type, scalar_bits(v.type)))


def b_bitselect(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b, c = (as_int(cx, v) for v in args)
    nc = cx.b.binop("xor", c, const_of(c.type, -1))
    r = cx.b.binop("or", cx.b.binop("and", a, nc), cx.b.binop("and", b, c))
    return r if r.type == args[0].type else cx.b.cast("bitcast", r, args[0].type)


def b_select(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    a, b, c = args
    if isinstance(c.type, ir.VectorType):
        cond = cx.b.icmp("slt", c, const_of(c.type, 0))
    else:
        cond = cx.b.icmp("ne", c, const_of(c.type, 0))
    return cx.b.select(cond, b, a)


# -- conversions --------------------------------------------------------
def b_convert(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x, frm, to = args[0], sig.params[0], sig.ret
    sat, rnd = "_sat" in sig.name, next((r for r in ("rte", "rtp", "rtn", "rtz") if sig.name.endswith(r)), None)
    if st.is_floating(st.element_type(frm)) and not st.is_floating(st.element_type(to)):
        if rnd in ("rte", "rtp", "rtn"):
            x = call_math(cx, {"rte": "rint", "rtp": "ceil", "rtn": "floor"}[rnd], [x])
        if sat:
            return _sat_float_to_int(cx, x, frm, to)
    elif sat and not st.is_floating(st.element_type(to)):
        return _sat_int(cx, x, frm, to)
    r = convert(cx.b, x, frm, to)
    if rnd in ("rtz", "rtp", "rtn") and st.is_floating(st.element_type(to)) and needs_directed(x.type, r.type):
        return directed_round(cx, x, r, rnd, is_unsigned(frm))
    return r


def _sat_float_to_int(cx: BuiltinContext, x: Value, frm: CType, to: CType) -> Value:
    tt = plain_type(to)
    bits, u = scalar_bits(tt), is_unsigned(to)
    lo, hi = (0.0, float((1 << bits) - 1)) if u else (float(-(1 << (bits - 1))), float((1 << (bits - 1)) - 1))
    c = minmax(cx, "max", x, const_of(x.type, lo), False)
    c = minmax(cx, "min", c, const_of(x.type, hi), False)
    r = convert(cx.b, c, frm, to)
    big = cx.b.fcmp("oge", x, const_of(x.type, hi))
    r = cx.b.select(big, const_of(tt, (1 << bits) - 1 if u else (1 << (bits - 1)) - 1), r)
    return cx.b.select(cx.b.fcmp("uno", x, x), const_of(tt, 0), r)


def _sat_int(cx: BuiltinContext, x: Value, frm: CType, to: CType) -> Value:
    fu, tu = is_unsigned(frm), is_unsigned(to)
    fb, tb = scalar_bits(x.type), scalar_bits(plain_type(to))
    if max(fb, tb) == 64:
        return int64.convert_sat(cx.b, ext(cx, x, 64, fu) if fb < 64 else x, fu, plain_type(to), tu)
    return saturate(cx, ext(cx, x, 64, fu), plain_type(to), tu)  # exact: 64 bits hold both


def _all_bits(t: ir.Type) -> int:
    return scalar_bits(t) * (t.count if isinstance(t, ir.VectorType) else 1)


def b_as(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """as_<type>: the same bits; a 3-element vector has its 4-element size (`as_char3(int)`)."""
    x, tt = args[0], plain_type(sig.ret)
    if isinstance(x.type, ir.VectorType) and x.type.count == 3 and scalar_bits(x.type) * 4 == _all_bits(tt):
        x = cx.b.shufflevector(x, x, [0, 1, 2, 3])
    if isinstance(tt, ir.VectorType) and tt.count == 3 and _all_bits(x.type) == scalar_bits(tt) * 4:
        wide = cx.b.cast("bitcast", x, ir.VectorType(tt.elem, 4))
        return cx.b.shufflevector(wide, wide, [0, 1, 2])
    return x if x.type == tt else cx.b.cast("bitcast", x, tt)


# -- vector loads and stores --------------------------------------------
def _vaddr(cx: BuiltinContext, p: Value, offset: Value, elem: ir.Type, n: int) -> Value:
    idx = cx.b.binop("mul", offset, ConstInt(ir.I64, n)) if n != 1 else offset
    return cx.b.gep(elem, p, [idx])


def b_vload(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    offset, p = args
    vt = plain_type(sig.ret)
    assert isinstance(vt, ir.VectorType)
    addr = _vaddr(cx, p, offset, vt.elem, vt.count)
    return cx.b.load(vt, addr, scalar_bits(vt) // 8)


def b_vstore(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    data, offset, p = args
    vt = data.type
    assert isinstance(vt, ir.VectorType)
    addr = _vaddr(cx, p, offset, vt.elem, vt.count)
    return cx.b.store(data, addr, scalar_bits(vt) // 8)


def _half_stride(cx: BuiltinContext, name: str, n: int) -> int:
    return 4 if n == 3 and name.startswith(("vloada", "vstorea")) else n


def b_vload_half(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    offset, p = args
    rt = plain_type(sig.ret)
    n = rt.count if isinstance(rt, ir.VectorType) else 1
    ht: ir.Type = ir.VectorType(ir.F16, n) if n > 1 else ir.F16
    addr = _vaddr(cx, p, offset, ir.F16, _half_stride(cx, sig.name, n))
    h = cx.b.load(ht, addr, 2)
    return cx.b.cast("fpext", h, rt)


def b_vstore_half(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    data, offset, p = args
    n = data.type.count if isinstance(data.type, ir.VectorType) else 1
    ht: ir.Type = ir.VectorType(ir.F16, n) if n > 1 else ir.F16
    if scalar_bits(data.type) == 64:
        data = round_to_odd_float(cx.b, data)
    h: Value = cx.b.cast("fptrunc", data, ht)
    mode = sig.name.rsplit("_", 1)[-1]
    if mode in ("rtz", "rtp", "rtn"):
        h = directed_round(cx, data, h, mode, False)
    addr = _vaddr(cx, p, offset, ir.F16, _half_stride(cx, sig.name, n))
    return cx.b.store(h, addr, 2)


def b_shuffle(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """shuffle(x, mask) / shuffle2(x, y, mask): element i is x[mask[i]] (or y[mask[i] - m])."""
    *srcs, mask = args
    m = vector_type(srcs[0].type).count
    limit = m * len(srcs)
    mask_t = vector_type(mask.type)
    out: Value = Undef(plain_type(sig.ret))
    for i in range(mask_t.count):
        sel = cx.b.binop("and", cx.b.extractelement(mask, ConstInt(ir.I32, i)),
                         const_of(mask_t.elem, limit - 1))
        idx = cx.b.binop("and", sel, const_of(sel.type, m - 1))
        elt = cx.b.extractelement(srcs[0], idx)
        if len(srcs) == 2:
            second = cx.b.icmp("uge", sel, const_of(sel.type, m))
            elt = cx.b.select(second, cx.b.extractelement(srcs[1], idx), elt)
        out = cx.b.insertelement(out, elt, ConstInt(ir.I32, i))
    return out


# -- atomics ------------------------------------------------------------
def b_atomic(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    op = sig.impl[len("atomic_"):]
    p = args[0]
    t = plain_type(sig.ret)
    if op == "cmpxchg":
        return cx.b.cmpxchg(p, args[1], args[2])
    if op in ("inc", "dec"):
        return cx.b.atomicrmw("add" if op == "inc" else "sub", p, const_of(t, 1))
    if op in ("min", "max") and is_unsigned(sig.ret):
        op = "u" + op
    return cx.b.atomicrmw(op, p, args[1])


IMPLS: dict[str, BuiltinImpl] = {
    "math": b_math, "math_splat": b_math_splat,
    "fdiv": b_fdiv, "workitem": b_workitem,
    "barrier": b_barrier, "mem_fence": b_mem_fence,
    "const_inf": b_const_inf, "const_nan": b_const_nan,
    "minmax": b_minmax, "clamp": b_clamp,
    "common": b_common, "mix": b_mix, "step": b_step,
    "smoothstep": b_smoothstep, "dot": b_dot,
    "cross": b_cross,
    "abs": b_abs, "abs_diff": b_abs_diff,
    "intop": b_intop, "intop3": b_intop3,
    "bitcount": b_bitcount, "upsample": b_upsample,
    "fcmp": b_fcmp, "fclass": b_fclass,
    "anyall": b_anyall, "bitselect": b_bitselect,
    "select": b_select, "convert": b_convert,
    "as": b_as, "vload": b_vload, "vstore": b_vstore,
    "shuffle": b_shuffle, "vload_half": b_vload_half, "vstore_half": b_vstore_half,
    **{f"atomic_{op}": b_atomic
       for op in "add sub xchg min max and or xor inc dec cmpxchg".split()},
}
IMPLS.update(ASYNC_IMPLS)  # async_work_group_copy and friends (async_copy.py)
IMPLS.update(GENERIC_IMPLS)  # to_global, to_local, to_private, get_fence (generic_space.py)
IMPLS.update(SYNC_IMPLS)  # CL2.0 work_group_barrier(flags, scope), atomic_work_item_fence (cl20_sync.py)
IMPLS.update(ATOMIC_IMPLS)  # CL2.0 atomic_load, atomic_fetch_add_explicit, ... (cl20_atomics.py)
IMPLS.update(COLLECTIVE_IMPLS)  # CL2.0 work_group_reduce_add, sub_group_broadcast, ... (collectives.py)
IMPLS.update(MATH_IMPLS)  # maxmag, ilogb, frexp, fract, remquo, ... (builtin_math.py)
IMPLS.update(GEOMETRIC_IMPLS)  # length/distance/normalize without overflow (builtin_geometric.py)
IMPLS.update(GNU_IMPLS)  # __builtin_expect, __builtin_assume, __builtin_unreachable (gnu_builtins.py)
IMPLS.update(ALIAS_IMPLS)  # __builtin_clz, __builtin_sqrtf, __builtin_bswap32, ... (gnu_aliases.py)
IMPLS.update(PRINTF_IMPLS)  # OpenCL printf formats: vector conversions (printf_format.py)
IMPLS.update(IMAGE_IMPLS)  # the image library's handles on images and samplers (images.py)
