"""Our IR -> `llvmlite.ir`: one module emitter, one function emitter, an opcode table.

What the target decides (through the `LLVMTarget` protocol), and this module
does not: the address-space numbers, the DataLayout used for every address
computation, the LLVM syncscope of each OpenCL memory scope, hidden parameters
appended to every defined function (the cpu target passes its work-item
context that way), how intrinsics (`ocl.*`) are lowered, where globals of
target-managed spaces (`__local`) live, and the linkage of each function.

Lowering choices:
- Blocks are emitted in reverse post-order so definitions precede uses; phis
  are created empty first and filled once every block exists (two phases).
  Blocks unreachable from the entry become `unreachable`.
- `getelementptr` is lowered to byte offsets computed with *our* DataLayout
  (`gep i8, p, off`), so 3-element vectors occupy the size of 4 in memory
  whatever LLVM thinks. Allocas become `[size x i8]` in the entry block.
- `addrspacecast` between spaces the target maps to one LLVM space is a no-op.
- `fptrunc` from double to half goes through `exact_half.py` when the target
  sets `half_without_library` (the cpu: LLVM's x86 lowering calls a library).
- Atomics carry their ordering and the target's syncscope.
- Float arithmetic gets fast-math flags when the module or function attrs ask
  for it (`fast_math: True`).
- Struct and array values larger than the target's `indirect_aggregate_bytes`
  (when it sets one) are pointers to memory holding them: passed, returned,
  copied and taken apart as `emit_indirect.py` says.
"""

from __future__ import annotations

from typing import Callable, Protocol

from llvmlite import ir as ll

from ...ir.cfg import reverse_post_order
from ...ir.datalayout import DataLayout
from ...ir.types import AddressSpace, ArrayType, FloatType, IntType, StructType, Type, VectorType
from ...ir.values import (
    Argument, Block, ConstAggregate, ConstInt, ConstOffset, Function, GlobalVar, Instr, Module, Value,
)
from . import emit_indirect as indirect
from . import exact_half
from .emit_types import EmitError, TypeMapper, is_constant
from .emit_llinstrs import AtomicRMWScoped, CmpXchgScoped, VolatileLoad, VolatileStore


class LLVMTarget(Protocol):
    layout: DataLayout

    def addrspace_of(self, space: AddressSpace) -> int: ...
    def syncscope(self, scope: str) -> str: ...
    def hidden_params(self) -> list[ll.Type]: ...
    def linkage(self, fn: Function) -> str: ...
    def global_value(self, fe: FunctionEmitter, gv: GlobalVar) -> ll.Value | None: ...
    def lower_intrinsic(self, fe: FunctionEmitter, instr: Instr,
                        args: list[ll.Value]) -> ll.Value | None: ...


_FAIL_ORDERING = {"acq_rel": "acquire", "release": "monotonic"}

_WRAP_OPS = ("add", "sub", "mul", "shl")
_WRAP_FLAGS = ("nsw", "nuw")  # instr.attrs keys; True puts the LLVM flag on the instruction
_BINOPS: dict[str, str] = {
    "add": "add", "sub": "sub", "mul": "mul", "sdiv": "sdiv", "udiv": "udiv", "srem": "srem",
    "urem": "urem", "shl": "shl", "lshr": "lshr", "ashr": "ashr", "and": "and_", "or": "or_",
    "xor": "xor", "fadd": "fadd", "fsub": "fsub", "fmul": "fmul", "fdiv": "fdiv", "frem": "frem",
}


class ModuleEmitter:
    """Emits a whole IR module into one `llvmlite.ir.Module`."""

    def __init__(self, module: Module, target: LLVMTarget) -> None:
        self.module = module
        self.target = target
        self.types = TypeMapper(target.addrspace_of)
        self.llmod = ll.Module(name=module.name)
        self.functions: dict[str, ll.Function] = {}
        self.globals: dict[str, ll.GlobalVariable] = {}
        attrs = getattr(module, "attrs", None) or {}
        self.fast_math = bool(attrs.get("fast_math"))
        # struct/array values past this many bytes are pointers (emit_indirect.py); None: never
        self.indirect_bytes: int | None = getattr(target, "indirect_aggregate_bytes", None)

    def lltype(self, t: Type) -> ll.Type:
        return self.types.lltype(t)

    def emit(self) -> ll.Module:
        for gv in self.module.globals:
            self._declare_global(gv)
        for gv in self.module.globals:
            self._init_global(gv)
        for fn in self.module.functions:
            if not fn.is_declaration:
                self._declare_function(fn)
        for fn in self.module.functions:
            if not fn.is_declaration:
                FunctionEmitter(self, fn).emit()
        return self.llmod

    def _declare_global(self, gv: GlobalVar) -> None:
        if gv.space is AddressSpace.LOCAL:
            return  # the target places __local variables itself
        # a target may place program-scope variables apart from its pointers' space
        placed = getattr(self.target, "global_addrspace", self.target.addrspace_of)
        llgv = ll.GlobalVariable(self.llmod, self.lltype(gv.value_type), gv.name,
                                 addrspace=placed(gv.space))
        llgv.global_constant = gv.constant or gv.space is AddressSpace.CONSTANT
        llgv.align = gv.align or self.target.layout.align_of(gv.value_type)
        llgv.linkage = "internal"
        llgv.type = ll.PointerType(addrspace=llgv.type.addrspace)  # opaque, as all our pointers
        self.globals[gv.name] = llgv

    def _init_global(self, gv: GlobalVar) -> None:
        llgv = self.globals.get(gv.name)
        if llgv is None:
            return
        init = gv.initializer
        llgv.initializer = (self.constant(init) if init is not None
                            else ll.Constant(self.lltype(gv.value_type), None))

    def constant(self, v: Value) -> ll.Constant:
        """An IR constant, where globals, constant offsets from them (and aggregates
        holding them) may appear."""
        if isinstance(v, GlobalVar):
            return self._address(v, 0, v.type)
        if isinstance(v, ConstOffset):
            return self._address(v.base, v.offset, v.type)
        if isinstance(v, ConstAggregate):
            return ll.Constant(self.lltype(v.type), [self.constant(e) for e in v.elements])
        return self.types.constant(v)

    def _address(self, gv: GlobalVar, offset: int, t: Type) -> ll.Constant:
        """The constant address of `gv` plus `offset` bytes, as a pointer of type `t`: `gv`'s
        space, or generic (a target may place the variable in another LLVM address space:
        nvptx's `__constant` data is in addrspace(4), its pointers are generic)."""
        llgv = self.globals.get(gv.name)
        if llgv is None:
            raise EmitError(f"@{gv.name} in address space {gv.space} cannot be a constant")
        addr: ll.Constant = llgv
        if offset:
            addr = ll.FormattedConstant(llgv.type, f"getelementptr (i8, {llgv.type} "
                                                   f"{llgv.get_reference()}, i64 {offset})")
        want = self.lltype(t)
        if want != llgv.type:
            addr = ll.FormattedConstant(want, f"addrspacecast ({addr.type} {addr.get_reference()} to {want})")
        return addr

    def _declare_function(self, fn: Function) -> None:
        ret, params, returns_through = indirect.signature(self, fn)
        params += self.target.hidden_params()
        if returns_through:
            params.append(indirect.pointer_type(self))
        llfn = ll.Function(self.llmod, ll.FunctionType(ret, params), fn.name)
        llfn.linkage = self.target.linkage(fn)
        names = [a.name for a in fn.args] + list(getattr(self.target, "hidden_names", ()))
        for name, llarg in zip(names, llfn.args):
            llarg.name = name
        indirect.mark_params(self, fn, llfn, returns_through)
        self.functions[fn.name] = llfn

    def declare_external(self, name: str, ret: ll.Type, params: list[ll.Type],
                         var_arg: bool = False) -> ll.Function:
        """A C-level function (libm, libc) declared once in the LLVM module."""
        existing = self.llmod.globals.get(name)
        if isinstance(existing, ll.Function):
            return existing
        return ll.Function(self.llmod, ll.FunctionType(ret, params, var_arg=var_arg), name)


class FunctionEmitter:
    """Emits one defined IR function's body."""

    def __init__(self, me: ModuleEmitter, fn: Function) -> None:
        self.me = me
        self.fn = fn
        self.llfn = me.functions[fn.name]
        self.layout = me.target.layout
        nparams = len(fn.type.params)
        # the pointer a large aggregate result is written through (the last parameter), or None
        self.result: ll.Argument | None = (self.llfn.args[-1] if indirect.is_large(me, fn.type.ret)
                                           else None)
        self.hidden: list[ll.Argument] = list(self.llfn.args[nparams:len(self.llfn.args) - (self.result is not None)])
        # the IR values emitted as pointers to their memory (emit_indirect.py), by id
        self.indirect: set[int] = {id(a) for a in fn.args if indirect.is_large(me, a.type)}
        self.values: dict[int, ll.Value] = {}
        self.rpo: dict[int, int] = {}  # each reachable block's place in reverse post-order, by id
        self.blocks: dict[int, ll.Block] = {}
        self.alloca_builder: ll.IRBuilder
        self.builder: ll.IRBuilder
        fast = me.fast_math or bool(fn.attrs.get("fast_math"))
        # without fast math, a target may still give float ops flags (nvptx: contract)
        self.fmf: tuple[str, ...] = (("fast",) if fast
                                     else tuple(getattr(me.target, "float_flags", ())))

    def lltype(self, t: Type) -> ll.Type:
        return self.me.lltype(t)

    def emit(self) -> None:
        alloca_block = self.llfn.append_basic_block("allocas")
        self.alloca_builder = ll.IRBuilder(alloca_block)
        order = reverse_post_order(self.fn)
        self.rpo = {id(b): k for k, b in enumerate(order)}
        reachable = set(self.rpo)
        for block in self.fn.blocks:
            self.blocks[id(block)] = self.llfn.append_basic_block(block.name)
        self.builder = ll.IRBuilder()
        phis: list[Instr] = []
        for block in order:
            self.builder.position_at_end(self.blocks[id(block)])
            for instr in block.instrs:
                if instr.op == "phi":
                    phis.append(instr)
                self.values[id(instr)] = self.emit_instr(instr)
        for block in self.fn.blocks:
            if id(block) not in reachable:
                ll.IRBuilder(self.blocks[id(block)]).unreachable()
        for phi in phis:
            self._fill_phi(phi, reachable)
        self.alloca_builder.branch(self.blocks[id(self.fn.entry)])

    def _fill_phi(self, phi: Instr, reachable: set[int]) -> None:
        """Our phis have one entry per predecessor block; LLVM wants one per edge, so
        a predecessor whose terminator reaches this block twice (a switch with two
        cases to it) gets its entry repeated. Entries from unreachable blocks are
        dropped: those blocks became `unreachable`. An incoming value that takes
        instructions to make (a `__local` variable's address on the cpu) is made
        at the end of its predecessor, before the terminator."""
        llphi = self.values[id(phi)]
        here = phi.parent
        for value, pred in phi.incoming():
            if id(pred) in reachable:
                llpred = self.blocks[id(pred)]
                self.builder.position_before(llpred.terminator)
                incoming = indirect.incoming(self, phi, value)
                edges = sum(1 for t in pred.successors() if t is here)
                for _ in range(max(1, edges)):
                    llphi.add_incoming(incoming, llpred)

    # -- operands -------------------------------------------------------------
    def value(self, v: Value) -> ll.Value:
        """`v` as a first-class LLVM value (an indirect aggregate is loaded here)."""
        raw = self.raw(v)
        return indirect.first_class(self, v, raw) if id(v) in self.indirect else raw

    def loops_back_to(self, phi: Instr) -> bool:
        """Whether an edge into `phi`'s block comes from a block not before it in
        reverse post-order (a loop's back edge, or the block itself)."""
        here = self.rpo[id(phi.parent)]
        return any(self.rpo.get(id(pred), -1) >= here for _, pred in phi.incoming())

    def is_indirect(self, v: Value) -> bool:
        """Whether `v` was emitted as a pointer to its memory (emit_indirect.py)."""
        return id(v) in self.indirect

    def set_indirect(self, v: Value) -> None:
        self.indirect.add(id(v))

    def raw(self, v: Value) -> ll.Value:
        """`v` as emitted: for an indirect aggregate, the pointer to its memory."""
        if isinstance(v, Instr):
            found = self.values.get(id(v))
            if found is None:
                raise EmitError(f"@{self.fn.name}: %{v.name} used before its definition")
            return found
        if isinstance(v, Argument):
            return self.llfn.args[v.index]
        if isinstance(v, GlobalVar):
            return self._global(v)
        if is_constant(v):
            return self.me.constant(v)
        raise EmitError(f"@{self.fn.name}: cannot use {v!r} as an operand")

    def _global(self, gv: GlobalVar) -> ll.Value:
        placed = self.me.target.global_value(self, gv)
        if placed is not None:
            return placed
        return self.me.globals[gv.name]

    def block(self, b: Block) -> ll.Block:
        return self.blocks[id(b)]

    # -- instructions -----------------------------------------------------------
    def emit_instr(self, instr: Instr) -> ll.Value | None:
        handler = _HANDLERS.get(instr.op)
        if handler is None:
            raise EmitError(f"@{self.fn.name}: no LLVM lowering for '{instr.op}'")
        return handler(self, instr)

    def binary(self, instr: Instr) -> ll.Value:
        a, b = (self.value(v) for v in instr.operands)
        method = getattr(self.builder, _BINOPS[instr.op])
        if instr.op.startswith("f") and self.fmf:
            return method(a, b, name=instr.name, flags=self.fmf)
        wrap = [f for f in _WRAP_FLAGS if instr.attrs.get(f)] if instr.op in _WRAP_OPS else []
        if wrap:  # signed overflow is undefined in OpenCL C: a frontend may say so
            return method(a, b, name=instr.name, flags=wrap)
        return method(a, b, name=instr.name)

    def fneg(self, instr: Instr) -> ll.Value:
        return self.builder.fneg(self.value(instr.operands[0]), name=instr.name, flags=self.fmf)

    def cmp(self, instr: Instr) -> ll.Value:
        a, b = (self.value(v) for v in instr.operands)
        pred = instr.attrs["pred"]
        if instr.op == "icmp":
            cmp = ll.instructions.ICMPInstr(self.builder.block, pred, a, b, instr.name)
        else:
            cmp = ll.instructions.FCMPInstr(self.builder.block, pred, a, b, instr.name,
                                            flags=self.fmf)
        self.builder._insert(cmp)
        return cmp

    def cast(self, instr: Instr) -> ll.Value:
        src = self.value(instr.operands[0])
        to = self.lltype(instr.type)
        if instr.op in ("addrspacecast", "bitcast") and src.type == to:
            return src
        if instr.op == "fptrunc" and getattr(self.me.target, "half_without_library", False):
            return exact_half.fptrunc(self.builder, src, to)
        return getattr(self.builder, instr.op)(src, to, name=instr.name)

    def select(self, instr: Instr) -> ll.Value:
        picked = indirect.select(self, instr)
        if picked is not None:
            return picked
        c, a, b = (self.value(v) for v in instr.operands)
        return self.builder.select(c, a, b, name=instr.name)

    def alloca(self, instr: Instr) -> ll.Value:
        elem: Type = instr.attrs["elem"]
        size = max(1, self.layout.size_of(elem))
        slot = self.alloca_builder.alloca(ll.ArrayType(ll.IntType(8), size), name=instr.name)
        slot.align = instr.attrs.get("align") or self.layout.align_of(elem)
        slot.type = ll.PointerType(addrspace=self.me.target.addrspace_of(self.layout.alloca_space))
        return slot

    def _align(self, instr: Instr, t: Type) -> int:
        return instr.attrs.get("align") or self.layout.align_of(t)

    def load(self, instr: Instr) -> ll.Value:
        copied = indirect.load(self, instr)
        if copied is not None:
            return copied
        ptr = self.value(instr.operands[0])
        align = self._align(instr, instr.type)
        if instr.attrs.get("volatile"):
            ld = VolatileLoad(self.builder.block, ptr, instr.name, typ=self.lltype(instr.type))
            ld.align = align
            self.builder._insert(ld)
            return ld
        ld = self.builder.load(ptr, name=instr.name, typ=self.lltype(instr.type), align=align)
        self._annotate(instr, ld)
        return ld

    def _annotate(self, instr: Instr, access: ll.Instruction) -> None:
        """Let the target attach metadata to a plain load or store (optional hook)."""
        hook = getattr(self.me.target, "annotate_access", None)
        if hook is not None:
            hook(self, instr, access)

    def store(self, instr: Instr) -> None:
        if indirect.store(self, instr):
            return None
        val, ptr = (self.value(v) for v in instr.operands)
        align = self._align(instr, instr.operands[0].type)
        if instr.attrs.get("volatile"):
            st = VolatileStore(self.builder.block, val, ptr)
            st.align = align
            self.builder._insert(st)
        else:
            self._annotate(instr, self.builder.store(val, ptr, align=align))
        return None

    def gep(self, instr: Instr) -> ll.Value:
        base = self.value(instr.operands[0])
        typed = self._typed_gep(instr, base)
        if typed is not None:
            return typed
        offset = self.byte_offset(instr.attrs["elem"], instr.operands[1:])
        if isinstance(offset, ll.Constant) and offset.constant == 0:
            return base
        i8 = ll.IntType(8)
        return self.builder.gep(base, [offset], inbounds=bool(instr.attrs.get("inbounds")),
                                name=instr.name, source_etype=i8)

    def _typed_gep(self, instr: Instr, base: ll.Value) -> ll.Value | None:
        """`gep <scalar type>, base, i` for one variable index over an int or float
        element: SCEV keeps `zext(trunc(id))` indices in this form recognisable
        (InstCombine turns the scaled byte form into a mask it cannot read), so
        the loop vectoriser sees consecutive accesses."""
        elem, indices = instr.attrs["elem"], instr.operands[1:]
        if len(indices) != 1 or isinstance(indices[0], ConstInt):
            return None
        if not isinstance(elem, (IntType, FloatType)) or elem.bits not in (8, 16, 32, 64):
            return None
        if self.layout.size_of(elem) * 8 != elem.bits:
            return None
        idx = self._scaled_index(indices[0], 1)
        return self.builder.gep(base, [idx], inbounds=bool(instr.attrs.get("inbounds")),
                                name=instr.name, source_etype=self.lltype(elem))

    def byte_offset(self, elem: Type, indices: list[Value]) -> ll.Value:
        """sum(index * stride) with strides and field offsets from our DataLayout."""
        i64 = ll.IntType(64)
        const = 0
        terms: list[ll.Value] = []
        t = elem
        for pos, idx in enumerate(indices):
            if pos > 0 and isinstance(t, StructType):
                assert isinstance(idx, ConstInt)
                const += self.layout.struct_layout(t).offsets[idx.value]
                t = t.fields[idx.value]
                continue
            if pos > 0:
                assert isinstance(t, (ArrayType, VectorType))
                t = t.elem
            stride = self.layout.size_of(t)
            if isinstance(idx, ConstInt):
                const += idx.signed() * stride
            else:
                terms.append(self._scaled_index(idx, stride))
        total: ll.Value | None = None
        for term in terms:
            total = term if total is None else self.builder.add(total, term)
        if total is None:
            return ll.Constant(i64, const)
        return self.builder.add(total, ll.Constant(i64, const)) if const else total

    def _scaled_index(self, idx: Value, stride: int) -> ll.Value:
        i64 = ll.IntType(64)
        v = self.value(idx)
        if v.type.width < 64:
            v = self.builder.sext(v, i64)
        elif v.type.width > 64:
            v = self.builder.trunc(v, i64)
        return v if stride == 1 else self.builder.mul(v, ll.Constant(i64, stride))

    def atomicrmw(self, instr: Instr) -> ll.Value:
        ptr, val = (self.value(v) for v in instr.operands)
        plain = getattr(self.me.target, "plain_atomic", None)  # optional target hook
        if plain is not None:
            done = plain(self, instr, [ptr, val])
            if done is not None:
                return done
        scope = self.me.target.syncscope(instr.attrs.get("scope", "device"))
        rmw = AtomicRMWScoped(self.builder.block, instr.attrs["binop"], ptr, val,
                              instr.attrs.get("ordering", "monotonic"), scope, instr.name)
        self.builder._insert(rmw)
        return rmw

    def cmpxchg(self, instr: Instr) -> ll.Value:
        ptr, cmp, new = (self.value(v) for v in instr.operands)
        plain = getattr(self.me.target, "plain_atomic", None)  # optional target hook
        if plain is not None:
            done = plain(self, instr, [ptr, cmp, new])
            if done is not None:
                return done
        ordering = instr.attrs.get("ordering", "monotonic")
        scope = self.me.target.syncscope(instr.attrs.get("scope", "device"))
        fail = _FAIL_ORDERING.get(ordering, ordering)
        xchg = CmpXchgScoped(self.builder.block, ptr, cmp, new, ordering, fail, scope, "")
        self.builder._insert(xchg)
        return self.builder.extract_value(xchg, 0, name=instr.name)

    def extractelement(self, instr: Instr) -> ll.Value:
        vec, idx = (self.value(v) for v in instr.operands)
        return self.builder.extract_element(vec, idx, name=instr.name)

    def insertelement(self, instr: Instr) -> ll.Value:
        vec, elt, idx = (self.value(v) for v in instr.operands)
        return self.builder.insert_element(vec, elt, idx, name=instr.name)

    def shufflevector(self, instr: Instr) -> ll.Value:
        a, b = (self.value(v) for v in instr.operands)
        i32 = ll.IntType(32)
        # An undefined lane (-1) may hold anything: llvmlite only takes lane numbers, so 0.
        mask = ll.Constant(ll.VectorType(i32, len(instr.attrs["mask"])),
                           [ll.Constant(i32, max(m, 0)) for m in instr.attrs["mask"]])
        return self.builder.shuffle_vector(a, b, mask, name=instr.name)

    def extractvalue(self, instr: Instr) -> ll.Value:
        part = indirect.extractvalue(self, instr)
        if part is not None:
            return part
        agg = self.value(instr.operands[0])
        return self.builder.extract_value(agg, list(instr.attrs["indices"]), name=instr.name)

    def insertvalue(self, instr: Instr) -> ll.Value:
        built = indirect.insertvalue(self, instr)
        if built is not None:
            return built
        agg, elt = (self.value(v) for v in instr.operands)
        return self.builder.insert_value(agg, elt, list(instr.attrs["indices"]), name=instr.name)

    def call(self, instr: Instr) -> ll.Value | None:
        callee: Function = instr.attrs["callee"]
        llcallee = self.me.functions.get(callee.name)
        if llcallee is None or callee.attrs.get("intrinsic"):
            args = [self.value(v) for v in instr.operands]
            if callee.attrs.get("intrinsic"):
                return self.me.target.lower_intrinsic(self, instr, args)
            ret = self.lltype(callee.type.ret)
            llcallee = self.me.declare_external(callee.name, ret, [a.type for a in args])
            return self.builder.call(llcallee, args, name=instr.name)
        args = indirect.call_args(self, list(instr.operands)) + self.hidden
        result = indirect.call_result(self, instr)
        if result is not None:
            self.builder.call(llcallee, args + [result])
            return result
        return self.builder.call(llcallee, args, name=instr.name)

    def phi(self, instr: Instr) -> ll.Value:
        merged = indirect.phi(self, instr)
        if merged is not None:
            return merged
        return self.builder.phi(self.lltype(instr.type), name=instr.name)

    def br(self, instr: Instr) -> None:
        self.builder.branch(self.block(instr.targets[0]))

    def condbr(self, instr: Instr) -> None:
        then, else_ = (self.block(b) for b in instr.targets)
        self.builder.cbranch(self.value(instr.operands[0]), then, else_)

    def switch(self, instr: Instr) -> None:
        value = self.value(instr.operands[0])
        sw = self.builder.switch(value, self.block(instr.targets[0]))
        for case, dest in zip(instr.attrs["cases"], instr.targets[1:]):
            sw.add_case(ll.Constant(value.type, case), self.block(dest))

    def ret(self, instr: Instr) -> None:
        if indirect.ret(self, instr):
            return
        if instr.operands:
            self.builder.ret(self.value(instr.operands[0]))
        else:
            self.builder.ret_void()

    def unreachable(self, instr: Instr) -> None:
        self.builder.unreachable()


_HANDLERS: dict[str, Callable[[FunctionEmitter, Instr], ll.Value | None]] = {
    **{op: FunctionEmitter.binary for op in _BINOPS},
    "fneg": FunctionEmitter.fneg,
    "icmp": FunctionEmitter.cmp,
    "fcmp": FunctionEmitter.cmp,
    **{op: FunctionEmitter.cast for op in (
        "trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr "
        "bitcast addrspacecast").split()},
    "select": FunctionEmitter.select,
    "alloca": FunctionEmitter.alloca,
    "load": FunctionEmitter.load,
    "store": FunctionEmitter.store,
    "getelementptr": FunctionEmitter.gep,
    "atomicrmw": FunctionEmitter.atomicrmw,
    "cmpxchg": FunctionEmitter.cmpxchg,
    "extractelement": FunctionEmitter.extractelement,
    "insertelement": FunctionEmitter.insertelement,
    "shufflevector": FunctionEmitter.shufflevector,
    "extractvalue": FunctionEmitter.extractvalue,
    "insertvalue": FunctionEmitter.insertvalue,
    "call": FunctionEmitter.call,
    "phi": FunctionEmitter.phi,
    "br": FunctionEmitter.br,
    "condbr": FunctionEmitter.condbr,
    "switch": FunctionEmitter.switch,
    "ret": FunctionEmitter.ret,
    "unreachable": FunctionEmitter.unreachable,
}


def emit_module(module: Module, target: LLVMTarget) -> ll.Module:
    """Lower every defined function and global of `module` to one LLVM module."""
    return ModuleEmitter(module, target).emit()
