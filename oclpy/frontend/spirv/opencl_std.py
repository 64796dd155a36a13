"""The OpenCL.std extended instruction set -> the OpenCL C builtin lowering.

Every OpenCL.std instruction is an OpenCL C builtin (`s_max` is `max` on
signed integers, `vloadn` is `vload<n>`): `EXT_NAMES` maps its number to that
name, the overload is the one of `frontend.builtins` whose IR signature
matches the operands (and whose integers have the instruction's signedness),
and the OpenCL C frontend's own lowering (`c/lower/builtin_calls.IMPLS`) emits
it into `TranslatorBuiltins`, the `BuiltinContext` of this function's
translation. So both frontends share one implementation of every builtin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ...ir import types as ir
from ...ir.builder import Builder
from ...ir.datalayout import DataLayout
from ...ir.values import Block, ConstAggregate, ConstInt, GlobalVar, Instr, Module, Value
from ..c import ast
from ..c import c_types as ct
from ..c.builtins import table as bi
from ..c.c_types import ScalarKind as K
from ..c.layout import plain_type
from ..c.sema.generic_space import GENERIC_BUILTINS
from ..c.lower.builtin_calls import IMPLS, lower_builtin_call
from ..c.lower.helpers import convert, is_unsigned
from .binary import Instruction
from .grammar import ROUNDING_MODES
from ..c.builtins.printf_format import b_printf, expand_format

if TYPE_CHECKING:
    from .function import FunctionTranslator

_EXT_TEXT = """
0 acos 1 acosh 2 acospi 3 asin 4 asinh 5 asinpi 6 atan 7 atan2 8 atanh 9 atanpi 10 atan2pi
11 cbrt 12 ceil 13 copysign 14 cos 15 cosh 16 cospi 17 erfc 18 erf 19 exp 20 exp2 21 exp10
22 expm1 23 fabs 24 fdim 25 floor 26 fma 27 fmax 28 fmin 29 fmod 30 fract 31 frexp 32 hypot
33 ilogb 34 ldexp 35 lgamma 36 lgamma_r 37 log 38 log2 39 log10 40 log1p 41 logb 42 mad
43 maxmag 44 minmag 45 modf 46 nan 47 nextafter 48 pow 49 pown 50 powr 51 remainder 52 remquo
53 rint 54 rootn 55 round 56 rsqrt 57 sin 58 sincos 59 sinh 60 sinpi 61 sqrt 62 tan 63 tanh
64 tanpi 65 tgamma 66 trunc 67 half_cos 68 half_divide 69 half_exp 70 half_exp2 71 half_exp10
72 half_log 73 half_log2 74 half_log10 75 half_powr 76 half_recip 77 half_rsqrt 78 half_sin
79 half_sqrt 80 half_tan 81 native_cos 82 native_divide 83 native_exp 84 native_exp2
85 native_exp10 86 native_log 87 native_log2 88 native_log10 89 native_powr 90 native_recip
91 native_rsqrt 92 native_sin 93 native_sqrt 94 native_tan
95 clamp 96 degrees 97 max 98 min 99 mix 100 radians 101 step 102 smoothstep 103 sign
104 cross 105 distance 106 length 107 normalize 108 fast_distance 109 fast_length
110 fast_normalize
141 s_abs 142 s_abs_diff 143 s_add_sat 144 u_add_sat 145 s_hadd 146 u_hadd 147 s_rhadd
148 u_rhadd 149 s_clamp 150 u_clamp 151 clz 152 ctz 153 s_mad_hi 154 u_mad_sat 155 s_mad_sat
156 s_max 157 u_max 158 s_min 159 u_min 160 s_mul_hi 161 rotate 162 s_sub_sat 163 u_sub_sat
164 u_upsample 165 s_upsample 166 popcount 167 s_mad24 168 u_mad24 169 s_mul24 170 u_mul24
171 vloadn 172 vstoren 173 vload_half 174 vload_halfn 175 vstore_half 176 vstore_half_r
177 vstore_halfn 178 vstore_halfn_r 179 vloada_halfn 180 vstorea_halfn 181 vstorea_halfn_r
182 shuffle 183 shuffle2 184 printf 185 prefetch 186 bitselect 187 select
201 u_abs 202 u_abs_diff 203 u_mul_hi 204 u_mad_hi
"""
EXT_NAMES: dict[int, str] = {int(n): name for n, name in zip(_EXT_TEXT.split()[::2], _EXT_TEXT.split()[1::2])}


_INT_KINDS = {(8, True): K.CHAR, (8, False): K.UCHAR, (16, True): K.SHORT, (16, False): K.USHORT,
              (32, True): K.INT, (32, False): K.UINT, (64, True): K.LONG, (64, False): K.ULONG}
_FLOAT_KINDS = {16: K.HALF, 32: K.FLOAT, 64: K.DOUBLE}


def ctype_of(t: ir.Type, signed: bool = True) -> ct.CType:
    """The OpenCL C type of IR type `t` with the given signedness (integers)."""
    s = t.scalar()
    if isinstance(s, ir.FloatType):
        kind = _FLOAT_KINDS[s.bits]
    elif isinstance(s, ir.IntType) and s.bits == 1:
        kind = K.BOOL
    elif isinstance(s, ir.IntType):
        kind = _INT_KINDS[(s.bits, signed)]
    else:
        raise ValueError(f"no OpenCL C type for {t}")
    return ct.Vector(kind, t.count) if isinstance(t, ir.VectorType) else ct.Scalar(kind)


class TranslatorBuiltins:
    """The `BuiltinContext` of a SPIR-V function translation: the OpenCL C builtins'
    lowering builds with the translator's builder into its function."""

    def __init__(self, ft: FunctionTranslator) -> None:
        self.ft = ft

    @property
    def b(self) -> Builder:
        return self.ft.b

    @property
    def module(self) -> Module:
        return self.ft.module

    @property
    def layout(self) -> DataLayout:
        return self.ft.mt.layout

    def new_block(self, name: str) -> Block:
        return self.ft.fn.add_block(name)

    def after_terminator(self) -> None:
        self.b.position_at_end(self.new_block("dead"))

    def string_constant(self, data: bytes) -> Value:
        """A NUL-terminated string as constant data (printf's expanded format)."""
        body = data + b"\0"
        t = ir.ArrayType(ir.I8, len(body))
        init = ConstAggregate(t, [ConstInt(ir.I8, c) for c in body])
        name, n = ".str.spv", 0
        while self.module.get_global(name) is not None:
            name, n = f".str.spv.{n}", n + 1
        return self.module.add_global(GlobalVar(name, t, ir.AddressSpace.CONSTANT, init, True, 1))

    def convert(self, v: Value, frm: ct.CType, to: ct.CType) -> Value:
        return convert(self.b, v, frm, to)

    def lower_builtin_call(self, sig: bi.Builtin, args: list[Value], call: Optional[ast.Call]) -> Optional[Value]:
        return lower_builtin_call(self, sig, args, call)


def _builtin_name(name: str, instr: Instruction, args: list[Value]) -> str:
    """The OpenCL C name of a vector load (its width is an operand) or store (its data's width),
    with a store's rounding-mode operand as the name's suffix."""
    if name in _LOADS:
        return _LOADS[name] + str(instr.operands[-1])
    if name in _STORES:
        data = args[0]
        n = data.type.count if isinstance(data.type, ir.VectorType) else 1
        base = _STORES[name].format(n=n)
        if name.endswith("_r"):
            mode = ROUNDING_MODES.get(instr.operands[-1])
            if mode is None:
                raise instr.error(f"unknown rounding mode {instr.operands[-1]}")
            base += f"_{mode}"
        return base
    return name


_LOADS = {"vloadn": "vload", "vload_halfn": "vload_half", "vloada_halfn": "vloada_half"}
_STORES = {"vstoren": "vstore{n}", "vstore_halfn": "vstore_half{n}", "vstorea_halfn": "vstorea_half{n}",
           "vstore_halfn_r": "vstore_half{n}", "vstorea_halfn_r": "vstorea_half{n}",
           "vstore_half_r": "vstore_half"}
_WIDTH_OPERAND = ("vloadn", "vload_halfn", "vloada_halfn", "vstore_half_r", "vstore_halfn_r",
                  "vstorea_halfn_r")


def _matches(sig: bi.Builtin, ret: ir.Type, args: list[Value], signed: Optional[bool]) -> bool:
    if len(sig.params) != len(args):
        return False
    if sig.ret is not bi.ct.VOID and plain_type(sig.ret) != ret:
        return False
    for p, a in zip(sig.params, args):
        if plain_type(p) != a.type:
            return False
    if signed is not None:
        typed = next((t for t in (*sig.params, sig.ret) if not isinstance(t, bi.ct.Pointer)
                      and t is not bi.ct.VOID), None)
        if typed is not None and is_unsigned(typed) == signed:
            return False
    return True


def resolve(name: str, ret: ir.Type, args: list[Value], signed: Optional[bool] = None) -> Optional[bi.Builtin]:
    """The OpenCL C overload of builtin `name` (an `s_`/`u_` prefix gives the signedness)
    for these IR types; conversions and reinterpretations are made from their names."""
    if name[:2] in ("s_", "u_"):
        signed, name = name[0] == "s", name[2:]
    if name in GENERIC_BUILTINS:  # to_global/to_local/to_private/get_fence of a generic pointer
        ok = len(args) == 1 and args[0].type == ir.PtrType(ir.AddressSpace.GENERIC)
        return bi.Builtin(name, bi.ct.UINT, (), "generic_space") if ok else None
    target = bi.conversion_target(name)
    if target is not None and len(args) == 1:
        to, impl = target
        sig = bi.Builtin(name, to, (ctype_of(args[0].type, signed is not False),), impl)
        return sig if plain_type(to) == ret and args[0].type.is_vector() == ret.is_vector() else None
    for sig in bi.overloads(name):
        if _matches(sig, ret, args, signed):
            return sig
    return None


def lower_builtin(ft: FunctionTranslator, instr: Instruction, name: str, ret: ir.Type,
                  args: list[Value], signed: Optional[bool] = None, label: str = "") -> Optional[Value]:
    """Emit OpenCL C builtin `name` on `args` through the OpenCL C frontend's lowering;
    `label` names it in errors ("OpenCL.std sqrt", "builtin atomic_inc")."""
    label = label or f"builtin {name}"
    sig = resolve(name, ret, args, signed)
    if sig is None:
        shown = ", ".join(str(a.type) for a in args)
        raise instr.error(f"{label} has no form {ret} ({shown})")
    impl = IMPLS.get(sig.impl)
    if impl is None:
        raise instr.error(f"{label} is not supported")
    return impl(TranslatorBuiltins(ft), sig, args, None)


def is_debug_set(name: str) -> bool:
    """Extended instruction sets with no semantics (debug information): skipped."""
    return name.startswith("NonSemantic.") or name in ("OpenCL.DebugInfo.100", "DebugInfo")


def ext_inst(ft: FunctionTranslator, instr: Instruction) -> None:
    """OpExtInst: result type, result, set, instruction number, operands."""
    set_name = ft.mt.info.ext_imports.get(instr.operand(2))
    if set_name is None:
        raise instr.error(f"%{instr.operand(2)} is not an imported extended instruction set")
    if set_name != "OpenCL.std":
        if is_debug_set(set_name):  # debug information and the like: no effect
            ft.define(instr, None, ft.result_type(instr))
            return
        raise instr.error(f"extended instruction set '{set_name}' is not supported (only OpenCL.std)")
    number = instr.operand(3)
    name = EXT_NAMES.get(number)
    if name is None:
        raise instr.error(f"unknown OpenCL.std instruction {number}")
    if name == "prefetch":
        ft.define(instr, None, ft.result_type(instr))
        return
    if name == "printf":
        ft.define(instr, _printf(ft, instr))
        return
    ret = ft.result_type(instr).ir
    ids = instr.operands[4:]
    if name in _WIDTH_OPERAND:
        if not ids:
            raise instr.error(f"OpenCL.std {name} has no width or rounding-mode operand")
        ids = ids[:-1]
    if name in _STORES and not ids:
        raise instr.error(f"OpenCL.std {name} has no data operand")
    args = [ft.value(i) for i in ids]
    ft.define(instr, lower_builtin(ft, instr, _builtin_name(name, instr, args), ret, args,
                                   label=f"OpenCL.std {name}"))


def _format_bytes(v: Value) -> Optional[bytes]:
    """The bytes of a printf format that is constant data (a global, or its first element)."""
    while isinstance(v, Instr) and v.op == "getelementptr" and all(
            isinstance(i, ConstInt) and i.value == 0 for i in v.operands[1:]):
        v = v.operands[0]
    if not (isinstance(v, GlobalVar) and isinstance(v.initializer, ConstAggregate)):
        return None
    data = bytes(e.value for e in v.initializer.elements if isinstance(e, ConstInt))
    return data.split(b"\0", 1)[0] if len(data) == len(v.initializer.elements) else None


def _printf(ft: FunctionTranslator, instr: Instruction) -> Value:
    """printf(format, args...): the OpenCL C lowering, with the format's vector conversions
    expanded when the format is constant data (as it always is from OpenCL C)."""

    args = [ft.value(i) for i in instr.operands[4:]]
    if not args or not isinstance(args[0].type, ir.PtrType):
        raise instr.error("printf needs a format pointer as its first operand")
    fmt = _format_bytes(args[0])
    if fmt is not None:
        args[0] = TranslatorBuiltins(ft).string_constant(expand_format(fmt))
    variadic = bi.Builtin("printf", ct.INT, (), "printf")  # b_printf reads only the arguments' IR types
    return b_printf(TranslatorBuiltins(ft), variadic, args, None)
