"""The IR builder: the one way to create instructions.

It appends at an insertion point (end of a block, or before an instruction),
gives each instruction its current debug location (`loc`), and rejects
ill-typed operands when the instruction is made: each instruction is checked
against its row of the opcode table (`ir/ops.py`), the rules the
verifier applies, and the first problem is raised as `IRBuildError` naming
the opcode. The result type is the one the row derives (or, for casts, loads
and phis, the one given).
"""

from __future__ import annotations

from typing import Any, Sequence

from ..diagnostics import SourceLocation
from .ops import OPS, Kind, TypeRuleError, shape_problem
from .types import I32, I64, VOID, AddressSpace, Type, VectorType
from .values import Block, ConstFloat, ConstInt, Function, Instr, Value


class IRBuildError(Exception):
    pass


class Builder:
    def __init__(self, block: Block | None = None) -> None:
        self.block = block
        self.index: int | None = None  # None: append at the end of the block
        self.loc: SourceLocation | None = None  # the debug location every instruction made gets

    # -- positioning -------------------------------------------------------
    def position_at_end(self, block: Block) -> None:
        self.block, self.index = block, None

    def position_before(self, instr: Instr) -> None:
        """Insert before `instr`. A pass walking a block forwards moves the builder
        forwards: the search starts at the current point, so a walk over a block
        of n instructions costs O(n), not O(n**2)."""
        block = instr.parent
        assert block is not None
        start = self.index if block is self.block and self.index is not None else 0
        try:
            self.index = block.instrs.index(instr, start)
        except ValueError:  # behind the current point
            self.index = block.instrs.index(instr, 0, start)
        self.block = block

    @property
    def function(self) -> Function:
        assert self.block is not None and self.block.parent is not None
        return self.block.parent

    def insert(self, instr: Instr) -> Instr:
        if self.block is None:
            raise IRBuildError("builder has no insertion block")
        if self.index is None:
            self.block.append(instr)
        else:
            self.block.insert(self.index, instr)
            self.index += 1
        return instr

    def make(self, op: str, operands: Sequence[Value] = (), name: str = "",
             type: Type = VOID, targets: Sequence[Block] = (), **attrs: Any) -> Instr:
        """Make any opcode by its row of the opcode table: check the instruction
        against the row's rule and insert it. `type` is the result type for the
        rows that do not derive one (casts, load, phi); the methods below are
        shorthands."""
        row = OPS[op]
        instr = Instr(op, type, operands, attrs, list(targets), name=name)
        instr.loc = self.loc
        problem = shape_problem(instr)
        if problem is None:
            if row.result is not None:
                try:
                    instr.type = row.result(instr.operands, attrs)
                except TypeRuleError:
                    pass  # the rule says what is wrong
            problem = next(row.check(instr, None), None)
        if problem is not None:
            instr.operands = ()  # never made: its operands keep no use of it
            raise IRBuildError(f"{op}: {problem}")
        return self.insert(instr)

    # -- arithmetic --------------------------------------------------------
    def binop(self, op: str, a: Value, b: Value, name: str = "") -> Instr:
        if OPS.get(op) is None or OPS[op].kind is not Kind.BINARY:
            raise IRBuildError(f"'{op}' is not a binary operation")
        return self.make(op, [a, b], name)

    def fneg(self, a: Value, name: str = "") -> Instr:
        return self.make("fneg", [a], name)

    def icmp(self, pred: str, a: Value, b: Value, name: str = "") -> Instr:
        return self.make("icmp", [a, b], name, pred=pred)

    def fcmp(self, pred: str, a: Value, b: Value, name: str = "") -> Instr:
        return self.make("fcmp", [a, b], name, pred=pred)

    def select(self, cond: Value, a: Value, b: Value, name: str = "") -> Instr:
        return self.make("select", [cond, a, b], name)

    def cast(self, op: str, a: Value, to: Type, name: str = "") -> Instr:
        if OPS.get(op) is None or OPS[op].kind is not Kind.CAST:
            raise IRBuildError(f"'{op}' is not a cast")
        return self.make(op, [a], name, type=to)

    # -- memory --------------------------------------------------------------
    def alloca(self, elem: Type, align: int = 0, name: str = "",
               space: AddressSpace = AddressSpace.PRIVATE) -> Instr:
        return self.make("alloca", [], name, elem=elem, align=align, space=space)

    def load(self, type: Type, ptr: Value, align: int = 0, volatile: bool = False,
             name: str = "") -> Instr:
        return self.make("load", [ptr], name, type=type, align=align, volatile=volatile)

    def store(self, value: Value, ptr: Value, align: int = 0, volatile: bool = False) -> Instr:
        return self.make("store", [value, ptr], align=align, volatile=volatile)

    def gep(self, elem: Type, ptr: Value, indices: Sequence[Value], inbounds: bool = False,
            name: str = "") -> Instr:
        return self.make("getelementptr", [ptr, *indices], name, elem=elem, inbounds=inbounds)

    def atomicrmw(self, binop: str, ptr: Value, value: Value, ordering: str = "monotonic",
                  scope: str = "device", name: str = "") -> Instr:
        return self.make("atomicrmw", [ptr, value], name, binop=binop, ordering=ordering,
                          scope=scope)

    def cmpxchg(self, ptr: Value, expected: Value, new: Value, ordering: str = "monotonic",
                scope: str = "device", name: str = "") -> Instr:
        return self.make("cmpxchg", [ptr, expected, new], name, ordering=ordering, scope=scope)

    # -- vectors and aggregates --------------------------------------------
    def extractelement(self, vec: Value, idx: Value, name: str = "") -> Instr:
        return self.make("extractelement", [vec, idx], name)

    def insertelement(self, vec: Value, elt: Value, idx: Value, name: str = "") -> Instr:
        return self.make("insertelement", [vec, elt, idx], name)

    def scalars(self, values: Sequence[Value]) -> list[Value]:
        """`values` one after another, each vector's elements in its place."""
        out: list[Value] = []
        for v in values:
            if isinstance(v.type, VectorType):
                out += [self.extractelement(v, ConstInt(I32, i)) for i in range(v.type.count)]
            else:
                out.append(v)
        return out

    def shufflevector(self, a: Value, b: Value, mask: Sequence[int], name: str = "") -> Instr:
        return self.make("shufflevector", [a, b], name, mask=tuple(mask))

    def extractvalue(self, agg: Value, indices: Sequence[int], name: str = "") -> Instr:
        return self.make("extractvalue", [agg], name, indices=tuple(indices))

    def insertvalue(self, agg: Value, elt: Value, indices: Sequence[int], name: str = "") -> Instr:
        return self.make("insertvalue", [agg, elt], name, indices=tuple(indices))

    # -- calls and control flow ---------------------------------------------
    def call(self, callee: Function, args: Sequence[Value], name: str = "") -> Instr:
        return self.make("call", args, name, callee=callee)

    def phi(self, type: Type, name: str = "") -> Instr:
        return self.make("phi", [], name, type=type)

    def br(self, dest: Block) -> Instr:
        return self.make("br", targets=[dest])

    def condbr(self, cond: Value, then: Block, else_: Block) -> Instr:
        return self.make("condbr", [cond], targets=[then, else_])

    def switch(self, value: Value, default: Block, cases: Sequence[tuple[int, Block]]) -> Instr:
        return self.make("switch", [value], targets=[default, *(b for _, b in cases)],
                          cases=tuple(c for c, _ in cases))

    def ret(self, value: Value | None = None) -> Instr:
        return self.make("ret", [] if value is None else [value])

    def unreachable(self) -> Instr:
        return self.make("unreachable")


def add_incoming(phi: Instr, value: Value, block: Block) -> None:
    if value.type != phi.type:
        raise IRBuildError(f"phi: incoming {value.type} does not match {phi.type}")
    phi.add_incoming(value, block)


def add_incomings(phi: Instr, pairs: Sequence[tuple[Value, Block]]) -> None:
    """Append (value, block) pairs to `phi` in one operand update: adding them one by
    one copies the operands each time, which a join of thousands cannot afford."""
    for value, _ in pairs:
        if value.type != phi.type:
            raise IRBuildError(f"phi: incoming {value.type} does not match {phi.type}")
    phi.operands = (*phi.operands, *(value for value, _ in pairs))
    phi.blocks.extend(block for _, block in pairs)


def const_int(type: Type, value: int) -> ConstInt:
    return ConstInt(type, value)


def const_float(type: Type, value: float) -> ConstFloat:
    return ConstFloat(type, value)


def i32(value: int) -> ConstInt:
    return ConstInt(I32, value)


def i64(value: int) -> ConstInt:
    return ConstInt(I64, value)
