"""The IR builder: the one way to create instructions.

It appends at an insertion point (end of a block, or before an instruction)
and rejects ill-typed operands when the instruction is made, raising
`IRBuildError` naming the opcode and the offending types.
"""

from __future__ import annotations

from typing import Any, Sequence

from .ops import ATOMIC_BINOPS, FCMP_PREDICATES, ICMP_PREDICATES, Kind, OPS
from .types import (
    I1, I32, I64, VOID, AddressSpace, ArrayType, FloatType, IntType, PtrType, StructType,
    Type, VectorType,
)
from .values import Block, ConstFloat, ConstInt, Function, Instr, Value


class IRBuildError(Exception):
    pass


def _bool_type_like(t: Type) -> Type:
    return VectorType(I1, t.count) if isinstance(t, VectorType) else I1


def gep_result_elem(elem: Type, indices: Sequence[Value]) -> Type:
    """The type a getelementptr steps to after its indices (first index scales by `elem`)."""
    t = elem
    for idx in indices[1:]:
        if isinstance(t, (ArrayType, VectorType)):
            t = t.elem
        elif isinstance(t, StructType):
            if not isinstance(idx, ConstInt):
                raise IRBuildError("getelementptr: struct index must be a constant")
            t = t.fields[idx.value]
        else:
            raise IRBuildError(f"getelementptr: cannot index into {t}")
    return t


class Builder:
    def __init__(self, block: Block | None = None) -> None:
        self.block = block
        self.index: int | None = None  # None: append at the end of the block

    # -- positioning -------------------------------------------------------
    def position_at_end(self, block: Block) -> None:
        self.block, self.index = block, None

    def position_before(self, instr: Instr) -> None:
        assert instr.parent is not None
        self.block = instr.parent
        self.index = instr.parent.instrs.index(instr)

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

    def _make(self, op: str, type: Type, operands: Sequence[Value] = (), name: str = "",
              **attrs: Any) -> Instr:
        return self.insert(Instr(op, type, list(operands), dict(attrs), name=name))

    # -- arithmetic --------------------------------------------------------
    def binop(self, op: str, a: Value, b: Value, name: str = "") -> Instr:
        if OPS.get(op) is None or OPS[op].kind is not Kind.BINARY:
            raise IRBuildError(f"'{op}' is not a binary operation")
        if a.type != b.type:
            raise IRBuildError(f"{op}: operand types differ ({a.type} vs {b.type})")
        want_float = op.startswith("f")
        ok = a.type.is_float_or_float_vector() if want_float else a.type.is_int_or_int_vector()
        if not ok:
            raise IRBuildError(f"{op}: invalid operand type {a.type}")
        return self._make(op, a.type, [a, b], name)

    def fneg(self, a: Value, name: str = "") -> Instr:
        if not a.type.is_float_or_float_vector():
            raise IRBuildError(f"fneg: invalid operand type {a.type}")
        return self._make("fneg", a.type, [a], name)

    def icmp(self, pred: str, a: Value, b: Value, name: str = "") -> Instr:
        if pred not in ICMP_PREDICATES:
            raise IRBuildError(f"icmp: unknown predicate '{pred}'")
        if a.type != b.type or not (a.type.is_int_or_int_vector() or a.type.scalar().is_ptr()):
            raise IRBuildError(f"icmp: invalid operand types {a.type}, {b.type}")
        return self._make("icmp", _bool_type_like(a.type), [a, b], name, pred=pred)

    def fcmp(self, pred: str, a: Value, b: Value, name: str = "") -> Instr:
        if pred not in FCMP_PREDICATES:
            raise IRBuildError(f"fcmp: unknown predicate '{pred}'")
        if a.type != b.type or not a.type.is_float_or_float_vector():
            raise IRBuildError(f"fcmp: invalid operand types {a.type}, {b.type}")
        return self._make("fcmp", _bool_type_like(a.type), [a, b], name, pred=pred)

    def select(self, cond: Value, a: Value, b: Value, name: str = "") -> Instr:
        if a.type != b.type:
            raise IRBuildError(f"select: arm types differ ({a.type} vs {b.type})")
        if cond.type != I1 and cond.type != _bool_type_like(a.type):
            raise IRBuildError(f"select: condition must be i1, not {cond.type}")
        return self._make("select", a.type, [cond, a, b], name)

    def cast(self, op: str, a: Value, to: Type, name: str = "") -> Instr:
        if OPS.get(op) is None or OPS[op].kind is not Kind.CAST:
            raise IRBuildError(f"'{op}' is not a cast")
        _check_cast(op, a.type, to)
        return self._make(op, to, [a], name)

    # -- memory --------------------------------------------------------------
    def alloca(self, elem: Type, align: int = 0, name: str = "",
               space: AddressSpace = AddressSpace.PRIVATE) -> Instr:
        return self._make("alloca", PtrType(space), [], name, elem=elem, align=align, space=space)

    def load(self, type: Type, ptr: Value, align: int = 0, volatile: bool = False,
             name: str = "") -> Instr:
        if not isinstance(ptr.type, PtrType):
            raise IRBuildError(f"load: address must be a pointer, not {ptr.type}")
        return self._make("load", type, [ptr], name, align=align, volatile=volatile)

    def store(self, value: Value, ptr: Value, align: int = 0, volatile: bool = False) -> Instr:
        if not isinstance(ptr.type, PtrType):
            raise IRBuildError(f"store: address must be a pointer, not {ptr.type}")
        if ptr.type.space is AddressSpace.CONSTANT:
            raise IRBuildError("store: cannot store through ptr<constant>")
        return self._make("store", VOID, [value, ptr], align=align, volatile=volatile)

    def gep(self, elem: Type, ptr: Value, indices: Sequence[Value], inbounds: bool = False,
            name: str = "") -> Instr:
        if not isinstance(ptr.type, PtrType):
            raise IRBuildError(f"getelementptr: base must be a pointer, not {ptr.type}")
        if not indices:
            raise IRBuildError("getelementptr: needs at least one index")
        for idx in indices:
            if not isinstance(idx.type, IntType):
                raise IRBuildError(f"getelementptr: index must be an integer, not {idx.type}")
        gep_result_elem(elem, indices)
        return self._make("getelementptr", ptr.type, [ptr, *indices], name, elem=elem,
                          inbounds=inbounds)

    def atomicrmw(self, binop: str, ptr: Value, value: Value, ordering: str = "monotonic",
                  scope: str = "device", name: str = "") -> Instr:
        if binop not in ATOMIC_BINOPS:
            raise IRBuildError(f"atomicrmw: unknown operation '{binop}'")
        if not isinstance(ptr.type, PtrType):
            raise IRBuildError(f"atomicrmw: address must be a pointer, not {ptr.type}")
        return self._make("atomicrmw", value.type, [ptr, value], name, binop=binop,
                          ordering=ordering, scope=scope)

    def cmpxchg(self, ptr: Value, expected: Value, new: Value, ordering: str = "monotonic",
                scope: str = "device", name: str = "") -> Instr:
        if expected.type != new.type:
            raise IRBuildError("cmpxchg: expected and new value types differ")
        return self._make("cmpxchg", new.type, [ptr, expected, new], name, ordering=ordering,
                          scope=scope)

    # -- vectors and aggregates --------------------------------------------
    def extractelement(self, vec: Value, idx: Value, name: str = "") -> Instr:
        if not isinstance(vec.type, VectorType):
            raise IRBuildError(f"extractelement: not a vector: {vec.type}")
        return self._make("extractelement", vec.type.elem, [vec, idx], name)

    def insertelement(self, vec: Value, elt: Value, idx: Value, name: str = "") -> Instr:
        if not isinstance(vec.type, VectorType) or elt.type != vec.type.elem:
            raise IRBuildError(f"insertelement: cannot insert {elt.type} into {vec.type}")
        return self._make("insertelement", vec.type, [vec, elt, idx], name)

    def shufflevector(self, a: Value, b: Value, mask: Sequence[int], name: str = "") -> Instr:
        if not isinstance(a.type, VectorType) or a.type != b.type:
            raise IRBuildError("shufflevector: operands must be vectors of one type")
        return self._make("shufflevector", VectorType(a.type.elem, len(mask)), [a, b], name,
                          mask=tuple(mask))

    def extractvalue(self, agg: Value, indices: Sequence[int], name: str = "") -> Instr:
        t = agg.type
        for i in indices:
            t = t.fields[i] if isinstance(t, StructType) else t.elem  # type: ignore[attr-defined]
        return self._make("extractvalue", t, [agg], name, indices=tuple(indices))

    def insertvalue(self, agg: Value, elt: Value, indices: Sequence[int], name: str = "") -> Instr:
        return self._make("insertvalue", agg.type, [agg, elt], name, indices=tuple(indices))

    # -- calls and control flow ---------------------------------------------
    def call(self, callee: Function, args: Sequence[Value], name: str = "") -> Instr:
        params = callee.type.params
        if len(args) != len(params) and not callee.attrs.get("variadic"):
            raise IRBuildError(f"call @{callee.name}: expected {len(params)} arguments, got {len(args)}")
        for i, (arg, want) in enumerate(zip(args, params)):
            if arg.type != want:
                raise IRBuildError(f"call @{callee.name}: argument {i} is {arg.type}, expected {want}")
        return self._make("call", callee.type.ret, args, name, callee=callee)

    def phi(self, type: Type, name: str = "") -> Instr:
        return self._make("phi", type, [], name)

    def br(self, dest: Block) -> Instr:
        instr = self._make("br", VOID)
        instr.targets = [dest]
        return instr

    def condbr(self, cond: Value, then: Block, else_: Block) -> Instr:
        if cond.type != I1:
            raise IRBuildError(f"condbr: condition must be i1, not {cond.type}")
        instr = self._make("condbr", VOID, [cond])
        instr.targets = [then, else_]
        return instr

    def switch(self, value: Value, default: Block, cases: Sequence[tuple[int, Block]]) -> Instr:
        instr = self._make("switch", VOID, [value], cases=tuple(c for c, _ in cases))
        instr.targets = [default, *(b for _, b in cases)]
        return instr

    def ret(self, value: Value | None = None) -> Instr:
        return self._make("ret", VOID, [] if value is None else [value])

    def unreachable(self) -> Instr:
        return self._make("unreachable", VOID)


def add_incoming(phi: Instr, value: Value, block: Block) -> None:
    if value.type != phi.type:
        raise IRBuildError(f"phi: incoming {value.type} does not match {phi.type}")
    phi.add_incoming(value, block)


def const_int(type: Type, value: int) -> ConstInt:
    return ConstInt(type, value)


def const_float(type: Type, value: float) -> ConstFloat:
    return ConstFloat(type, value)


def i32(value: int) -> ConstInt:
    return ConstInt(I32, value)


def i64(value: int) -> ConstInt:
    return ConstInt(I64, value)


def _scalar_bits(t: Type) -> int:
    s = t.scalar()
    return s.bits if isinstance(s, (IntType, FloatType)) else 0


def _check_cast(op: str, src: Type, dst: Type) -> None:
    s, d = src.scalar(), dst.scalar()
    same_shape = (not src.is_vector() and not dst.is_vector()) or (
        src.is_vector() and dst.is_vector() and src.count == dst.count  # type: ignore[attr-defined]
    )
    rules = {
        "trunc": lambda: isinstance(s, IntType) and isinstance(d, IntType) and s.bits > d.bits,
        "zext": lambda: isinstance(s, IntType) and isinstance(d, IntType) and s.bits < d.bits,
        "sext": lambda: isinstance(s, IntType) and isinstance(d, IntType) and s.bits < d.bits,
        "fptrunc": lambda: isinstance(s, FloatType) and isinstance(d, FloatType) and s.bits > d.bits,
        "fpext": lambda: isinstance(s, FloatType) and isinstance(d, FloatType) and s.bits < d.bits,
        "fptoui": lambda: isinstance(s, FloatType) and isinstance(d, IntType),
        "fptosi": lambda: isinstance(s, FloatType) and isinstance(d, IntType),
        "uitofp": lambda: isinstance(s, IntType) and isinstance(d, FloatType),
        "sitofp": lambda: isinstance(s, IntType) and isinstance(d, FloatType),
        "ptrtoint": lambda: isinstance(s, PtrType) and isinstance(d, IntType),
        "inttoptr": lambda: isinstance(s, IntType) and isinstance(d, PtrType),
        "addrspacecast": lambda: _addrspacecast_ok(s, d),
    }
    if op == "bitcast":
        ok = not isinstance(s, PtrType) and not isinstance(d, PtrType) and (
            _total_bits(src) == _total_bits(dst) != 0)
    else:
        ok = same_shape and rules[op]()
    if not ok:
        raise IRBuildError(f"{op}: cannot cast {src} to {dst}")


def _addrspacecast_ok(s: Type, d: Type) -> bool:
    """Named -> generic and generic -> named only; named -> named is an error."""
    if not (isinstance(s, PtrType) and isinstance(d, PtrType)) or s.space == d.space:
        return False
    return AddressSpace.GENERIC in (s.space, d.space)


def _total_bits(t: Type) -> int:
    if isinstance(t, VectorType):
        return t.count * _scalar_bits(t.elem)
    return _scalar_bits(t)
