"""Large aggregates as pointers: how the LLVM emitter passes, returns, copies and
takes apart struct and array values larger than a target's limit.

LLVM treats a first-class aggregate (`load {[4096 x float]}`, a parameter or
return value of that type) element by element: its -O3 pipeline took minutes
over a kernel passing a 16 KB struct by value
(`benchmarks/large_aggregates.py`). A target that sets
`indirect_aggregate_bytes` (the cpu target) therefore has every struct or
array value of our IR larger than that many bytes emitted as a pointer to
memory that holds it (an *indirect* value), as clang passes large structs
`byval`/`sret`:

- a parameter of such a type is a pointer to the caller's copy (`noalias`,
  aligned, dereferenceable); a kernel's points into the argument blob;
- a function returning one gets a last parameter, a pointer to the caller's
  slot for the result, and returns void;
- `load` copies into a slot of its own (`llvm.memcpy`); `store` copies out;
  `extractvalue` is an address (a large member) or a load (a small one);
  `insertvalue` copies into its own slot and stores the member; `select`
  picks between two pointers; a call passes pointers;
- a constant is a private constant global (zeros stored are `llvm.memset`);
  `undef`, a slot never written.

The invariant that makes this exact: the memory behind an indirect value does
not change while the value can be used. A slot belongs to one instruction
(an `alloca` in the entry block) and only that instruction writes it, and an
SSA use sees the latest execution of its definition, so it sees the latest
write. A phi that merges branches (`c ? a : b`) picks between pointers:
no edge into its block comes back from below it (in reverse post-order),
so its block dominates none of its predecessors, hence none of its incoming
definitions, and no path reaches a use of the phi through a second run of
such a definition without running the phi again. A phi that a loop comes back
to may hold the previous iteration's value while that value's definition
runs again, so it stays a first-class value, loaded from the pointers at the
end of each predecessor. Wherever a first-class value is needed (such phis,
volatile accesses, calls to declarations), `FunctionEmitter.value` loads an
indirect operand: always exact, only slower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir as ll

from ...ir.types import ArrayType, StructType, Type
from ...ir.values import ConstAggregate, ConstZero, Function, Instr, Undef, Value

if TYPE_CHECKING:
    from .emit import FunctionEmitter, ModuleEmitter

I1, I8, I64 = ll.IntType(1), ll.IntType(8), ll.IntType(64)
MEMCPY = "llvm.memcpy.p0.p0.i64"
MEMSET = "llvm.memset.p0.i64"


def is_large(me: ModuleEmitter, t: Type) -> bool:
    """Whether values of type `t` are indirect for `me`'s target."""
    limit = me.indirect_bytes
    return limit is not None and isinstance(t, (StructType, ArrayType)) and me.target.layout.size_of(t) > limit


def pointer_type(me: ModuleEmitter) -> ll.PointerType:
    return ll.PointerType(addrspace=me.target.addrspace_of(me.target.layout.alloca_space))


def signature(me: ModuleEmitter, fn: Function) -> tuple[ll.Type, list[ll.Type], bool]:
    """(return type, parameter types, whether the result is written through a last
    parameter) of `fn`, hidden parameters not included."""
    params = [pointer_type(me) if is_large(me, p) else me.lltype(p) for p in fn.type.params]
    if is_large(me, fn.type.ret):
        return ll.VoidType(), params, True
    return me.lltype(fn.type.ret), params, False


def mark_params(me: ModuleEmitter, fn: Function, llfn: ll.Function, returns_through: bool) -> None:
    """Tell LLVM what an indirect parameter's pointer and the result's pointer promise."""
    layout = me.target.layout
    for p, llarg in zip(fn.type.params, llfn.args):
        if is_large(me, p):
            llarg.attributes.add("noalias")  # nothing writes the caller's copy during the call
            llarg.attributes.align = layout.align_of(p)
            llarg.attributes.dereferenceable = layout.size_of(p)
    if returns_through:
        result = llfn.args[-1]
        result.name = "result"
        result.attributes.add("noalias")  # the caller's fresh slot
        result.attributes.align = layout.align_of(fn.type.ret)
        result.attributes.dereferenceable = layout.size_of(fn.type.ret)


def slot(fe: FunctionEmitter, t: Type, name: str = "") -> ll.Value:
    """A fresh entry-block slot for a value of type `t`."""
    layout = fe.layout
    s = fe.alloca_builder.alloca(ll.ArrayType(I8, layout.size_of(t)), name=name)
    s.align = layout.align_of(t)
    s.type = pointer_type(fe.me)
    return s


def copy(fe: FunctionEmitter, dst: ll.Value, src: ll.Value, t: Type) -> None:
    memcpy = fe.me.declare_external(MEMCPY, ll.VoidType(), [dst.type, src.type, I64, I1])
    fe.builder.call(memcpy, [dst, src, ll.Constant(I64, fe.layout.size_of(t)), ll.Constant(I1, 0)])


def address(fe: FunctionEmitter, v: Value) -> ll.Value:
    """A pointer to memory holding the large aggregate `v`, unchanged while `v` is used:
    its own for an indirect value, a constant global for a constant, else a slot
    written here (right before the use that needs it)."""
    if fe.is_indirect(v):
        return fe.raw(v)
    if isinstance(v, Undef):
        return slot(fe, v.type, "undef")
    if isinstance(v, (ConstZero, ConstAggregate)):
        me = fe.me
        gv = ll.GlobalVariable(me.llmod, me.lltype(v.type), me.llmod.get_unique_name("aggregate"),
                               addrspace=pointer_type(me).addrspace)
        gv.initializer = me.constant(v)
        gv.global_constant = True
        gv.linkage = "private"
        gv.unnamed_addr = True
        gv.align = fe.layout.align_of(v.type)
        gv.type = pointer_type(me)
        return gv
    s = slot(fe, v.type, "copy")
    fe.builder.store(fe.value(v), s, align=fe.layout.align_of(v.type))
    return s


def member(fe: FunctionEmitter, t: Type, indices: list[int]) -> tuple[int, Type]:
    """(byte offset, type) of the member at `indices` of an aggregate of type `t`."""
    return fe.layout.member_offset(t, indices)


def at(fe: FunctionEmitter, base: ll.Value, offset: int) -> ll.Value:
    return base if offset == 0 else fe.builder.gep(base, [ll.Constant(I64, offset)], source_etype=I8)


def put(fe: FunctionEmitter, dst: ll.Value, v: Value) -> None:
    """Store the value `v` (large or not) at `dst`: a copy of an indirect value or a
    large constant's memory, zeros by `llvm.memset`, nothing for `undef`, else a store."""
    if isinstance(v, Undef) and is_large(fe.me, v.type):
        return
    if isinstance(v, ConstZero) and is_large(fe.me, v.type):
        memset = fe.me.declare_external(MEMSET, ll.VoidType(), [dst.type, I8, I64, I1])
        fe.builder.call(memset, [dst, ll.Constant(I8, 0), ll.Constant(I64, fe.layout.size_of(v.type)),
                                 ll.Constant(I1, 0)])
        return
    if fe.is_indirect(v) or (isinstance(v, (ConstZero, ConstAggregate)) and is_large(fe.me, v.type)):
        copy(fe, dst, address(fe, v), v.type)
        return
    fe.builder.store(fe.value(v), dst, align=fe.layout.align_of(v.type))


# -- the instructions -----------------------------------------------------------------
# Each returns None when the instruction is not one it handles (the emitter's
# own lowering runs), else the emitted value; `fe.set_indirect` records results
# that are pointers.

def load(fe: FunctionEmitter, instr: Instr) -> ll.Value | None:
    if instr.attrs.get("volatile") or not is_large(fe.me, instr.type):
        return None
    s = slot(fe, instr.type, instr.name)
    copy(fe, s, fe.value(instr.operands[0]), instr.type)
    fe.set_indirect(instr)
    return s


def store(fe: FunctionEmitter, instr: Instr) -> bool:
    val, ptr = instr.operands
    if instr.attrs.get("volatile") or not is_large(fe.me, val.type):
        return False
    put(fe, fe.value(ptr), val)
    return True


def extractvalue(fe: FunctionEmitter, instr: Instr) -> ll.Value | None:
    agg = instr.operands[0]
    if not fe.is_indirect(agg):
        return None
    offset, t = member(fe, agg.type, list(instr.attrs["indices"]))
    where = at(fe, fe.raw(agg), offset)
    if is_large(fe.me, t):
        fe.set_indirect(instr)  # a part of the aggregate's memory: unchanged as long as it is
        return where
    return fe.builder.load(where, name=instr.name, typ=fe.lltype(t), align=_member_align(fe, agg.type, offset, t))


def insertvalue(fe: FunctionEmitter, instr: Instr) -> ll.Value | None:
    if not is_large(fe.me, instr.type):
        return None
    agg, elt = instr.operands
    s = slot(fe, instr.type, instr.name)
    put(fe, s, agg)
    offset, _ = member(fe, instr.type, list(instr.attrs["indices"]))
    put(fe, at(fe, s, offset), elt)
    fe.set_indirect(instr)
    return s


def select(fe: FunctionEmitter, instr: Instr) -> ll.Value | None:
    if not is_large(fe.me, instr.type):
        return None
    c, a, b = instr.operands
    picked = fe.builder.select(fe.value(c), address(fe, a), address(fe, b), name=instr.name)
    fe.set_indirect(instr)
    return picked


def phi(fe: FunctionEmitter, instr: Instr) -> ll.Value | None:
    if not is_large(fe.me, instr.type) or fe.loops_back_to(instr):
        return None
    fe.set_indirect(instr)
    return fe.builder.phi(pointer_type(fe.me), name=instr.name)


def incoming(fe: FunctionEmitter, phi: Instr, v: Value) -> ll.Value:
    """What `phi` receives for `v`, made at the end of the predecessor."""
    return address(fe, v) if fe.is_indirect(phi) else fe.value(v)


def call_args(fe: FunctionEmitter, operands: list[Value]) -> list[ll.Value]:
    """The arguments of a call to a function defined in the module: pointers for
    large aggregates."""
    return [address(fe, v) if is_large(fe.me, v.type) else fe.value(v) for v in operands]


def call_result(fe: FunctionEmitter, instr: Instr) -> ll.Value | None:
    """The slot a call to a defined function returns a large aggregate through, or None."""
    if not is_large(fe.me, instr.type):
        return None
    fe.set_indirect(instr)
    return slot(fe, instr.type, instr.name)


def ret(fe: FunctionEmitter, instr: Instr) -> bool:
    if fe.result is None:
        return False
    put(fe, fe.result, instr.operands[0])
    fe.builder.ret_void()
    return True


def first_class(fe: FunctionEmitter, v: Value, raw: ll.Value) -> ll.Value:
    """The first-class value of the indirect value `v` (at `raw`), loaded here."""
    return fe.builder.load(raw, typ=fe.lltype(v.type), align=fe.layout.align_of(v.type))


def _member_align(fe: FunctionEmitter, t: Type, offset: int, member_type: Type) -> int:
    """A member's alignment: its type's, as far as the aggregate's own alignment
    and the offset guarantee it (packed structs)."""
    align = fe.layout.align_of(t)
    while offset % align:
        align //= 2
    return min(align, fe.layout.align_of(member_type))
