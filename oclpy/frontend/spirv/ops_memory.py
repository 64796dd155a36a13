"""Memory and pointer instructions: variables, loads, stores, access chains,
memory copies and pointer conversions.

Function-scope OpVariables become entry-block `alloca`s (mem2reg promotes
them). Access chains become `getelementptr`s (OpAccessChain's implied first
index is 0; OpPtrAccessChain's first index steps over whole pointees; struct
member indices go through the type's member -> field map). Loads and stores
take their alignment and volatility from the memory operands and from the
pointer's Alignment/Volatile decorations. A generic -> named cast is an
`addrspacecast`; the Explicit form (which yields NULL when the pointer is
elsewhere) is the `ocl.to_<space>` intrinsic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import types as ir
from ...ir.builder import add_incoming
from ...ir.intrinsics import declare_intrinsic
from ...ir.values import ConstInt, Value
from .binary import Instruction
from .builtins import BuiltinRef, load_builtin
from .grammar import MEMORY_ALIGNED, MEMORY_MAKE_AVAILABLE, MEMORY_MAKE_VISIBLE, MEMORY_VOLATILE, OP
from .spirv_types import SpvType
from .opencl_std import lower_builtin

if TYPE_CHECKING:
    from .function import FunctionTranslator, Handler


def memory_operands(ft: FunctionTranslator, instr: Instruction, ptr_id: int, start: int) -> tuple[int, bool]:
    """(alignment, volatile) from the memory operands at `start` and the pointer's decorations."""
    align, volatile = 0, False
    ops = instr.operands[start:]
    if ops:
        mask = ops[0]
        volatile = bool(mask & MEMORY_VOLATILE)
        k = 1
        if mask & MEMORY_ALIGNED:
            if len(ops) < 2:
                raise instr.error("the Aligned memory operand has no alignment literal")
            align, k = ops[1], 2
        k += bool(mask & MEMORY_MAKE_AVAILABLE) + bool(mask & MEMORY_MAKE_VISIBLE)
    info = ft.mt.info
    decorated = info.decoration(ptr_id, "Alignment")
    if decorated and not align:
        align = decorated[0]
    volatile = volatile or info.decoration(ptr_id, "Volatile") is not None
    if align & (align - 1):
        raise instr.error(f"alignment {align} is not a power of two")
    return align, volatile


def _variable(ft: FunctionTranslator, instr: Instruction) -> None:
    t = ft.result_type(instr)
    if t.kind != "pointer" or instr.operand(2) != 7:
        raise instr.error("a variable inside a function must have the Function storage class")
    ft.mt.types.pointee(t, instr)
    pointee = ft.mt.types.data(t.pointee_id, instr, "a variable")
    align = (ft.mt.info.decoration(instr.operand(1), "Alignment") or (0,))[0]
    name = ft.mt.info.names.get(instr.operand(1), "")
    slot = ft.allocas.alloca(pointee.ir, align, name=name)
    ft.define(instr, slot)
    if len(instr.operands) > 3:
        ft.b.store(ft.value(instr.operand(3)), slot, align)


def _load(ft: FunctionTranslator, instr: Instruction) -> None:
    ptr = ft.raw(instr.operand(2))
    t = ft.result_type(instr)
    if isinstance(ptr, BuiltinRef):
        ft.define(instr, load_builtin(ft, ptr, t, instr))
        return
    align, volatile = memory_operands(ft, instr, instr.operand(2), 3)
    ft.define(instr, ft.b.load(t.ir, ft.value(instr.operand(2)), align, volatile))


def _store(ft: FunctionTranslator, instr: Instruction) -> None:
    ptr, value = ft.value(instr.operand(0)), ft.value(instr.operand(1))
    if isinstance(ptr.type, ir.PtrType) and ptr.type.space is ir.AddressSpace.CONSTANT:
        raise instr.error("OpStore through a UniformConstant (constant) pointer")
    align, volatile = memory_operands(ft, instr, instr.operand(0), 2)
    ft.b.store(value, ptr, align, volatile)


def _chain(ptr_step: bool, inbounds: bool) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        base_id = instr.operand(2)
        base = ft.raw(base_id)
        index_ids = instr.operands[3:]
        if isinstance(base, BuiltinRef):
            ft.define(instr, base.index_by(ft, index_ids, ptr_step, instr))
            return
        ptr_t = ft.vtype(base_id)
        if ptr_t.kind != "pointer":
            raise instr.error(f"access chain base %{base_id} is not a pointer")
        pointee = ft.mt.types.pointee(ptr_t, instr)
        indices: list[Value] = [] if ptr_step else [ConstInt(ir.I64, 0)]
        t = pointee
        for k, id_ in enumerate(index_ids):
            idx = ft.value(id_)
            if not isinstance(idx.type, ir.IntType):
                raise instr.error(f"index %{id_} is not an integer")
            if ptr_step and k == 0:
                indices.append(idx)
                continue
            t, idx = _step(t, idx, instr)
            indices.append(idx)
        if not indices:
            ft.define(instr, base)
            return
        ft.define(instr, ft.b.gep(pointee.ir, base, indices, inbounds))
    return handle


def _step(t: SpvType, idx: Value, instr: Instruction) -> tuple[SpvType, Value]:
    """The type one index steps into, and the IR index to use."""
    if t.kind in ("array", "vector"):
        assert t.elem is not None
        return t.elem, idx
    if t.kind == "struct":
        if not isinstance(idx, ConstInt) or idx.value >= len(t.members):
            raise instr.error(f"struct member index must be a constant below {len(t.members)}")
        return t.members[idx.value], ConstInt(ir.I32, t.field_index[idx.value])
    raise instr.error(f"cannot index into {t.ir}")


def _copy_memory(ft: FunctionTranslator, instr: Instruction) -> None:
    dst, src = ft.value(instr.operand(0)), ft.value(instr.operand(1))
    pointee = ft.mt.types.pointee(ft.vtype(instr.operand(1)), instr)
    align, volatile = memory_operands(ft, instr, instr.operand(1), 2)
    ft.b.store(ft.b.load(pointee.ir, src, align, volatile), dst, align, volatile)


def _copy_memory_sized(ft: FunctionTranslator, instr: Instruction) -> None:
    """A byte loop (LLVM's memcpy becomes this): `for (i = 0; i < n; i++) dst[i] = src[i]`."""
    dst, src, n = (ft.value(i) for i in instr.operands[:3])
    if not isinstance(n.type, ir.IntType):
        raise instr.error(f"the size must be an integer, not {n.type}")
    _, volatile = memory_operands(ft, instr, instr.operand(1), 3)
    pre = ft.b.block
    head, body, done = (ft.fn.add_block(f"copy.{s}") for s in ("head", "body", "done"))
    ft.b.br(head)
    ft.b.position_at_end(head)
    i = ft.b.phi(n.type)
    add_incoming(i, ConstInt(n.type, 0), pre)  # type: ignore[arg-type]
    ft.b.condbr(ft.b.icmp("ult", i, n), body, done)
    ft.b.position_at_end(body)
    byte = ft.b.load(ir.I8, ft.b.gep(ir.I8, src, [i]), 1, volatile)
    ft.b.store(byte, ft.b.gep(ir.I8, dst, [i]), 1, volatile)
    nxt = ft.b.binop("add", i, ConstInt(n.type, 1))
    add_incoming(i, nxt, body)
    ft.b.br(head)
    ft.b.position_at_end(done)


def _cast_to(op: str) -> Handler:
    def handle(ft: FunctionTranslator, instr: Instruction) -> None:
        ft.define(instr, ft.b.cast(op, ft.value(instr.operand(2)), ft.result_type(instr).ir))
    return handle


def _space_cast(ft: FunctionTranslator, instr: Instruction) -> None:
    v, t = ft.value(instr.operand(2)), ft.result_type(instr).ir
    ft.define(instr, v if v.type == t else ft.b.cast("addrspacecast", v, t))


def _explicit_cast(ft: FunctionTranslator, instr: Instruction) -> None:
    v, t = ft.value(instr.operand(2)), ft.result_type(instr).ir
    if not isinstance(t, ir.PtrType) or t.space not in _TO_SPACE:
        raise instr.error(f"cannot cast a generic pointer to {t} explicitly")
    fn = declare_intrinsic(ft.module, _TO_SPACE[t.space], t, [v.type])
    ft.define(instr, ft.b.call(fn, [v]))


_TO_SPACE = {ir.AddressSpace.GLOBAL: "to_global", ir.AddressSpace.LOCAL: "to_local",
             ir.AddressSpace.PRIVATE: "to_private"}


def _bitcast(ft: FunctionTranslator, instr: Instruction) -> None:
    v, t = ft.value(instr.operand(2)), ft.result_type(instr).ir
    if isinstance(t, ir.PtrType) and isinstance(v.type, ir.PtrType):
        ft.define(instr, v if v.type == t else ft.b.cast("addrspacecast", v, t))
    elif isinstance(t, ir.PtrType):
        ft.define(instr, ft.b.cast("inttoptr", v, t))
    elif isinstance(v.type, ir.PtrType):
        ft.define(instr, ft.b.cast("ptrtoint", v, t))
    else:
        ft.define(instr, v if v.type == t else ft.b.cast("bitcast", v, t))


def _generic_semantics(ft: FunctionTranslator, instr: Instruction) -> None:
    """OpGenericPtrMemSemantics: OpenCL C's get_fence (CLK_LOCAL_MEM_FENCE 1 or
    CLK_GLOBAL_MEM_FENCE 2) shifted to WorkgroupMemory (0x100) or CrossWorkgroupMemory (0x200)."""

    p, t = ft.value(instr.operand(2)), ft.result_type(instr).ir
    if p.type != ir.PtrType(ir.AddressSpace.GENERIC) or t != ir.I32:
        raise instr.error(f"OpGenericPtrMemSemantics needs a generic pointer and an int result")
    flags = lower_builtin(ft, instr, "get_fence", ir.I32, [p])
    assert flags is not None
    ft.define(instr, ft.b.binop("shl", flags, ConstInt(ir.I32, 8)))


def _copy_object(ft: FunctionTranslator, instr: Instruction) -> None:
    ft.define(instr, ft.raw(instr.operand(2)))


HANDLERS: dict[int, Handler] = {
    OP["Variable"]: _variable, OP["Load"]: _load, OP["Store"]: _store,
    OP["AccessChain"]: _chain(False, False), OP["InBoundsAccessChain"]: _chain(False, True),
    OP["PtrAccessChain"]: _chain(True, False), OP["InBoundsPtrAccessChain"]: _chain(True, True),
    OP["CopyMemory"]: _copy_memory, OP["CopyMemorySized"]: _copy_memory_sized,
    OP["ConvertPtrToU"]: _cast_to("ptrtoint"), OP["ConvertUToPtr"]: _cast_to("inttoptr"),
    OP["PtrCastToGeneric"]: _space_cast, OP["GenericCastToPtr"]: _space_cast,
    OP["GenericCastToPtrExplicit"]: _explicit_cast, OP["Bitcast"]: _bitcast,
    OP["GenericPtrMemSemantics"]: _generic_semantics, OP["CopyObject"]: _copy_object, OP["CopyLogical"]: _copy_object,
}
