"""Lowering of builtin calls: one method per `impl` key of the builtin table.

`IMPLS` maps each key of `builtins.TABLE` to a method of `BuiltinLowering`.
Math functions become overloaded intrinsics (`ocl.sqrt.v4f32`); work-item
queries and barriers become `ocl.*` intrinsics; integer, common, geometric,
relational, conversion, vector load/store and atomic builtins become IR
instruction sequences here. Companion modules add to `IMPLS`:
`lower_builtins_math` (maxmag, ilogb, nan, frexp, fract, modf, sincos,
lgamma_r, remquo), `lower_builtins_geometric` (length, distance, normalize
without overflow), `lower_builtins_convert` (directed rounding to floating
types), `lower_builtins_printf` (OpenCL printf formats) and `async_copy`.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

from ....ir import types as ir
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstFloat, ConstInt, Undef, Value
from .. import ast
from ..builtins import table as bi
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..builtins.async_copy import ASYNC_IMPLS
from ..builtins.gnu_aliases import ALIAS_IMPLS
from ..builtins.gnu_builtins import GNU_IMPLS, UNEVALUATED_IMPLS
from ..sema.generic_space import GENERIC_IMPLS
from ..builtins.cl20_sync import SYNC_IMPLS
from ..builtins.cl20_atomics import ATOMIC_IMPLS
from ..builtins.collectives import COLLECTIVE_IMPLS
from ..layout import reg_type
from .builtin_convert import directed_round, needs_directed, round_to_odd_float
from .builtin_geometric import GEOMETRIC_IMPLS, splat_value
from .builtin_math import MATH_IMPLS
from ..builtins.printf_format import PRINTF_IMPLS
from .helpers import const_of, is_unsigned


def _bits(t: ir.Type) -> int:
    return t.scalar().bits  # type: ignore[attr-defined]


def _widen(t: ir.Type, bits: int) -> ir.Type:
    return ir.VectorType(ir.IntType(bits), t.count) if isinstance(t, ir.VectorType) else ir.IntType(bits)


class BuiltinLowering:
    module: object

    def lower_builtin(self, e: ast.Call) -> Optional[Value]:
        sig: bi.Builtin = e.builtin
        unevaluated = sig.impl == "const_nan" or sig.impl in UNEVALUATED_IMPLS
        args = [] if unevaluated else [self.rv(a) for a in e.args]  # type: ignore[attr-defined]
        return self.lower_builtin_call(sig, args, e)

    def lower_builtin_call(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Optional[Value]:
        """The lowering of builtin `sig` on already lowered `args` (aliases call their targets so)."""
        impl = IMPLS.get(sig.impl)
        if impl is None:
            raise NotImplementedError(f"builtin '{sig.name}' ({sig.impl})")
        return impl(self, sig, args, e)

    # -- helpers ------------------------------------------------------------
    splat_value = splat_value  # a scalar IR value repeated in every lane
    def intrinsic(self, base: str, ret: ir.Type, args: list[Value], overload: Optional[ir.Type]) -> Value:
        fn = declare_intrinsic(self.module, base, ret, [a.type for a in args], overload)  # type: ignore[arg-type]
        return self.b.call(fn, args)  # type: ignore[attr-defined]

    def math(self, base: str, args: list[Value]) -> Value:
        return self.intrinsic(base, args[0].type, args, args[0].type)

    def widen_args(self, sig: bi.Builtin, args: list[Value]) -> list[Value]:
        """Splat scalar arguments of a vector overload to the vector type."""
        ret = sig.ret if st.is_vector(sig.ret) else next((p for p in sig.params if st.is_vector(p)), None)
        if ret is None:
            return args
        out = []
        for a, p in zip(args, sig.params):
            if st.is_vector(p) or isinstance(p, ct.Pointer):
                out.append(a)
            else:
                vt = ct.Vector(st.scalar_kind(p), ret.count)  # type: ignore[arg-type, attr-defined]
                out.append(self.splat(a, vt))  # type: ignore[attr-defined]
        return out

    def select_cmp(self, pred: str, a: Value, b: Value, unsigned: bool = False) -> Value:
        if a.type.is_float_or_float_vector():
            return self.b.fcmp(pred, a, b)  # type: ignore[attr-defined]
        ipred = {"olt": "ult" if unsigned else "slt", "ogt": "ugt" if unsigned else "sgt"}[pred]
        return self.b.icmp(ipred, a, b)  # type: ignore[attr-defined]

    def minmax(self, op: str, a: Value, b: Value, unsigned: bool) -> Value:
        if a.type.is_float_or_float_vector():
            return self.math("fmin" if op == "min" else "fmax", [a, b])
        c = self.select_cmp("olt" if op == "min" else "ogt", b, a, unsigned)
        return self.b.select(c, b, a)  # type: ignore[attr-defined]

    def fbin(self, op: str, a: Value, b: Value) -> Value:
        return self.b.binop(op, a, b)  # type: ignore[attr-defined]

    def reduce(self, op: str, v: Value) -> Value:
        if not isinstance(v.type, ir.VectorType):
            return v
        acc = self.b.extractelement(v, ConstInt(ir.I32, 0))  # type: ignore[attr-defined]
        for i in range(1, v.type.count):
            acc = self.fbin(op, acc, self.b.extractelement(v, ConstInt(ir.I32, i)))  # type: ignore[attr-defined]
        return acc

    # -- math, work-items, synchronisation ----------------------------------
    def b_math(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        base = bi.math_base(sig.name)
        if base == "recip":
            return self.fbin("fdiv", const_of(args[0].type, 1.0), args[0])
        return self.intrinsic(base, reg_type(sig.ret), args, reg_type(sig.ret))

    def b_math_splat(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        args = self.widen_args(sig, args) if sig.params[1] != ct.INT else \
            [args[0], self.splat(args[1], ct.Vector(ct.ScalarKind.INT, sig.ret.count))]  # type: ignore[attr-defined]
        return self.intrinsic(bi.math_base(sig.name), reg_type(sig.ret), args, reg_type(sig.ret))

    def b_fdiv(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return self.fbin("fdiv", args[0], args[1])

    def b_workitem(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return self.intrinsic(sig.name, reg_type(sig.ret), args, None)

    def b_barrier(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return self.intrinsic("barrier", ir.VOID, args, None)

    def b_mem_fence(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return self.intrinsic("mem_fence", ir.VOID, args, None)

    def b_const_inf(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return ConstFloat(reg_type(sig.ret), math.inf)

    def b_const_nan(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return ConstFloat(reg_type(sig.ret), math.nan)

    # -- common -------------------------------------------------------------
    def b_minmax(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b = self.widen_args(sig, args)
        return self.minmax(sig.name, a, b, is_unsigned(sig.ret))

    def b_clamp(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x, lo, hi = self.widen_args(sig, args)
        u = is_unsigned(sig.ret)
        return self.minmax("min", self.minmax("max", x, lo, u), hi, u)

    def b_common(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x = args[0]
        if sig.name == "degrees":
            return self.fbin("fmul", x, const_of(x.type, 180.0 / math.pi))
        if sig.name == "radians":
            return self.fbin("fmul", x, const_of(x.type, math.pi / 180.0))
        zero = const_of(x.type, 0.0)
        r = self.b.select(self.b.fcmp("uno", x, x), zero, x)  # type: ignore[attr-defined]
        r = self.b.select(self.b.fcmp("olt", x, zero), const_of(x.type, -1.0), r)  # type: ignore[attr-defined]
        return self.b.select(self.b.fcmp("ogt", x, zero), const_of(x.type, 1.0), r)  # type: ignore[attr-defined]

    def b_mix(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x, y, a = self.widen_args(sig, args)
        return self.fbin("fadd", x, self.fbin("fmul", self.fbin("fsub", y, x), a))

    def b_step(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        edge, x = self.widen_args(sig, args)
        lt = self.b.fcmp("olt", x, edge)  # type: ignore[attr-defined]
        return self.b.select(lt, const_of(x.type, 0.0), const_of(x.type, 1.0))  # type: ignore[attr-defined]

    def b_smoothstep(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        e0, e1, x = self.widen_args(sig, args)
        t = self.fbin("fdiv", self.fbin("fsub", x, e0), self.fbin("fsub", e1, e0))
        t = self.minmax("min", self.minmax("max", t, const_of(t.type, 0.0), False), const_of(t.type, 1.0), False)
        three_minus = self.fbin("fsub", const_of(t.type, 3.0), self.fbin("fmul", const_of(t.type, 2.0), t))
        return self.fbin("fmul", self.fbin("fmul", t, t), three_minus)

    # -- geometric ----------------------------------------------------------
    def dot(self, a: Value, b: Value) -> Value:
        return self.reduce("fadd", self.fbin("fmul", a, b))

    def b_dot(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        return self.dot(args[0], args[1])

    def b_cross(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b = args
        n = a.type.count  # type: ignore[attr-defined]
        sh = lambda v, m: self.b.shufflevector(v, v, m + [3] * (n - 3))  # type: ignore[attr-defined]  # noqa: E731
        l = self.fbin("fmul", sh(a, [1, 2, 0]), sh(b, [2, 0, 1]))
        r = self.fbin("fmul", sh(a, [2, 0, 1]), sh(b, [1, 2, 0]))
        res = self.fbin("fsub", l, r)
        if n == 4:
            res = self.b.insertelement(res, const_of(a.type.elem, 0.0), ConstInt(ir.I32, 3))  # type: ignore[attr-defined]
        return res

    # -- integer ------------------------------------------------------------
    def b_abs(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x = args[0]
        if is_unsigned(e.args[0].ctype):  # type: ignore[arg-type]
            return x
        neg = self.b.binop("sub", const_of(x.type, 0), x)  # type: ignore[attr-defined]
        return self.b.select(self.b.icmp("slt", x, const_of(x.type, 0)), neg, x)  # type: ignore[attr-defined]

    def b_abs_diff(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b = args
        gt = self.select_cmp("ogt", a, b, is_unsigned(e.args[0].ctype))  # type: ignore[arg-type]
        return self.b.select(gt, self.b.binop("sub", a, b), self.b.binop("sub", b, a))  # type: ignore[attr-defined]

    def ext(self, v: Value, bits: int, unsigned: bool) -> Value:
        return self.b.cast("zext" if unsigned else "sext", v, _widen(v.type, bits))  # type: ignore[attr-defined]

    def saturate(self, wide: Value, t: ir.Type, unsigned: bool) -> Value:
        bits = _bits(t)
        lo, hi = (0, (1 << bits) - 1) if unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        w = wide.type
        wide = self.b.select(self.b.icmp("slt", wide, const_of(w, lo)), const_of(w, lo), wide)  # type: ignore[attr-defined]
        wide = self.b.select(self.b.icmp("sgt", wide, const_of(w, hi)), const_of(w, hi), wide)  # type: ignore[attr-defined]
        return self.b.cast("trunc", wide, t)  # type: ignore[attr-defined]

    def b_intop(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b = args
        t, bits, u = a.type, _bits(a.type), is_unsigned(sig.ret)
        name = sig.name
        if name == "mul24":
            return self.b.binop("mul", a, b)  # type: ignore[attr-defined]
        if name == "rotate":
            n = self.b.binop("and", b, const_of(t, bits - 1))  # type: ignore[attr-defined]
            left = self.b.binop("shl", a, n)  # type: ignore[attr-defined]
            rn = self.b.binop("and", self.b.binop("sub", const_of(t, bits), n), const_of(t, bits - 1))  # type: ignore[attr-defined]
            return self.b.binop("or", left, self.b.binop("lshr", a, rn))  # type: ignore[attr-defined]
        wa, wb = self.ext(a, 2 * bits + 2, u), self.ext(b, 2 * bits + 2, u)
        op = {"add_sat": "add", "sub_sat": "sub", "hadd": "add", "rhadd": "add", "mul_hi": "mul"}[name]
        w = self.b.binop(op, wa, wb)  # type: ignore[attr-defined]
        if name in ("add_sat", "sub_sat"):
            return self.saturate(w, t, u)
        if name == "rhadd":
            w = self.b.binop("add", w, const_of(w.type, 1))  # type: ignore[attr-defined]
        shift = bits if name == "mul_hi" else 1
        w = self.b.binop("ashr", w, const_of(w.type, shift))  # type: ignore[attr-defined]
        return self.b.cast("trunc", w, t)  # type: ignore[attr-defined]

    def b_intop3(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b, c = args
        t, bits, u = a.type, _bits(a.type), is_unsigned(sig.ret)
        if sig.name == "mad24":
            return self.b.binop("add", self.b.binop("mul", a, b), c)  # type: ignore[attr-defined]
        wa, wb, wc = (self.ext(v, 2 * bits + 2, u) for v in (a, b, c))
        prod = self.b.binop("mul", wa, wb)  # type: ignore[attr-defined]
        if sig.name == "mad_sat":
            return self.saturate(self.b.binop("add", prod, wc), t, u)  # type: ignore[attr-defined]
        hi = self.b.cast("trunc", self.b.binop("ashr", prod, const_of(prod.type, bits)), t)  # type: ignore[attr-defined]
        return self.b.binop("add", hi, c)  # type: ignore[attr-defined]

    def b_bitcount(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x = args[0]
        if sig.name == "popcount":
            return self.popcount(x)
        if sig.name == "ctz":  # popcount of the trailing zeros turned to ones; ctz(0) is the width
            low = self.b.binop("and", x, self.b.binop("sub", const_of(x.type, 0), x))  # type: ignore[attr-defined]
            return self.popcount(self.b.binop("sub", low, const_of(x.type, 1)))  # type: ignore[attr-defined]
        shift = 1
        while shift < _bits(x.type):  # smear the highest set bit rightwards
            x = self.b.binop("or", x, self.b.binop("lshr", x, const_of(x.type, shift)))  # type: ignore[attr-defined]
            shift *= 2
        return self.b.binop("sub", const_of(x.type, _bits(x.type)), self.popcount(x))  # type: ignore[attr-defined]

    def popcount(self, x: Value) -> Value:
        """The SWAR population count, for 8-, 16-, 32- and 64-bit lanes."""
        t, bits = x.type, _bits(x.type)
        rep = lambda byte: int.from_bytes(bytes([byte]) * (bits // 8), "little")  # noqa: E731
        op = self.b.binop  # type: ignore[attr-defined]
        x = op("sub", x, op("and", op("lshr", x, const_of(t, 1)), const_of(t, rep(0x55))))
        x = op("add", op("and", x, const_of(t, rep(0x33))), op("and", op("lshr", x, const_of(t, 2)), const_of(t, rep(0x33))))
        x = op("and", op("add", x, op("lshr", x, const_of(t, 4))), const_of(t, rep(0x0F)))
        if bits == 8:
            return x
        return op("lshr", op("mul", x, const_of(t, rep(0x01))), const_of(t, bits - 8))

    def b_upsample(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        hi, lo = args
        wt = reg_type(sig.ret)
        bits = _bits(hi.type)
        h = self.b.cast("zext" if is_unsigned(sig.ret) else "sext", hi, wt)  # type: ignore[attr-defined]
        h = self.b.binop("shl", h, const_of(wt, bits))  # type: ignore[attr-defined]
        return self.b.binop("or", h, self.b.cast("zext", lo, wt))  # type: ignore[attr-defined]

    # -- relational ---------------------------------------------------------
    _FCMP = {"isequal": "oeq", "isnotequal": "une", "isgreater": "ogt", "isgreaterequal": "oge",
             "isless": "olt", "islessequal": "ole", "islessgreater": "one", "isordered": "ord",
             "isunordered": "uno"}

    def b_fcmp(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        c = self.b.fcmp(self._FCMP[sig.name], args[0], args[1])  # type: ignore[attr-defined]
        return self.bool_to_int(c, sig.ret)  # type: ignore[attr-defined]

    def b_fclass(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x = args[0]
        name = sig.name
        if name == "isnan":
            c = self.b.fcmp("uno", x, x)  # type: ignore[attr-defined]
        elif name == "signbit":
            it = reg_type(st.relational_result(e.args[0].ctype)) if st.is_vector(e.args[0].ctype) else _widen(x.type, _bits(x.type))  # type: ignore[arg-type]
            c = self.b.icmp("slt", self.b.cast("bitcast", x, it), const_of(it, 0))  # type: ignore[attr-defined]
        else:
            ax = self.math("fabs", [x])
            inf = const_of(x.type, math.inf)
            if name == "isinf":
                c = self.b.fcmp("oeq", ax, inf)  # type: ignore[attr-defined]
            elif name == "isfinite":
                c = self.b.fcmp("olt", ax, inf)  # type: ignore[attr-defined]
            else:
                tiny = 2.2250738585072014e-308 if _bits(x.type) == 64 else 1.1754943508222875e-38
                lo = self.b.fcmp("oge", ax, const_of(x.type, tiny))  # type: ignore[attr-defined]
                c = self.b.binop("and", lo, self.b.fcmp("olt", ax, inf))  # type: ignore[attr-defined]
        return self.bool_to_int(c, sig.ret)  # type: ignore[attr-defined]

    def b_anyall(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x = args[0]
        neg = self.b.icmp("slt", x, const_of(x.type, 0))  # type: ignore[attr-defined]
        r = self.reduce("or" if sig.name == "any" else "and", neg)
        return self.b.cast("zext", r, ir.I32)  # type: ignore[attr-defined]

    def as_int(self, v: Value) -> Value:
        if v.type.is_int_or_int_vector():
            return v
        return self.b.cast("bitcast", v, _widen(v.type, _bits(v.type)))  # type: ignore[attr-defined]

    def b_bitselect(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b, c = (self.as_int(v) for v in args)
        nc = self.b.binop("xor", c, const_of(c.type, -1))  # type: ignore[attr-defined]
        r = self.b.binop("or", self.b.binop("and", a, nc), self.b.binop("and", b, c))  # type: ignore[attr-defined]
        return r if r.type == args[0].type else self.b.cast("bitcast", r, args[0].type)  # type: ignore[attr-defined]

    def b_select(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        a, b, c = args
        if isinstance(c.type, ir.VectorType):
            cond = self.b.icmp("slt", c, const_of(c.type, 0))  # type: ignore[attr-defined]
        else:
            cond = self.b.icmp("ne", c, const_of(c.type, 0))  # type: ignore[attr-defined]
        return self.b.select(cond, b, a)  # type: ignore[attr-defined]

    # -- conversions --------------------------------------------------------
    def b_convert(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x, frm, to = args[0], sig.params[0], sig.ret
        sat, rnd = "_sat" in sig.name, next((r for r in ("rte", "rtp", "rtn", "rtz") if sig.name.endswith(r)), None)
        if st.is_floating(st.element_type(frm)) and not st.is_floating(st.element_type(to)):
            if rnd in ("rte", "rtp", "rtn"):
                x = self.math({"rte": "rint", "rtp": "ceil", "rtn": "floor"}[rnd], [x])
            if sat:
                return self._sat_float_to_int(x, frm, to)
        elif sat and not st.is_floating(st.element_type(to)):
            return self._sat_int(x, frm, to)
        r = self.convert(x, frm, to)  # type: ignore[attr-defined]
        if rnd in ("rtz", "rtp", "rtn") and st.is_floating(st.element_type(to)) and needs_directed(x.type, r.type):
            return directed_round(self, x, r, rnd, is_unsigned(frm))
        return r

    def _sat_float_to_int(self, x: Value, frm: CType, to: CType) -> Value:
        tt = reg_type(to)
        bits, u = _bits(tt), is_unsigned(to)
        lo, hi = (0.0, float((1 << bits) - 1)) if u else (float(-(1 << (bits - 1))), float((1 << (bits - 1)) - 1))
        c = self.minmax("max", x, const_of(x.type, lo), False)
        c = self.minmax("min", c, const_of(x.type, hi), False)
        r = self.convert(c, frm, to)  # type: ignore[attr-defined]
        big = self.b.fcmp("oge", x, const_of(x.type, hi))  # type: ignore[attr-defined]
        r = self.b.select(big, const_of(tt, (1 << bits) - 1 if u else (1 << (bits - 1)) - 1), r)  # type: ignore[attr-defined]
        return self.b.select(self.b.fcmp("uno", x, x), const_of(tt, 0), r)  # type: ignore[attr-defined]

    def _sat_int(self, x: Value, frm: CType, to: CType) -> Value:
        fu, tu = is_unsigned(frm), is_unsigned(to)
        fb, tb = _bits(x.type), _bits(reg_type(to))
        w = max(fb, tb) + 2
        return self.saturate(self.ext(x, w, fu), reg_type(to), tu)

    def b_as(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        x, tt = args[0], reg_type(sig.ret)
        if isinstance(x.type, ir.VectorType) and isinstance(tt, ir.VectorType) and \
                x.type.count == 3 and _bits(x.type) * 4 == _bits(tt) * tt.count:
            x = self.b.shufflevector(x, x, [0, 1, 2, 3])  # type: ignore[attr-defined]
        if isinstance(tt, ir.VectorType) and tt.count == 3 and isinstance(x.type, ir.VectorType) and \
                _bits(x.type) * x.type.count == _bits(tt) * 4:
            wide = self.b.cast("bitcast", x, ir.VectorType(tt.elem, 4))  # type: ignore[attr-defined]
            return self.b.shufflevector(wide, wide, [0, 1, 2])  # type: ignore[attr-defined]
        return x if x.type == tt else self.b.cast("bitcast", x, tt)  # type: ignore[attr-defined]

    # -- vector loads and stores --------------------------------------------
    def _vaddr(self, p: Value, offset: Value, elem: ir.Type, n: int) -> Value:
        idx = self.b.binop("mul", offset, ConstInt(ir.I64, n)) if n != 1 else offset  # type: ignore[attr-defined]
        return self.b.gep(elem, p, [idx])  # type: ignore[attr-defined]

    def b_vload(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        offset, p = args
        vt = reg_type(sig.ret)
        assert isinstance(vt, ir.VectorType)
        addr = self._vaddr(p, offset, vt.elem, vt.count)
        return self.b.load(vt, addr, _bits(vt) // 8)  # type: ignore[attr-defined]

    def b_vstore(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        data, offset, p = args
        vt = data.type
        assert isinstance(vt, ir.VectorType)
        addr = self._vaddr(p, offset, vt.elem, vt.count)
        return self.b.store(data, addr, _bits(vt) // 8)  # type: ignore[attr-defined]

    def _half_stride(self, name: str, n: int) -> int:
        return 4 if n == 3 and name.startswith(("vloada", "vstorea")) else n

    def b_vload_half(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        offset, p = args
        rt = reg_type(sig.ret)
        n = rt.count if isinstance(rt, ir.VectorType) else 1
        ht: ir.Type = ir.VectorType(ir.F16, n) if n > 1 else ir.F16
        addr = self._vaddr(p, offset, ir.F16, self._half_stride(sig.name, n))
        h = self.b.load(ht, addr, 2)  # type: ignore[attr-defined]
        return self.b.cast("fpext", h, rt)  # type: ignore[attr-defined]

    def b_vstore_half(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        data, offset, p = args
        n = data.type.count if isinstance(data.type, ir.VectorType) else 1
        ht: ir.Type = ir.VectorType(ir.F16, n) if n > 1 else ir.F16
        if _bits(data.type) == 64:
            data = round_to_odd_float(self, data)
        h = self.b.cast("fptrunc", data, ht)  # type: ignore[attr-defined]
        mode = sig.name.rsplit("_", 1)[-1]
        if mode in ("rtz", "rtp", "rtn"):
            h = directed_round(self, data, h, mode, False)
        addr = self._vaddr(p, offset, ir.F16, self._half_stride(sig.name, n))
        return self.b.store(h, addr, 2)  # type: ignore[attr-defined]

    def b_shuffle(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        """shuffle(x, mask) / shuffle2(x, y, mask): element i is x[mask[i]] (or y[mask[i] - m])."""
        *srcs, mask = args
        m = srcs[0].type.count  # type: ignore[attr-defined]
        limit = m * len(srcs)
        out: Value = Undef(reg_type(sig.ret))
        for i in range(mask.type.count):  # type: ignore[attr-defined]
            sel = self.b.binop("and", self.b.extractelement(mask, ConstInt(ir.I32, i)),  # type: ignore[attr-defined]
                               const_of(mask.type.elem, limit - 1))  # type: ignore[attr-defined]
            idx = self.b.binop("and", sel, const_of(sel.type, m - 1))  # type: ignore[attr-defined]
            elt = self.b.extractelement(srcs[0], idx)  # type: ignore[attr-defined]
            if len(srcs) == 2:
                second = self.b.icmp("uge", sel, const_of(sel.type, m))  # type: ignore[attr-defined]
                elt = self.b.select(second, self.b.extractelement(srcs[1], idx), elt)  # type: ignore[attr-defined]
            out = self.b.insertelement(out, elt, ConstInt(ir.I32, i))  # type: ignore[attr-defined]
        return out

    # -- atomics ------------------------------------------------------------
    def b_atomic(self, sig: bi.Builtin, args: list[Value], e: ast.Call) -> Value:
        op = sig.impl[len("atomic_"):]
        p = args[0]
        t = reg_type(sig.ret)
        if op == "cmpxchg":
            return self.b.cmpxchg(p, args[1], args[2])  # type: ignore[attr-defined]
        if op in ("inc", "dec"):
            return self.b.atomicrmw("add" if op == "inc" else "sub", p, const_of(t, 1))  # type: ignore[attr-defined]
        if op in ("min", "max") and is_unsigned(sig.ret):
            op = "u" + op
        return self.b.atomicrmw(op, p, args[1])  # type: ignore[attr-defined]


IMPLS: dict[str, Callable[..., Optional[Value]]] = {
    "math": BuiltinLowering.b_math, "math_splat": BuiltinLowering.b_math_splat,
    "fdiv": BuiltinLowering.b_fdiv, "workitem": BuiltinLowering.b_workitem,
    "barrier": BuiltinLowering.b_barrier, "mem_fence": BuiltinLowering.b_mem_fence,
    "const_inf": BuiltinLowering.b_const_inf, "const_nan": BuiltinLowering.b_const_nan,
    "minmax": BuiltinLowering.b_minmax, "clamp": BuiltinLowering.b_clamp,
    "common": BuiltinLowering.b_common, "mix": BuiltinLowering.b_mix, "step": BuiltinLowering.b_step,
    "smoothstep": BuiltinLowering.b_smoothstep, "dot": BuiltinLowering.b_dot,
    "cross": BuiltinLowering.b_cross,
    "abs": BuiltinLowering.b_abs, "abs_diff": BuiltinLowering.b_abs_diff,
    "intop": BuiltinLowering.b_intop, "intop3": BuiltinLowering.b_intop3,
    "bitcount": BuiltinLowering.b_bitcount, "upsample": BuiltinLowering.b_upsample,
    "fcmp": BuiltinLowering.b_fcmp, "fclass": BuiltinLowering.b_fclass,
    "anyall": BuiltinLowering.b_anyall, "bitselect": BuiltinLowering.b_bitselect,
    "select": BuiltinLowering.b_select, "convert": BuiltinLowering.b_convert,
    "as": BuiltinLowering.b_as, "vload": BuiltinLowering.b_vload, "vstore": BuiltinLowering.b_vstore,
    "shuffle": BuiltinLowering.b_shuffle, "vload_half": BuiltinLowering.b_vload_half, "vstore_half": BuiltinLowering.b_vstore_half,
    **{f"atomic_{op}": BuiltinLowering.b_atomic
       for op in "add sub xchg min max and or xor inc dec cmpxchg".split()},
}
IMPLS.update(ASYNC_IMPLS)  # async_work_group_copy and friends (async_copy.py)
IMPLS.update(GENERIC_IMPLS)  # to_global, to_local, to_private, get_fence (generic_space.py)
IMPLS.update(SYNC_IMPLS)  # CL2.0 work_group_barrier(flags, scope), atomic_work_item_fence (cl20_sync.py)
IMPLS.update(ATOMIC_IMPLS)  # CL2.0 atomic_load, atomic_fetch_add_explicit, ... (cl20_atomics.py)
IMPLS.update(COLLECTIVE_IMPLS)  # CL2.0 work_group_reduce_add, sub_group_broadcast, ... (collectives.py)
IMPLS.update(MATH_IMPLS)  # maxmag, ilogb, frexp, fract, remquo, ... (lower_builtins_math.py)
IMPLS.update(GEOMETRIC_IMPLS)  # length/distance/normalize without overflow (lower_builtins_geometric.py)
IMPLS.update(GNU_IMPLS)  # __builtin_expect, __builtin_assume, __builtin_unreachable (gnu_builtins.py)
IMPLS.update(ALIAS_IMPLS)  # __builtin_clz, __builtin_sqrtf, __builtin_bswap32, ... (gnu_builtin_aliases.py)
IMPLS.update(PRINTF_IMPLS)  # OpenCL printf formats: vector conversions (lower_builtins_printf.py)
