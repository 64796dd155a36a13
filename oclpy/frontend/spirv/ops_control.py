"""Control flow and calls: branches, switches, returns, phis, OpFunctionCall.

Structured-control-flow hints (OpLoopMerge, OpSelectionMerge) are skipped by
the function translator; the IR needs only the edges. A phi is made where it
stands and completed after the function's last block (`FunctionTranslator.finish_phis`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import types as ir
from .binary import Instruction
from .grammar import OP
from .opencl_std import lower_builtin

if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler


def _branch(ft: FunctionTranslator, instr: Instruction) -> None:
    ft.b.br(ft.block(instr.operand(0)))


def _branch_conditional(ft: FunctionTranslator, instr: Instruction) -> None:
    cond = ft.value(instr.operand(0))
    if cond.type != ir.I1:
        raise instr.error(f"the branch condition must be a bool, not {cond.type}")
    ft.b.condbr(cond, ft.block(instr.operand(1)), ft.block(instr.operand(2)))


def _switch(ft: FunctionTranslator, instr: Instruction) -> None:
    sel = ft.value(instr.operand(0))
    if not isinstance(sel.type, ir.IntType):
        raise instr.error(f"the switch selector must be an integer, not {sel.type}")
    step = 3 if sel.type.bits == 64 else 2
    ops = instr.operands[2:]
    if len(ops) % step:
        raise instr.error("OpSwitch needs (literal, label) pairs after the default")
    cases, seen = [], set()
    for k in range(0, len(ops), step):
        value = (ops[k] | (ops[k + 1] << 32 if step == 3 else 0)) & ((1 << sel.type.bits) - 1)
        if value in seen:  # compared at the selector's width (256 is 0 for an 8-bit selector)
            raise instr.error(f"case {value} appears twice")
        seen.add(value)
        cases.append((value, ft.block(ops[k + step - 1])))
    ft.b.switch(sel, ft.block(instr.operand(1)), cases)


def _return(ft: FunctionTranslator, instr: Instruction) -> None:
    if ft.fn.type.ret != ir.VOID:
        raise instr.error("OpReturn in a function that returns a value")
    ft.b.ret()


def _return_value(ft: FunctionTranslator, instr: Instruction) -> None:
    v = ft.value(instr.operand(0))
    if v.type != ft.fn.type.ret:
        raise instr.error(f"returns {v.type} from a function returning {ft.fn.type.ret}")
    ft.b.ret(v)


def _phi(ft: FunctionTranslator, instr: Instruction) -> None:
    assert ft.b.block is not None
    if any(i.op != "phi" for i in ft.b.block.instrs):
        raise instr.error("OpPhi after the first non-phi instruction of its block")
    phi = ft.b.phi(ft.result_type(instr).ir)
    ft.phis.append((phi, instr))
    ft.define(instr, phi)


def _call(ft: FunctionTranslator, instr: Instruction) -> None:
    args = ft.operands(instr, 3)
    builtin = ft.mt.builtin_functions.get(instr.operand(2))
    if builtin is not None:  # an OpenCL C builtin the producer left as a call

        name, signed = builtin
        ft.define(instr, lower_builtin(ft, instr, name, ft.result_type(instr).ir, args, signed))
        return
    callee = ft.mt.callee(instr.operand(2), instr)
    if len(args) != len(callee.args):
        raise instr.error(f"@{callee.name} takes {len(callee.args)} arguments, {len(args)} given")
    ft.define(instr, ft.b.call(callee, args))


HANDLERS: dict[int, Handler] = {
    OP["Branch"]: _branch, OP["BranchConditional"]: _branch_conditional, OP["Switch"]: _switch,
    OP["Return"]: _return, OP["ReturnValue"]: _return_value,
    OP["Unreachable"]: lambda ft, instr: ft.b.unreachable(),
    OP["Phi"]: _phi, OP["FunctionCall"]: _call,
}
