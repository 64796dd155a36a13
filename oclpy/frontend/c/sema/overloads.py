"""Functions that share a name: redeclarations, clang's `overloadable` functions,
and the choice among overloads at a call.

Every declaration of a name is checked against the earlier ones as clang does:
the same signature redeclares (a definition is kept over a prototype, and an
`overloadable` function stays so); another signature is an overload when the
set has the `overloadable` attribute (at most one member may lack it), else
"conflicting types", as is the same parameter list with another result type.
Each distinct signature is one function with its own
`link_name`: its C name when it is the only one or the unmarked one, else an
Itanium-style mangled name (`_Z1gf` for `g(float)`), as clang names them.

A call picks the best viable overload by the rules clang applies to
`overloadable` (`ranking.py`, shared with the builtins): per argument an exact
match beats a promotion, which beats a conversion; the winner must be at least
as good for every argument and better for one, else the call is ambiguous.
"""

from __future__ import annotations

from typing import Optional

from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType, ScalarKind as K
from ..builtins.images import LIBRARY_NAME
from .ranking import best_viable, rank, ranks
from .sema_context import SemaContext

_CODES = {K.BOOL: "b", K.CHAR: "c", K.UCHAR: "h", K.SHORT: "s", K.USHORT: "t", K.INT: "i", K.UINT: "j",
          K.LONG: "l", K.ULONG: "m", K.HALF: "Dh", K.FLOAT: "f", K.DOUBLE: "d"}
_SPACE_NUMBERS = {AddressSpace.GLOBAL: 1, AddressSpace.CONSTANT: 2, AddressSpace.LOCAL: 3,
                  AddressSpace.GENERIC: 4}  # clang's OpenCL address space mangling
_ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ... (argument positions in diagnostics)."""
    return _ORDINAL.get(n, f"{n}th")


def is_overloadable(fn: ast.FunctionDecl) -> bool:
    return "overloadable" in fn.attributes


def mangle_type(t: CType) -> str:
    if isinstance(t, ct.Scalar):
        return _CODES[t.kind]
    if isinstance(t, ct.Vector):
        return f"Dv{t.count}_{_CODES[t.elem]}"
    if isinstance(t, ct.Pointer):
        pointee = t.pointee
        quals = f"U3AS{_SPACE_NUMBERS[pointee.space]}" if pointee.space in _SPACE_NUMBERS else ""
        quals += ("V" if pointee.volatile else "") + ("K" if pointee.const else "")
        return "P" + quals + mangle_type(pointee.unqualified())
    if isinstance(t, ct.Void):
        return "v"
    name = t.definition.tag if isinstance(t, ct.Struct) else t.tag if isinstance(t, ct.Enum) else str(t)
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name or "anon")
    return f"{len(name)}{name}"


def mangle(fn: ast.FunctionDecl) -> str:
    assert isinstance(fn.ctype, ct.FunctionType)
    params = "".join(mangle_type(p) for p in fn.ctype.params) or "v"
    return f"_Z{len(fn.name)}{fn.name}{params}"


def _same_signature(a: ast.FunctionDecl, b: ast.FunctionDecl) -> bool:
    ta, tb = a.ctype, b.ctype
    assert isinstance(ta, ct.FunctionType) and isinstance(tb, ct.FunctionType)
    return len(ta.params) == len(tb.params) and ta.variadic == tb.variadic and \
        all(st.same_unqualified(p, q) for p, q in zip(ta.params, tb.params))


# -- declarations ---------------------------------------------------------------
def declare_function(cx: SemaContext, fn: ast.FunctionDecl) -> None:
    """Enter `fn` in the file scope, checked against the earlier declarations of its name."""
    prev = cx.scopes[0].get(fn.name)
    if prev is not None and not isinstance(prev, ast.FunctionDecl):
        diag = cx.diags.error(fn.loc, f"redefinition of '{fn.name}' as different kind of symbol")
        cx.diags.note(diag, prev.loc, "previous definition is here")
        return
    decls = cx.overloads.setdefault(fn.name, [])
    same = next((d for d in decls if _same_signature(d, fn)), None)
    if same is not None:
        _redeclare(cx, same, fn, decls)
    elif _may_overload(cx, fn, decls):
        marked = is_overloadable(fn) and not fn.is_kernel
        fn.link_name = mangle(fn) if marked else fn.name
        decls.append(fn)
    if fn.link_name:
        cx.linked[fn.link_name] = next(d for d in decls if d.link_name == fn.link_name)
    cx.scopes[0][fn.name] = decls[0] if decls else fn


def _same_result(a: ast.FunctionDecl, b: ast.FunctionDecl) -> bool:
    assert isinstance(a.ctype, ct.FunctionType) and isinstance(b.ctype, ct.FunctionType)
    ra, rb = a.ctype.ret, b.ctype.ret
    return st.same_unqualified(ra, rb) and ra.const == rb.const and ra.volatile == rb.volatile


def _redeclare(cx: SemaContext, same: ast.FunctionDecl, fn: ast.FunctionDecl, decls: list[ast.FunctionDecl]) -> None:
    if not _same_result(same, fn):  # the parameters agree, the result does not: clang's error
        diag = cx.diags.error(fn.loc, f"conflicting types for '{fn.name}'")
        cx.diags.note(diag, same.loc, "previous declaration is here")
        return  # the first declaration stays the function callers see
    if same.body is not None and fn.body is not None:
        diag = cx.diags.error(fn.loc, f"redefinition of '{fn.name}'")
        cx.diags.note(diag, same.loc, "previous definition is here")
    elif is_overloadable(same) and not is_overloadable(fn) and not fn.is_kernel and not _in_library(same):
        diag = cx.diags.error(fn.loc, f"redeclaration of '{fn.name}' must have the 'overloadable' attribute")
        cx.diags.note(diag, same.loc, "previous overload of function is here")
    fn.link_name = same.link_name
    if is_overloadable(same):
        fn.attributes.setdefault("overloadable", True)
    if same.body is None or fn.body is not None:
        decls[decls.index(same)] = fn


def _in_library(fn: ast.FunctionDecl) -> bool:
    """A builtin written in OpenCL C (the image library): a prototype of the program with its
    signature names it, as clang's declarations of builtins, which carry no `overloadable`."""
    return fn.loc.file == LIBRARY_NAME


def _may_overload(cx: SemaContext, fn: ast.FunctionDecl, decls: list[ast.FunctionDecl]) -> bool:
    """May `fn` (a new signature) join `decls`? Reports why not."""
    if not decls:
        return True
    if not is_overloadable(fn) and not any(is_overloadable(d) for d in decls):
        diag = cx.diags.error(fn.loc, f"conflicting types for '{fn.name}'")
        cx.diags.note(diag, decls[-1].loc, "previous declaration is here")
        return False
    unmarked = next((d for d in decls if not is_overloadable(d)), None)
    if unmarked is not None and not is_overloadable(fn):
        diag = cx.diags.error(fn.loc, "at most one overload for a given name may lack the 'overloadable' "
                              "attribute")
        cx.diags.note(diag, unmarked.loc, "previous unmarked overload of function is here")
        return False
    return True


# -- calls ----------------------------------------------------------------------
def choose_overload(cx: SemaContext, e: ast.Call, name: str) -> Optional[ast.FunctionDecl]:
    """The overload of `name` a call with checked arguments picks; None after an error."""
    decls = cx.overloads.get(name, [])
    if len(decls) == 1:
        return decls[0]
    chosen, tied = best_viable([_overload_costs(e.args, d) for d in decls])
    if chosen is not None:
        return decls[chosen]
    if not tied:
        diag = cx.diags.error(e.loc, f"no matching function for call to '{name}'")
        for d in decls:
            cx.diags.note(diag, d.loc, "candidate function not viable: " + _overload_why(e.args, d))
    else:
        diag = cx.diags.error(e.loc, f"call to '{name}' is ambiguous")
        for i in tied:
            cx.diags.note(diag, decls[i].loc, "candidate function")
    return None


def _overload_costs(args: list[ast.Expr], d: ast.FunctionDecl) -> Optional[list[int]]:
    ftype = d.ctype
    assert isinstance(ftype, ct.FunctionType)
    return ranks(args, ftype.params, ftype.variadic)


def _overload_why(args: list[ast.Expr], d: ast.FunctionDecl) -> str:
    ftype = d.ctype
    assert isinstance(ftype, ct.FunctionType)
    n = len(ftype.params)
    if len(args) != n:
        return (f"requires {n} argument{'s' if n != 1 else ''}, but {len(args)} "
                f"{'was' if len(args) == 1 else 'were'} provided")
    i, a, p = next((i, a, p) for i, (a, p) in enumerate(zip(args, ftype.params), 1) if rank(a, p) is None)
    return f"no known conversion from '{a.ctype}' to '{p}' for {ordinal(i)} argument"
