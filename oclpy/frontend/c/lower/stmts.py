"""Lowering of statements to IR blocks: structured control flow, switch with
fallthrough, goto and labels, and local variable declarations.

After a terminator (return, break, goto, ...) lowering continues in a fresh
block with no predecessors; `lower.remove_unreachable` deletes such blocks.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

from ....ir import types as ir
from ....ir.values import Block, ConstInt, ConstZero
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..dispatch import cached_table
from ..layout import align_of, mem_type, struct_info
from .helpers import LValue


class StmtLowering:
    def __init__(self) -> None:
        self.break_targets: list[Block] = []
        self.continue_targets: list[Block] = []
        # Per switch being lowered: its (value, block) cases, [default block], and its
        # case ranges too wide to list value by value, (low, high, block).
        self.switch_stack: list[tuple[list[tuple[int, Block]], list[Optional[Block]],
                                      list[tuple[int, int, Block]]]] = []
        self.label_blocks: dict[str, Block] = {}
        self.block_names: set[str] = {"entry"}  # names given in this function
        self.block_next: dict[str, int] = {}  # name -> the next suffix worth trying

    # -- helpers ------------------------------------------------------------
    def terminated(self) -> bool:
        return self.b.block.terminator is not None  # type: ignore[attr-defined, union-attr]

    def jump(self, dest: Block) -> None:
        if not self.terminated():
            self.b.br(dest)  # type: ignore[attr-defined]

    def start(self, block: Block) -> None:
        self.jump(block)
        self.b.position_at_end(block)  # type: ignore[attr-defined]

    def new_block(self, name: str) -> Block:
        """A new block named as `Function.add_block` names it (`name`, else `name1`,
        `name2`, ...), in constant time: lowering only ever adds names, so the
        smallest free suffix never goes down (add_block rescans every block)."""
        if name in self.block_names:
            n = self.block_next.get(name, 1)
            while f"{name}{n}" in self.block_names:
                n += 1
            self.block_next[name] = n + 1
            name = f"{name}{n}"
        self.block_names.add(name)
        fn = self.b.function  # type: ignore[attr-defined]
        block = Block(name, parent=fn)
        fn.blocks.append(block)
        return block

    def after_terminator(self) -> None:
        self.b.position_at_end(self.new_block("dead"))  # type: ignore[attr-defined]

    def cond_branch(self, cond: ast.Expr, then: Block, else_: Block) -> None:
        self.b.condbr(self.rv(cond), then, else_)  # type: ignore[attr-defined]

    # -- dispatch -----------------------------------------------------------
    def stmt(self, s: Union[ast.Stmt, ast.Decl]) -> None:
        handler = cached_table(self, "_stmt_table", self._stmt_handlers).get(type(s))
        if handler is not None:
            handler(s)
        elif isinstance(s, ast.VarDecl):
            self.local_var(s)

    def _stmt_handlers(self) -> dict[type, Callable]:
        return {
            ast.Compound: self.s_compound, ast.ExprStmt: self.s_expr, ast.DeclStmt: self.s_decls,
            ast.If: self.s_if, ast.While: self.s_while, ast.DoWhile: self.s_do, ast.For: self.s_for,
            ast.Break: self.s_break, ast.Continue: self.s_continue, ast.Return: self.s_return,
            ast.Switch: self.s_switch, ast.Case: self.s_case, ast.Default: self.s_default,
            ast.Label: self.s_label, ast.Goto: self.s_goto,
        }

    def s_compound(self, s: ast.Compound) -> None:
        for item in s.items:
            self.stmt(item)

    def s_expr(self, s: ast.ExprStmt) -> None:
        if s.expr is not None:
            self.rv(s.expr)  # type: ignore[attr-defined]

    def s_decls(self, s: ast.DeclStmt) -> None:
        for d in s.decls:
            self.stmt(d)

    def s_if(self, s: ast.If) -> None:
        then_b, end = self.new_block("if.then"), self.new_block("if.end")
        else_b = self.new_block("if.else") if s.else_ is not None else end
        self.cond_branch(s.cond, then_b, else_b)
        self.b.position_at_end(then_b)  # type: ignore[attr-defined]
        self.stmt(s.then)
        self.jump(end)
        if s.else_ is not None:
            self.b.position_at_end(else_b)  # type: ignore[attr-defined]
            self.stmt(s.else_)
            self.jump(end)
        self.b.position_at_end(end)  # type: ignore[attr-defined]

    def _loop(self, cond: Optional[ast.Expr], body: ast.Stmt, step: Optional[ast.Expr],
              test_first: bool, name: str) -> None:
        cond_b, body_b = self.new_block(f"{name}.cond"), self.new_block(f"{name}.body")
        step_b = self.new_block(f"{name}.inc") if step is not None else cond_b
        end = self.new_block(f"{name}.end")
        # The condition and step are inside the loop too: a statement expression there may break or continue.
        self.break_targets.append(end)
        self.continue_targets.append(step_b)
        self.start(cond_b if test_first else body_b)
        if test_first:
            self._test(cond, body_b, end)
            self.b.position_at_end(body_b)  # type: ignore[attr-defined]
        self.stmt(body)
        self.jump(step_b)
        if step is not None:
            self.b.position_at_end(step_b)  # type: ignore[attr-defined]
            self.rv(step)  # type: ignore[attr-defined]
            self.jump(cond_b)
        if not test_first:
            self.b.position_at_end(cond_b)  # type: ignore[attr-defined]
            self._test(cond, body_b, end)
        self.break_targets.pop()
        self.continue_targets.pop()
        self.b.position_at_end(end)  # type: ignore[attr-defined]

    def _test(self, cond: Optional[ast.Expr], body: Block, end: Block) -> None:
        if cond is None:
            self.b.br(body)  # type: ignore[attr-defined]
        else:
            self.cond_branch(cond, body, end)

    def s_while(self, s: ast.While) -> None:
        self._loop(s.cond, s.body, None, True, "while")

    def s_do(self, s: ast.DoWhile) -> None:
        self._loop(s.cond, s.body, None, False, "do")

    def s_for(self, s: ast.For) -> None:
        if s.init is not None:
            self.stmt(s.init)
        self._loop(s.cond, s.body, s.step, True, "for")

    def s_break(self, s: ast.Break) -> None:
        self.b.br(self.break_targets[-1])  # type: ignore[attr-defined]
        self.after_terminator()

    def s_continue(self, s: ast.Continue) -> None:
        self.b.br(self.continue_targets[-1])  # type: ignore[attr-defined]
        self.after_terminator()

    def s_return(self, s: ast.Return) -> None:
        if s.value is None or st.is_void(s.value.ctype):  # type: ignore[arg-type]
            if s.value is not None:
                self.rv(s.value)  # type: ignore[attr-defined]
            self.b.ret()  # type: ignore[attr-defined]
        else:
            self.b.ret(self.rv(s.value))  # type: ignore[attr-defined]
        self.after_terminator()

    def s_switch(self, s: ast.Switch) -> None:
        value = self.rv(s.cond)  # type: ignore[attr-defined]
        dispatch = self.b.block  # type: ignore[attr-defined]
        end = self.new_block("sw.end")
        cases: list[tuple[int, Block]] = []
        default: list[Optional[Block]] = [None]
        ranges: list[tuple[int, int, Block]] = []
        self.switch_stack.append((cases, default, ranges))
        self.break_targets.append(end)
        self.b.position_at_end(self.new_block("sw.body"))  # type: ignore[attr-defined]
        self.stmt(s.body)
        self.jump(end)
        self.break_targets.pop()
        self.switch_stack.pop()
        fallback = default[0] or end
        if ranges:
            fallback = self.range_tests(value, ranges, fallback)  # type: ignore[attr-defined]
        self.b.position_at_end(dispatch)  # type: ignore[attr-defined]
        self.b.switch(value, fallback, cases)  # type: ignore[attr-defined]
        self.b.position_at_end(end)  # type: ignore[attr-defined]

    def s_case(self, s: ast.Case) -> None:
        block = self.new_block("sw.case")
        self.start(block)
        cases, _, ranges = self.switch_stack[-1]
        if s.high is not None:
            self.add_case_range(s, block, cases, ranges)  # type: ignore[attr-defined]
        else:
            assert s.const_value is not None
            cases.append((s.const_value, block))
        self.stmt(s.body)

    def s_default(self, s: ast.Default) -> None:
        block = self.new_block("sw.default")
        self.start(block)
        self.switch_stack[-1][1][0] = block
        self.stmt(s.body)

    def label_block(self, name: str) -> Block:
        if name not in self.label_blocks:
            self.label_blocks[name] = self.new_block(f"label.{name}")
        return self.label_blocks[name]

    def s_label(self, s: ast.Label) -> None:
        self.start(self.label_block(s.name))
        self.stmt(s.body)

    def s_goto(self, s: ast.Goto) -> None:
        self.b.br(self.label_block(s.name))  # type: ignore[attr-defined]
        self.after_terminator()

    # -- local variables ----------------------------------------------------
    def local_var(self, d: ast.VarDecl) -> None:
        addr = self.declare_local(d)  # type: ignore[attr-defined]
        if d.init is not None and addr is not None:
            self.initialize(LValue(addr, d.ctype), d.init)

    def initialize(self, lv: LValue, init: ast.Expr) -> None:
        if not isinstance(init, ast.InitList):
            self.store(lv, self.rv(init))  # type: ignore[attr-defined]
            return
        t = lv.ctype
        self.b.store(ConstZero(mem_type(t)), lv.addr, align_of(t))  # type: ignore[attr-defined]
        for index, sub in getattr(init, "slots", []):
            elem_lv = self.element(lv, index)
            self.initialize(elem_lv, sub)

    def element(self, lv: LValue, index: int) -> LValue:
        t = lv.ctype
        zero = ConstInt(ir.I32, 0)
        if isinstance(t, ct.Struct):
            d = t.definition
            f = (d.fields or [])[index]
            if d.is_union:
                return LValue(lv.addr, f.type)
            info = struct_info(d)
            idx = ConstInt(ir.I32, info.field_index[f.name])
            return LValue(self.b.gep(info.ir_type, lv.addr, [zero, idx]), f.type)  # type: ignore[attr-defined]
        if isinstance(t, ct.Vector):
            return LValue(lv.addr, ct.Scalar(t.elem), (index,), t)
        assert isinstance(t, ct.Array)
        addr = self.b.gep(mem_type(t), lv.addr, [zero, ConstInt(ir.I64, index)])  # type: ignore[attr-defined]
        return LValue(addr, t.elem)
