"""printf's OpenCL format rules (OpenCL C 6.15.14) on top of C's printf.

OpenCL adds vector conversions: `%v4f`, `%v2hlx`, `%v8hhd` print each element
with the conversion, separated by commas, and the `hl` length modifier (32-bit
int or float elements of a vector). `expand_format` rewrites such a format for
C's printf (each vector conversion repeated per element, `hl` and `hh` dropped)
and tells which arguments are vectors to split; `format_problem` is the check
sema runs; `b_printf` lowers the call to the `ocl.printf` intrinsic with the
rewritten format and the vector elements as separate arguments. An `hh`
conversion's argument is converted to char here (sign- or zero-extended to int
as the conversion is signed or not), so no target's printf has to honour `hh`
(CUDA's vprintf does not: it printed bytes of the format string).
"""

from __future__ import annotations

import re
from typing import Optional

from ....ir import types as ir
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstInt, Value
from .. import ast
from . import table as bi
from .. import c_types as ct
from .builtin_context import BuiltinContext, BuiltinImpl

_SPEC = re.compile(rb"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?P<prec>\.(?:\*|\d+))?"
                   rb"(?P<vec>v(?:16|2|3|4|8))?(?P<len>hh|hl|h|ll|l)?(?P<conv>[diouxXfFeEgGaAcsp%])")
_FLOAT_CONV = set(b"fFeEgGaA")


def _specs(fmt: bytes) -> list[re.Match[bytes]]:
    return [m for m in _SPEC.finditer(fmt) if m.group("conv") != b"%"]


def format_problem(fmt: bytes, arg_types: list[ct.CType]) -> Optional[str]:
    """Why the arguments do not fit the format (None when they do)."""
    specs = _specs(fmt)
    if any(m.group("width") == b"*" or (m.group("prec") or b"").endswith(b"*") for m in specs):
        return "'*' field widths and precisions are not supported in OpenCL printf"
    if len(specs) != len(arg_types):
        return f"format string has {len(specs)} conversion(s) but {len(arg_types)} argument(s) follow it"
    for n, (m, t) in enumerate(zip(specs, arg_types), 1):
        vec = m.group("vec")
        spec = m.group(0).decode("latin-1")
        if vec is not None:
            if not isinstance(t, ct.Vector) or t.count != int(vec[1:]):
                return f"'{spec}' expects a vector of {int(vec[1:])} elements, argument {n} has type '{t}'"
            if m.group("len") is None and m.group("conv")[0] not in _FLOAT_CONV:
                return f"vector conversion '{spec}' needs a length modifier (hh, h, hl or l)"
        elif isinstance(t, ct.Vector):
            return f"argument {n} of type '{t}' needs a vector conversion such as '%v{t.count}...'"
        elif m.group("len") == b"hl":
            return f"the 'hl' length modifier is only valid with a vector conversion ('{spec}')"
    return None


def expand_format(fmt: bytes) -> bytes:
    """The C printf format for an OpenCL format: vector conversions repeated per element."""
    def one(m: re.Match[bytes]) -> bytes:
        if m.group("conv") == b"%":
            return m.group(0)
        length = m.group("len") or b""
        if length in (b"hl", b"hh"):
            length = b""
        body = b"%" + (m.group("flags") or b"") + (m.group("width") or b"") + (m.group("prec") or b"") + length + m.group("conv")
        vec = m.group("vec")
        return b",".join([body] * int(vec[1:])) if vec else body
    return _SPEC.sub(one, fmt)


def _format_literal(e: ast.Expr) -> Optional[bytes]:
    while isinstance(e, ast.ImplicitCast):
        e = e.operand
    return e.value if isinstance(e, ast.StringLiteral) else None


def _as_char(cx: BuiltinContext, v: Value, conv: bytes) -> Value:
    """An `hh` conversion's argument as C's printf sees it: converted to (unsigned)
    char, then promoted to int."""
    if not isinstance(v.type, ir.IntType):
        return v
    if v.type.bits > 8:
        v = cx.b.cast("trunc", v, ir.I8)
    return cx.b.cast("sext" if conv in (b"d", b"i") else "zext", v, ir.I32)


def b_printf(cx: BuiltinContext, sig: bi.Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    fmt = _format_literal(e.args[0]) if e is not None else None
    out: list[Value] = [args[0]]
    if fmt is not None:
        out = [cx.string_constant(expand_format(fmt))]
    specs = _specs(fmt) if fmt is not None else []
    for n, a in enumerate(args[1:]):
        elements = ([cx.b.extractelement(a, ConstInt(ir.I32, i)) for i in range(a.type.count)]
                    if isinstance(a.type, ir.VectorType) else [a])
        if n < len(specs) and specs[n].group("len") == b"hh":
            elements = [_as_char(cx, v, specs[n].group("conv")) for v in elements]
        out.extend(elements)
    fn = declare_intrinsic(cx.module, "printf", ir.I32, [out[0].type])
    fn.attrs["variadic"] = True
    return cx.b.call(fn, out)


PRINTF_IMPLS: dict[str, BuiltinImpl] = {"printf": b_printf}
