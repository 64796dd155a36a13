"""printf's OpenCL format rules (OpenCL C 6.15.14) on top of C's printf.

OpenCL adds vector conversions: `%v4f`, `%v2hlx`, `%v8hhd` print each element
with the conversion, separated by commas, and the `hl` length modifier (32-bit
int or float elements of a vector). `expand_format` rewrites such a format for
C's printf (each vector conversion repeated per element, `hl` and `hh` dropped)
and tells which arguments are vectors to split; `format_problem` is the check
sema runs (what cannot run) and `format_warnings` clang's warnings (what still
runs); `b_printf` lowers the call to the `ocl.printf` intrinsic with the
rewritten format and the vector elements as separate arguments, one a
conversion (a zero, or an empty string for `%s`, where an argument is missing;
extra ones dropped). An `hh` conversion's argument is converted to char here
(sign- or zero-extended to int as the conversion is signed or not), so no
target's printf has to honour `hh` (CUDA's vprintf does not: it printed bytes
of the format string).
"""

from __future__ import annotations

import re
from typing import Optional

from ....ir import types as ir
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstFloat, ConstInt, Value
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
    """Why the call cannot be made at all (None when it can): what clang only warns about
    but would make printf read memory that is not there (`%s` of a non-pointer)."""
    specs = _specs(fmt)
    if any(m.group("width") == b"*" or (m.group("prec") or b"").endswith(b"*") for m in specs):
        return "'*' field widths and precisions are not supported in OpenCL printf"
    for m, t in zip(specs, arg_types):
        if m.group("conv") == b"s" and m.group("vec") is None and not isinstance(t, ct.Pointer):
            return f"format specifies type 'char *' but the argument has type '{t}'"
    return None


def format_warnings(fmt: bytes, arg_types: list[ct.CType]) -> list[tuple[str, int, str]]:
    """clang's -Wformat warnings for an OpenCL format, each where clang puts it:
    ("arg", index of the argument, message) or ("fmt", offset of the conversion in the
    format, message). printf still runs: `b_printf` gives a conversion without an
    argument a zero, and an unused argument is dropped."""
    specs = _specs(fmt)
    out: list[tuple[str, int, str]] = []
    for n, (m, t) in enumerate(zip(specs, arg_types)):
        vec, length, conv = m.group("vec"), m.group("len"), m.group("conv").decode()
        want = _wanted_type(conv, length, int(vec[1:]) if vec else 0)
        if vec is not None:
            if not isinstance(t, ct.Vector) or t.count != int(vec[1:]) or not _fits(conv, length, t):
                out.append(("arg", n, f"format specifies type '{want}' but the argument has type '{t}'"))
        elif isinstance(t, ct.Vector):
            out.append(("arg", n, f"format specifies type '{want}' but the argument has type '{t}'"))
        elif length == b"hl":
            out.append(("fmt", m.start(), f"length modifier 'hl' results in undefined behavior or no effect "
                                          f"with '{conv}' conversion specifier"))
    if len(specs) > len(arg_types):
        out.append(("fmt", specs[len(arg_types)].start(), "more '%' conversions than data arguments"))
    elif len(specs) < len(arg_types):
        out.append(("arg", len(specs), "data argument not used by format string"))
    return out


def _wanted_type(conv: str, length: Optional[bytes], count: int) -> str:
    if conv in "fFeEgGaA":
        base = {b"h": "half", b"hl": "float"}.get(length or b"", "double")
    elif conv in "sp":
        base = "char *" if conv == "s" else "void *"
    else:
        base = {b"hh": "char", b"h": "short", b"hl": "int", b"l": "long", b"ll": "long"}.get(length or b"", "int")
        base = ("u" + base) if conv in "ouxX" else base
    return f"{base}{count}" if count else base


def _fits(conv: str, length: Optional[bytes], t: ct.Vector) -> bool:
    """Whether vector `t`'s elements fit a vector conversion: its length modifier names
    their size (none: 4-byte integers, 8-byte floats, as clang reads it)."""
    is_float = conv in "fFeEgGaA"
    if is_float != t.elem.is_float:
        return False
    size = {b"hh": 1, b"h": 2, b"hl": 4, b"l": 8, b"ll": 8}.get(length or b"", 8 if is_float else 4)
    return bool(t.elem.size == size)


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
        elements = cx.b.scalars([a])
        if n < len(specs) and specs[n].group("len") == b"hh":
            elements = [_as_char(cx, v, specs[n].group("conv")) for v in elements]
        out.extend(elements)
    if fmt is not None:
        out = out[:1] + _pad(cx, expand_format(fmt), out[1:])
    fn = declare_intrinsic(cx.module, "printf", ir.I32, [out[0].type])
    fn.attrs["variadic"] = True
    return cx.b.call(fn, out)


def _pad(cx: BuiltinContext, expanded: bytes, args: list[Value]) -> list[Value]:
    """One argument per conversion of the expanded format: extra arguments dropped, a
    missing one a zero of the conversion's kind (an empty string for `%s`)."""
    convs = [m.group("conv") for m in _specs(expanded)]
    args = args[:len(convs)]
    for conv in convs[len(args):]:
        if conv == b"s":
            args.append(cx.string_constant(b""))
        elif conv[0] in _FLOAT_CONV:
            args.append(ConstFloat(ir.F64, 0.0))
        else:
            args.append(ConstInt(ir.I64 if conv == b"p" else ir.I32, 0))
    return args


PRINTF_IMPLS: dict[str, BuiltinImpl] = {"printf": b_printf}
