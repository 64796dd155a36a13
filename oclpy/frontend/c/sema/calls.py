"""Semantic analysis of calls: user functions and builtin overload resolution.

A call to a user function checks the argument count and converts each
argument as for assignment to its parameter. A call to a builtin resolves one
overload from `builtins.overloads(name)` by clang's rules (`ranking.py`): the
candidate at least as good as every other for each argument and better for one,
else `call to 'f' is ambiguous` with a note naming each tied candidate;
`Call.builtin` records the chosen `Builtin`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Optional

from ....ir.types import AddressSpace
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
from ..builtins.printf_format import format_problem, format_warnings
from .conversions import assign_convert, convert, is_null_constant
from .opaque_uses import check_image_access
from .overloads import choose_overload, ordinal
from .ranking import C_CONVERSION, argument_key, best_viable, rank, ranks
from .sema_context import SemaContext
from ..ast import start_loc
from ..layout import size_of


def _builtin_costs(cx: SemaContext, args: list[ast.Expr], cands: list[bi.Builtin]) -> list[Optional[list[int]]]:
    """Each candidate's argument ranks (None: not viable), with the candidates clang's
    header declares: oclpy's table has a twin of a pointer builtin for each address
    space (global, local, private, generic), where clang-14 declares the named spaces
    before OpenCL C 2.0 and only the generic one (and constant, where there is one)
    from 2.0 on. So before 2.0 a twin in the generic space is no candidate, and from
    2.0 on the best viable of the twins that a generic pointer takes stands for them
    (`fract(x, NULL)` is no ambiguity there)."""
    costs = [ranks(args, c.params) for c in cands]
    for members in _twin_groups(tuple(cands)):
        if _version(cx) < 200:
            for i in members:
                if _is_generic(cands[i]):
                    costs[i] = None
            continue
        viable = [i for i in members if costs[i] is not None]
        keep = min(viable, key=lambda i: costs[i], default=None)  # type: ignore[arg-type, return-value]
        for i in viable:
            if i != keep:
                costs[i] = None
    return costs


def _resolve_builtin(cx: SemaContext, args: list[ast.Expr], name: str,
                     cands: list[bi.Builtin]) -> tuple[Optional[int], list[int]]:
    """`best_viable` over `cands` for a call of builtin `name`; the answer depends only on the
    arguments' `argument_key`s (the candidates are the name's, in the unit's version), so a
    unit's calls with the same keys share one resolution (john's hash kernels make
    thousands of `rotate` and `bitselect` calls, each ranking about 50 candidates)."""
    key = (name, tuple(argument_key(a) for a in args))
    found = cx.builtin_choices.get(key)
    if found is None:
        found = cx.builtin_choices[key] = best_viable(_builtin_costs(cx, args, cands))
    return found


@lru_cache(maxsize=512)
def _twin_groups(cands: tuple[bi.Builtin, ...]) -> list[list[int]]:
    """The indices of the twins of each pointer builtin that has a generic-space twin."""
    groups: dict[tuple[object, ...], list[int]] = {}
    for i, c in enumerate(cands):
        if any(isinstance(p, ct.Pointer) for p in c.params):
            key = (_twin_key(c.ret), c.impl) + tuple(_twin_key(p) for p in c.params)
            groups.setdefault(key, []).append(i)
    return [members for members in groups.values() if any(_is_generic(cands[i]) for i in members)]


def _twin_key(t: CType) -> object:
    """A parameter with the address space of a pointer made `generic` (but constant)."""
    if not isinstance(t, ct.Pointer):
        return t
    pointee = t.pointee
    return ("pointer", str(pointee.unqualified()), pointee.const, pointee.volatile,
            st.pointee_space(t) is AddressSpace.CONSTANT)


def _is_generic(c: bi.Builtin) -> bool:
    return any(isinstance(p, ct.Pointer) and st.pointee_space(p) is AddressSpace.GENERIC for p in c.params)


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
    if not st.is_void(ftype.ret) and not st.is_complete_object(ftype.ret):  # declared, never defined
        cx.diags.error(e.loc, f"calling '{decl.name}' with incomplete return type '{ftype.ret}'")
        cx.diags.note(cx.diags.diagnostics[-1], decl.loc, f"'{decl.name}' declared here")
        e.ctype = st.ERROR
        return e
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


# clang's frame and return address builtins: clang-14 takes them in OpenCL C (as `void *` in
# no OpenCL address space); oclpy refuses them with their own error (a listed difference)
STACK_BUILTINS = frozenset(("__builtin_frame_address", "__builtin_return_address"))


def _builtin_call(cx: SemaContext, e: ast.Call, name: str) -> ast.Expr:
    if name in ("printf", "__builtin_printf"):
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
    if not cands and name in STACK_BUILTINS:
        return cx.error(e, f"'{name}' is not supported (oclpy's devices have no stack frames a program "
                           "may address)")
    if not cands:
        return cx.error(e, f"implicit declaration of function '{name}' is invalid in OpenCL")
    index, tied = _resolve_builtin(cx, e.args, name, cands)
    if not tied and (name in GNU_BUILTINS or alias_overloads(name)) \
            and len({len(c.params) for c in cands}) == 1 and len(e.args) != len(cands[0].params):
        return _wrong_count(cx, e, len(cands[0].params))
    if not tied:
        return _no_match(cx, e, name, cands)
    if index is None:
        return _ambiguous(cx, e, name, [cands[i] for i in tied])
    chosen = cands[index]
    e.args = [_convert_arg(cx, a, p) for a, p in zip(e.args, chosen.params)]
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
    cands = cands + collective_overloads(name, _version(cx))
    if _version(cx) >= 200:
        cands = cands + atomic_overloads(name)
    return cands


def declares_builtin(cx: SemaContext, fn: ast.FunctionDecl) -> bool:
    """Whether prototype `fn` has the signature of a builtin of its name (`printf`: prototypes.py checks it)."""
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
    arg_types = [a.ctype for a in e.args[1:]]
    problem = format_problem(fmt.value, arg_types)  # type: ignore[arg-type]
    if problem is not None:
        return cx.error(fmt, problem)
    for where, n, message in format_warnings(fmt.value, arg_types):  # type: ignore[arg-type]
        # in the format, after its %: the column in the literal when no escape comes before it
        loc = start_loc(e.args[1 + n]) if where == "arg" else replace(fmt.loc, col=fmt.loc.col + 2 + n)
        cx.diags.warning(loc, message)
    e.builtin = bi.Builtin("printf", ct.INT, tuple(a.ctype for a in e.args), "printf")  # type: ignore[misc]
    e.ctype = ct.INT
    return e


def _convert_arg(cx: SemaContext, a: ast.Expr, p: CType) -> ast.Expr:
    if isinstance(p, ct.Pointer) and is_null_constant(a):
        return convert(a, p)
    if isinstance(p, ct.Pointer) and isinstance(a.ctype, ct.Pointer) and (rank(a, p) or 0) >= C_CONVERSION:
        return assign_convert(a, p, "pass", cx.diags, start_loc(a))  # clang's warning, then the cast
    if isinstance(p, ct.Pointer) or is_event(p):
        return a
    return convert(a, p)


def _ambiguous(cx: SemaContext, e: ast.Call, name: str, tied: list[bi.Builtin]) -> ast.Expr:
    diag = cx.diags.error(e.loc, f"call to '{name}' is ambiguous")
    for cand in tied:
        cx.diags.note(diag, e.loc, f"candidate function ({cand.signature()})")
    e.ctype = st.ERROR
    return e


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
        if rank(a, p) is None:
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
