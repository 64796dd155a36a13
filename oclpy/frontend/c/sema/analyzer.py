"""Semantic analysis of a translation unit: declarations, scopes and statements.

`analyze(tu, options, diags)` types every expression (see `expressions`),
resolves identifiers to their declarations, checks the OpenCL rules on
kernels, address spaces, program-scope variables and control flow (break
outside loops, duplicate case values, missing returns, recursion), and
reports every error it finds, continuing after each. Lowering runs only on a
tree that produced no error.

The state lives in one `SemaContext` (`sema_context`); every check here and
in the other modules is a function of it. `HANDLERS` is the one table of
which function checks which AST node: this module's statement checks and the
expression checks of `expressions`, `initializers` and `gnu_checks`.
"""

from __future__ import annotations

from typing import Optional

from ....diagnostics import UNKNOWN_LOCATION, DiagnosticEngine, SourceLocation
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from .case_values import case_value
from .conversions import assign_convert, convert
from ..ast import start_loc
from ..builtins.cl20_atomics import AtomicScalar
from .expressions import EXPR_HANDLERS
from .initializers import check_compound_literal, initializer
from .flow import may_fall_through, contains_return, find_recursion
from .gnu_checks import (case_range, check_case_ranges, check_case_scope, check_gotos_into_stmt_exprs,
                         check_stmt_expr, note_goto, note_label, static_assert)
from .calls import declares_builtin
from .overloads import declare_function
from .prototypes import check_variadic, printf_conflicts
from .sema_context import SemaContext, SemaHandlers, StmtHandler
from .opaque_uses import check_access_qualifier, check_opaque_use
from .half_uses import check_half_decl
from ..extension_pragmas import ExtensionPragmas


# -- translation unit ---------------------------------------------------
def check_unit(cx: SemaContext, tu: ast.TranslationUnit) -> None:
    cx.defined = {d.name for d in tu.decls if isinstance(d, ast.FunctionDecl) and d.body is not None}
    for decl in tu.decls:
        top_level(cx, decl)
    for (caller, callee), site in cx.call_sites.items():
        target = cx.linked.get(callee)
        # After an error the definition may be in what the parser skipped: no guessing then.
        if target is not None and target.body is None and not cx.diags.has_errors:
            cx.diags.error(site.loc, f"function '{target.name}' is used but not defined in this program")
    for fn_name, callee, chain in find_recursion(cx.calls):
        first = cx.call_sites.get((fn_name, callee))
        loc = first.loc if first is not None else tu.loc
        names = [cx.linked[n].name if n in cx.linked else n for n in chain]
        cx.diags.error(loc, f"recursive call to '{names[-1]}' ({' -> '.join(names)}): "
                       "recursion is not supported in OpenCL")


def top_level(cx: SemaContext, decl: ast.Decl) -> None:
    if isinstance(decl, ast.FunctionDecl):
        function(cx, decl)
    elif isinstance(decl, ast.VarDecl):
        program_scope_var(cx, decl)
    else:
        other_decl(cx, decl)


def other_decl(cx: SemaContext, decl: ast.Decl) -> None:
    if isinstance(decl, ast.EnumConstant):
        cx.declare(decl)
    elif isinstance(decl, ast.TagDecl):
        tag(cx, decl.ctype, decl.loc)
    elif isinstance(decl, ast.TypedefDecl):
        decl.ctype = cx.spaces(decl.ctype)
        tag(cx, decl.ctype, decl.loc)
    elif isinstance(decl, ast.StaticAssert):
        static_assert(cx, decl)


def tag(cx: SemaContext, t: CType, loc: Optional[SourceLocation] = None) -> None:
    """Check a struct definition once: pointer fields get their default address
    space; bit-fields are reported (OpenCL C does not have them)."""
    while isinstance(t, (ct.Pointer, ct.Array)):
        t = t.pointee if isinstance(t, ct.Pointer) else t.elem
    if not isinstance(t, ct.Struct) or not t.definition.fields or id(t.definition) in cx.checked_structs:
        return
    cx.checked_structs.add(id(t.definition))
    for f in t.definition.fields:
        f.type = check_opaque_use(cx, cx.spaces(f.type), loc or UNKNOWN_LOCATION, "field")
        if f.bit_width is not None:
            cx.diags.error(f.loc or loc or UNKNOWN_LOCATION, f"bit-fields are not supported in OpenCL "
                           f"(field '{f.name}')")
            f.bit_width = None
        tag(cx, f.type, loc)


def complete_array(cx: SemaContext, d: ast.VarDecl) -> bool:
    """False, after clang's error, when `d` is an array of void or of an undefined struct."""
    elem = st.innermost_element(d.ctype)
    if elem is d.ctype or st.is_complete_object(elem):
        return True
    cx.diags.error(d.array_loc or d.loc, f"array has incomplete element type '{elem}'")
    return False


def program_scope_var(cx: SemaContext, d: ast.VarDecl) -> None:
    d.is_global_scope = True
    d.ctype = check_opaque_use(cx, cx.spaces(d.ctype), d.loc, "global")
    if st.is_error(d.ctype):
        cx.declare(d)
        return
    if not check_half_decl(cx, d.ctype, d.loc, "global") or not complete_array(cx, d):
        d.ctype = st.ERROR
        cx.declare(d)
        return
    tag(cx, d.ctype, d.loc)
    cl2 = getattr(cx.options, "opencl_c_version", 120) >= 200
    allowed = (AddressSpace.CONSTANT, AddressSpace.GLOBAL) if cl2 else (AddressSpace.CONSTANT,)
    if cl2 and d.ctype.space is None:  # OpenCL C 2.0: unqualified program scope variables are global
        d.ctype = d.ctype.with_space(AddressSpace.GLOBAL)
    if d.ctype.space not in allowed:
        cx.diags.error(d.loc, "program scope variable must reside in constant address space")
        d.ctype = d.ctype.with_space(AddressSpace.CONSTANT)
    cx.declare(d)
    if d.init is None:
        if d.ctype.space is AddressSpace.CONSTANT and d.storage != "extern":
            cx.diags.error(d.loc, "variable in constant address space must be initialized")
        return
    d.init = initializer(cx, d.init, d.ctype, constant=True)


# -- functions ----------------------------------------------------------
def function(cx: SemaContext, fn: ast.FunctionDecl) -> None:
    ftype = fn.ctype
    assert isinstance(ftype, ct.FunctionType)
    check_half_decl(cx, ftype.ret, fn.loc, "return")
    params = []
    for p in fn.params:
        if st.is_void(p.ctype):  # `(void)` alone is no parameters, and the parser took it so
            cx.diags.error(p.loc, "argument may not have 'void' type" if p.name
                           else "'void' must be the first and only parameter if specified")
            p.ctype = ct.INT  # as if it had been said: the rest of the function is checked
        p.ctype = check_opaque_use(cx, cx.spaces(p.ctype), p.loc, "param")
        check_half_decl(cx, p.ctype, p.loc, "param")
        check_access_qualifier(cx, p)
        if isinstance(p.ctype, ct.Array):
            p.ctype = st.decay(p.ctype)
        elif fn.body is not None and not st.is_complete_object(p.ctype):  # a declaration may name it
            written = p.ctype.with_space(p.ctype.space or AddressSpace.PRIVATE)
            cx.diags.error(p.loc, f"variable has incomplete type '{written}'")
            p.ctype = ct.INT  # as for `void` above: the body is still checked
        tag(cx, p.ctype, p.loc)
        params.append(p.ctype)
    ret = cx.spaces(ftype.ret)
    if fn.body is not None and not st.is_void(ret) and not st.is_complete_object(ret):
        cx.diags.error(fn.loc, f"incomplete result type '{ret}' in function definition")
        ret = ct.INT
    fn.ctype = ct.FunctionType(ret, tuple(params), ftype.variadic)
    tag(cx, fn.ctype.ret, fn.loc)
    if fn.is_kernel:
        kernel_checks(cx, fn)
    check_variadic(cx, fn)
    if printf_conflicts(cx, fn):
        return
    if fn.body is None and fn.name not in cx.defined and declares_builtin(cx, fn):
        return  # older code declares the builtins it calls (`int printf(constant const char *, ...);`,
        # `void barrier(cl_mem_fence_flags);`): the prototype names the builtin, as in clang
    declare_function(cx, fn)
    if fn.body is not None:
        function_body(cx, fn)


def kernel_checks(cx: SemaContext, fn: ast.FunctionDecl) -> None:
    assert isinstance(fn.ctype, ct.FunctionType)
    if not st.is_void(fn.ctype.ret):
        cx.diags.error(fn.loc, "kernel must have void return type")
    for p in fn.params:
        t = p.ctype
        space = st.pointee_space(t) if isinstance(t, ct.Pointer) else None
        if isinstance(t, ct.Pointer) and isinstance(t.pointee, ct.Pointer):
            cx.diags.error(p.loc, "kernel parameter cannot be declared as a pointer to a pointer")
        elif space in (AddressSpace.PRIVATE, AddressSpace.GENERIC):
            cx.diags.error(p.loc, "kernel parameter cannot be declared as a pointer to the "
                           f"__{space.value} address space")  # type: ignore[union-attr]
        elif isinstance(t, ct.Scalar) and t.kind is ct.ScalarKind.BOOL:
            cx.diags.error(p.loc, "'bool' cannot be used as the type of a kernel parameter")


def function_body(cx: SemaContext, fn: ast.FunctionDecl) -> None:
    assert fn.body is not None and isinstance(fn.ctype, ct.FunctionType)
    cx.current_function = fn
    cx.labels, cx.gotos = {}, []
    cx.label_contexts, cx.goto_contexts = {}, []
    cx.scopes.append({})
    for p in fn.params:
        if p.name:
            cx.declare(p)
        else:
            cx.diags.warning(p.loc, "omitting the parameter name in a function definition is a C2x extension")
    compound(cx, fn.body, new_scope=False)
    cx.scopes.pop()
    for g in cx.gotos:
        if g.name not in cx.labels:
            cx.diags.error(g.loc, f"use of undeclared label '{g.name}'")
    check_gotos_into_stmt_exprs(cx, )
    # As clang, no flow analysis once an error was reported (the tree may be partial).
    if not st.is_void(fn.ctype.ret) and not cx.diags.has_errors and may_fall_through(fn.body):
        loc = getattr(fn.body, "end_loc", None) or fn.body.loc
        if contains_return(fn.body):
            cx.diags.warning(loc, "non-void function does not return a value in all control paths")
        else:
            cx.diags.warning(loc, "non-void function does not return a value")
    cx.current_function = None


# -- statements ---------------------------------------------------------


def compound(cx: SemaContext, s: ast.Compound, new_scope: bool = True) -> None:
    if new_scope:
        cx.scopes.append({})
    for item in s.items:
        cx.stmt(item)
    if new_scope:
        cx.scopes.pop()


def expr_stmt(cx: SemaContext, s: ast.ExprStmt) -> None:
    if s.expr is not None:
        s.expr = cx.value(s.expr)


def decl_stmt(cx: SemaContext, s: ast.DeclStmt) -> None:
    for d in s.decls:
        cx.stmt(d)


def static_local(cx: SemaContext, d: ast.VarDecl) -> None:
    """A static variable in a function: OpenCL C 2.0's, in the global space unless it
    is written `constant` (clang's rules; before 2.0 there are none)."""
    if getattr(cx.options, "opencl_c_version", 120) < 200:
        cx.diags.error(d.loc, "variables in function scope cannot be declared static")
        d.storage = None
    elif d.ctype.space is None:
        d.ctype = d.ctype.with_space(AddressSpace.GLOBAL)
    elif d.ctype.space not in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
        cx.diags.error(d.loc, "static local variable must reside in global or constant address space")
        d.storage = None


def local_var(cx: SemaContext, d: ast.VarDecl) -> None:
    d.ctype = check_opaque_use(cx, cx.spaces(d.ctype), d.loc, "local")
    if not check_half_decl(cx, d.ctype, d.loc, "local"):  # clang checks no more of it
        d.ctype = st.ERROR
        cx.declare(d)
        return
    tag(cx, d.ctype, d.loc)
    fn = cx.current_function
    if d.storage == "static":
        static_local(cx, d)
    space = d.ctype.space
    if space is AddressSpace.LOCAL:
        if fn is None or not fn.is_kernel:
            cx.diags.error(d.loc, "non-kernel function variable cannot be declared in local address space")
        elif len(cx.scopes) > 2:  # the file's and the kernel's outermost block (OpenCL C 1.2 6.5.2)
            cx.diags.error(d.loc, "variables in the local address space can only be declared in the outermost "
                           "scope of a kernel function")
        elif d.init is not None:
            cx.diags.error(d.loc, "'__local' variable cannot have an initializer")
            d.init = None
    elif space is AddressSpace.CONSTANT and fn is not None and fn.is_kernel:
        if d.init is None:
            cx.diags.error(d.loc, "variable in constant address space must be initialized")
    elif space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT) and d.storage != "static":
        name = space.value
        cx.diags.error(d.loc, f"function scope variable cannot be declared in {name} address space")
    if isinstance(d.ctype, ct.Array) and d.ctype.count is None and isinstance(d.init, ast.InitList):
        d.ctype = ct.Array(d.ctype.elem, len(d.init.items), d.ctype.const, d.ctype.volatile, d.ctype.space)
    if isinstance(d.ctype, ct.Array) and d.ctype.count is None:
        cx.diags.error(d.loc, f"definition of variable with array type needs an explicit size "
                       "or an initializer")
        d.ctype = st.ERROR
    elif not st.is_complete_object(d.ctype):
        cx.diags.error(d.loc, f"variable has incomplete type '{d.ctype}'")
        d.ctype = st.ERROR
    elif not complete_array(cx, d):
        d.ctype = st.ERROR
    cx.declare(d)
    if d.init is not None and isinstance(d.ctype, AtomicScalar) and space not in (AddressSpace.GLOBAL,
                                                                                AddressSpace.LOCAL):
        cx.diags.error(start_loc(d.init), "atomic variable can be initialized to a variable only in global "
                                          "address space")
    if d.init is not None:
        static = d.storage == "static" or space is AddressSpace.CONSTANT
        d.init = initializer(cx, d.init, d.ctype, constant=static)


def if_stmt(cx: SemaContext, s: ast.If) -> None:
    s.cond = cx.condition(s.cond)
    scoped(cx, s.then)
    if s.else_ is not None:
        scoped(cx, s.else_)


def scoped(cx: SemaContext, s: ast.Stmt) -> None:
    cx.scopes.append({})
    cx.stmt(s)
    cx.scopes.pop()


def loop_body(cx: SemaContext, s: ast.Stmt) -> None:
    cx.loop_depth += 1
    scoped(cx, s)
    cx.loop_depth -= 1


# A loop's condition and step are outside its body: a `break` or `continue` in a statement
# expression there belongs to the enclosing loop or switch, and without one it is an error
# (C11 6.8.6.2-3: they appear only in a loop or switch body; clang 23 and GCC agree).

def while_stmt(cx: SemaContext, s: ast.While) -> None:
    s.cond = cx.condition(s.cond)
    loop_body(cx, s.body)


def do_stmt(cx: SemaContext, s: ast.DoWhile) -> None:
    loop_body(cx, s.body)
    s.cond = cx.condition(s.cond)


def for_stmt(cx: SemaContext, s: ast.For) -> None:
    cx.scopes.append({})
    if s.init is not None:
        cx.stmt(s.init)
    if s.cond is not None:
        s.cond = cx.condition(s.cond)
    if s.step is not None:
        s.step = cx.value(s.step)
    loop_body(cx, s.body)
    cx.scopes.pop()


def break_stmt(cx: SemaContext, s: ast.Break) -> None:
    if cx.loop_depth == 0 and not cx.switches:
        cx.diags.error(s.loc, "'break' statement not in loop or switch statement")


def continue_stmt(cx: SemaContext, s: ast.Continue) -> None:
    if cx.loop_depth == 0:
        cx.diags.error(s.loc, "'continue' statement not in loop statement")


def return_stmt(cx: SemaContext, s: ast.Return) -> None:
    fn = cx.current_function
    assert fn is not None and isinstance(fn.ctype, ct.FunctionType)
    ret = fn.ctype.ret
    if s.value is None:
        if not st.is_void(ret):
            cx.diags.error(s.loc, f"non-void function '{fn.name}' should return a value")
        return
    s.value = cx.value(s.value)
    if st.is_void(ret):
        if not st.is_void(s.value.ctype or st.ERROR) and not st.is_error(s.value.ctype):
            cx.diags.error(s.value.loc, f"void function '{fn.name}' should not return a value")
        return
    s.value = assign_convert(s.value, ret, "return", cx.diags)


def switch_stmt(cx: SemaContext, s: ast.Switch) -> None:
    s.cond = cx.value(s.cond)
    t = s.cond.ctype
    if not st.is_error(t) and not st.is_integer(t):  # type: ignore[arg-type]
        cx.diags.error(s.cond.loc, f"statement requires expression of integer type ('{t}' invalid)")
    elif not st.is_error(t):
        s.cond = convert(s.cond, st.promote(t))  # type: ignore[arg-type]
    cx.switches.append({})
    cx.switch_depths.append(len(cx.stmt_exprs))
    cx.switch_ranges.append([])
    cx.switch_types.append(t.unqualified() if t is not None and st.is_integer(t) else None)
    scoped(cx, s.body)
    check_case_ranges(cx, cx.switches[-1], cx.switch_ranges.pop())
    cx.switch_types.pop()
    cx.switch_depths.pop()
    cx.switches.pop()


def case_stmt(cx: SemaContext, s: ast.Case) -> None:
    if not cx.switches:
        cx.diags.error(s.loc, "'case' statement not in switch statement")
        cx.stmt(s.body)
        return
    check_case_scope(cx, s)
    if s.high is not None:
        case_range(cx, s)
        cx.stmt(s.body)
        return
    s.value = cx.value(s.value)
    v = case_value(cx, s.value)
    if v is not None:
        s.const_value = v
        prev = cx.switches[-1].get(v)
        if prev is not None:
            diag = cx.diags.error(start_loc(s.value), f"duplicate case value '{v}'")
            cx.diags.note(diag, start_loc(prev.value), "previous case defined here")
        else:
            cx.switches[-1][v] = s
    cx.stmt(s.body)


def default_stmt(cx: SemaContext, s: ast.Default) -> None:
    if not cx.switches:
        cx.diags.error(s.loc, "'default' statement not in switch statement")
    check_case_scope(cx, s)
    cx.stmt(s.body)


def label_stmt(cx: SemaContext, s: ast.Label) -> None:
    prev = cx.labels.get(s.name)
    if prev is not None:
        diag = cx.diags.error(s.loc, f"redefinition of label '{s.name}'")
        cx.diags.note(diag, prev.loc, "previous definition is here")
    cx.labels[s.name] = s
    note_label(cx, s)
    cx.stmt(s.body)


def goto_stmt(cx: SemaContext, s: ast.Goto) -> None:
    cx.gotos.append(s)
    note_goto(cx, s)


STMT_HANDLERS: dict[type, StmtHandler] = {
    ast.Compound: compound, ast.ExprStmt: expr_stmt, ast.DeclStmt: decl_stmt, ast.If: if_stmt,
    ast.While: while_stmt, ast.DoWhile: do_stmt, ast.For: for_stmt, ast.Break: break_stmt,
    ast.Continue: continue_stmt, ast.Return: return_stmt, ast.Switch: switch_stmt, ast.Case: case_stmt,
    ast.Default: default_stmt, ast.Label: label_stmt, ast.Goto: goto_stmt,
    ast.VarDecl: local_var, ast.Decl: other_decl,
}
HANDLERS = SemaHandlers(expr={**EXPR_HANDLERS, ast.StmtExpr: check_stmt_expr,
                              ast.CompoundLiteral: check_compound_literal},
                        stmt=STMT_HANDLERS)


def analyze(tu: ast.TranslationUnit, options: object, diags: DiagnosticEngine,
            extensions: Optional[ExtensionPragmas] = None) -> None:
    """Type and check `tu` in place, reporting problems to `diags`; `extensions`: where
    the program's `#pragma OPENCL EXTENSION`s enable each (none when not given)."""
    cx = SemaContext(options, diags, HANDLERS)
    if extensions is not None:
        cx.extensions = extensions
    check_unit(cx, tu)
