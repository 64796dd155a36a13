"""The cpu target: IR module -> native code for the host, and the kernel ABI.

`compile_cpu(module, target) -> CpuProgram` takes a module the pipeline has
finished (the level's passes, then this target's own: `PIPELINE`, which ends
with `form-workgroups`, so kernels with barriers are resumable already), emits
LLVM IR through `emit.py` with `CpuTarget` deciding the target questions, adds
one launcher per kernel (`launcher.py`), and parses the LLVM IR; LLVM's
pipeline at the Target's level (`Target.llvm_opt_level`: -O0, -O1 or -O3) and
code generation for the Target's CPU (`binding.py`) run at the program's first
launch (`compiled.NativeCode`; measured in benchmarks/results: they are three
quarters of a cold build, which then costs about a third).

Kernel ABI (docs/ARCHITECTURE.md, "Target: IR module -> compiled program"):
- the argument blob packs each argument at its natural alignment in our
  DataLayout: global/constant pointers as 64-bit addresses, `__local` pointers
  as their 64-bit byte size, the rest as their bytes;
- local memory per work-group: every static `__local` variable of the module
  first (at its alignment), then each local argument, 16-byte aligned;
- work-item queries read the launch context and the hidden group/local ids
  (`workitem.py`);
- `CompiledKernel.launch` (`compiled.py`) packs this call's context and
  blob and allocates its local memory and frames (so concurrent calls share
  nothing), then calls the native launcher through ctypes, which releases the
  GIL;
- every plain global/constant/local access (and, in kernels made resumable,
  every private one) joins one access group, and the launcher's work-item
  loops are marked parallel over it (`loopmd.py`), so LLVM's loop
  vectoriser widens them across work-items.

Programs are cached in memory and on disk by the compiler (`compiler/cache.py`).
"""

from __future__ import annotations

from llvmlite import ir as ll

from ....analysis.callgraph import functions_reached, local_vars_reached
from ...kernel_abi import align_up, has_program_variables, kernel_args
from ....ir.datalayout import CPU_LAYOUT, DataLayout
from ....ir.types import AddressSpace, ArrayType, StructType, Type
from ....ir.values import Function, GlobalVar, Instr, Module
from ....passes.form_workgroups import (BARRIERS_ATTR, DIVERGENT_ATTR, FRAME_ALIGN_ATTR, FRAME_ATTR,
                                        STEPS_ATTR)
from ....passes.interleave_private_arrays import LANES_ATTR
from ....passes.split_entry_guard import GUARD_ATTR, UNGUARDED_ATTR
from ....passes.widen_work_items import LANES_ATTR as WIDE_LANES_ATTR
from ....passes.widen_work_items import WIDE_ATTR
from ...target import Target
from . import workitem as wi
from .. import binding
from .generic import SPACE_TESTS, lower_space_test
from .atomics import group_private, plain_cmpxchg, plain_rmw
from .launcher import LOCAL_ALIGN, LaunchArg, emit_launcher
from .loopmd import LoopMetadata
from .loopmd import finalize as finalize_loop_metadata
from .outer import outer_regions
from .reorder import reorder_safe
from .compiled import CompiledKernel, CpuProgram, KernelArg, NativeCode, kernel_compiler  # noqa: F401 (re-exported)
from ..emit import FunctionEmitter, ModuleEmitter
from ..emit_indirect import is_large
from ..emit_types import EmitError
from ..memo_layout import memoized
from .mathlib import is_math, lower_math

_SYNCSCOPES = {"work_item": "singlethread"}
# What this target runs after the level's target-independent pipeline: work-groups
# are formed after inlining, so a barrier in a helper is inlined into its kernel first;
# huge switches are split for LLVM's sake (see the pass); the widened copy of a body is
# made last, from the body the launcher runs; variables only ever written are deleted
# before form-workgroups would move them into frames, where LLVM must keep them.
PIPELINE = ("split-large-switches,global-dce,inline{threshold=400},dead-allocas,scalarize-vectors,"
            "rebase-loop-counters,"
            "step-divergent-loops,lockstep-strided-loops,interleave-private-arrays,split-entry-guard,"
            "form-workgroups,widen-work-items")
HOST = Target("cpu")


# Struct and array values past this many bytes are pointers in the LLVM IR (passed,
# returned and copied through memory: emit_indirect.py), as clang passes them byval:
# LLVM takes first-class aggregates element by element, a 16 KB struct argument for
# minutes (benchmarks/large_aggregates.py; 1 KB: 0.1-0.6 s). 256 bytes and less stay
# values, which LLVM keeps in registers: ArrayFire's 72-byte KParam arguments, say.
INDIRECT_AGGREGATE_BYTES = 256


class CpuTarget:
    """The answers `emit.py` asks of a target, for the host CPU."""

    indirect_aggregate_bytes = INDIRECT_AGGREGATE_BYTES
    half_without_library = True  # double -> half as exact_half.py says: x86 calls __truncdfhf2

    def __init__(self, module: Module, layout: DataLayout = CPU_LAYOUT) -> None:
        self.layout: DataLayout = memoized(layout)  # the emitter asks it of the same types over and over
        self.loop_md: LoopMetadata | None = None
        # functions whose work-item loops go to the outer-loop vectoriser, which widens
        # no library call: their math calls get vecmath's bodies (`lower_math(inline=True)`)
        self.outer: dict[str, set[int]] = {fn.name: outer_regions(fn, self.in_memory) for fn in module.functions
                                           if not fn.is_declaration and _launched(fn, module)}
        self.local_offsets: dict[str, int] = {}
        offset = 0
        for gv in module.globals:
            if gv.space is AddressSpace.LOCAL:
                offset = align_up(offset, gv.align or layout.align_of(gv.value_type))
                self.local_offsets[gv.name] = offset
                offset += layout.size_of(gv.value_type)
        self.static_local_bytes = align_up(offset, LOCAL_ALIGN)
        self._sizes = {gv.name: layout.size_of(gv.value_type) for gv in module.globals
                       if gv.space is AddressSpace.LOCAL}

    def in_memory(self, t: Type) -> bool:
        """Whether the LLVM IR keeps values of type `t` in memory (emit_indirect.py)."""
        return isinstance(t, (StructType, ArrayType)) and self.layout.size_of(t) > self.indirect_aggregate_bytes

    def kernel_static_local_bytes(self, kernel: Function) -> int:
        """The static local memory `kernel` (with the helpers it calls) uses.

        Offsets are module-wide, so a helper sees each variable at one offset
        whichever kernel calls it; a kernel's share ends at its last variable."""
        end = 0
        for gv in local_vars_reached(kernel):
            end = max(end, self.local_offsets[gv.name] + self._sizes[gv.name])
        return align_up(end, LOCAL_ALIGN)

    def addrspace_of(self, space: AddressSpace) -> int:
        return 0

    def annotate_access(self, fe: FunctionEmitter, instr: Instr, access: ll.Instruction) -> None:
        if self.loop_md is not None:
            self.loop_md.annotate(instr, access, FRAME_ATTR in fe.fn.attrs)

    def plain_atomic(self, fe: FunctionEmitter, instr: Instr, args: list[ll.Value]) -> ll.Value | None:
        """A read-modify-write without atomicity where only the group can race (cpu_atomics.py)."""
        if not group_private(instr) or instr.attrs.get("volatile"):
            return None
        if instr.op == "cmpxchg":
            return plain_cmpxchg(fe.builder, *args)
        return plain_rmw(fe.builder, instr.attrs["binop"], *args)

    def syncscope(self, scope: str) -> str:
        return _SYNCSCOPES.get(scope, "")

    hidden_names = wi.HIDDEN_NAMES

    def hidden_params(self) -> list[ll.Type]:
        return wi.hidden_param_types()

    def linkage(self, fn: Function) -> str:
        return "internal"

    def global_value(self, fe: FunctionEmitter, gv: GlobalVar) -> ll.Value | None:
        if gv.space is not AddressSpace.LOCAL:
            return None
        b = fe.builder
        base = wi.ctx_load(b, fe.hidden[wi.HIDDEN_CTX], wi.CTX_LOCAL_MEM)
        addr = b.add(base, ll.Constant(wi.I64, self.local_offsets[gv.name]))
        return b.inttoptr(addr, ll.PointerType())

    def lower_intrinsic(self, fe: FunctionEmitter, instr: Instr,
                        args: list[ll.Value]) -> ll.Value | None:
        base = instr.attrs["callee"].attrs["intrinsic"]
        if wi.is_query(base):
            return wi.WorkItemQueries(fe).lower(base, args)
        if base in SPACE_TESTS:
            return lower_space_test(fe, base, args)
        if is_math(base):
            return lower_math(fe, base, fe.lltype(instr.type), args,
                              inline=bool(self.outer.get(fe.fn.name)))
        handler = _OTHER_INTRINSICS.get(base)
        if handler is None:
            raise EmitError(f"cpu target: no lowering for intrinsic 'ocl.{base}'")
        return handler(fe, args)




def _barrier(fe: FunctionEmitter, args: list[ll.Value]) -> None:
    raise EmitError(f"@{fe.fn.name}: ocl.barrier left after form-workgroups")


def _mem_fence(fe: FunctionEmitter, args: list[ll.Value]) -> None:
    fe.builder.fence("acq_rel")
    return None


def _printf(fe: FunctionEmitter, args: list[ll.Value]) -> ll.Value:
    b = fe.builder
    promoted = []
    for a in args:
        if isinstance(a.type, (ll.FloatType, ll.HalfType)):
            a = b.fpext(a, ll.DoubleType())
        elif isinstance(a.type, ll.IntType) and a.type.width < 32:
            a = b.sext(a, ll.IntType(32))
        promoted.append(a)
    printf = fe.me.declare_external("printf", ll.IntType(32), [ll.PointerType()], var_arg=True)
    return b.call(printf, promoted)


def _private_lanes(fe: FunctionEmitter, args: list[ll.Value]) -> ll.Value:
    """The group's lane arrays (interleave-private-arrays): this call's frame memory."""
    b = fe.builder
    return b.inttoptr(wi.ctx_load(b, fe.hidden[wi.HIDDEN_CTX], wi.CTX_FRAMES), ll.PointerType())


_OTHER_INTRINSICS = {"barrier": _barrier, "mem_fence": _mem_fence, "printf": _printf,
                     "private_lanes": _private_lanes}

def _launched(fn: Function, module: Module) -> bool:
    """Whether the launcher runs `fn` in its work-item loops: a kernel without an
    entry guard, or the unguarded body of one with (`split-entry-guard`)."""
    if fn.is_kernel:
        return UNGUARDED_ATTR not in fn.attrs
    return any(k.attrs.get(UNGUARDED_ATTR) == fn.name for k in module.kernels())


def _launch_args(me: ModuleEmitter, args: list[KernelArg], layout: DataLayout) -> list[LaunchArg]:
    out = []
    for a in args:
        align = 8 if a.kind != "scalar" else layout.align_of(a.type)
        out.append(LaunchArg(me.lltype(a.type), a.offset, align, a.kind == "local",
                             a.kind == "scalar" and is_large(me, a.type)))
    return out


# LLVM's x86 cost model stops at 256-bit vectors unless told otherwise (clang's
# -mprefer-vector-width); on an AVX-512 CPU the launchers' work-item loops ask
# for 512 bits, 16 floats a vector, the width Intel's CPU runtime uses.
# Measured on the real suite (2-core Xeon, oclpy/Intel, 256 -> 512): Monte Carlo
# 3.7 -> 2.1, Black-Scholes 4.2 -> 2.2, SAXPY 1.2 -> 0.83, box blur 0.74 -> 0.54.
WIDE_VECTORS = '"prefer-vector-width"="512"'


def has_avx512(target: Target) -> bool:
    """Whether `target`'s CPU (the host's when it names none) has AVX-512F."""
    features = target.features if target.arch else binding.host_cpu()[1]
    return "+avx512f" in features.split(",")


VECTORIZE_MAX_INSTRUCTIONS = 2000  # past this, LLVM's loop vectoriser takes seconds (see loopmd.py)

# Past this, a kernel's body is called from its work-item loop rather than inlined
# into it: LLVM's loop passes (LICM, LoopInstSimplify, SimpleLoopUnswitch, LSR) then
# see a loop of a few instructions, where the body's size made them superlinear
# (lines case of benchmarks/compile_time.py, 20,000 lines: 11 s of 25 in LLVM's
# -O3 and 4 s of LSR in code generation). A call per work-item is nothing beside
# this many instructions, which the loop vectoriser leaves alone anyway.
OUTLINE_MIN_INSTRUCTIONS = 10000


def launcher_calls(fn: Function) -> int:
    """How many calls of kernel `fn` its launcher holds: one per resume state of a
    resumable kernel (each region's work-item loop and each step's round), else one."""
    return fn.attrs.get(BARRIERS_ATTR, 0) + 1 if FRAME_ATTR in fn.attrs else 1


def inline_attribute(fn: Function) -> str:
    """"alwaysinline" for a kernel function the launcher's loops take in, "noinline"
    for one of more than `OUTLINE_MIN_INSTRUCTIONS` (with what it calls), and for
    one too large for the loop vectoriser whose copies, one per launcher call,
    would together pass that bound. LLVM inlines every copy before the constant
    resume state it is called with prunes it to its region: CLSmith's atomics
    1000091, 5,850 lines of LLVM IR called 32 times, took 38.9 s of CPU at its
    first launch inlined, 3.3 s called."""
    size = instruction_count(fn)
    copies = size * launcher_calls(fn) if size > VECTORIZE_MAX_INSTRUCTIONS else size
    return "noinline" if copies > OUTLINE_MIN_INSTRUCTIONS else "alwaysinline"


def instruction_count(fn: Function) -> int:
    """The instructions of `fn` and of the functions it calls (inlined into its work-item loop)."""
    return sum(sum(1 for _ in f.instructions()) for f in functions_reached(fn) if not f.is_declaration)


def private_bytes(fn: Function) -> int:
    """The bytes of the allocas (private arrays and variables) of `fn` and of the
    functions it calls: at most the stack one work-item needs beyond the launcher's."""
    total = 0
    for f in [fn, *(g for g in functions_reached(fn) if g is not fn and not g.is_declaration)]:
        for instr in f.instructions():
            if instr.op == "alloca":
                total += CPU_LAYOUT.size_of(instr.attrs["elem"])
    return total


def _uses_printf(module: Module) -> bool:
    return any(f.attrs.get("intrinsic") == "printf" for f in module.functions)


def compile_cpu(module: Module, target: Target = HOST) -> CpuProgram:
    """Compile every kernel defined in `module` for `target`'s CPU (LLVM at its level).

    The module has been through `PIPELINE` (kernels with barriers are
    resumable); a barrier left over is an EmitError."""
    cpu = CpuTarget(module)
    me = ModuleEmitter(module, cpu)
    cpu.loop_md = LoopMetadata(me.llmod)
    llmod = me.emit()
    llmod.triple = binding.host_triple()
    llmod.data_layout = binding.host_data_layout()
    infos = {}
    wide = has_avx512(target)
    kernels_defined = [fn for fn in module.kernels() if not fn.is_declaration]
    for fn in kernels_defined:
        args, blob_size = kernel_args(fn, cpu.layout)
        resumable = FRAME_ATTR in fn.attrs
        frame = fn.attrs.get(FRAME_ATTR, fn.attrs.get(LANES_ATTR, 0))  # lane arrays: frame memory
        frame_size = align_up(frame, max(16, fn.attrs.get(FRAME_ALIGN_ATTR, 16))) if frame else 0
        me.functions[fn.name].attributes.add(inline_attribute(fn))
        static_local = cpu.kernel_static_local_bytes(fn)
        body = module.get_function(fn.attrs.get(UNGUARDED_ATTR, fn.name))
        assert body is not None
        guarded = None
        if body is not fn:
            guard = fn.attrs[GUARD_ATTR]
            me.functions[guard].attributes.add("alwaysinline")
            me.functions[body.name].attributes.add(inline_attribute(body))
            guarded = (me.functions[guard], me.functions[body.name])
        widened = None  # the body widened to vectors of work-items (widen-work-items)
        if WIDE_ATTR in fn.attrs:
            me.functions[fn.attrs[WIDE_ATTR]].attributes.add("alwaysinline")
            widened = (me.functions[fn.attrs[WIDE_ATTR]], fn.attrs[WIDE_LANES_ATTR])
        parallel = cpu.loop_md if reorder_safe(body, frame=resumable, layout=cpu.layout) else None
        too_large = instruction_count(body) > VECTORIZE_MAX_INSTRUCTIONS
        launcher = emit_launcher(llmod, me.functions[fn.name], _launch_args(me, args, cpu.layout),
                                 static_local, frame_size if resumable else None, parallel,
                                 fn.attrs.get(BARRIERS_ATTR, 0), frozenset(cpu.outer.get(body.name, ())),
                                 bool(fn.attrs.get(DIVERGENT_ATTR)), guarded,
                                 cpu.loop_md if too_large else None,
                                 tuple(fn.attrs.get(STEPS_ATTR, (1,))), widened)
        if wide:
            set.add(launcher.attributes, WIDE_VECTORS)  # llvmlite knows no string attributes
        infos[fn.name] = (args, blob_size, frame_size, static_local)
    text = finalize_loop_metadata(str(llmod))
    binding.verify_ir(text)
    codegen = (target.llvm_opt_level, target.arch, target.features)
    names = [fn.name for fn in kernels_defined]
    whole = NativeCode(binding.compile_later(text, *codegen))
    shared = has_program_variables(module)
    kernels = {}
    for fn in kernels_defined:
        args, blob_size, frame_size, static_local = infos[fn.name]
        reqd = fn.attrs.get("reqd_work_group_size")
        code = whole if shared else NativeCode(kernel_compiler(text, fn.name, names, codegen))
        kernels[fn.name] = CompiledKernel(
            fn.name, args, blob_size, tuple(reqd) if reqd else None,
            static_local, frame_size, _uses_printf(module), _code=code,
            private_bytes=private_bytes(fn))
    return CpuProgram(kernels, text, whole, text, codegen, shared)
