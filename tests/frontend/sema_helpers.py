"""Shared helpers for the sema, lowering and builtin tests: run the frontend
stages on OpenCL C source and look at the typed tree or the diagnostics."""

from __future__ import annotations

import re

import pytest

from oclpy.frontend.driver import compile_to_ir
from oclpy.diagnostics import CompileError
from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c import ast
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.extension_pragmas import extension_pragmas
from oclpy.frontend.c.sema.analyzer import analyze

FILE = "<kernel>"


def check(src: str, options: str = "") -> tuple[ast.TranslationUnit, DiagnosticEngine]:
    diags = DiagnosticEngine({FILE: src})
    tu = parse(src, FILE, diags)
    assert not diags.has_errors, diags.render()
    analyze(tu, parse_build_options(options), diags, extension_pragmas(src, FILE))
    return tu, diags


def messages(src: str, options: str = "", severity: str = "error") -> list[str]:
    """`line:col: message` for each diagnostic of `severity`."""
    _, diags = check(src, options)
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in diags.diagnostics
            if d.severity == severity]


def body_exprs(src: str, options: str = "") -> list[ast.Expr]:
    """The expressions of the expression statements of the last function in `src`."""
    tu, diags = check(src, options)
    assert not diags.has_errors, diags.render()
    fn = [d for d in tu.decls if isinstance(d, ast.FunctionDecl)][-1]
    assert fn.body is not None
    return [s.expr for s in fn.body.items if isinstance(s, ast.ExprStmt) and s.expr is not None]


def expr_type(decls: str, expr: str, options: str = "") -> str:
    """The type sema gives `expr` in a function whose parameters are `decls`."""
    e = body_exprs(f"void f({decls}) {{ {expr}; }}", options)[0]
    return str(e.ctype)


def casts(e: ast.Expr) -> list[str]:
    """The implicit cast kinds in `e`, outermost first, depth-first."""
    out: list[str] = []

    def walk(n: object) -> None:
        if isinstance(n, ast.ImplicitCast):
            out.append(f"{n.kind}:{n.ctype}")
        if isinstance(n, ast.Node):
            for v in vars(n).values():
                if isinstance(v, ast.Expr):
                    walk(v)
                elif isinstance(v, list):
                    for x in v:
                        walk(x)
    walk(e)
    return out


def build_errors(src: str, std: str | None = None) -> list[tuple[str, str]]:
    """(line:col, message) of each error in the log of a build that must fail, in order."""
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, f"-cl-std={std}" if std else "")
    return re.findall(r"^<kernel>:(\d+:\d+): error: (.*)$", info.value.log, re.M)
