"""Implicit conversions: wrapping typed expressions in `ImplicitCast` nodes.

`to_rvalue` applies lvalue-to-rvalue and array decay; `convert` inserts the
cast that turns an rvalue of one type into another (the cast kind names the
IR conversion lowering will emit); `assign_convert` checks C's assignment
rules (OpenCL address spaces included) and reports them in clang's words for
each context: assignment, initialisation, argument passing and return.
"""

from __future__ import annotations

from typing import Optional

from ....diagnostics import DiagnosticEngine, SourceLocation
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..opaque_types import is_event, is_sampler

# context -> (incompatible, address space change, incompatible pointer warning, int<->pointer)
MESSAGES = {
    "assign": ("assigning to '{to}' from incompatible type '{frm}'",
               "assigning '{frm}' to '{to}' changes address space of pointer",
               "incompatible pointer types assigning to '{to}' from '{frm}'",
               "incompatible integer to pointer conversion assigning to '{to}' from '{frm}'"),
    "init": ("initializing '{to}' with an expression of incompatible type '{frm}'",
             "initializing '{to}' with an expression of type '{frm}' changes address space of pointer",
             "incompatible pointer types initializing '{to}' with an expression of type '{frm}'",
             "incompatible integer to pointer conversion initializing '{to}' with an expression of type '{frm}'"),
    "pass": ("passing '{frm}' to parameter of incompatible type '{to}'",
             "passing '{frm}' to parameter of type '{to}' changes address space of pointer",
             "incompatible pointer types passing '{frm}' to parameter of type '{to}'",
             "incompatible integer to pointer conversion passing '{frm}' to parameter of type '{to}'"),
    "return": ("returning '{frm}' from a function with incompatible result type '{to}'",
               "returning '{frm}' from a function with result type '{to}' changes address space of pointer",
               "incompatible pointer types returning '{frm}' from a function with result type '{to}'",
               "incompatible integer to pointer conversion returning '{frm}' from a function with result type '{to}'"),
}


def cast(e: ast.Expr, kind: str, to: CType) -> ast.Expr:
    return ast.ImplicitCast(e.loc, kind, e, ctype=to)


def to_rvalue(e: ast.Expr) -> ast.Expr:
    t = e.ctype
    if st.is_error(t):
        return e
    assert t is not None
    if isinstance(t, ct.Array):
        return cast(e, "array-decay", st.decay(t))
    if isinstance(t, ct.FunctionType):
        return e
    if e.is_lvalue:
        return cast(e, "lvalue-to-rvalue", t.unqualified())
    return e


def conversion_kind(frm: CType, to: CType) -> Optional[str]:
    """The ImplicitCast kind converting `frm` to `to`, None when no cast is needed."""
    if st.same_unqualified(frm, to):
        return None
    if isinstance(to, ct.Scalar) and to.kind is ct.ScalarKind.BOOL:
        return "to-bool"
    if st.is_vector(to) and not st.is_vector(frm):
        return "splat"
    if st.is_arith(frm) and st.is_arith(to):
        ff, tf = st.is_floating(frm), st.is_floating(to)
        return {(False, False): "int", (True, True): "float", (False, True): "int-to-float",
                (True, False): "float-to-int"}[(ff, tf)]
    if st.is_pointer(frm) and st.is_pointer(to):
        if st.pointee_space(to) is AddressSpace.GENERIC and st.pointee_space(frm) is not AddressSpace.GENERIC:  # type: ignore[arg-type]
            return "addrspace"
        return "pointer"
    if st.is_integer(frm) and st.is_pointer(to):
        return "null-to-pointer"
    return "pointer"


def convert(e: ast.Expr, to: CType) -> ast.Expr:
    """Convert rvalue `e` to type `to` (the caller has checked that it may)."""
    frm = e.ctype
    if st.is_error(frm) or st.is_error(to):
        return e
    assert frm is not None
    to = to.unqualified()
    kind = conversion_kind(frm, to)
    if kind is None:
        return e
    if kind == "splat":
        elem = st.element_type(to)
        return cast(convert(e, elem), "splat", to)
    return cast(e, kind, to)


def is_null_constant(e: ast.Expr) -> bool:
    """0, or 0 cast to an integer type or to `void *` in the default space (`(void *)0`, NULL);
    `(global void *)0` is a null pointer into global memory only, as in clang."""
    while isinstance(e, ast.ImplicitCast) or isinstance(e, ast.Cast):
        if isinstance(e, ast.Cast) and not (_void_pointer_in_default_space(e.to) or st.is_integer(e.to)):
            return False
        e = e.operand
    return isinstance(e, ast.IntLiteral) and e.value == 0


def _void_pointer_in_default_space(t: CType) -> bool:
    pointee = getattr(t, "pointee", None)
    return pointee is not None and st.is_void(pointee) and \
        pointee.space in (None, AddressSpace.PRIVATE, AddressSpace.GENERIC)


def assign_convert(e: ast.Expr, to: CType, context: str, diags: DiagnosticEngine,
                   loc: Optional[SourceLocation] = None) -> ast.Expr:
    """Check that rvalue `e` may be assigned to an object of type `to`; convert it.
    Diagnostics go at `loc` (an assignment's operator) or at `e`."""
    frm = e.ctype
    if st.is_error(frm) or st.is_error(to):
        return e
    assert frm is not None
    msgs = MESSAGES[context]
    loc = loc or e.loc
    if st.is_pointer(to):
        return _pointer_assign(e, to, msgs, diags, loc)
    if is_sampler(to) and st.is_integer(frm):  # a sampler from its CLK_* bits (6.12.14.1)
        return cast(convert(e, ct.UINT), "int", to.unqualified())
    if is_event(to) and st.is_integer(frm) and is_null_constant(e):
        return cast(e, "null-to-event", to)  # `event_t e = 0;`: the null event, as in clang
    ok = (st.is_arith(frm) and st.is_arith_or_vector(to)) or st.same_unqualified(frm, to)
    if st.is_vector(frm) and not st.same_unqualified(frm, to):
        ok = False
    if not ok:
        diags.error(loc, msgs[0].format(**_names(frm, to)))
        return _poison(e)
    return convert(e, to)


def _names(frm: CType, to: CType) -> dict[str, str]:
    """The types a conversion's diagnostic names (spelled only when one is reported)."""
    return {"to": str(to.unqualified()), "frm": str(frm)}


def _pointer_assign(e: ast.Expr, to: CType, msgs: tuple[str, ...],
                    diags: DiagnosticEngine, loc: SourceLocation) -> ast.Expr:
    frm = e.ctype
    assert isinstance(to, ct.Pointer) and frm is not None
    if is_null_constant(e):  # 0 or (void *)0 converts to a pointer into any address space
        return convert(e, to)
    if st.is_integer(frm):
        diags.error(loc, msgs[3].format(**_names(frm, to)))
        return _poison(e)
    if not isinstance(frm, ct.Pointer):
        diags.error(loc, msgs[0].format(**_names(frm, to)))
        return _poison(e)
    fs, ts = st.pointee_space(frm), st.pointee_space(to)
    if fs != ts and (ts is not AddressSpace.GENERIC or fs is AddressSpace.CONSTANT):
        diags.error(loc, msgs[1].format(**_names(frm, to)))
        return _poison(e)
    fp, tp = frm.pointee, to.pointee
    void = st.is_void(fp) or st.is_void(tp)
    if not void and not st.same_unqualified(fp, tp):
        diags.warning(loc, msgs[2].format(**_names(frm, to)))
    elif (fp.const and not tp.const) or (fp.volatile and not tp.volatile):
        what = {"assign": "assigning to '{to}' from '{frm}'",
                "init": "initializing '{to}' with an expression of type '{frm}'",
                "pass": "passing '{frm}' to parameter of type '{to}'",
                "return": "returning '{frm}' from a function with result type '{to}'"}
        ctx = next(k for k, v in MESSAGES.items() if v is msgs)
        diags.warning(loc, what[ctx].format(**_names(frm, to)) + " discards qualifiers")
    return convert(e, to)


def _poison(e: ast.Expr) -> ast.Expr:
    e.ctype = st.ERROR
    return e
