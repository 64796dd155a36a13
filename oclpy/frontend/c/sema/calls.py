"""Semantic analysis of calls: user functions and builtin overload resolution.

A call to a user function checks the argument count and converts each
argument as for assignment to its parameter. A call to a builtin resolves one
overload from `builtins.overloads(name)`: exact matches first, then the
candidate needing the fewest scalar conversions (ties go to the candidate
whose earlier arguments match exactly, then to table order); `Call.builtin`
records the chosen `Builtin`.
"""

from __future__ import annotations

from typing import Optional

from ....diagnostics import DiagnosticEngine
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
from ..c_types import CType
from .generic_space import GENERIC_BUILTINS, check_generic_builtin
from ..opaque_types import is_event
from ..builtins.printf_format import format_problem
from .conversions import assign_convert, convert
from ..ast import start_loc
from ..layout import size_of

_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    return _ORDINAL.get(n, f"{n}th")


def _arg_cost(arg: ast.Expr, param: CType) -> Optional[int]:
    """0 for an exact match, 1 for an allowed implicit conversion, None if not viable."""
    a = arg.ctype
    assert a is not None
    if st.same_unqualified(a, param):
        return 0
    if is_event(param):  # a null event: the literal 0 (an event_t is an i32 handle)
        return 1 if isinstance(arg, ast.IntLiteral) and arg.value == 0 else None
    if st.is_arith(a) and st.is_arith(param):
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
        costs = [_arg_cost(a, p) for a, p in zip(args, cand.params)]
        if any(c is None for c in costs):
            continue
        key = (sum(costs), tuple(costs))  # type: ignore[arg-type]
        if best is None or key < best[0]:
            best = (key, order, cand)  # type: ignore[assignment]
    return best[2] if best else None


class CallChecker:
    diags: DiagnosticEngine
    current_function: Optional[ast.FunctionDecl]
    calls: dict[str, set[str]]

    def value(self, e: ast.Expr) -> ast.Expr:
        raise NotImplementedError

    def lookup(self, name: str) -> Optional[ast.Decl]:
        raise NotImplementedError

    def error(self, e: ast.Expr, message: str) -> ast.Expr:
        raise NotImplementedError

    def check_call(self, e: ast.Call) -> ast.Expr:
        e.args = [self.value(a) for a in e.args]
        if not isinstance(e.callee, ast.Identifier):
            return self.error(e, "called object is not a function")
        name = e.callee.name
        decl = self.lookup(name)
        if any(st.is_error(a.ctype) for a in e.args):
            e.ctype = st.ERROR
            return e
        if isinstance(decl, ast.FunctionDecl):
            chosen = self.choose_overload(e, name) if name in self.overloads else decl  # type: ignore[attr-defined]
            if chosen is None:
                e.ctype = st.ERROR
                return e
            return self._user_call(e, chosen)
        if decl is not None:
            return self.error(e, f"called object type '{getattr(decl, 'ctype', '')}' is not a function or function pointer")
        return self._builtin_call(e, name)

    def _user_call(self, e: ast.Call, decl: ast.FunctionDecl) -> ast.Expr:
        assert isinstance(e.callee, ast.Identifier)
        e.callee.decl = decl
        ftype = decl.ctype
        assert isinstance(ftype, ct.FunctionType)
        e.callee.ctype = ftype
        n, have = len(ftype.params), len(e.args)
        if have != n and not (ftype.variadic and have > n):
            self._wrong_count(e, n)
            self.diags.note(self.diags.diagnostics[-1], decl.loc, f"'{decl.name}' declared here")
            return e
        e.args = [assign_convert(a, p, "pass", self.diags) for a, p in zip(e.args, ftype.params)]
        if self.current_function is not None:
            caller, callee = self.current_function.link_name, decl.link_name or decl.name
            self.calls.setdefault(caller, set()).add(callee)
            self.call_sites.setdefault((caller, callee), e)
        e.ctype = ftype.ret.unqualified()
        return e

    call_sites: dict[tuple[str, str], ast.Call]

    def _builtin_call(self, e: ast.Call, name: str) -> ast.Expr:
        if name in bi.IMAGE_FUNCTIONS:
            return self.error(e, f"image functions are not supported yet ('{name}')")
        if name == "printf":
            return self._printf(e)
        if name in GENERIC_BUILTINS and self._version() >= 200:
            return check_generic_builtin(e, name, self.diags)
        nan = bi.nan_builtin(name)
        if nan is not None:
            e.builtin = bi.Builtin(name, nan, tuple(a.ctype for a in e.args), "const_nan")  # type: ignore[misc]
            e.ctype = nan
            return e
        conv = bi.conversion_target(name)
        if conv is not None:
            return self._conversion_call(e, name, *conv)
        cands = bi.overloads(name) + async_overloads(name) + sync_overloads(name) + gnu_overloads(name) + \
            alias_overloads(name)
        if self._version() >= 200:
            cands = cands + atomic_overloads(name) + collective_overloads(name)
        if not cands:
            return self.error(e, f"implicit declaration of function '{name}' is invalid in OpenCL")
        chosen = _best(e.args, cands)
        if chosen is None and name in GNU_BUILTINS and len(e.args) != len(cands[0].params):
            return self._wrong_count(e, len(cands[0].params))
        if chosen is None:
            return self._no_match(e, name, cands)
        e.args = [self._convert_arg(a, p) for a, p in zip(e.args, chosen.params)]
        if chosen.impl == "gnu_assume":
            check_assume(e, self.diags)
        e.builtin = chosen
        e.ctype = chosen.ret
        return e

    def _wrong_count(self, e: ast.Call, n: int) -> ast.Expr:
        """clang's words for a function of one signature called with too many or too few arguments."""
        have = len(e.args)
        loc = start_loc(e.args[n]) if have > n else (e.end_loc or e.loc)
        self.diags.error(loc, f"too {'many' if have > n else 'few'} arguments to function call, "
                              f"expected {n}, have {have}")
        e.ctype = st.ERROR
        return e

    def _version(self) -> int:
        """The OpenCL C version being checked (120 without options)."""
        return getattr(getattr(self, "options", None), "opencl_c_version", 120)

    def _printf(self, e: ast.Call) -> ast.Expr:
        fmt = e.args[0] if e.args else None
        while isinstance(fmt, ast.ImplicitCast):
            fmt = fmt.operand
        if not isinstance(fmt, ast.StringLiteral):
            return self.error(e.args[0] if e.args else e, "format string argument to printf must be a "
                              "string literal")
        bad = next((a for a in e.args[1:] if not (st.is_arith_or_vector(a.ctype) or st.is_pointer(a.ctype))), None)  # type: ignore[arg-type]
        if bad is not None:
            return self.error(bad, f"cannot pass an argument of type '{bad.ctype}' to printf")
        problem = format_problem(fmt.value, [a.ctype for a in e.args[1:]])  # type: ignore[misc]
        if problem is not None:
            return self.error(fmt, problem)
        e.builtin = bi.Builtin("printf", ct.INT, tuple(a.ctype for a in e.args), "printf")  # type: ignore[misc]
        e.ctype = ct.INT
        return e

    @staticmethod
    def _convert_arg(a: ast.Expr, p: CType) -> ast.Expr:
        if isinstance(p, ct.Pointer) or is_event(p):
            return a
        return convert(a, p)

    def _no_match(self, e: ast.Call, name: str, cands: list[bi.Builtin]) -> ast.Expr:
        diag = self.diags.error(e.loc, f"no matching function for call to '{name}'")
        shown = [c for c in cands if len(c.params) == len(e.args)] or cands
        for cand in shown[:8]:
            self.diags.note(diag, e.loc, "candidate function not viable: " + self._why(e, cand))
        if len(shown) > 8:
            self.diags.note(diag, e.loc, f"{len(shown) - 8} more candidates not shown")
        e.ctype = st.ERROR
        return e

    @staticmethod
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

    def _conversion_call(self, e: ast.Call, name: str, to: CType, impl: str) -> ast.Expr:
        if len(e.args) != 1:
            n = len(e.args)
            return self.error(e, f"too {'few' if n < 1 else 'many'} arguments to function call, expected 1, have {n}")
        frm = e.args[0].ctype
        assert frm is not None
        width = lambda t: t.count if isinstance(t, ct.Vector) else 1  # noqa: E731
        if not st.is_arith_or_vector(frm) or (impl == "convert" and width(frm) != width(to)):
            diag = self.diags.error(e.loc, f"no matching function for call to '{name}'")
            self.diags.note(diag, e.loc, f"candidate function not viable: no known conversion from "
                            f"'{frm}' to a {width(to)}-element type for 1st argument")
            e.ctype = st.ERROR
            return e
        if impl == "as":
            if size_of(frm) != size_of(to):
                return self.error(e, f"invalid reinterpretation: sizes of '{to}' and '{frm}' must match")
        e.builtin = bi.Builtin(name, to, (frm.unqualified(),), impl)
        e.ctype = to
        return e
