"""SPIR-V types -> IR types.

`TypeTable.define(instr)` reads one type instruction into a `SpvType`: the
IR type plus what the IR's opaque pointers forget (a pointer's pointee, by
id, so forward pointers work) and what struct layout needs (the IR field of
each member when Offset decorations ask for padding). Storage classes map to
address spaces in `SPACES`; images, samplers, pipes, queues and reserve ids
are rejected by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ...ir import types as ir
from ...ir.datalayout import DataLayout
from ...ir.values import ConstInt
from .binary import Instruction
from .spirv_errors import SpirvError
from .grammar import OP, SC, STORAGE_CLASSES
from .reader import ModuleInfo

# Storage class -> address space. Input holds only built-in variables, which the
# reader turns into work-item queries (builtins.py); its pointers never reach the IR.
SPACES: dict[int, ir.AddressSpace] = {
    SC["Function"]: ir.AddressSpace.PRIVATE,
    SC["Private"]: ir.AddressSpace.PRIVATE,
    SC["CrossWorkgroup"]: ir.AddressSpace.GLOBAL,
    SC["Workgroup"]: ir.AddressSpace.LOCAL,
    SC["UniformConstant"]: ir.AddressSpace.CONSTANT,
    SC["Generic"]: ir.AddressSpace.GENERIC,
    SC["Input"]: ir.AddressSpace.PRIVATE,
}

_REJECTED = {
    "TypeImage": "images", "TypeSampler": "samplers", "TypeSampledImage": "sampled images",
    "TypePipe": "pipes", "TypePipeStorage": "pipe storage", "TypeQueue": "device queues",
    "TypeDeviceEvent": "device-side enqueue events", "TypeReserveId": "pipe reservations",
    "TypeMatrix": "matrices", "TypeNamedBarrier": "named barriers",
    "TypeRuntimeArray": "runtime arrays",
}


@dataclass(eq=False)
class SpvType:
    kind: str  # void bool int float vector array struct pointer function event opaque
    ir: ir.Type
    elem: SpvType | None = None  # vector and array elements
    count: int = 0
    members: tuple[SpvType, ...] = ()
    field_index: tuple[int, ...] = ()  # struct member -> IR field (after padding)
    storage: int = -1  # pointers
    pointee_id: int = 0  # pointers
    ret: SpvType | None = None  # functions
    params: tuple[SpvType, ...] = ()
    name: str = ""  # the OpenCL C spelling, for kernel argument info

    @property
    def space(self) -> ir.AddressSpace:
        return SPACES[self.storage]


@dataclass
class TypeTable:
    info: ModuleInfo
    layout: DataLayout  # the target's: member offsets and pointer sizes
    types: dict[int, SpvType] = field(default_factory=dict)
    consts: dict[int, object] = field(default_factory=dict)  # id -> IR constant (array lengths)

    def __getitem__(self, id_: int) -> SpvType:
        return self.types[id_]

    def get(self, id_: int, instr: Instruction) -> SpvType:
        t = self.types.get(id_)
        if t is None:
            raise instr.error(f"%{id_} is not a type")
        return t

    def data(self, id_: int, instr: Instruction, what: str) -> SpvType:
        """The type `id_` where a value must be stored (a parameter, a member, an element):
        never void or a function type."""
        t = self.get(id_, instr)
        if t.kind in ("void", "function"):
            raise instr.error(f"{what} cannot have {t.kind} type %{id_}")
        return t

    def pointee(self, ptr: SpvType, instr: Instruction) -> SpvType:
        t = self.types.get(ptr.pointee_id)
        if t is None:
            raise instr.error(f"pointer to %{ptr.pointee_id}, which is not a defined type")
        return t

    def define(self, instr: Instruction) -> bool:
        """Read `instr` when it is a type instruction; False when it is not one."""
        handler = _HANDLERS.get(instr.opcode)
        if handler is None:
            what = _REJECTED.get(instr.name[2:])
            if what is None:
                return False
            raise instr.error(f"{what} are not supported by oclpy")
        result = instr.operand(0)
        made = handler(self, instr)
        early = self.types.get(result)
        if early is not None and early.kind == "pointer" and made.kind == "pointer" and not early.pointee_id:
            early.pointee_id, early.name = made.pointee_id, made.name  # a forward pointer completed
        elif early is not None or result in self.consts:
            raise instr.error(f"%{result} is defined twice")
        else:
            self.types[result] = made
        return True

    def forward_pointer(self, instr: Instruction) -> None:
        """OpTypeForwardPointer: the pointer type exists (for recursive structs) before its
        OpTypePointer says what it points to."""
        storage = instr.operand(1)
        if storage not in SPACES:
            raise instr.error(f"storage class {STORAGE_CLASSES.get(storage, storage)} is not "
                              f"supported in OpenCL kernels")
        self.types[instr.operand(0)] = SpvType("pointer", ir.PtrType(SPACES[storage]),
                                               storage=storage, name="void*")


def _int(tt: TypeTable, instr: Instruction) -> SpvType:
    bits = instr.operand(1)
    if bits not in (8, 16, 32, 64):
        raise instr.error(f"integer width {bits} is not supported (8, 16, 32 or 64)")
    names = {8: "char", 16: "short", 32: "int", 64: "long"}
    return SpvType("int", ir.IntType(bits), name=names[bits])


def _float(tt: TypeTable, instr: Instruction) -> SpvType:
    bits = instr.operand(1)
    if bits not in (16, 32, 64) or len(instr.operands) > 2:
        raise instr.error(f"float width {bits} is not supported (16, 32 or 64)")
    return SpvType("float", ir.FloatType(bits), name={16: "half", 32: "float", 64: "double"}[bits])


def _vector(tt: TypeTable, instr: Instruction) -> SpvType:
    elem, n = tt.get(instr.operand(1), instr), instr.operand(2)
    if n not in (2, 3, 4, 8, 16) or elem.kind not in ("int", "float", "bool"):
        raise instr.error(f"vector of {n} x {elem.kind} is not an OpenCL vector type")
    return SpvType("vector", ir.VectorType(elem.ir, n), elem, n, name=f"{elem.name}{n}")


def _array(tt: TypeTable, instr: Instruction) -> SpvType:
    elem = tt.data(instr.operand(1), instr, "an array element")
    n = array_length(tt, instr)
    return SpvType("array", ir.ArrayType(elem.ir, n), elem, n, name=f"{elem.name}[{n}]")


def array_length(tt: TypeTable, instr: Instruction) -> int:
    """The length operand: an integer constant defined before the type."""
    c = tt.consts.get(instr.operand(2))
    if not isinstance(c, ConstInt) or c.value == 0:
        raise instr.error(f"array length %{instr.operand(2)} is not a positive integer constant")
    return c.value


def _struct(tt: TypeTable, instr: Instruction) -> SpvType:
    result = instr.operand(0)
    members = tuple(tt.data(m, instr, "a struct member") for m in instr.operands[1:])
    packed = tt.info.decoration(result, "CPacked") is not None
    offsets = [tt.info.member_decoration(result, i, "Offset") for i in range(len(members))]
    try:
        fields, index = _layout([m.ir for m in members], [o[0] if o else None for o in offsets], packed,
                               tt.layout)
    except SpirvError as exc:
        raise instr.error(exc.message) from None
    name = tt.info.names.get(result, "")
    name = name.replace("struct.", "struct ", 1) if name.startswith("struct.") else name
    return SpvType("struct", ir.StructType(tuple(fields), packed or len(fields) != len(members)),
                   members=members, field_index=tuple(index), name=name or "struct")


def _layout(members: list[ir.Type], offsets: list[int | None], packed: bool,
            dl: DataLayout) -> tuple[list[ir.Type], list[int]]:
    """IR fields and the field of each member: natural layout when it puts every member at
    its Offset, else a packed struct with explicit byte padding."""
    natural = dl.struct_layout(ir.StructType(tuple(members), packed))
    if all(o is None or o == n for o, n in zip(offsets, natural.offsets)):
        return members, list(range(len(members)))
    fields: list[ir.Type] = []
    index: list[int] = []
    at = 0
    for t, off in zip(members, offsets):
        off = at if off is None else off
        if off < at:
            raise SpirvError(f"struct member Offset {off} overlaps the previous member (which ends "
                             f"at {at} in the {dl.name} target's layout)")
        if off > at:
            fields.append(ir.ArrayType(ir.I8, off - at))
        index.append(len(fields))
        fields.append(t)
        at = off + dl.size_of(t)
    return fields, index


def _pointer(tt: TypeTable, instr: Instruction) -> SpvType:
    storage = instr.operand(1)
    if storage not in SPACES:
        raise instr.error(f"storage class {STORAGE_CLASSES.get(storage, storage)} is not "
                          f"supported in OpenCL kernels")
    pointee = tt.types.get(instr.operand(2))
    name = f"{pointee.name}*" if pointee is not None else "void*"
    return SpvType("pointer", ir.PtrType(SPACES[storage]), storage=storage,
                   pointee_id=instr.operand(2), name=name)


def _function(tt: TypeTable, instr: Instruction) -> SpvType:
    ret = tt.get(instr.operand(1), instr)
    params = tuple(tt.data(p, instr, "a parameter") for p in instr.operands[2:])
    return SpvType("function", ir.FunctionType(ret.ir, tuple(p.ir for p in params)),
                   ret=ret, params=params)


def _opaque(tt: TypeTable, instr: Instruction) -> SpvType:
    name = instr.string(1)[0]
    return SpvType("opaque", ir.I8, name=name)


_HANDLERS: dict[int, Callable[[TypeTable, Instruction], SpvType]] = {
    OP["TypeVoid"]: lambda tt, i: SpvType("void", ir.VOID, name="void"),
    OP["TypeBool"]: lambda tt, i: SpvType("bool", ir.I1, name="bool"),
    OP["TypeInt"]: _int,
    OP["TypeFloat"]: _float,
    OP["TypeVector"]: _vector,
    OP["TypeArray"]: _array,
    OP["TypeStruct"]: _struct,
    OP["TypePointer"]: _pointer,
    OP["TypeFunction"]: _function,
    OP["TypeEvent"]: lambda tt, i: SpvType("event", ir.I32, name="event_t"),
    OP["TypeOpaque"]: _opaque,
}
