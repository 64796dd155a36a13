"""Semantic analysis of calls: user functions and builtin overload resolution.

A call to a user function checks the argument count and converts each
argument as for assignment to its parameter. A call to a builtin resolves one
overload from `builtins.overloads(name)`: exact matches first, then the
candidate needing the fewest conversions (a scalar made a vector counts two; ties go to the candidate
whose earlier arguments match exactly, then to table order); `Call.builtin`
records the chosen `Builtin`.
"""

from __future__ import annotations

from typing import Optional

from .. import ast
from ..builtins import table as bi
from .. import c_types as ct
from .. import type_rules as st
from ..builtins.async_copy import async_overloads
from ..builtins.cl20_atomics import atomic_overloads
from ..builtins.cl20_sync import sync_overloads
from ..builtins.collectives import collective_overloads
from ..builtins.gnu_aliases import alias_overloads
from ..builtins.gnu_builtins import GNU_BUILTINS, check_assume, gnu_overloads
from ..builtins.images import image_overloads
from ..c_types import CType
from .generic_space import GENERIC_BUILTINS, check_generic_builtin
from ..opaque_types import is_event
from ..builtins.printf_format import format_problem
from .conversions import assign_convert, convert, is_null_constant
from .opaque_uses import check_image_access
from .overloads import choose_overload, ordinal
from .sema_context import SemaContext
from ..ast import start_loc
from ..layout import size_of


def _arg_cost(arg: ast.Expr, param: CType) -> Optional[int]:
    """0 for an exact match, 1 for an allowed implicit conversion, 2 for a scalar made a
    vector (`rotate(uint4, 3u)`, `max(float, float4)`: clang's vector splat, which OpenCL
    C's overloads allow; it costs more than a scalar conversion, so a call with scalar
    arguments keeps its scalar overload), None if not viable."""
    a = arg.ctype
    assert a is not None
    if st.same_unqualified(a, param):
        return 0
    if is_event(param):  # a null event: the literal 0 (an event_t is an i32 handle)
        return 1 if isinstance(arg, ast.IntLiteral) and arg.value == 0 else None
    if st.is_arith(a) and st.is_arith(param):
        return 1
    if st.is_arith(a) and isinstance(param, ct.Vector):
        return 2
    if isinstance(param, ct.Pointer) and is_null_constant(arg):  # `wait_group_events(0, NULL)`
        return 1
    if isinstance(a, ct.Pointer) and isinstance(param, ct.Pointer):
        ap, pp = a.pointee, param.pointee
        if st.pointee_space(a) != st.pointee_space(param):
            return None
        if not st.same_unqualified(ap, pp):
            return None
        if (ap.const and not pp.const) or (ap.volatile and not pp.volatile):
            return None
        return 1
    return None


def _best(args: list[ast.Expr], cands: list[bi.Builtin]) -> Optional[bi.Builtin]:
    best: Optional[tuple[tuple[int, tuple[int, ...]], int, bi.Builtin]] = None
    for order, cand in enumerate(cands):
        if len(cand.params) != len(args):
            continue
        costs = []
        for a, p in zip(args, cand.params):
            cost = _arg_cost(a, p)
            if cost is None:  # not viable: the later arguments need no costing
                break
            costs.append(cost)
        if len(costs) != len(args):
            continue
        key = (sum(costs), tuple(costs))  # type: ignore[arg-type]
        if best is None or key < best[0]:
            best = (key, order, cand)  # type: ignore[assignment]
    return best[2] if best else None


def check_call(cx: SemaContext, e: ast.Call) -> ast.Expr:
    e.args = [cx.value(a) for a in e.args]
    if not isinstance(e.callee, ast.Identifier):
        return cx.error(e, "called object is not a function")
    name = e.callee.name
    decl = cx.lookup(name)
    if any(st.is_error(a.ctype) for a in e.args):
        e.ctype = st.ERROR
        return e
    if isinstance(decl, ast.FunctionDecl):
        chosen = choose_overload(cx, e, name) if name in cx.overloads else decl
        if chosen is None or not check_image_access(cx, e, name):
            e.ctype = st.ERROR
            return e
        return _user_call(cx, e, chosen)
    if decl is not None:
        return cx.error(e, f"called object type '{getattr(decl, 'ctype', '')}' is not a function or function pointer")
    return _builtin_call(cx, e, name)


def _user_call(cx: SemaContext, e: ast.Call, decl: ast.FunctionDecl) -> ast.Expr:
    assert isinstance(e.callee, ast.Identifier)
    e.callee.decl = decl
    ftype = decl.ctype
    assert isinstance(ftype, ct.FunctionType)
    e.callee.ctype = ftype
    n, have = len(ftype.params), len(e.args)
    if have != n and not (ftype.variadic and have > n):
        _wrong_count(cx, e, n)
        cx.diags.note(cx.diags.diagnostics[-1], decl.loc, f"'{decl.name}' declared here")
        return e
    e.args = [assign_convert(a, p, "pass", cx.diags) for a, p in zip(e.args, ftype.params)]
    if cx.current_function is not None:
        caller, callee = cx.current_function.link_name, decl.link_name or decl.name
        cx.calls.setdefault(caller, set()).add(callee)
        cx.call_sites.setdefault((caller, callee), e)
    e.ctype = ftype.ret.unqualified()
    return e


def _builtin_call(cx: SemaContext, e: ast.Call, name: str) -> ast.Expr:
    if name == "printf":
        return _printf(cx, e)
    if name in GENERIC_BUILTINS and _version(cx, ) >= 200:
        return check_generic_builtin(e, name, cx.diags)
    nan = bi.nan_builtin(name)
    if nan is not None:
        e.builtin = bi.Builtin(name, nan, tuple(a.ctype for a in e.args), "const_nan")  # type: ignore[misc]
        e.ctype = nan
        return e
    conv = bi.conversion_target(name)
    if conv is not None:
        return _conversion_call(cx, e, name, *conv)
    cands = _candidates(cx, name)
    if not cands:
        return cx.error(e, f"implicit declaration of function '{name}' is invalid in OpenCL")
    chosen = _best(e.args, cands)
    if chosen is None and name in GNU_BUILTINS and len(e.args) != len(cands[0].params):
        return _wrong_count(cx, e, len(cands[0].params))
    if chosen is None:
        return _no_match(cx, e, name, cands)
    e.args = [_convert_arg(a, p) for a, p in zip(e.args, chosen.params)]
    if chosen.impl == "gnu_assume":
        check_assume(e, cx.diags)
    e.builtin = chosen
    e.ctype = chosen.ret
    return e


def _candidates(cx: SemaContext, name: str) -> list[bi.Builtin]:
    if name in bi.CL20_FUNCTIONS and _version(cx) < 200:
        return []
    cands = bi.overloads(name) + async_overloads(name) + sync_overloads(name) + gnu_overloads(name) + \
        alias_overloads(name) + image_overloads(name)
    if _version(cx) >= 200:
        cands = cands + atomic_overloads(name) + collective_overloads(name)
    return cands


def declares_builtin(cx: SemaContext, fn: ast.FunctionDecl) -> bool:
    """Whether prototype `fn` has the signature of a builtin of its name (`printf` with any)."""
    if fn.name == "printf":
        return True
    ftype = fn.ctype
    assert isinstance(ftype, ct.FunctionType)
    return any(len(c.params) == len(ftype.params) and st.same_unqualified(c.ret, ftype.ret) and
               all(st.same_unqualified(p, q) for p, q in zip(c.params, ftype.params))
               for c in _candidates(cx, fn.name))


def _wrong_count(cx: SemaContext, e: ast.Call, n: int) -> ast.Expr:
    """clang's words for a function of one signature called with too many or too few arguments."""
    have = len(e.args)
    loc = start_loc(e.args[n]) if have > n else (e.end_loc or e.loc)
    cx.diags.error(loc, f"too {'many' if have > n else 'few'} arguments to function call, "
                   f"expected {n}, have {have}")
    e.ctype = st.ERROR
    return e


def _version(cx: SemaContext) -> int:
    """The OpenCL C version being checked (120 without options)."""
    return getattr(getattr(cx, "options", None), "opencl_c_version", 120)


def _printf(cx: SemaContext, e: ast.Call) -> ast.Expr:
    fmt = e.args[0] if e.args else None
    while isinstance(fmt, ast.ImplicitCast):
        fmt = fmt.operand
    if not isinstance(fmt, ast.StringLiteral):
        return cx.error(e.args[0] if e.args else e, "format string argument to printf must be a "
                        "string literal")
    bad = next((a for a in e.args[1:] if not (st.is_arith_or_vector(a.ctype) or st.is_pointer(a.ctype))), None)  # type: ignore[arg-type]
    if bad is not None:
        return cx.error(bad, f"cannot pass an argument of type '{bad.ctype}' to printf")
    problem = format_problem(fmt.value, [a.ctype for a in e.args[1:]])  # type: ignore[misc]
    if problem is not None:
        return cx.error(fmt, problem)
    e.builtin = bi.Builtin("printf", ct.INT, tuple(a.ctype for a in e.args), "printf")  # type: ignore[misc]
    e.ctype = ct.INT
    return e


def _convert_arg(a: ast.Expr, p: CType) -> ast.Expr:
    if isinstance(p, ct.Pointer) and is_null_constant(a):
        return convert(a, p)
    if isinstance(p, ct.Pointer) or is_event(p):
        return a
    return convert(a, p)


def _no_match(cx: SemaContext, e: ast.Call, name: str, cands: list[bi.Builtin]) -> ast.Expr:
    diag = cx.diags.error(e.loc, f"no matching function for call to '{name}'")
    shown = [c for c in cands if len(c.params) == len(e.args)] or cands
    for cand in shown[:8]:
        cx.diags.note(diag, e.loc, "candidate function not viable: " + _why(e, cand))
    if len(shown) > 8:
        cx.diags.note(diag, e.loc, f"{len(shown) - 8} more candidates not shown")
    e.ctype = st.ERROR
    return e


def _why(e: ast.Call, cand: bi.Builtin) -> str:
    sig = cand.signature()
    if len(cand.params) != len(e.args):
        n = len(cand.params)
        return (f"requires {n} argument{'s' if n != 1 else ''}, but {len(e.args)} "
                f"{'was' if len(e.args) == 1 else 'were'} provided ({sig})")
    for i, (a, p) in enumerate(zip(e.args, cand.params), 1):
        if _arg_cost(a, p) is None:
            return f"no known conversion from '{a.ctype}' to '{p}' for {ordinal(i)} argument ({sig})"
    return sig


def _conversion_call(cx: SemaContext, e: ast.Call, name: str, to: CType, impl: str) -> ast.Expr:
    if len(e.args) != 1:
        n = len(e.args)
        return cx.error(e, f"too {'few' if n < 1 else 'many'} arguments to function call, expected 1, have {n}")
    frm = e.args[0].ctype
    assert frm is not None
    width = lambda t: t.count if isinstance(t, ct.Vector) else 1  # noqa: E731
    if not st.is_arith_or_vector(frm) or (impl == "convert" and width(frm) != width(to)):
        diag = cx.diags.error(e.loc, f"no matching function for call to '{name}'")
        cx.diags.note(diag, e.loc, f"candidate function not viable: no known conversion from "
                      f"'{frm}' to a {width(to)}-element type for 1st argument")
        e.ctype = st.ERROR
        return e
    if impl == "as":
        if size_of(frm, cx.layout) != size_of(to, cx.layout):
            return cx.error(e, f"invalid reinterpretation: sizes of '{to}' and '{frm}' must match")
    e.builtin = bi.Builtin(name, to, (frm.unqualified(),), impl)
    e.ctype = to
    return e
