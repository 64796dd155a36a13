"""Lowering of statements to IR blocks: structured control flow, switch with
fallthrough, goto and labels, and local variable declarations.

Each handler is a function of the `LoweringContext`; `STMT_HANDLERS` maps AST
node classes to them (`cx.stmt(s)` dispatches through it).

After a terminator (return, break, goto, ...) lowering continues in a fresh
block with no predecessors; `lower.remove_unreachable` deletes such blocks.
"""

from __future__ import annotations

from typing import Optional

from ....ir import types as ir
from ....ir.values import Block, Value
from .. import ast
from .. import type_rules as st
from .exprs import initialize
from .gnu_lowering import add_case_range, range_tests
from .helpers import LValue
from .lowering_context import LoweringContext, StmtHandler, link_name


def cond_branch(cx: LoweringContext, cond: ast.Expr, then: Block, else_: Block) -> None:
    cx.b.condbr(cx.rv(cond), then, else_)


def s_compound(cx: LoweringContext, s: ast.Compound) -> None:
    for item in s.items:
        cx.stmt(item)


def s_expr(cx: LoweringContext, s: ast.ExprStmt) -> None:
    if s.expr is not None:
        cx.rv(s.expr)


def s_decls(cx: LoweringContext, s: ast.DeclStmt) -> None:
    for d in s.decls:
        cx.stmt(d)


def s_if(cx: LoweringContext, s: ast.If) -> None:
    then_b, end = cx.new_block("if.then"), cx.new_block("if.end")
    else_b = cx.new_block("if.else") if s.else_ is not None else end
    cond_branch(cx, s.cond, then_b, else_b)
    cx.b.position_at_end(then_b)
    cx.stmt(s.then)
    cx.jump(end)
    if s.else_ is not None:
        cx.b.position_at_end(else_b)
        cx.stmt(s.else_)
        cx.jump(end)
    cx.b.position_at_end(end)


def _loop(cx: LoweringContext, cond: Optional[ast.Expr], body: ast.Stmt, step: Optional[ast.Expr],
          test_first: bool, name: str) -> None:
    cond_b, body_b = cx.new_block(f"{name}.cond"), cx.new_block(f"{name}.body")
    step_b = cx.new_block(f"{name}.inc") if step is not None else cond_b
    end = cx.new_block(f"{name}.end")
    cx.start(cond_b if test_first else body_b)
    if test_first:
        _test(cx, cond, body_b, end)
        cx.b.position_at_end(body_b)
    # Only the body: a break or continue in a statement expression in the condition or the step
    # leaves the enclosing loop or switch (C11 6.8.6.2-3; sema checks there is one).
    cx.break_targets.append(end)
    cx.continue_targets.append(step_b)
    cx.stmt(body)
    cx.break_targets.pop()
    cx.continue_targets.pop()
    cx.jump(step_b)
    if step is not None:
        cx.b.position_at_end(step_b)
        cx.rv(step)
        cx.jump(cond_b)
    if not test_first:
        cx.b.position_at_end(cond_b)
        _test(cx, cond, body_b, end)
    cx.b.position_at_end(end)


def _test(cx: LoweringContext, cond: Optional[ast.Expr], body: Block, end: Block) -> None:
    if cond is None:
        cx.b.br(body)
    else:
        cond_branch(cx, cond, body, end)


def s_while(cx: LoweringContext, s: ast.While) -> None:
    _loop(cx, s.cond, s.body, None, True, "while")


def s_do(cx: LoweringContext, s: ast.DoWhile) -> None:
    _loop(cx, s.cond, s.body, None, False, "do")


def s_for(cx: LoweringContext, s: ast.For) -> None:
    if s.init is not None:
        cx.stmt(s.init)
    _loop(cx, s.cond, s.body, s.step, True, "for")


def s_break(cx: LoweringContext, s: ast.Break) -> None:
    cx.b.br(cx.break_targets[-1])
    cx.after_terminator()


def s_continue(cx: LoweringContext, s: ast.Continue) -> None:
    cx.b.br(cx.continue_targets[-1])
    cx.after_terminator()


def s_return(cx: LoweringContext, s: ast.Return) -> None:
    if s.value is None or st.is_void(s.value.ctype):  # type: ignore[arg-type]
        if s.value is not None:
            cx.rv(s.value)
        cx.b.ret()
    else:
        cx.b.ret(cx.rv(s.value))
    cx.after_terminator()


def s_switch(cx: LoweringContext, s: ast.Switch) -> None:
    value = cx.rv(s.cond)
    dispatch = cx.current_block()
    end = cx.new_block("sw.end")
    cases: list[tuple[int, Block]] = []
    default: list[Optional[Block]] = [None]
    ranges: list[tuple[int, int, Block]] = []
    cx.switch_stack.append((cases, default, ranges))
    cx.break_targets.append(end)
    cx.b.position_at_end(cx.new_block("sw.body"))
    cx.stmt(s.body)
    cx.jump(end)
    cx.break_targets.pop()
    cx.switch_stack.pop()
    fallback = default[0] or end
    if ranges:
        fallback = range_tests(cx, value, ranges, fallback)
    cx.b.position_at_end(dispatch)
    cx.b.switch(value, fallback, cases)
    cx.b.position_at_end(end)


def s_case(cx: LoweringContext, s: ast.Case) -> None:
    block = cx.new_block("sw.case")
    cx.start(block)
    cases, _, ranges = cx.switch_stack[-1]
    if s.high is not None:
        add_case_range(s, block, cases, ranges)
    else:
        assert s.const_value is not None
        cases.append((s.const_value, block))
    cx.stmt(s.body)


def s_default(cx: LoweringContext, s: ast.Default) -> None:
    block = cx.new_block("sw.default")
    cx.start(block)
    cx.switch_stack[-1][1][0] = block
    cx.stmt(s.body)


def s_label(cx: LoweringContext, s: ast.Label) -> None:
    cx.start(cx.label_block(s.name))
    cx.stmt(s.body)


def s_goto(cx: LoweringContext, s: ast.Goto) -> None:
    cx.b.br(cx.label_block(s.name))
    cx.after_terminator()


# -- local variables ----------------------------------------------------
def local_var(cx: LoweringContext, d: ast.VarDecl) -> None:
    addr = declare_local(cx, d)
    if d.init is not None and addr is not None:
        initialize(cx, LValue(addr, d.ctype), d.init)


def declare_local(cx: LoweringContext, d: ast.VarDecl) -> Optional[Value]:
    """Give local `d` its storage: an alloca, or a global for `__local`, static and
    `__constant` variables (those return None: they are not initialized here)."""
    if d.ctype.space is ir.AddressSpace.LOCAL:
        cx.locals[id(d)] = cx.unit.local_global(cx.decl.name, d)
        return None
    if d.storage == "static" or d.ctype.space is ir.AddressSpace.CONSTANT:
        gv = cx.unit.constant_global(d, f"{link_name(cx.decl)}.{d.name}")
        cx.locals[id(d)] = cx.unit.globals[id(d)] = gv  # a later address constant may name it
        return None
    addr = cx.alloca(d.ctype, d.name, int(d.attributes.get("aligned", 0) or 0))
    cx.locals[id(d)] = addr
    return addr


STMT_HANDLERS: dict[type, StmtHandler] = {
    ast.Compound: s_compound, ast.ExprStmt: s_expr, ast.DeclStmt: s_decls, ast.If: s_if,
    ast.While: s_while, ast.DoWhile: s_do, ast.For: s_for, ast.Break: s_break,
    ast.Continue: s_continue, ast.Return: s_return, ast.Switch: s_switch, ast.Case: s_case,
    ast.Default: s_default, ast.Label: s_label, ast.Goto: s_goto, ast.VarDecl: local_var,
}


