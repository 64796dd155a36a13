"""OpenCL C's rules for function prototypes, as clang applies them.

Variadic functions do not exist in OpenCL C (1.2 s6.9.e): a prototype with
`...` is clang's error "invalid prototype, variadic arguments are not allowed
in OpenCL", except for `printf` from OpenCL C 1.2 on and for names that begin
with `__` (the implementation's). From 1.2 on, `printf` is declared by the
language as `int printf(__constant const char *, ...)`: a redeclaration with
that signature names the builtin, another one is "conflicting types".
"""

from __future__ import annotations

from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from .sema_context import SemaContext

FORMAT = ct.Scalar(ct.ScalarKind.CHAR, const=True, space=AddressSpace.CONSTANT)  # what printf's one parameter points to


def version(cx: SemaContext) -> int:
    return getattr(getattr(cx, "options", None), "opencl_c_version", 120)


def check_variadic(cx: SemaContext, fn: ast.FunctionDecl) -> None:
    """clang's error for a variadic prototype that is neither printf's nor the implementation's."""
    assert isinstance(fn.ctype, ct.FunctionType)
    if not fn.ctype.variadic or fn.name.startswith("__") or fn.name == "printf" and version(cx) >= 120:
        return
    cx.diags.error(fn.loc, "invalid prototype, variadic arguments are not allowed in OpenCL")


def is_printf_prototype(fn: ast.FunctionDecl) -> bool:
    """Whether `fn` has the signature OpenCL C 1.2 gives `printf`."""
    t = fn.ctype
    assert isinstance(t, ct.FunctionType)
    return t.variadic and len(t.params) == 1 and st.same_unqualified(t.ret, ct.INT) and \
        isinstance(t.params[0], ct.Pointer) and t.params[0].pointee == FORMAT


def printf_conflicts(cx: SemaContext, fn: ast.FunctionDecl) -> bool:
    """A prototype of `printf` with another signature than the language's: clang's error."""
    if fn.name != "printf" or version(cx) < 120 or is_printf_prototype(fn):
        return False
    cx.diags.error(fn.loc, f"conflicting types for '{fn.name}'")
    return True
