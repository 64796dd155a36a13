"""Instruction selection: IR module -> simt machine code with virtual registers.

`select_module(module, layout=SIMT_LAYOUT) -> MModule` takes our IR after the
simt pipeline (`simt_target.PIPELINE`: the level's passes, then `inline`, which
keeps `noinline` helpers and large ones called from several places as calls) and returns one machine
function per kernel and per defined helper, in virtual registers (`%s`, `%v`),
with the ABI's physical registers where the ABI fixes them (entry state,
argument and return registers, `s[30:31]`, `s32`). Nothing is allocated and no
prologue is inserted: register allocation comes next, then
`frame_lowering.lower_frames` (which may also run straight away, since the
simulator runs virtual registers).

The module-level decisions come first (`plan_module`): the offsets of the
`__local` variables in the work-group's segment, and for each helper how it is
called: an argument is passed in scalar registers when every call site passes
a uniform value (then the helper is analysed with uniform arguments), else in
vector registers; its return value is scalar when the helper returns a uniform
value from one place; and the work-item queries it (or what it calls) makes
come as hidden arguments.

Then each function (`select_function`): uniformity, loops and the block layout
(`isel_control`), phis' registers, and the instructions of each block in layout
order, each through the pattern table `PATTERNS` (opcode -> function of the
context and the instruction).

Kernel attributes on the machine function: `kernarg_bytes` (the bytes a
launch passes before the hidden block: explicit arguments, then the
program-scope `__constant` data, `constant_data.py`), `local_bytes` (static
`__local` memory). A kernel needing more
local memory than `LOCAL_MEMORY_BYTES`, or IR that no pattern covers, is a
`SelectError` naming the function and the instruction.
"""

from __future__ import annotations

from typing import Callable

from ...analysis.callgraph import functions_reached
from ...analysis.loops import LoopInfo
from ...analysis.uniformity import analyze_uniformity
from ...ir.datalayout import DataLayout
from ...ir.types import AddressSpace, IntType, VoidType
from ...ir.values import Block, Function, GlobalVar, Instr, Module
from ..kernel_abi import kernel_args
from . import isel_aggregates as aggregates
from . import isel_arith as arith
from . import isel_calls as calls
from . import isel_control as control
from . import isel_memory as memory
from . import isel_printf as printf
from . import isel_values as values
from .calling_convention import STACK_POINTER, kernarg_bytes
from .constant_data import layout_data
from .isel_context import Ctx, FunctionInfo, ModuleInfo, SelectError, leaves, reg_width
from .machine import EXEC, Imm, MBlock, MFunction, MModule
from .memory_model import LOCAL_MEMORY_BYTES, SIMT_LAYOUT



def select_call(ctx: Ctx, instr: Instr) -> None:
    """A call: printf's record (`isel_printf.py`), else `isel_calls.select_call`."""
    if instr.attrs["callee"].attrs.get("intrinsic") == "printf":
        printf.select_printf(ctx, instr, "printf")
    else:
        calls.select_call(ctx, instr)


PATTERNS: dict[str, Callable[[Ctx, Instr], None]] = {
    **{op: arith.select_binary for op in (*arith.INT_OPS, "fadd", "fsub", "fmul", "fdiv", "frem")},
    "fneg": arith.select_fneg, "icmp": arith.select_cmp, "fcmp": arith.select_cmp,
    "select": arith.select_select,
    **{op: arith.select_cast for op in arith.CASTS},
    "addrspacecast": memory.select_addrspacecast,
    "getelementptr": memory.select_gep, "load": aggregates.select_load, "store": aggregates.select_store,
    "alloca": memory.select_alloca, "atomicrmw": memory.select_atomicrmw, "cmpxchg": memory.select_cmpxchg,
    "call": select_call,
    **{op: values.select_rearrange for op in values.REARRANGE},
    "extractvalue": aggregates.select_member, "insertvalue": aggregates.select_member,
}


# -- the module ------------------------------------------------------------------------------------

def select_module(module: Module, layout: DataLayout = SIMT_LAYOUT) -> MModule:
    """Machine code (virtual registers) for every kernel and defined helper of `module`."""
    info = plan_module(module, layout)
    out = MModule()
    for fn in module.functions:
        if not fn.is_declaration:
            out.functions.append(select_function(fn, info))
    out.strings = info.strings
    return out


def plan_module(module: Module, layout: DataLayout) -> ModuleInfo:
    info = ModuleInfo(layout)
    place_local_variables(module, info)
    data = layout_data(module, layout)
    info.constant_offsets, info.constants, info.global_offsets = data.constant_offsets, data.constants, \
        data.global_offsets
    barriers = functions_with_barriers(module)
    order = callers_first(module)
    uniform_sites: dict[Function, bool] = {}
    for fn in order:
        if fn.is_kernel:
            uni = analyze_uniformity(fn)
            info.functions[fn] = FunctionInfo([], "", [], uni)
        else:
            uniform_args = uniform_sites.get(fn, False)
            uni = analyze_uniformity(fn, uniform_args=uniform_args)
            ret = "s" if returns_uniform(fn, uni) else "v"
            info.functions[fn] = FunctionInfo(["s" if uniform_args else "v"] * len(fn.args), ret, [], uni)
        for instr in fn.instructions():
            callee = instr.attrs.get("callee") if instr.op == "call" else None
            if callee is not None and not callee.is_declaration:
                site = all(uni.is_uniform(v) for v in instr.operands)
                uniform_sites[callee] = uniform_sites.get(callee, True) and site
    for fn in reversed(order):
        if not fn.is_kernel:
            needed = calls.queries_of(fn)
            for instr in fn.instructions():
                callee = instr.attrs.get("callee") if instr.op == "call" else None
                if callee is not None and callee in info.functions and not callee.is_kernel:
                    needed |= set(info.functions[callee].queries)
            info.functions[fn].queries = sorted(needed)
    info.barrier_functions = barriers
    return info


def callers_first(module: Module) -> list[Function]:
    """Defined functions, each after every function that calls it (no recursion: sema rejects it)."""
    defined = [f for f in module.functions if not f.is_declaration]
    callers: dict[Function, set[Function]] = {f: set() for f in defined}
    for f in defined:
        for i in f.instructions():
            if i.op == "call" and i.attrs["callee"] in callers and i.attrs["callee"] is not f:
                callers[i.attrs["callee"]].add(f)
    order: list[Function] = []
    placed: set[Function] = set()
    while len(order) < len(defined):
        progress = False
        for f in defined:
            if f not in placed and callers[f] <= placed:
                order.append(f)
                placed.add(f)
                progress = True
        if not progress:
            raise SelectError("simt: recursive functions are not supported")
    return order


def returns_uniform(fn: Function, uni: object) -> bool:
    """Whether every `ret` returns a uniform value and no ret is reached by only some lanes."""
    if isinstance(fn.type.ret, VoidType):
        return True
    return all(not uni.is_divergent(i.operands[0]) and not uni.runs_divergently(i.parent)  # type: ignore[attr-defined]
               for i in fn.instructions() if i.op == "ret" and i.operands)


def functions_with_barriers(module: Module) -> set[Function]:
    found = set()
    for fn in module.functions:
        if fn.is_declaration:
            continue
        for reached in functions_reached(fn):
            if any(i.op == "call" and i.attrs["callee"].attrs.get("intrinsic") == "barrier"
                   for i in reached.instructions()):
                found.add(fn)
                break
    return found


def place_local_variables(module: Module, info: ModuleInfo) -> None:
    """Every `__local` variable at its own offset of the work-group's segment."""
    offset = 0
    for gv in module.globals:
        if gv.space is AddressSpace.LOCAL:
            align = max(gv.align, info.layout.align_of(gv.value_type), 4)
            offset = (offset + align - 1) // align * align
            info.local_offsets[gv] = offset
            offset += info.layout.size_of(gv.value_type)
    info.local_bytes = (offset + 15) // 16 * 16


def local_bytes_of(kernel: Function, info: ModuleInfo) -> int:
    """The static `__local` memory a kernel reaches (every variable before the last it uses)."""
    end = 0
    for fn in functions_reached(kernel):
        for instr in fn.instructions():
            for op in instr.operands:
                if isinstance(op, GlobalVar) and op in info.local_offsets:
                    end = max(end, info.local_offsets[op] + info.layout.size_of(op.value_type))
    return (end + 15) // 16 * 16


# -- one function -----------------------------------------------------------------------------------

def select_function(fn: Function, info: ModuleInfo) -> MFunction:
    finfo = info.functions[fn]
    mfn = MFunction(fn.name, "kernel" if fn.is_kernel else "func")
    uni = finfo.uniformity or analyze_uniformity(fn)
    ctx = Ctx(fn, mfn, finfo, info, uni)
    loops = LoopInfo.compute(fn)
    barrier_fns = info.barrier_functions
    barrier_blocks = {b for b in fn.blocks if any(
        i.op == "call" and (i.attrs["callee"].attrs.get("intrinsic") == "barrier" or i.attrs["callee"] in barrier_fns)
        for i in b.instrs)}
    check_integer_widths(ctx)
    try:
        flow = control.plan_flow(ctx, loops, barrier_blocks)
    except SelectError as exc:
        raise SelectError(f"simt: in function '{fn.name}': {exc}") from None
    if fn.is_kernel:
        check_kernel(ctx)
    aggregates.check_phis(ctx, {b for b in fn.blocks if loops.is_header(b)})
    emit_body(ctx, flow)
    return mfn


INT_WIDTHS = (1, 8, 16, 32, 64)


def check_integer_widths(ctx: Ctx) -> None:
    """Registers hold integers of the C widths only (the frontend widens some builtins, add_sat,
    hadd, mul_hi, to an odd width such as i66, which LLVM legalises and simt does not)."""
    for instr in ctx.fn.instructions():
        for t in [instr.type] + [o.type for o in instr.operands]:
            scalar = t.scalar() if hasattr(t, "scalar") else t
            if isinstance(scalar, IntType) and scalar.bits not in INT_WIDTHS:
                raise ctx.error(f"integer type i{scalar.bits} is not supported on simt "
                                "(integers are 1, 8, 16, 32 or 64 bits)", instr)


def check_kernel(ctx: Ctx) -> None:
    fn = ctx.fn
    local = local_bytes_of(fn, ctx.module)
    if local > LOCAL_MEMORY_BYTES:
        raise SelectError(f"simt: kernel '{fn.name}' needs {local} bytes of __local memory; "
                          f"a simt work-group has {LOCAL_MEMORY_BYTES}")
    _, explicit = kernel_args(fn, ctx.layout)
    ctx.mfn.attrs["kernarg_bytes"] = kernarg_bytes(explicit, bool(ctx.module.constants))
    ctx.mfn.attrs["local_bytes"] = local


def emit_body(ctx: Ctx, flow: control.Flow) -> None:
    fn, mfn = ctx.fn, ctx.mfn
    blocks: dict[object, MBlock] = {obj: MBlock(flow.labels[obj]) for kind, obj in flow.items
                                    if kind == "block" or flow.masked}
    entry = blocks[fn.entry]
    ctx.start_block(entry)
    ctx.entry["frame"] = ctx.op("p_copy", "s", 32, STACK_POINTER)
    if fn.is_kernel:
        calls.kernel_entry(ctx)
    else:
        calls.helper_entry(ctx)
        flow.retval = [ctx.new(ctx.info.ret_file, reg_width(t, ctx.layout))
                       for t, _ in ([] if isinstance(fn.type.ret, VoidType) else leaves(fn.type.ret, ctx.layout))]
    if flow.masked and not fn.is_kernel:
        flow.exec0 = ctx.op("s_mov_b64", "s", 64, EXEC)
    for mask in flow.masks.values():
        ctx.emit("s_mov_b64", mask, Imm(0))
    aggregates.materialize(ctx)
    control.allocate_phis(ctx)
    for instr in fn.instructions():
        if arith.fusable(instr):
            ctx.fused.add(instr)
    for kind, obj in flow.items:
        if kind == "loop_end":
            if flow.masked:
                mfn.blocks.append(blocks[obj])
                ctx.start_block(blocks[obj])
                control.loop_end(ctx, flow, obj)  # type: ignore[arg-type]
            continue
        emit_block(ctx, flow, obj, blocks[obj])  # type: ignore[arg-type]
    exit_block(ctx, flow)
    entry.instrs[1:1] = ctx.preamble.instrs


def emit_block(ctx: Ctx, flow: control.Flow, block: Block, mblock: MBlock) -> None:
    ctx.mfn.blocks.append(mblock)
    if mblock is not ctx.mfn.blocks[0]:
        ctx.start_block(mblock)
    ctx.ir_block = block
    extra: list[MBlock] = []
    control.begin_block(ctx, flow, block)
    for instr in block.instrs:
        ctx.instr = instr
        if instr.op == "phi":
            continue
        if instr.is_terminator:
            control.select_terminator(ctx, flow, instr, extra)
            continue
        pattern = PATTERNS.get(instr.op)
        if pattern is None:
            raise ctx.error(f"the IR instruction {instr.op} is not supported on simt")
        pattern(ctx, instr)
        control.make_shadow(ctx, flow, instr)
    ctx.instr = None
    ctx.mfn.blocks += extra


def exit_block(ctx: Ctx, flow: control.Flow) -> None:
    exit_ = MBlock(flow.labels["exit"])
    ctx.mfn.blocks.append(exit_)
    ctx.start_block(exit_)
    ctx.ir_block = None
    if ctx.fn.is_kernel:
        ctx.emit("s_endpgm")
        return
    if flow.exec0 is not None:
        ctx.emit("s_mov_b64", EXEC, flow.exec0)
    calls.helper_exit(ctx, flow.retval)
