"""The opcode table: every IR instruction's name, kind and traits.

Passes and targets ask this table (`OPS[op].pure`, `.terminator`, ...) rather
than keeping their own lists of opcodes. The operand layout of each kind is
documented on `Kind`; the builder (`ir/builder.py`) is the one place that
creates instructions and checks their operand types.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.Enum):
    """Operand layout families.

    BINARY      operands [a, b], same type (int or float, scalar or vector); result that type
    UNARY       operands [a]; result the same type (fneg)
    CMP         operands [a, b]; attrs pred; result i1 or <N x i1>
    CAST        operands [a]; result the instruction's type
    SELECT      operands [cond, a, b]
    MEMORY      alloca: attrs elem (Type), align, space; no operands; result ptr<space>
                load: operands [ptr]; attrs align, volatile; result the loaded type
                store: operands [value, ptr]; attrs align, volatile
                getelementptr: operands [ptr, idx...]; attrs elem (the source element type),
                    inbounds; first index scales by sizeof(elem), later ones step into
                    arrays/vectors/structs (struct indices are constants); result ptr
    ATOMIC      atomicrmw: operands [ptr, value]; attrs binop, ordering, scope
                cmpxchg: operands [ptr, expected, new]; attrs ordering, scope; result old value
    VECTOR      extractelement [vec, idx]; insertelement [vec, elt, idx];
                shufflevector [a, b] attrs mask (tuple of ints, -1 = undef)
    AGGREGATE   extractvalue [agg] attrs indices; insertvalue [agg, elt] attrs indices
    CALL        operands = arguments; attrs callee (Function)
    PHI         operands = incoming values; instr.blocks = incoming blocks, in the same order
    TERMINATOR  br: targets [dest]; condbr: operands [cond], targets [then, else];
                switch: operands [value], attrs cases (tuple of ints), targets [default, *case_dests];
                ret: operands [] or [value]; unreachable
    """

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


@dataclass(frozen=True)
class OpInfo:
    name: str
    kind: Kind
    pure: bool = False  # no side effects, no memory access: removable when unused
    terminator: bool = False
    reads_memory: bool = False
    writes_memory: bool = False


def _table() -> dict[str, OpInfo]:
    ops: list[OpInfo] = []
    int_bin = "add sub mul sdiv udiv srem urem shl lshr ashr and or xor".split()
    float_bin = "fadd fsub fmul fdiv frem".split()
    for name in int_bin + float_bin:
        ops.append(OpInfo(name, Kind.BINARY, pure=True))
    ops.append(OpInfo("fneg", Kind.UNARY, pure=True))
    ops += [OpInfo("icmp", Kind.CMP, pure=True), OpInfo("fcmp", Kind.CMP, pure=True)]
    casts = "trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr bitcast addrspacecast"
    ops += [OpInfo(name, Kind.CAST, pure=True) for name in casts.split()]
    ops.append(OpInfo("select", Kind.SELECT, pure=True))
    ops += [
        OpInfo("alloca", Kind.MEMORY),
        OpInfo("load", Kind.MEMORY, reads_memory=True),
        OpInfo("store", Kind.MEMORY, writes_memory=True),
        OpInfo("getelementptr", Kind.MEMORY, pure=True),
        OpInfo("atomicrmw", Kind.ATOMIC, reads_memory=True, writes_memory=True),
        OpInfo("cmpxchg", Kind.ATOMIC, reads_memory=True, writes_memory=True),
        OpInfo("extractelement", Kind.VECTOR, pure=True),
        OpInfo("insertelement", Kind.VECTOR, pure=True),
        OpInfo("shufflevector", Kind.VECTOR, pure=True),
        OpInfo("extractvalue", Kind.AGGREGATE, pure=True),
        OpInfo("insertvalue", Kind.AGGREGATE, pure=True),
        OpInfo("call", Kind.CALL, reads_memory=True, writes_memory=True),
        OpInfo("phi", Kind.PHI, pure=True),
    ]
    for name in ("br", "condbr", "switch", "ret", "unreachable"):
        ops.append(OpInfo(name, Kind.TERMINATOR, terminator=True))
    return {op.name: op for op in ops}


OPS: dict[str, OpInfo] = _table()

ICMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FCMP_PREDICATES = (
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
)
ATOMIC_BINOPS = ("xchg", "add", "sub", "and", "or", "xor", "max", "min", "umax", "umin", "fadd")
ORDERINGS = ("monotonic", "acquire", "release", "acq_rel", "seq_cst")
SCOPES = ("work_item", "sub_group", "work_group", "device", "all_svm_devices")
