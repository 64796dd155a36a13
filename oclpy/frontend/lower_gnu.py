"""Lowering of GNU C extensions: statement expressions `({ ... })`.

The block's statements are lowered in order like any compound statement; the
value is the rvalue of the result statement sema chose (`StmtExpr.result`),
computed where that statement stands, so statements after it (empty ones)
and jumps out of the block (break, continue, return, goto) behave as in C.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from ..ir import types as ir
from ..ir.values import Block, Undef, Value
from . import ast


class GnuLowering:
    if TYPE_CHECKING:  # provided by StmtLowering and ExprLowering
        def stmt(self, s: Union[ast.Stmt, ast.Decl]) -> None: ...
        def rv(self, e: ast.Expr) -> Value: ...
        def start(self, block: Block) -> None: ...
        def label_block(self, name: str) -> Block: ...

    def rv_stmt_expr(self, e: ast.StmtExpr) -> Value:
        value: Value = Undef(ir.VOID)
        for item in e.body.items:
            if e.result is not None and _leads_to(item, e.result):
                value = self._result_value(item, e.result)
            else:
                self.stmt(item)
        return value

    def _result_value(self, item: Union[ast.Stmt, ast.Decl], result: ast.ExprStmt) -> Value:
        while isinstance(item, ast.Label):
            self.start(self.label_block(item.name))
            item = item.body
        assert item is result and result.expr is not None
        return self.rv(result.expr)


def _leads_to(item: Union[ast.Stmt, ast.Decl], result: ast.ExprStmt) -> bool:
    """Is `item` the result statement, or labels in front of it?"""
    while isinstance(item, ast.Label):
        item = item.body
    return item is result
