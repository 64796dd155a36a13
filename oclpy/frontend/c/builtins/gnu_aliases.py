"""The C library builtins clang accepts in OpenCL C (`__builtin_clz`, `__builtin_sqrtf`,
`__builtin_isnan`, `__builtin_bswap32`, `__builtin_ffs`, `__builtin_abs`, ...), as data:
each names the OpenCL builtin of the same meaning and its own C signature (`int
__builtin_clzll(unsigned long long)` is OpenCL's `ulong clz(ulong)` with the result
converted to int). The lowering runs the OpenCL builtin's implementation and converts;
`bswap` and `ffs`, which OpenCL C lacks, are built from shifts and `ctz`, and
`bitreverse{8,16,32,64}` from masks and shifts (halves swapped, then quarters, down to
single bits); `parity` is popcount's low bit; `rotateleft{8,16,32,64}` is OpenCL's
`rotate`, `rotateright` `rotate` by the negated count (both take the count modulo the
width, as clang does). clang's half conversions through a pointer
(`__builtin_store_halff(float, half *)`, `__builtin_store_half(double, half *)`,
`__builtin_load_halff(half *)`, `__builtin_load_half(half *)`, in any address space)
are vstore_half/vload_half at offset 0 (round to nearest even, as clang's fptrunc).
The `f16` spellings clang 23 takes with `cl_khr_fp16` (`__builtin_sqrtf16`, ...) are the
half overloads; `__builtin_frexpf(float, int *)`, `__builtin_modff(float, float *)` and
`__builtin_remquof(float, float, int *)` (and their double forms) take a pointer into
global, local, private or generic memory, as clang does for a builtin's pointer parameter
(clang also takes a pointer to constant memory, which they would write; oclpy does not);
`__builtin_canonicalizef` is `x * 1.0` (the IEEE canonical encoding: a signalling NaN made
quiet; oclpy keeps denormals). `__builtin_roundeven{f,,f16}` is `rint` (OpenCL rounds to
nearest even); `__builtin_fmaximum_num{f,,f16}` and `__builtin_fminimum_num*` are IEEE
754-2019's maximumNumber and minimumNumber: a NaN operand yields the other (NaN only when
both are), and -0 < +0.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Optional

from ....ir import types as ir
from ....ir.values import ConstFloat, ConstInt, Value
from .. import ast
from . import table as bi
from .. import c_types as ct
from .table import Builtin
from ..c_types import CType
from .builtin_context import BuiltinContext, BuiltinImpl

_BITS: list[tuple[str, CType]] = [("", ct.UINT), ("l", ct.ULONG), ("ll", ct.ULONG)]
# clang's OpenCL `long long` is 128 bits wide: clzll and ctzll count in 128 bits.
_WIDE_COUNTS = frozenset(["__builtin_clzll", "__builtin_ctzll"])
_MATH = {1: "fabs sqrt exp exp2 log log2 log10 sin cos tan asin acos atan sinh cosh tanh floor ceil trunc "
            "round rint cbrt expm1 log1p erf erfc tgamma lgamma logb",
         2: "pow fmin fmax fmod copysign atan2 hypot fdim nextafter remainder",
         3: "fma"}


# the `f16` spellings clang 23 declares (with the half type of cl_khr_fp16)
_HALF_MATH = {1: "fabs sqrt exp exp2 exp10 log log2 log10 sin cos tan asin acos atan sinh cosh tanh floor ceil "
                 "trunc round rint",
              2: "pow fmin fmax fmod copysign atan2",
              3: "fma"}
_REAL = (("f", ct.FLOAT), ("", ct.DOUBLE), ("f16", ct.HALF))


def _rows() -> list[tuple[str, str, CType, tuple[CType, ...]]]:
    """(GNU name, OpenCL name, GNU result type, parameter types)."""
    rows: list[tuple[str, str, CType, tuple[CType, ...]]] = [
        (f"__builtin_{op}{suffix}", op, ct.INT, (t,)) for op in ("clz", "ctz", "popcount") for suffix, t in _BITS]
    for arity, names in _MATH.items():
        for name in names.split():
            rows.append((f"__builtin_{name}f", name, ct.FLOAT, (ct.FLOAT,) * arity))
            rows.append((f"__builtin_{name}", name, ct.DOUBLE, (ct.DOUBLE,) * arity))
    for arity, names in _HALF_MATH.items():
        rows += [(f"__builtin_{name}f16", name, ct.HALF, (ct.HALF,) * arity) for name in names.split()]
    for suffix, t in _REAL:
        rows.append((f"__builtin_ldexp{suffix}", "ldexp", t, (t, ct.INT)))
        rows += [(f"__builtin_frexp{suffix}", "frexp", t, b.params) for b in bi.overloads("frexp")
                 if b.params[0] == t]
        rows.append((f"__builtin_roundeven{suffix}", "rint", t, (t,)))
        if t != ct.HALF:  # clang 23 has no modff16, remquof16
            rows += [(f"__builtin_{name}{suffix}", name, t, b.params) for name in ("modf", "remquo")
                     for b in bi.overloads(name) if b.params[0] == t]
    rows += [(f"__builtin_{name}", name, ct.INT, (t,)) for name in ("isnan", "isinf", "isfinite", "signbit")
             for t in (ct.FLOAT, ct.DOUBLE)]
    rows += [(f"__builtin_{name}", "abs", t, (t,)) for name, t in (("abs", ct.INT), ("labs", ct.LONG),
                                                                    ("llabs", ct.LONG))]
    return rows


@lru_cache(maxsize=1)
def _table() -> tuple[dict[str, list[Builtin]], dict[Builtin, Builtin]]:
    """GNU name -> its signatures, and each signature -> the OpenCL builtin it runs."""
    table: dict[str, list[Builtin]] = {}
    targets: dict[Builtin, Builtin] = {}
    for gnu, name, ret, params in _rows():
        target = next(b for b in bi.overloads(name) if b.params == params)
        sig = Builtin(gnu, ret, params, "gnu_wide_count" if gnu in _WIDE_COUNTS else "gnu_alias")
        table.setdefault(gnu, []).append(sig)
        targets[sig] = target
    for t, suffix in ((ct.USHORT, "16"), (ct.UINT, "32"), (ct.ULONG, "64")):
        table[f"__builtin_bswap{suffix}"] = [Builtin(f"__builtin_bswap{suffix}", t, (t,), "gnu_bswap")]
    for target in bi.overloads("vstore_half"):
        data, _, pointer = target.params
        sig = Builtin("__builtin_store_half" + ("f" if data == ct.FLOAT else ""), ct.VOID, (data, pointer),
                      "gnu_store_half")
        table.setdefault(sig.name, []).append(sig)
        targets[sig] = target
    for target in bi.overloads("vload_half"):
        for gnu, ret in (("__builtin_load_halff", ct.FLOAT), ("__builtin_load_half", ct.DOUBLE)):
            sig = Builtin(gnu, ret, target.params[1:], "gnu_load_half")
            table.setdefault(gnu, []).append(sig)
            targets[sig] = target
    for t, suffix in ((ct.INT, ""), (ct.LONG, "l"), (ct.LONG, "ll")):
        sig = Builtin(f"__builtin_ffs{suffix}", ct.INT, (t,), "gnu_ffs")
        table[sig.name] = [sig]
        targets[sig] = Builtin("ctz", t, (t,), "bitcount")
    for suffix, t in _BITS:
        sig = Builtin(f"__builtin_parity{suffix}", ct.INT, (t,), "gnu_parity")
        table[sig.name] = [sig]
        targets[sig] = next(b for b in bi.overloads("popcount") if b.params == (t,))
    for t, bits in ((ct.UCHAR, 8), (ct.USHORT, 16), (ct.UINT, 32), (ct.ULONG, 64)):
        for way in ("left", "right"):
            sig = Builtin(f"__builtin_rotate{way}{bits}", t, (t, t), "gnu_rotate")
            table[sig.name] = [sig]
            targets[sig] = next(b for b in bi.overloads("rotate") if b.params == (t, t))
        table[f"__builtin_bitreverse{bits}"] = [Builtin(f"__builtin_bitreverse{bits}", t, (t,), "gnu_bitreverse")]
    for suffix, t in _REAL:
        sig = Builtin(f"__builtin_canonicalize{suffix}", t, (t,), "gnu_canonicalize")
        table[sig.name] = [sig]
        for name in ("fmaximum_num", "fminimum_num"):
            sig = Builtin(f"__builtin_{name}{suffix}", t, (t, t), "gnu_maximum_num")
            table[sig.name] = [sig]
    return table, targets


def alias_overloads(name: str) -> list[Builtin]:
    """The signatures of C library builtin `name` (empty for other names)."""
    return _table()[0].get(name, []) if name.startswith("__builtin_") else []


def _run(cx: BuiltinContext, target: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    result = cx.lower_builtin_call(target, args, e)
    assert result is not None
    return result


def b_alias(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    target = _table()[1][sig]
    return cx.convert(_run(cx, target, args, e), target.ret, sig.ret)


def b_wide_count(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """clzll/ctzll of a 64-bit value counted in clang's 128-bit `long long`."""
    target = _table()[1][sig]
    x = args[0]
    count = _run(cx, target, args, e)
    if target.name == "clz":
        count = cx.b.binop("add", count, ConstInt(x.type, 64))
    else:
        count = cx.b.select(cx.b.icmp("eq", x, ConstInt(x.type, 0)), ConstInt(x.type, 128), count)
    return cx.convert(count, target.ret, sig.ret)


def b_bswap(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    assert isinstance(x.type, ir.IntType)
    n = x.type.bits // 8
    out: Optional[Value] = None
    for i in range(n):
        byte = cx.b.binop("and", cx.b.binop("lshr", x, ConstInt(x.type, 8 * i)), ConstInt(x.type, 0xFF))
        moved = cx.b.binop("shl", byte, ConstInt(x.type, 8 * (n - 1 - i)))
        out = moved if out is None else cx.b.binop("or", out, moved)
    assert out is not None
    return out


def b_bitreverse(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """The bits of x in reverse order: swap the halves, then within each half its halves,
    down to neighbouring bits (log2 of the width steps of two masks and shifts)."""
    x = args[0]
    assert isinstance(x.type, ir.IntType)
    width = x.type.bits
    ones = (1 << width) - 1
    step = width // 2
    while step:
        low = 0  # the low `step` bits of every 2*step-bit group
        for group in range(0, width, 2 * step):
            low |= ((1 << step) - 1) << group
        kept_low = cx.b.binop("and", x, ConstInt(x.type, low))
        kept_high = cx.b.binop("and", x, ConstInt(x.type, ones & ~low))
        x = cx.b.binop("or", cx.b.binop("shl", kept_low, ConstInt(x.type, step)),
                       cx.b.binop("lshr", kept_high, ConstInt(x.type, step)))
        step //= 2
    return x


def b_ffs(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """ffs(x): one plus the index of the lowest set bit, 0 for 0."""
    target = _table()[1][sig]
    x = args[0]
    one_based = cx.b.binop("add", _run(cx, target, args, e), ConstInt(x.type, 1))
    found = cx.b.select(cx.b.icmp("eq", x, ConstInt(x.type, 0)), ConstInt(x.type, 0), one_based)
    return cx.convert(found, target.ret, sig.ret)


def b_parity(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """parity(x): 1 when x has an odd number of set bits."""
    target = _table()[1][sig]
    odd = cx.b.binop("and", _run(cx, target, args, e), ConstInt(args[0].type, 1))
    return cx.convert(odd, target.ret, sig.ret)


def b_rotate(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x, n = args
    if "right" in sig.name:  # by w - n, modulo w: rotate takes the count modulo the width
        n = cx.b.binop("sub", ConstInt(n.type, 0), n)
    return _run(cx, _table()[1][sig], [x, n], e)


def b_store_half(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    data, pointer = args
    return _run(cx, _table()[1][sig], [data, ConstInt(ir.I64, 0), pointer], e)


def b_load_half(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    target = _table()[1][sig]
    return cx.convert(_run(cx, target, [ConstInt(ir.I64, 0), args[0]], e), target.ret, sig.ret)


def b_canonicalize(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    x = args[0]
    return cx.b.binop("fmul", x, ConstFloat(x.type, 1.0))


def b_maximum_num(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    """maximumNumber (minimumNumber): the larger (smaller) operand, the other one when
    one is a NaN, and of two zeros +0 (-0)."""
    x, y = args
    assert isinstance(x.type, ir.FloatType)
    b, bits = cx.b, ir.IntType(x.type.bits)
    x_negative = b.icmp("slt", b.cast("bitcast", x, bits), ConstInt(bits, 0))
    if "fmaximum" in sig.name:
        ordered = b.select(b.fcmp("ogt", x, y), x, b.select(b.fcmp("olt", x, y), y, b.select(x_negative, y, x)))
    else:
        ordered = b.select(b.fcmp("olt", x, y), x, b.select(b.fcmp("ogt", x, y), y, b.select(x_negative, x, y)))
    either = b.select(b.fcmp("uno", y, y), x, ordered)
    return b.select(b.fcmp("uno", x, x), y, either)


ALIAS_IMPLS: dict[str, BuiltinImpl] = {
    "gnu_alias": b_alias, "gnu_wide_count": b_wide_count, "gnu_bswap": b_bswap, "gnu_ffs": b_ffs,
    "gnu_store_half": b_store_half, "gnu_load_half": b_load_half, "gnu_canonicalize": b_canonicalize,
    "gnu_maximum_num": b_maximum_num, "gnu_parity": b_parity, "gnu_rotate": b_rotate,
    "gnu_bitreverse": b_bitreverse,
}
