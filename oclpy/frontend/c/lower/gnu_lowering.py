"""Lowering of GNU C extensions: statement expressions `({ ... })` and case ranges.

The block's statements are lowered in order like any compound statement; the
value is the rvalue of the result statement sema chose (`StmtExpr.result`),
computed where that statement stands, so statements after it (empty ones)
and jumps out of the block (break, continue, return, goto) behave as in C.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.values import Block, ConstInt, Undef, Value
from .. import ast


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


# A case range of at most this many values becomes that many switch cases; a wider one
# is tested with one unsigned comparison, `value - low <= high - low`, before the default.
MAX_LISTED_RANGE = 64


class CaseRangeLowering:
    if TYPE_CHECKING:  # provided by StmtLowering
        b: Builder
        def new_block(self, name: str) -> Block: ...

    def add_case_range(self, s: ast.Case, block: Block, cases: list[tuple[int, Block]],
                       ranges: list[tuple[int, int, Block]]) -> None:
        if s.const_value is None or s.const_high is None:  # an empty range: never taken
            return
        if s.const_high - s.const_value < MAX_LISTED_RANGE:
            cases.extend((v, block) for v in range(s.const_value, s.const_high + 1))
        else:
            ranges.append((s.const_value, s.const_high, block))

    def range_tests(self, value: Value, ranges: list[tuple[int, int, Block]], fallback: Block) -> Block:
        """Blocks testing `value` against each wide range in turn, ending at `fallback`;
        returns the first (the switch's default target)."""
        saved = self.b.block
        for low, high, target in reversed(ranges):
            test = self.new_block("sw.range")
            self.b.position_at_end(test)
            offset = self.b.binop("sub", value, ConstInt(value.type, low))
            inside = self.b.icmp("ule", offset, ConstInt(value.type, high - low))
            self.b.condbr(inside, target, fallback)
            fallback = test
        self.b.position_at_end(saved)
        return fallback
