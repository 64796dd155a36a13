"""Semantic analysis of casts, vector literals, swizzles and sizeof/alignof/vec_step.

Functions of a `SemaContext` (`check_cast`, `check_vector_literal`,
`check_sizeof`, `check_swizzle`): explicit casts follow OpenCL's rules (no casts
between vector types, no casts between named address spaces nor between `__constant`
and generic), vector literals
flatten their components, and a swizzle (`.xyzw`, `.rgba`, `.s0..sF`, `.lo .hi
.even .odd`) records its element indices in `Member.swizzle` (`.rgba` is OpenCL C
3.0's; before 3.0 it is clang's warning, and the kernel builds as clang's does).
"""

from __future__ import annotations

from typing import Optional

from ....ir.datalayout import DataLayout
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..layout import LayoutError, align_of, size_of
from ..opaque_types import is_event
from .conversions import convert
from .folding import fold_int
from .sema_context import SemaContext
from .half_uses import check_half_cast


def _swizzle_indices(name: str, count: int) -> Optional[tuple[int, ...]] | str:
    """Element indices of a swizzle, or an error message."""
    padded = 4 if count == 3 else count
    half = padded // 2
    named = {"lo": tuple(range(half)), "hi": tuple(range(half, padded)),
             "even": tuple(range(0, padded, 2)), "odd": tuple(range(1, padded, 2))}
    if name in named:
        return tuple(i if i < count else -1 for i in named[name])
    if name[0] in "sS" and len(name) > 1:
        idx = []
        for c in name[1:]:
            v = int(c, 16) if c in "0123456789abcdefABCDEF" else None
            if v is None:
                return f"illegal vector component name '{c}'"
            idx.append(v)
    else:
        letters = "rgba" if name[0] in "rgba" else "xyzw"  # rgba: OpenCL C 3.0's, clang takes it earlier
        idx = []
        for c in name:
            if c not in letters:
                return f"illegal vector component name '{c}'"
            idx.append(letters.index(c))
    if any(i >= count for i in idx):
        return "vector component access exceeds type '{t}'"
    return tuple(idx)


def check_swizzle(cx: SemaContext, e: ast.Member, bt: ct.Vector) -> ast.Expr:
    res = _swizzle_indices(e.name, bt.count)
    letter = next((c for c in e.name if c in "rgba"), None) if e.name[0] in "rgbaxyzw" else None
    if letter is not None and getattr(cx.options, "opencl_c_version", 120) < 300:
        cx.diags.warning(e.loc, f"vector component name '{letter}' is a feature from OpenCL version 3.0 "
                                "onwards")  # clang-14's words
    if isinstance(res, str) or res is None:
        return cx.error(e, (res or "illegal vector component name").format(t=bt.unqualified()))
    n = len(res)
    if n not in (1, 2, 3, 4, 8, 16):
        return cx.error(e, f"vector component access has invalid length {n}")
    e.swizzle = res
    elem = ct.Scalar(bt.elem) if n == 1 else ct.Vector(bt.elem, n)
    e.ctype = st.object_type(elem, bt.space, bt.const, bt.volatile)
    e.is_lvalue = e.base.is_lvalue
    return e


# -- casts, vector literals, sizeof -------------------------------------
def check_cast(cx: SemaContext, e: ast.Cast) -> ast.Expr:
    e.to = cx.spaces(e.to)
    e.operand = cx.value(e.operand)
    frm, to = e.operand.ctype, e.to
    if st.is_error(frm) or st.is_error(to):
        e.ctype = st.ERROR
        return e
    assert frm is not None
    if is_event(to) and not st.same_unqualified(frm, to):
        return _event_cast(cx, e)
    err = _cast_error(frm, to)
    if err:
        return cx.error(e, err)
    if not check_half_cast(cx, to, e.operand):
        e.ctype = st.ERROR
        return e
    if st.is_vector(to) and not st.is_vector(frm):
        e.operand = convert(e.operand, to)
    e.ctype = to.unqualified()
    return e


def _event_cast(cx: SemaContext, e: ast.Cast) -> ast.Expr:
    """`(event_t)0`, the null event that starts a chain of async copies (as clang: an integer
    constant of another value is an error, and so is anything else)."""
    value = fold_int(e.operand) if st.is_integer(e.operand.ctype or st.ERROR) else None
    if value is None:
        return cx.error(e, f"used type '{e.to.unqualified()}' where arithmetic or pointer type is required")
    if value != 0:
        return cx.error(e, f"cannot cast non-zero value '{value}' to 'event_t'")
    e.ctype = e.to.unqualified()
    return e


def _cast_error(frm: CType, to: CType) -> Optional[str]:
    if st.is_void(to):
        return None
    if st.is_vector(frm) or st.is_vector(to):
        if st.same_unqualified(frm, to) or (st.is_vector(to) and st.is_arith(frm)):
            return None
        return f"invalid conversion between vector type '{frm}' and '{to}'"
    if isinstance(frm, ct.Pointer) and isinstance(to, ct.Pointer):
        fs, ts = st.pointee_space(frm), st.pointee_space(to)
        if fs != ts and (AddressSpace.GENERIC not in (fs, ts) or AddressSpace.CONSTANT in (fs, ts)):
            return f"casting '{frm}' to type '{to}' changes address space of pointer"
        return None
    if st.is_scalar(frm) and st.is_scalar(to):
        if (st.is_pointer(frm) and st.is_floating(to)) or (st.is_pointer(to) and st.is_floating(frm)):
            return f"operand of type '{frm}' cannot be cast to a pointer type" if st.is_pointer(to) \
                else f"pointer cannot be cast to type '{to}'"
        return None
    if st.same_unqualified(frm, to):
        return None
    if st.is_scalar(to):
        return f"operand of type '{frm}' where arithmetic or pointer type is required"
    return f"used type '{to}' where arithmetic or pointer type is required"


def check_vector_literal(cx: SemaContext, e: ast.VectorLiteral) -> ast.Expr:
    to = e.to.unqualified()
    if not isinstance(to, ct.Vector):
        return cx.error(e, f"'{to}' is not a vector type")
    comps = [cx.value(c) for c in e.components]
    if any(st.is_error(c.ctype) for c in comps):
        e.ctype = st.ERROR
        return e
    if len(comps) == 1 and not st.is_vector(comps[0].ctype) and not e.braced:  # type: ignore[arg-type]
        e.components = [convert(comps[0], ct.Scalar(to.elem))]
        e.ctype = to
        return e
    total = 0
    out = []
    for c in comps:
        ctp = c.ctype
        if isinstance(ctp, ct.Vector):
            if ctp.elem is not to.elem:
                return cx.error(c, f"cannot convert vector of type '{ctp}' to element type '{to.elem.spelling}'")
            total += ctp.count
            out.append(c)
        elif st.is_arith(ctp):  # type: ignore[arg-type]
            total += 1
            out.append(convert(c, ct.Scalar(to.elem)))
        else:
            return cx.error(c, f"invalid vector element of type '{ctp}'")
    if e.braced and total == 0:  # `(float4){}`: zero
        zero = cx.value(ast.IntLiteral(e.loc, 0))
        out += [convert(zero, ct.Scalar(to.elem)) for _ in range(to.count)]
        total = to.count
    if e.braced and total > to.count:  # clang's words, at the first element past the end
        seen, excess = 0, comps[-1]
        for c in comps:
            if seen >= to.count:
                excess = c
                break
            seen += c.ctype.count if isinstance(c.ctype, ct.Vector) else 1
        return cx.error(excess, "excess elements in vector initializer")
    if total != to.count:  # `(float4){a, b}` too, as clang: at its brace
        word = "few" if total < to.count else "many"
        cx.diags.error(e.brace_loc or e.loc, f"too {word} elements in vector initialization (expected "
                       f"{to.count} elements, have {total})")
        e.ctype = st.ERROR
        return e
    e.components = out
    e.ctype = to
    return e


def check_sizeof(cx: SemaContext, e: ast.SizeOf) -> ast.Expr:
    if isinstance(e.operand, ast.Expr):
        e.operand = cx.check(e.operand)
        t = e.operand.ctype
    else:
        e.operand = cx.spaces(e.operand)
        t = e.operand
    if st.is_error(t):
        e.ctype = st.ERROR
        return e
    assert t is not None
    if e.kind == "vec_step" and not isinstance(t, (ct.Scalar, ct.Vector, ct.Void, ct.Enum)):
        where = e.operand if isinstance(e.operand, ast.Expr) else e
        cx.error(where, f"'vec_step' requires built-in scalar or vector type, '{t}' invalid")
        e.ctype = st.ERROR
        return e
    if e.kind != "vec_step" and not st.is_complete_object(t):
        what = "sizeof" if e.kind == "sizeof" else "alignof"
        return cx.error(e, f"invalid application of '{what}' to an incomplete type '{t}'")
    e.ctype = ct.UINT if e.kind == "vec_step" else ct.SIZE_T
    e.value = size_value(e.kind, t, cx.layout)
    return e


def size_value(kind: str, t: CType, dl: DataLayout) -> Optional[int]:
    """sizeof, alignof or vec_step of complete type `t` under the target's layout."""
    if kind == "vec_step":
        return 4 if isinstance(t, ct.Vector) and t.count == 3 else getattr(t, "count", 1)
    try:
        return size_of(t, dl) if kind == "sizeof" else align_of(t, dl)
    except LayoutError:
        return None
