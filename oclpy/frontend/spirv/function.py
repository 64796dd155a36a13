"""One SPIR-V function body -> one IR function.

`FunctionTranslator` owns the id -> value map of one function, the blocks
(made up front from the OpLabels, so branches may point forward), the phis
(whose incoming values are filled in after the last block, as they may come
from later blocks), the builder and an entry-block builder for allocas.
Each instruction goes through one table (`HANDLERS`, gathered from the
`ops_*` modules, `builtins` and `opencl_std`), keyed by opcode. Merge
instructions, line information and lifetime markers carry nothing the IR
needs and are skipped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ...ir.builder import Builder, IRBuildError, add_incoming
from ...ir.values import Block, Function, Instr, Value
from ..c.lower.unit import remove_unreachable
from .binary import Instruction
from .grammar import OP
from .spirv_types import SpvType
from .builtins import BuiltinRef

if TYPE_CHECKING:
    from .translate import ModuleTranslator

Handler = Callable[["FunctionTranslator", Instruction], None]
SKIPPED = frozenset(OP[n] for n in ("LoopMerge", "SelectionMerge", "Line", "NoLine", "Nop",
                                     "LifetimeStart", "LifetimeStop", "Name", "Decorate",
                                     "ModuleProcessed", "String", "Source"))


class FunctionTranslator:
    def __init__(self, mt: ModuleTranslator, fn: Function, body: list[Instruction]) -> None:
        self.mt, self.fn, self.body = mt, fn, body
        self.values: dict[int, Any] = {}
        self.vtypes: dict[int, SpvType] = {}
        self.blocks: dict[int, Block] = {}
        self.phis: list[tuple[Instr, Instruction]] = []
        self.b = Builder()
        self.allocas = Builder()
        self.module = mt.module
        self.current: Instruction | None = None
        self.label = 0  # the SPIR-V block being translated
        self.tails: dict[int, Block] = {}  # SPIR-V block -> the IR block ending it

    # -- values ----------------------------------------------------------------------
    def raw(self, id_: int) -> Any:
        """The value of `id_`: an IR value, or a built-in variable reference."""
        found = self.values.get(id_)
        if found is None:
            found = self.mt.globals.get(id_)
        if found is None:
            assert self.current is not None
            if id_ in self.mt.functions:
                raise self.current.error(f"function %{id_} used as a value")
            raise self.current.error(f"%{id_} is not defined before this use")
        return found

    def value(self, id_: int) -> Value:
        found = self.raw(id_)
        if isinstance(found, BuiltinRef):
            assert self.current is not None
            raise self.current.error(f"built-in variable {found.name} used other than by "
                                     f"OpLoad or an access chain")
        return found

    def vtype(self, id_: int) -> SpvType:
        t = self.vtypes.get(id_) or self.mt.value_types.get(id_)
        if t is None:
            assert self.current is not None
            raise self.current.error(f"%{id_} is not defined before this use")
        return t

    def result_type(self, instr: Instruction) -> SpvType:
        return self.mt.types.get(instr.operand(0), instr)

    def define(self, instr: Instruction, value: Any, t: SpvType | None = None) -> None:
        """Bind the result id of `instr` (operand 1; result type operand 0)."""
        rid = instr.operand(1)
        if rid in self.values or rid in self.mt.globals:
            raise instr.error(f"%{rid} is defined twice")
        if isinstance(value, Value) and not value.name and rid in self.mt.info.names:
            if isinstance(value, Instr):
                value.name = self.mt.info.names[rid]
        self.values[rid] = value
        self.vtypes[rid] = t or self.result_type(instr)

    def operands(self, instr: Instruction, start: int) -> list[Value]:
        return [self.value(i) for i in instr.operands[start:]]

    # -- translation ------------------------------------------------------------------
    def run(self, handlers: dict[int, Handler], params: list[Instruction]) -> None:
        labels = [i for i in self.body if i.opcode == OP["Label"]]
        if not labels:
            raise self.body[0].error("function definition without a block")
        for lab in labels:
            self.blocks[lab.operand(0)] = self.fn.add_block(self._block_name(lab.operand(0)))
        self.allocas.position_at_end(self.fn.blocks[0])
        self.allocas.index = 0
        self.mt.bind_params(self, params)
        for instr in self.body[1 + len(params):-1]:
            self.current = instr
            self.step(handlers, instr)
        self._check_terminated(self.body[-1])
        self.finish_phis()
        remove_unreachable(self.fn)

    def step(self, handlers: dict[int, Handler], instr: Instruction) -> None:
        if instr.opcode in SKIPPED:
            return
        if instr.opcode == OP["Label"]:
            self._check_terminated(instr)
            self.label = instr.operand(0)
            self.b.position_at_end(self.blocks[self.label])
            return
        if self.b.block is None or self.b.block.terminator is not None:
            raise instr.error("instruction outside a block (after a terminator, before an OpLabel)")
        handler = handlers.get(instr.opcode)
        if handler is None:
            raise instr.error(f"{instr.name} is not supported in OpenCL kernels by oclpy")
        try:
            handler(self, instr)
        except IRBuildError as exc:
            raise instr.error(str(exc)) from None
        if self.b.block is not None and self.b.block.terminator is not None:
            self.tails[self.label] = self.b.block

    def _check_terminated(self, instr: Instruction) -> None:
        """The block before `instr` (an OpLabel or OpFunctionEnd) must have ended."""
        if self.label and self.b.block is not None and self.b.block.terminator is None:
            raise instr.error(f"block %{self.label} has no terminator")

    def _block_name(self, id_: int) -> str:
        return self.mt.info.names.get(id_) or ("entry" if not self.blocks else f"bb{id_}")

    def block(self, id_: int) -> Block:
        found = self.blocks.get(id_)
        if found is None:
            assert self.current is not None
            raise self.current.error(f"%{id_} is not a block label of this function")
        return found

    def finish_phis(self) -> None:
        for phi, instr in self.phis:
            self.current = instr
            ops = instr.operands[2:]
            if len(ops) % 2:
                raise instr.error("OpPhi needs (value, parent block) pairs")
            for k in range(0, len(ops), 2):
                v = self.value(ops[k])
                if v.type != phi.type:
                    raise instr.error(f"incoming %{ops[k]} is {v.type}, the phi is {phi.type}")
                parent = self.block(ops[k + 1])
                try:
                    add_incoming(phi, v, self.tails.get(ops[k + 1], parent))
                except IRBuildError as exc:
                    raise instr.error(str(exc)) from None
