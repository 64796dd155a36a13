"""Semantic analysis of a translation unit: declarations, scopes and statements.

`analyze(tu, options, diags)` types every expression (see `sema_expr`),
resolves identifiers to their declarations, checks the OpenCL rules on
kernels, address spaces, program-scope variables and control flow (break
outside loops, duplicate case values, missing returns, recursion), and
reports every error it finds, continuing after each. Lowering runs only on a
tree that produced no error.
"""

from __future__ import annotations

from typing import Optional, Union

from ....diagnostics import UNKNOWN_LOCATION, DiagnosticEngine, SourceLocation
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from .folding import fold_int
from .conversions import assign_convert, convert
from ..ast import start_loc
from .expressions import ExprChecker
from .initializers import InitChecker
from .flow import may_fall_through, contains_return, find_recursion
from .gnu_checks import GnuChecker
from .overloads import OverloadChecker
from ..opaque_types import image_type_in


class Sema(InitChecker, GnuChecker, OverloadChecker, ExprChecker):
    def __init__(self, options: object, diags: DiagnosticEngine) -> None:
        self.options = options
        self.diags = diags
        self.scopes: list[dict[str, ast.Decl]] = [{}]
        self.current_function: Optional[ast.FunctionDecl] = None
        self.calls: dict[str, set[str]] = {}
        self.call_sites: dict[tuple[str, str], ast.Call] = {}
        self.loop_depth = 0
        self.switches: list[dict[int, ast.Case]] = []
        self.labels: dict[str, ast.Label] = {}
        self.gotos: list[ast.Goto] = []
        self.checked_structs: set[int] = set()
        self.stmt_exprs: list[ast.StmtExpr] = []
        self.label_contexts: dict[str, tuple[ast.StmtExpr, ...]] = {}
        self.goto_contexts: list[tuple[ast.Goto, tuple[ast.StmtExpr, ...]]] = []
        self.switch_depths: list[int] = []
        self.switch_ranges: list[list[ast.Case]] = []
        self.overloads: dict[str, list[ast.FunctionDecl]] = {}
        self.linked: dict[str, ast.FunctionDecl] = {}

    def _handlers(self):  # type: ignore[no-untyped-def]
        return {**super()._handlers(), ast.StmtExpr: self.check_stmt_expr,
                ast.CompoundLiteral: self.check_compound_literal}

    # -- scopes -------------------------------------------------------------
    def lookup(self, name: str) -> Optional[ast.Decl]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, decl: ast.Decl) -> None:
        scope = self.scopes[-1]
        prev = scope.get(decl.name)
        if prev is not None and not isinstance(prev, ast.FunctionDecl):
            diag = self.diags.error(decl.loc, f"redefinition of '{decl.name}'")
            self.diags.note(diag, prev.loc, "previous definition is here")
        scope[decl.name] = decl

    def no_images(self, t: CType, loc: SourceLocation) -> CType:
        """Report a use of an image or sampler type; the declaration gets the error type."""
        image = image_type_in(t)
        if image is None:
            return t
        self.diags.error(loc, f"images are not supported yet (type '{image.name}')")
        return st.ERROR

    # -- translation unit ---------------------------------------------------
    def run(self, tu: ast.TranslationUnit) -> None:
        for decl in tu.decls:
            self.top_level(decl)
        for (caller, callee), site in self.call_sites.items():
            decl = self.linked.get(callee)
            # After an error the definition may be in what the parser skipped: no guessing then.
            if isinstance(decl, ast.FunctionDecl) and decl.body is None and not self.diags.has_errors:
                self.diags.error(site.loc, f"function '{decl.name}' is used but not defined in this program")
        for fn_name, callee, chain in find_recursion(self.calls):
            site = self.call_sites.get((fn_name, callee))
            loc = site.loc if site is not None else tu.loc
            names = [self.linked[n].name if n in self.linked else n for n in chain]
            self.diags.error(loc, f"recursive call to '{names[-1]}' ({' -> '.join(names)}): "
                             "recursion is not supported in OpenCL")

    def top_level(self, decl: ast.Decl) -> None:
        if isinstance(decl, ast.FunctionDecl):
            self.function(decl)
        elif isinstance(decl, ast.VarDecl):
            self.program_scope_var(decl)
        else:
            self.other_decl(decl)

    def other_decl(self, decl: ast.Decl) -> None:
        if isinstance(decl, ast.EnumConstant):
            self.declare(decl)
        elif isinstance(decl, ast.TagDecl):
            self.tag(decl.ctype, decl.loc)
        elif isinstance(decl, ast.TypedefDecl):
            decl.ctype = self.spaces(decl.ctype)
            self.tag(decl.ctype, decl.loc)
        elif isinstance(decl, ast.StaticAssert):
            self.static_assert(decl)

    def tag(self, t: CType, loc: Optional[SourceLocation] = None) -> None:
        """Check a struct definition once: pointer fields get their default address
        space; bit-fields are reported (OpenCL C does not have them)."""
        while isinstance(t, (ct.Pointer, ct.Array)):
            t = t.pointee if isinstance(t, ct.Pointer) else t.elem
        if not isinstance(t, ct.Struct) or not t.definition.fields or id(t.definition) in self.checked_structs:
            return
        self.checked_structs.add(id(t.definition))
        for f in t.definition.fields:
            f.type = self.spaces(f.type)
            if f.bit_width is not None:
                self.diags.error(loc or UNKNOWN_LOCATION, f"bit-fields are not supported in OpenCL "
                                 f"(field '{f.name}')")
                f.bit_width = None
            self.tag(f.type, loc)

    def program_scope_var(self, d: ast.VarDecl) -> None:
        d.is_global_scope = True
        d.ctype = self.no_images(self.spaces(d.ctype), d.loc)
        if st.is_error(d.ctype):
            self.declare(d)
            return
        self.tag(d.ctype, d.loc)
        cl2 = getattr(self.options, "opencl_c_version", 120) >= 200
        allowed = (AddressSpace.CONSTANT, AddressSpace.GLOBAL) if cl2 else (AddressSpace.CONSTANT,)
        if cl2 and d.ctype.space is None:  # OpenCL C 2.0: unqualified program scope variables are global
            d.ctype = d.ctype.with_space(AddressSpace.GLOBAL)
        if d.ctype.space not in allowed:
            self.diags.error(d.loc, "program scope variable must reside in constant address space")
            d.ctype = d.ctype.with_space(AddressSpace.CONSTANT)
        self.declare(d)
        if d.init is None:
            if d.ctype.space is AddressSpace.CONSTANT and d.storage != "extern":
                self.diags.error(d.loc, "variable in constant address space must be initialized")
            return
        d.init = self.initializer(d.init, d.ctype, constant=True)

    # -- functions ----------------------------------------------------------
    def function(self, fn: ast.FunctionDecl) -> None:
        ftype = fn.ctype
        assert isinstance(ftype, ct.FunctionType)
        params = []
        for p in fn.params:
            p.ctype = self.no_images(self.spaces(p.ctype), p.loc)
            if isinstance(p.ctype, ct.Array):
                p.ctype = st.decay(p.ctype)
            self.tag(p.ctype, p.loc)
            params.append(p.ctype)
        fn.ctype = ct.FunctionType(self.spaces(ftype.ret), tuple(params), ftype.variadic)
        self.tag(fn.ctype.ret, fn.loc)
        if fn.is_kernel:
            self.kernel_checks(fn)
        self.declare_function(fn)
        if fn.body is not None:
            self.function_body(fn)

    def kernel_checks(self, fn: ast.FunctionDecl) -> None:
        assert isinstance(fn.ctype, ct.FunctionType)
        if not st.is_void(fn.ctype.ret):
            self.diags.error(fn.loc, "kernel must have void return type")
        for p in fn.params:
            t = p.ctype
            space = st.pointee_space(t) if isinstance(t, ct.Pointer) else None
            if isinstance(t, ct.Pointer) and isinstance(t.pointee, ct.Pointer):
                self.diags.error(p.loc, "kernel parameter cannot be declared as a pointer to a pointer")
            elif space in (AddressSpace.PRIVATE, AddressSpace.GENERIC):
                self.diags.error(p.loc, "kernel parameter cannot be declared as a pointer to the "
                                 f"__{space.value} address space")  # type: ignore[union-attr]
            elif isinstance(t, ct.Scalar) and t.kind is ct.ScalarKind.BOOL:
                self.diags.error(p.loc, "'bool' cannot be used as the type of a kernel parameter")

    def function_body(self, fn: ast.FunctionDecl) -> None:
        assert fn.body is not None and isinstance(fn.ctype, ct.FunctionType)
        self.current_function = fn
        self.labels, self.gotos = {}, []
        self.label_contexts, self.goto_contexts = {}, []
        self.scopes.append({})
        for p in fn.params:
            if p.name:
                self.declare(p)
            else:
                self.diags.warning(p.loc, "omitting the parameter name in a function definition is a C2x extension")
        self.compound(fn.body, new_scope=False)
        self.scopes.pop()
        for g in self.gotos:
            if g.name not in self.labels:
                self.diags.error(g.loc, f"use of undeclared label '{g.name}'")
        self.check_gotos_into_stmt_exprs()
        # As clang, no flow analysis once an error was reported (the tree may be partial).
        if not st.is_void(fn.ctype.ret) and not self.diags.has_errors and may_fall_through(fn.body):
            loc = getattr(fn.body, "end_loc", None) or fn.body.loc
            if contains_return(fn.body):
                self.diags.warning(loc, "non-void function does not return a value in all control paths")
            else:
                self.diags.warning(loc, "non-void function does not return a value")
        self.current_function = None

    # -- statements ---------------------------------------------------------
    def stmt(self, s: Union[ast.Stmt, ast.Decl]) -> None:
        handler = {
            ast.Compound: self.compound, ast.ExprStmt: self.expr_stmt, ast.DeclStmt: self.decl_stmt,
            ast.If: self.if_stmt, ast.While: self.while_stmt, ast.DoWhile: self.do_stmt,
            ast.For: self.for_stmt, ast.Break: self.break_stmt, ast.Continue: self.continue_stmt,
            ast.Return: self.return_stmt, ast.Switch: self.switch_stmt, ast.Case: self.case_stmt,
            ast.Default: self.default_stmt, ast.Label: self.label_stmt, ast.Goto: self.goto_stmt,
        }.get(type(s))
        if handler is not None:
            handler(s)  # type: ignore[operator]
        elif isinstance(s, ast.VarDecl):
            self.local_var(s)
        elif isinstance(s, ast.Decl):
            self.other_decl(s)
        else:
            self.diags.error(s.loc, f"unsupported statement '{type(s).__name__}'")

    def compound(self, s: ast.Compound, new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append({})
        for item in s.items:
            self.stmt(item)
        if new_scope:
            self.scopes.pop()

    def expr_stmt(self, s: ast.ExprStmt) -> None:
        if s.expr is not None:
            s.expr = self.value(s.expr)

    def decl_stmt(self, s: ast.DeclStmt) -> None:
        for d in s.decls:
            self.stmt(d)

    def local_var(self, d: ast.VarDecl) -> None:
        d.ctype = self.no_images(self.spaces(d.ctype), d.loc)
        self.tag(d.ctype, d.loc)
        fn = self.current_function
        space = d.ctype.space
        if d.storage == "static" and space is not AddressSpace.CONSTANT:
            self.diags.error(d.loc, "variables in function scope cannot be declared static")
            d.storage = None
        if space is AddressSpace.LOCAL:
            if fn is None or not fn.is_kernel:
                self.diags.error(d.loc, "non-kernel function variable cannot be declared in local address space")
            elif d.init is not None:
                self.diags.error(d.loc, "'__local' variable cannot have an initializer")
                d.init = None
        elif space is AddressSpace.CONSTANT and fn is not None and fn.is_kernel:
            if d.init is None:
                self.diags.error(d.loc, "variable in constant address space must be initialized")
        elif space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT) and d.storage != "static":
            name = space.value
            self.diags.error(d.loc, f"function scope variable cannot be declared in {name} address space")
        if isinstance(d.ctype, ct.Array) and d.ctype.count is None and isinstance(d.init, ast.InitList):
            d.ctype = ct.Array(d.ctype.elem, len(d.init.items), d.ctype.const, d.ctype.volatile, d.ctype.space)
        if isinstance(d.ctype, ct.Array) and d.ctype.count is None:
            self.diags.error(d.loc, f"definition of variable with array type needs an explicit size "
                             "or an initializer")
            d.ctype = st.ERROR
        elif not st.is_complete_object(d.ctype):
            self.diags.error(d.loc, f"variable has incomplete type '{d.ctype}'")
            d.ctype = st.ERROR
        self.declare(d)
        if d.init is not None:
            static = d.storage == "static" or space is AddressSpace.CONSTANT
            d.init = self.initializer(d.init, d.ctype, constant=static)

    def if_stmt(self, s: ast.If) -> None:
        s.cond = self.condition(s.cond)
        self.scoped(s.then)
        if s.else_ is not None:
            self.scoped(s.else_)

    def scoped(self, s: ast.Stmt) -> None:
        self.scopes.append({})
        self.stmt(s)
        self.scopes.pop()

    def loop_body(self, s: ast.Stmt) -> None:
        self.loop_depth += 1
        self.scoped(s)
        self.loop_depth -= 1

    def loop_condition(self, e: ast.Expr) -> ast.Expr:
        """A loop's condition: `break` and `continue` in a statement expression there act on the loop."""
        self.loop_depth += 1
        try:
            return self.condition(e)
        finally:
            self.loop_depth -= 1

    def while_stmt(self, s: ast.While) -> None:
        s.cond = self.loop_condition(s.cond)
        self.loop_body(s.body)

    def do_stmt(self, s: ast.DoWhile) -> None:
        self.loop_body(s.body)
        s.cond = self.loop_condition(s.cond)

    def for_stmt(self, s: ast.For) -> None:
        self.scopes.append({})
        if s.init is not None:
            self.stmt(s.init)
        if s.cond is not None:
            s.cond = self.loop_condition(s.cond)
        if s.step is not None:
            self.loop_depth += 1
            s.step = self.value(s.step)
            self.loop_depth -= 1
        self.loop_body(s.body)
        self.scopes.pop()

    def break_stmt(self, s: ast.Break) -> None:
        if self.loop_depth == 0 and not self.switches:
            self.diags.error(s.loc, "'break' statement not in loop or switch statement")

    def continue_stmt(self, s: ast.Continue) -> None:
        if self.loop_depth == 0:
            self.diags.error(s.loc, "'continue' statement not in loop statement")

    def return_stmt(self, s: ast.Return) -> None:
        fn = self.current_function
        assert fn is not None and isinstance(fn.ctype, ct.FunctionType)
        ret = fn.ctype.ret
        if s.value is None:
            if not st.is_void(ret):
                self.diags.error(s.loc, f"non-void function '{fn.name}' should return a value")
            return
        s.value = self.value(s.value)
        if st.is_void(ret):
            if not st.is_void(s.value.ctype or st.ERROR):
                self.diags.error(s.value.loc, f"void function '{fn.name}' should not return a value")
            return
        s.value = assign_convert(s.value, ret, "return", self.diags)

    def switch_stmt(self, s: ast.Switch) -> None:
        s.cond = self.value(s.cond)
        t = s.cond.ctype
        if not st.is_error(t) and not st.is_integer(t):  # type: ignore[arg-type]
            self.diags.error(s.cond.loc, f"statement requires expression of integer type ('{t}' invalid)")
        elif not st.is_error(t):
            s.cond = convert(s.cond, st.promote(t))  # type: ignore[arg-type]
        self.switches.append({})
        self.switch_depths.append(len(self.stmt_exprs))
        self.switch_ranges.append([])
        self.scoped(s.body)
        self.check_case_ranges(self.switches[-1], self.switch_ranges.pop())
        self.switch_depths.pop()
        self.switches.pop()

    def case_stmt(self, s: ast.Case) -> None:
        if not self.switches:
            self.diags.error(s.loc, "'case' statement not in switch statement")
            self.stmt(s.body)
            return
        self.check_case_scope(s)
        if s.high is not None:
            self.case_range(s)
            self.stmt(s.body)
            return
        s.value = self.value(s.value)
        v = fold_int(s.value)
        if v is None:
            if not st.is_error(s.value.ctype):
                self.diags.error(s.value.loc, "expression is not an integer constant expression")
        else:
            s.const_value = v
            prev = self.switches[-1].get(v)
            if prev is not None:
                diag = self.diags.error(start_loc(s.value), f"duplicate case value '{v}'")
                self.diags.note(diag, start_loc(prev.value), "previous case defined here")
            else:
                self.switches[-1][v] = s
        self.stmt(s.body)

    def default_stmt(self, s: ast.Default) -> None:
        if not self.switches:
            self.diags.error(s.loc, "'default' statement not in switch statement")
        self.check_case_scope(s)
        self.stmt(s.body)

    def label_stmt(self, s: ast.Label) -> None:
        prev = self.labels.get(s.name)
        if prev is not None:
            diag = self.diags.error(s.loc, f"redefinition of label '{s.name}'")
            self.diags.note(diag, prev.loc, "previous definition is here")
        self.labels[s.name] = s
        self.note_label(s)
        self.stmt(s.body)

    def goto_stmt(self, s: ast.Goto) -> None:
        self.gotos.append(s)
        self.note_goto(s)


def analyze(tu: ast.TranslationUnit, options: object, diags: DiagnosticEngine) -> None:
    """Type and check `tu` in place, reporting problems to `diags`."""
    Sema(options, diags).run(tu)
