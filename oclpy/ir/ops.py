"""The opcode table: one row per IR instruction, saying all the IR knows of it.

A row (`OpInfo`) holds:

- `syntax`: how the operands are written after the opcode, as a tuple of
  directives (`TYPED`, `LABEL`, `Lit(",")`, ...; listed below). The parser
  and the printer each walk it with one small function per directive kind, so
  an opcode has no parse or print code of its own; the irregular pieces (a
  phi's incoming pairs, a call's callee and arguments, a switch's case lines)
  are directives too;
- `operands`, `successors`: its shape, a fixed count (None: the rule checks it);
- `result`: how its result type follows from its operands and attrs (`void`
  for most terminators), or None when it is given: written in the text and
  passed to the builder (casts, `load`, `phi`);
- `check`: its type rule, the problems its operands and attrs have, worded as
  the verifier reports them (`type_problems` adds a type that differs from
  the derived one); the builder raises the first as `IRBuildError`.
  Parts that need to know where the instruction is (`ret` against the
  function's return type, a phi's predecessors, an alloca's space in the
  DataLayout, a callee in the module) ask the `Context`, and are skipped when
  it does not know (the builder's);
- traits: `pure` (no side effects, no memory access: removable when unused),
  `terminator`, `convergent` (every work-item of a group must reach it
  together: a `call` may be, its callee says: `ir/intrinsics.py`),
  `reads_memory`, `writes_memory`; and `kind`, its family.

Adding an opcode is one row here, plus its rule when none fits, plus its
entry in each target's emitter table (the target's business). Passes and
targets ask this table (`OPS[op].pure`, `instr.info.terminator`) rather than
keeping lists of opcodes.

This module sits below `values.py` (which asks it whether an instruction is a
terminator), so it names the value classes only in type hints.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Protocol, Sequence

from .types import (
    I1, VOID, AddressSpace, ArrayType, FloatType, FunctionType, IntType, PtrType, StructType,
    Type, VectorType, VoidType,
)

if TYPE_CHECKING:
    from .datalayout import DataLayout
    from .values import Block, Function, Instr, Module, Value

ICMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FCMP_PREDICATES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)
ATOMIC_BINOPS = ("xchg", "add", "sub", "and", "or", "xor", "max", "min", "umax", "umin", "fadd")
ORDERINGS = ("monotonic", "acquire", "release", "acq_rel", "seq_cst")
SCOPES = ("work_item", "sub_group", "work_group", "device", "all_svm_devices")
INT_BINOPS = ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr",
              "and", "or", "xor")
FLOAT_BINOPS = ("fadd", "fsub", "fmul", "fdiv", "frem")
WRAP_FLAGS = ("nuw", "nsw")  # integer binary ops: no unsigned/signed wrap (overflow is undefined)


class Kind(enum.Enum):
    """Opcode families, for passes that treat a family alike."""

    BINARY = "binary"
    UNARY = "unary"
    CMP = "cmp"
    CAST = "cast"
    SELECT = "select"
    MEMORY = "memory"
    ATOMIC = "atomic"
    VECTOR = "vector"
    AGGREGATE = "aggregate"
    CALL = "call"
    PHI = "phi"
    TERMINATOR = "terminator"


# -- syntax directives ------------------------------------------------------------------
# Each consumes the next piece of the text after the opcode. Operands and successor
# blocks are taken in order; a directive that prints nothing is left out (with the
# space before it); pieces that start with "," follow without a space. The parser
# and the printer keep one function per `kind`.


@dataclass(frozen=True)
class Lit:
    """Fixed text: a punctuator (`,`) or a keyword (`to`)."""

    text: str
    kind: ClassVar[str] = "lit"


@dataclass(frozen=True)
class Flag:
    """An optional keyword (`nuw`, `volatile`): attrs[name] is True when it is written,
    else `absent` (None: no entry)."""

    name: str
    absent: bool | None = None
    kind: ClassVar[str] = "flag"


@dataclass(frozen=True)
class Word:
    """One word of `choices` (`slt`, `fadd`), kept in attrs[attr]; `what` names it in errors."""

    attr: str
    choices: tuple[str, ...]
    what: str
    kind: ClassVar[str] = "word"


@dataclass(frozen=True)
class TypeOf:
    """A type written alone: of "values" (the bare operands after it), of the
    "result", or an attrs key holding a type (`elem`)."""

    of: str
    kind: ClassVar[str] = "type_of"


@dataclass(frozen=True)
class Directive:
    """A directive without parameters: one of the constants below."""

    kind: str


BARE = Directive("bare")  # the next operand without its type (the TypeOf("values") before it)
TYPED = Directive("typed")  # the next operand with its type: `i32 %x`
MORE_TYPED = Directive("more_typed")  # `, T v` for each remaining operand
TYPED_OR_VOID = Directive("typed_or_void")  # `void`, or the one operand with its type
LABEL = Directive("label")  # the next successor block: `label %b`
ALIGN = Directive("align")  # optional `, align N` (attrs align, 0 when absent)
SPACE = Directive("space")  # optional `, addrspace(S)` (attrs space, private when absent)
SYNC = Directive("sync")  # `scope(S) ORDERING` (attrs scope, ordering)
MASK = Directive("mask")  # `[0, 5, -1]` (attrs mask)
INDICES = Directive("indices")  # `, 1, 0`: at least one (attrs indices)
INCOMING = Directive("incoming")  # a phi's `[ v, %b ], ...` (operands and blocks)
CALLEE = Directive("callee")  # `@f(T a, ...)` (attrs callee, operands)
CASES = Directive("cases")  # a switch's `[` then a line `T n, label %b` per case, `]`
COMMA = Lit(",")

SyntaxItem = Lit | Flag | Word | TypeOf | Directive


# -- the row ----------------------------------------------------------------------------


class Context(Protocol):
    """What a rule may ask about where an instruction is. Each of `module`, `fn`,
    `layout` and `preds` may be None (the builder knows none of them): a rule
    checks what needs them only when they are given."""

    @property
    def module(self) -> Module | None: ...

    @property
    def fn(self) -> Function | None: ...

    @property
    def layout(self) -> DataLayout | None: ...

    @property
    def preds(self) -> dict[Block, list[Block]] | None: ...

    def symbol(self, value: Value) -> str:
        """`@name` of a function or global."""
        ...

    def local(self, obj: Value | Block) -> str:
        """`%name` of a block or local value."""
        ...


class TypeRuleError(Exception):
    """A result type that cannot be worked out; `operand` says which operand is at fault."""

    def __init__(self, operand: int, message: str) -> None:
        super().__init__(message)
        self.operand = operand


Result = Callable[[Sequence["Value"], dict[str, Any]], Type]
Check = Callable[["Instr", "Context | None"], Iterator[str]]


@dataclass(frozen=True)
class OpInfo:
    """One opcode (see the module docstring)."""

    name: str
    kind: Kind
    syntax: tuple[SyntaxItem, ...]
    check: Check
    result: Result | None = None
    operands: int | None = None
    successors: int | None = 0
    pure: bool = False
    terminator: bool = False
    convergent: bool = False
    reads_memory: bool = False
    writes_memory: bool = False


def shape_problem(instr: Instr) -> str | None:
    """What is wrong with the number of operands, successors and incoming blocks."""
    row = OPS[instr.op]
    n = len(instr.operands)
    if row.operands is not None and n != row.operands:
        return f"expected {row.operands} operand{'s' if row.operands != 1 else ''}, found {n}"
    if row.successors is not None and len(instr.targets) != row.successors:
        return (f"expected {row.successors} successor block{'s' if row.successors != 1 else ''}, "
                f"found {len(instr.targets)}")
    if instr.op == "phi":
        if n != len(instr.blocks):
            return f"phi has {n} values but {len(instr.blocks)} incoming blocks"
    elif (instr.targets or instr.blocks) and not row.terminator:
        return "only terminators have successor blocks and only phis have incoming blocks"
    return None


def type_problems(instr: Instr, ctx: Context | None = None) -> Iterator[str]:
    """The problems of `instr` under its row: its shape, then its type rule, then
    (when the rule found nothing) its type against the one the row derives."""
    row = OPS[instr.op]
    shape = shape_problem(instr)
    if shape is not None:
        yield shape
        return
    found = False
    for problem in row.check(instr, ctx):
        found = True
        yield problem
    if not found and row.result is not None:
        want = row.result(instr.operands, instr.attrs)
        if instr.type != want:
            yield f"result type is {instr.type}, expected {want}"


# -- result types -------------------------------------------------------------------------


def _bool_like(t: Type) -> Type:
    """i1, or <N x i1> for an N-element vector."""
    return VectorType(I1, t.count) if isinstance(t, VectorType) else I1


def _operand_type(k: int) -> Result:
    return lambda ops, attrs: ops[k].type


def _void(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    return VOID


def _compared(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    return _bool_like(ops[0].type)


def _allocated(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    return PtrType(attrs.get("space", AddressSpace.PRIVATE))


def _returned(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    return attrs["callee"].type.ret


def _vector_type(ops: Sequence[Value], attrs: dict[str, Any]) -> VectorType:
    t = ops[0].type
    if not isinstance(t, VectorType):
        raise TypeRuleError(0, f"expected a vector, found {t}")
    return t


def _vector_elem(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    return _vector_type(ops, attrs).elem


def _walk_indices(t: Type, indices: object) -> Type | str:
    """The type `indices` (extractvalue, insertvalue) reach in `t`, or what is wrong."""
    if not isinstance(indices, tuple) or not indices:
        return f"indices must be a non-empty tuple, not {indices!r}"
    for index in indices:
        if isinstance(t, StructType) and isinstance(index, int) and 0 <= index < len(t.fields):
            t = t.fields[index]
        elif isinstance(t, ArrayType) and isinstance(index, int) and 0 <= index < t.count:
            t = t.elem
        else:
            return f"invalid index {index!r} into {t}"
    return t


def _extracted(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    t = _walk_indices(ops[0].type, attrs.get("indices"))
    if isinstance(t, str):
        raise TypeRuleError(0, t)
    return t


def _shuffled(ops: Sequence[Value], attrs: dict[str, Any]) -> Type:
    return VectorType(_vector_type(ops, attrs).elem, len(attrs["mask"]))


def _constant_index(value: Value) -> int | None:
    """The number of an integer constant (a ConstInt, asked by its `value`: see the docstring)."""
    number = getattr(value, "value", None)
    return number if isinstance(number, int) and isinstance(value.type, IntType) else None


def _gep_result_elem(elem: Type, indices: Sequence[Value]) -> Type:
    """The type a getelementptr steps to after its indices (the first scales by `elem`);
    raises TypeRuleError naming what cannot be indexed."""
    t = elem
    for idx in indices[1:]:
        if isinstance(t, (ArrayType, VectorType)):
            t = t.elem
        elif isinstance(t, StructType):
            number = _constant_index(idx)
            if number is None:
                raise TypeRuleError(0, "struct index must be a constant")
            if not 0 <= number < len(t.fields):
                raise TypeRuleError(0, f"struct index out of range in {elem}")
            t = t.fields[number]
        else:
            raise TypeRuleError(0, f"cannot index into {t}")
    return t


# -- type rules ---------------------------------------------------------------------------


def _check_none(i: Instr, c: Context | None) -> Iterator[str]:
    return iter(())


def _check_binary(i: Instr, c: Context | None) -> Iterator[str]:
    a, b = i.operands
    if a.type != b.type:
        yield f"operand types differ ({a.type} vs {b.type})"
        return
    is_float_op = i.op in FLOAT_BINOPS
    ok = a.type.is_float_or_float_vector() if is_float_op else a.type.is_int_or_int_vector()
    if not ok:
        kind = "float" if is_float_op else "integer"
        yield f"operands must be {kind} scalars or vectors, not {a.type}"


def _check_fneg(i: Instr, c: Context | None) -> Iterator[str]:
    if not i.operands[0].type.is_float_or_float_vector():
        yield f"operand must be a float scalar or vector, not {i.operands[0].type}"


def _check_cmp(i: Instr, c: Context | None) -> Iterator[str]:
    a, b = i.operands
    preds = ICMP_PREDICATES if i.op == "icmp" else FCMP_PREDICATES
    if i.attrs.get("pred") not in preds:
        yield f"unknown predicate {i.attrs.get('pred')!r}"
    if a.type != b.type:
        yield f"operand types differ ({a.type} vs {b.type})"
        return
    if i.op == "icmp":
        ok = a.type.is_int_or_int_vector() or a.type.scalar().is_ptr()
    else:
        ok = a.type.is_float_or_float_vector()
    if not ok:
        yield f"invalid operand type {a.type} for {i.op}"


def _scalar_bits(t: Type) -> int:
    s = t.scalar()
    return s.bits if isinstance(s, (IntType, FloatType)) else 0


def _total_bits(t: Type) -> int:
    return t.count * _scalar_bits(t.elem) if isinstance(t, VectorType) else _scalar_bits(t)


def _narrows(kind: type) -> Callable[[Type, Type], bool]:
    return lambda s, d: isinstance(s, kind) and isinstance(d, kind) and s.bits > d.bits  # type: ignore[attr-defined]


def _widens(kind: type) -> Callable[[Type, Type], bool]:
    return lambda s, d: isinstance(s, kind) and isinstance(d, kind) and s.bits < d.bits  # type: ignore[attr-defined]


def _converts(src: type, dst: type) -> Callable[[Type, Type], bool]:
    return lambda s, d: isinstance(s, src) and isinstance(d, dst)


def _one_generic(s: Type, d: Type) -> bool:
    """addrspacecast: named -> generic or generic -> named only."""
    return isinstance(s, PtrType) and isinstance(d, PtrType) and s.space != d.space and \
        AddressSpace.GENERIC in (s.space, d.space)


def _elementwise(convertible: Callable[[Type, Type], bool]) -> Callable[[Type, Type], bool]:
    """A cast of a scalar, or of a vector element by element into one as long."""
    def ok(src: Type, dst: Type) -> bool:
        if isinstance(src, VectorType) or isinstance(dst, VectorType):
            if not (isinstance(src, VectorType) and isinstance(dst, VectorType)
                    and src.count == dst.count):
                return False
        return convertible(src.scalar(), dst.scalar())
    return ok


def _bitcastable(src: Type, dst: Type) -> bool:
    """The same number of bits, no pointers."""
    return not isinstance(src.scalar(), PtrType) and not isinstance(dst.scalar(), PtrType) \
        and _total_bits(src) == _total_bits(dst) != 0


# Each cast's type rule: whether it converts type src to type dst. A row per entry.
CAST_RULES: dict[str, Callable[[Type, Type], bool]] = {
    "trunc": _elementwise(_narrows(IntType)),
    "zext": _elementwise(_widens(IntType)),
    "sext": _elementwise(_widens(IntType)),
    "fptrunc": _elementwise(_narrows(FloatType)),
    "fpext": _elementwise(_widens(FloatType)),
    "fptoui": _elementwise(_converts(FloatType, IntType)),
    "fptosi": _elementwise(_converts(FloatType, IntType)),
    "uitofp": _elementwise(_converts(IntType, FloatType)),
    "sitofp": _elementwise(_converts(IntType, FloatType)),
    "ptrtoint": _elementwise(_converts(PtrType, IntType)),
    "inttoptr": _elementwise(_converts(IntType, PtrType)),
    "bitcast": _bitcastable,
    "addrspacecast": _elementwise(_one_generic),
}


def _check_cast(i: Instr, c: Context | None) -> Iterator[str]:
    src = i.operands[0].type
    if i.op == "addrspacecast" and isinstance(src, PtrType) and isinstance(i.type, PtrType) \
            and AddressSpace.GENERIC not in (src.space, i.type.space):
        yield (f"addrspacecast from {src} to {i.type}: a cast between two named address "
               "spaces is not allowed (only to or from generic)")
    elif not CAST_RULES[i.op](src, i.type):
        yield f"cannot cast {src} to {i.type}"


def _check_select(i: Instr, c: Context | None) -> Iterator[str]:
    cond, a, b = i.operands
    if a.type != b.type:
        yield f"arm types differ ({a.type} vs {b.type})"
    if cond.type != I1 and cond.type != _bool_like(a.type):
        yield f"condition must be i1 or a matching i1 vector, not {cond.type}"


def _check_alloca(i: Instr, c: Context | None) -> Iterator[str]:
    space = i.attrs.get("space", AddressSpace.PRIVATE)
    if not isinstance(i.attrs.get("elem"), Type) or i.attrs["elem"] == VOID:
        yield f"alloca needs an element type, not {i.attrs.get('elem')!r}"
    if c is not None and c.layout is not None and space is not c.layout.alloca_space:
        yield (f"alloca in address space {space}; the {c.layout.name} target allocates "
               f"in {c.layout.alloca_space}")


def _pointer(value: Value, what: str) -> Iterator[str]:
    if not isinstance(value.type, PtrType):
        yield f"{what} must be a pointer, not {value.type}"


def _is_value_type(t: Type) -> bool:
    return isinstance(t, Type) and not isinstance(t, (VoidType, FunctionType))


def _check_load(i: Instr, c: Context | None) -> Iterator[str]:
    yield from _pointer(i.operands[0], "address")
    if not _is_value_type(i.type):
        yield f"cannot load a value of type {i.type}"


def _check_store(i: Instr, c: Context | None) -> Iterator[str]:
    value, address = i.operands
    yield from _pointer(address, "address")
    if isinstance(address.type, PtrType) and address.type.space is AddressSpace.CONSTANT:
        yield "store through ptr<constant> (constant memory is read-only)"
    if not _is_value_type(value.type):
        yield f"cannot store a value of type {value.type}"


def _check_gep(i: Instr, c: Context | None) -> Iterator[str]:
    if len(i.operands) < 2:
        yield "getelementptr needs a base pointer and at least one index"
        return
    base, *indices = i.operands
    yield from _pointer(base, "base")
    for idx in indices:
        if not isinstance(idx.type, IntType):
            yield f"index must be an integer, not {idx.type}"
    elem = i.attrs.get("elem")
    if not isinstance(elem, Type):
        yield f"getelementptr needs an element type, not {elem!r}"
        return
    try:
        _gep_result_elem(elem, indices)
    except TypeRuleError as exc:
        yield str(exc)


def _atomic_common(i: Instr, address: Value) -> Iterator[str]:
    yield from _pointer(address, "address")
    if isinstance(address.type, PtrType) and address.type.space is AddressSpace.CONSTANT:
        yield f"{i.op} through ptr<constant> (constant memory is read-only)"
    if i.attrs.get("ordering") not in ORDERINGS:
        yield f"unknown memory ordering {i.attrs.get('ordering')!r}"
    if i.attrs.get("scope") not in SCOPES:
        yield f"unknown memory scope {i.attrs.get('scope')!r}"


def _check_atomicrmw(i: Instr, c: Context | None) -> Iterator[str]:
    address, value = i.operands
    yield from _atomic_common(i, address)
    binop = i.attrs.get("binop")
    if binop not in ATOMIC_BINOPS:
        yield f"unknown atomicrmw operation {binop!r}"
    elif binop == "fadd" and not isinstance(value.type, FloatType):
        yield f"atomicrmw fadd needs a float value, not {value.type}"
    elif binop not in ("fadd", "xchg") and not isinstance(value.type, IntType):
        yield f"atomicrmw {binop} needs an integer value, not {value.type}"


def _check_cmpxchg(i: Instr, c: Context | None) -> Iterator[str]:
    address, expected, new = i.operands
    yield from _atomic_common(i, address)
    if expected.type != new.type:
        yield f"expected and new value types differ ({expected.type} vs {new.type})"


def _check_extractelement(i: Instr, c: Context | None) -> Iterator[str]:
    vec, idx = i.operands
    if not isinstance(vec.type, VectorType):
        yield f"operand must be a vector, not {vec.type}"
        return
    if not isinstance(idx.type, IntType):
        yield f"index must be an integer, not {idx.type}"


def _check_insertelement(i: Instr, c: Context | None) -> Iterator[str]:
    vec, elt, idx = i.operands
    if not isinstance(vec.type, VectorType):
        yield f"operand must be a vector, not {vec.type}"
        return
    if elt.type != vec.type.elem:
        yield f"cannot insert {elt.type} into {vec.type}"
    if not isinstance(idx.type, IntType):
        yield f"index must be an integer, not {idx.type}"


def _check_shufflevector(i: Instr, c: Context | None) -> Iterator[str]:
    a, b = i.operands
    if not isinstance(a.type, VectorType) or a.type != b.type:
        yield f"operands must be vectors of one type ({a.type} vs {b.type})"
        return
    mask = i.attrs.get("mask", ())
    if not isinstance(mask, tuple):
        yield f"mask must be a tuple of integers, not {mask!r}"
        return
    for m in mask:
        if not isinstance(m, int) or not -1 <= m < 2 * a.type.count:
            yield f"mask element {m!r} out of range for two {a.type}"


def _check_extractvalue(i: Instr, c: Context | None) -> Iterator[str]:
    t = _walk_indices(i.operands[0].type, i.attrs.get("indices"))
    if isinstance(t, str):
        yield t


def _check_insertvalue(i: Instr, c: Context | None) -> Iterator[str]:
    agg, elt = i.operands
    t = _walk_indices(agg.type, i.attrs.get("indices"))
    if isinstance(t, str):
        yield t
        return
    if elt.type != t:
        yield f"inserted value is {elt.type}, the indexed field is {t}"


def _check_call(i: Instr, c: Context | None) -> Iterator[str]:
    callee = i.attrs.get("callee")
    if not isinstance(getattr(callee, "type", None), FunctionType):
        yield f"callee must be a function, not {callee!r}"
        return
    name = c.symbol(callee) if c is not None else f"@{callee.name}"
    if c is not None and c.module is not None and not any(f is callee for f in c.module.functions):
        yield f"callee {name} is not a function of this module"
    params = callee.type.params
    n, variadic = len(i.operands), bool(callee.attrs.get("variadic"))
    if n < len(params) or (n > len(params) and not variadic):
        yield f"{name} takes {len(params)} arguments, found {n}"
    for index, (arg, want) in enumerate(zip(i.operands, params)):
        if arg.type != want:
            yield f"argument {index} is {arg.type}, {name} expects {want}"


def _check_phi(i: Instr, c: Context | None) -> Iterator[str]:
    for value in i.operands:
        if value.type != i.type:
            yield f"incoming value has type {value.type}, the phi is {i.type}"
    if c is None or c.preds is None:
        return
    preds = c.preds.get(i.parent, []) if i.parent is not None else []
    for pred in preds:
        count = sum(1 for b in i.blocks if b is pred)
        if count == 0:
            yield f"no incoming value for predecessor {c.local(pred)}"
        elif count > 1:
            yield f"{count} incoming values for predecessor {c.local(pred)}"
    for incoming in i.blocks:
        if not any(p is incoming for p in preds):
            yield f"incoming block {c.local(incoming)} is not a predecessor"


def _check_condbr(i: Instr, c: Context | None) -> Iterator[str]:
    if i.operands[0].type != I1:
        yield f"condition must be i1, not {i.operands[0].type}"


def _check_switch(i: Instr, c: Context | None) -> Iterator[str]:
    value = i.operands[0]
    cases = i.attrs.get("cases", ())
    if not isinstance(cases, tuple) or not all(isinstance(c, int) for c in cases):
        yield f"switch cases must be a tuple of integers, not {cases!r}"
        return
    if not isinstance(value.type, IntType):
        yield f"switch value must be an integer, not {value.type}"
        return
    if len(i.targets) != len(cases) + 1:
        yield f"{len(cases)} cases need {len(cases) + 1} successors, found {len(i.targets)}"
    bits = value.type.bits
    wrapped = Counter(case % (1 << bits) for case in cases)
    for case in sorted(w for w, count in wrapped.items() if count > 1):
        yield f"duplicate case value {case - (1 << bits) if case >> (bits - 1) else case}"


def _check_ret(i: Instr, c: Context | None) -> Iterator[str]:
    if len(i.operands) > 1:
        yield f"ret takes at most one operand, found {len(i.operands)}"
        return
    if c is None or c.fn is None:
        return
    want = c.fn.type.ret
    got = i.operands[0].type if i.operands else VOID
    if got != want:
        yield f"returns {got}, but {c.symbol(c.fn)} returns {want}"


# -- the table ----------------------------------------------------------------------------

_BINARY = (*[Flag(f) for f in WRAP_FLAGS], TypeOf("values"), BARE, COMMA, BARE)
_TWO = (TYPED, COMMA, TYPED)
_THREE = (*_TWO, COMMA, TYPED)
_PURE: dict[str, Any] = {"pure": True}
_READS_WRITES: dict[str, Any] = {"reads_memory": True, "writes_memory": True}
_TERMINATOR: dict[str, Any] = {"terminator": True, "result": _void}


def _cmp(preds: tuple[str, ...], what: str) -> tuple[SyntaxItem, ...]:
    return (Word("pred", preds, what), TypeOf("values"), BARE, COMMA, BARE)


def _rows() -> list[OpInfo]:
    same_as = _operand_type
    return [
        *[OpInfo(op, Kind.BINARY, _BINARY, _check_binary, result=same_as(0), operands=2, **_PURE)
          for op in INT_BINOPS + FLOAT_BINOPS],
        OpInfo("fneg", Kind.UNARY, (TYPED,), _check_fneg, result=same_as(0), operands=1, **_PURE),
        OpInfo("icmp", Kind.CMP, _cmp(ICMP_PREDICATES, "icmp predicate"), _check_cmp,
               result=_compared, operands=2, **_PURE),
        OpInfo("fcmp", Kind.CMP, _cmp(FCMP_PREDICATES, "fcmp predicate"), _check_cmp,
               result=_compared, operands=2, **_PURE),
        *[OpInfo(op, Kind.CAST, (TYPED, Lit("to"), TypeOf("result")), _check_cast, operands=1,
                 **_PURE) for op in CAST_RULES],
        OpInfo("select", Kind.SELECT, _THREE, _check_select, result=same_as(1), operands=3,
               **_PURE),
        OpInfo("alloca", Kind.MEMORY, (TypeOf("elem"), SPACE, ALIGN), _check_alloca,
               result=_allocated, operands=0),
        OpInfo("load", Kind.MEMORY, (Flag("volatile", False), TypeOf("result"), COMMA, TYPED,
                                     ALIGN), _check_load, operands=1, reads_memory=True),
        OpInfo("store", Kind.MEMORY, (Flag("volatile", False), *_TWO, ALIGN), _check_store,
               result=_void, operands=2, writes_memory=True),
        OpInfo("getelementptr", Kind.MEMORY, (Flag("inbounds", False), TypeOf("elem"), COMMA,
                                              TYPED, MORE_TYPED), _check_gep,
               result=same_as(0), **_PURE),
        OpInfo("atomicrmw", Kind.ATOMIC, (Word("binop", ATOMIC_BINOPS, "atomicrmw operation"),
                                          *_TWO, SYNC), _check_atomicrmw,
               result=same_as(1), operands=2, **_READS_WRITES),
        OpInfo("cmpxchg", Kind.ATOMIC, (*_THREE, SYNC), _check_cmpxchg, result=same_as(2),
               operands=3, **_READS_WRITES),
        OpInfo("extractelement", Kind.VECTOR, _TWO, _check_extractelement, result=_vector_elem,
               operands=2, **_PURE),
        OpInfo("insertelement", Kind.VECTOR, _THREE, _check_insertelement, result=_vector_type,
               operands=3, **_PURE),
        OpInfo("shufflevector", Kind.VECTOR, (*_TWO, COMMA, MASK), _check_shufflevector,
               result=_shuffled, operands=2, **_PURE),
        OpInfo("extractvalue", Kind.AGGREGATE, (TYPED, INDICES), _check_extractvalue,
               result=_extracted, operands=1, **_PURE),
        OpInfo("insertvalue", Kind.AGGREGATE, (*_TWO, INDICES), _check_insertvalue,
               result=same_as(0), operands=2, **_PURE),
        OpInfo("call", Kind.CALL, (TypeOf("result"), CALLEE), _check_call, result=_returned,
               convergent=True, **_READS_WRITES),
        OpInfo("phi", Kind.PHI, (TypeOf("result"), INCOMING), _check_phi, **_PURE),
        OpInfo("br", Kind.TERMINATOR, (LABEL,), _check_none, operands=0, successors=1,
               **_TERMINATOR),
        OpInfo("condbr", Kind.TERMINATOR, (TYPED, COMMA, LABEL, COMMA, LABEL), _check_condbr,
               operands=1, successors=2, **_TERMINATOR),
        OpInfo("switch", Kind.TERMINATOR, (TYPED, COMMA, LABEL, CASES), _check_switch,
               operands=1, successors=None, **_TERMINATOR),
        OpInfo("ret", Kind.TERMINATOR, (TYPED_OR_VOID,), _check_ret, **_TERMINATOR),
        OpInfo("unreachable", Kind.TERMINATOR, (), _check_none, operands=0, **_TERMINATOR),
    ]


OPS: dict[str, OpInfo] = {row.name: row for row in _rows()}
