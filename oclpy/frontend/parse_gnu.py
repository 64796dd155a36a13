"""Parsing of the GNU C and clang extensions that OpenCL C compilers built on clang
accept: statement expressions `({ ... })` and `__typeof__(...)`.

Each function takes the `Parser` as its first argument (an explicit context, not
a mixin) and is called from the parse method where the construct can appear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ast
from .gnu_types import TypeOf

if TYPE_CHECKING:
    from .parser import DeclSpec, Parser


def at_statement_expression(p: Parser) -> bool:
    """Is `(` `{` next: a statement expression, not a parenthesised expression?"""
    return p.at("(") and p.ts.peek().kind == "punct" and p.ts.peek().text == "{"


def parse_statement_expression(p: Parser) -> ast.Expr:
    # BNF: statement_expression : '(' compound_statement ')'
    if p.function_depth == 0:
        loc = p.tok.loc
        p.skip_balanced_parens()
        raise p.error(loc, "statement expression not allowed at file scope")
    opener = p.ts.advance()
    body = p.parse_compound_statement()
    p.expect_closing(")", opener)
    return ast.StmtExpr(opener.loc, body)


def parse_typeof_specifier(p: Parser, spec: DeclSpec) -> None:
    # BNF: typeof_specifier : ('__typeof__' | '__typeof' | 'typeof') '(' (type_name | expression) ')'
    kw = p.ts.advance()
    opener = p.expect("(", f"expected '(' after '{kw.text}'")
    if p.is_type_name(p.tok):
        t = p.parse_type_name()
    else:
        t = TypeOf(p.parse_expression())
    p.expect_closing(")", opener)
    if spec.has_type:
        previous = spec.named_type or spec.words[0]
        p.diags.error(kw.loc, f"cannot combine with previous '{previous}' declaration specifier")
        return
    spec.named_type = t
