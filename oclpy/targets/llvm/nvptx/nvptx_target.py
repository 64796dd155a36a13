"""The nvptx target: IR module -> PTX for NVIDIA GPUs, and the cuda kernel ABI.

`compile_nvptx(module, target, options) -> PtxProgram` emits LLVM IR through
`emit.py` with `NvptxTarget` answering the target questions, adds one PTX
entry point per kernel, and turns the module into PTX for the Target's
architecture at its level (`ptx_codegen.py`: libdevice, LLVM's -O0/-O1/-O3).
No GPU is needed; the cuda driver loads the PTX (`ptx_program.py`: what a
compiled program holds, and its form in the build cache).

Address spaces (LLVM's NVPTX numbers): global 1, `__local` 3 (shared), private
and generic 0 (NVPTX allocas live in the generic space; LLVM's NVPTX passes put
them in .local). `__constant` *pointers* are generic: a `__constant` kernel
argument points into global memory while a program-scope `__constant` variable
lives in the constant bank (address space 4), and only a generic pointer can
hold both; `infer-address-spaces` (in NVPTX's codegen) turns the accesses back
into ld.global / ld.const where the origin is known.

Pointers are 64 bits in every space, in our DataLayout and in LLVM's: the
frontend lays out structs with 64-bit pointers whatever the target, and the
32-bit shared/local pointers of NVPTX's short-pointer mode would only save
registers in kernels that keep many `__local` pointers live (addresses of
`__local` arrays are folded to constant offsets either way).

Kernel entry (`<kernel>`, calling convention `ptx_kernel`): each argument in
the order of `PtxKernel.args` (global/constant buffers as `ptr addrspace(1)`,
`__local` arguments as their i64 byte size, scalars by value, aggregates and
3-vectors as arrays of their size in our DataLayout, in units of their
alignment up to 8 bytes), then the hidden
global offset, group base and number of work-groups (3 x i64 each) and work
dimension (i32): nvvm_intrinsics.HIDDEN_NAMES. The entry computes each
`__local` argument's place in the dynamic shared memory (16-byte aligned, in
argument order), converts the other arguments and calls the kernel's body
(`<kernel>.body`, always inlined). Static `__local` variables are static
shared arrays, one per variable.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir as ll

from ....analysis.callgraph import local_vars_reached
from ...kernel_abi import KernelArg, align_up, has_program_variables, kernel_args
from ....diagnostics import CompileError
from ....frontend.options import BuildOptions, parse_build_options
from ....ir.datalayout import DataLayout
from ....ir.types import AddressSpace, ArrayType, StructType, Type, VectorType
from ....ir.values import Function, GlobalVar, Instr, Module
from ...target import Target
from . import ptx_codegen as codegen
from .ptx_program import LOCAL_ALIGN, PtxKernel, PtxProgram, ptx_key
from . import nvvm_intrinsics as nvi
from ..emit import FunctionEmitter, ModuleEmitter

NVPTX_LAYOUT = DataLayout("nvptx64")
DYNAMIC_SHARED = "__oclpy_dynamic_shared"
BODY_SUFFIX = ".body"

ADDRSPACES = {AddressSpace.PRIVATE: 0, AddressSpace.GENERIC: 0, AddressSpace.GLOBAL: 1,
              AddressSpace.LOCAL: 3, AddressSpace.CONSTANT: 0}
GLOBAL_ADDRSPACES = {AddressSpace.GLOBAL: 1, AddressSpace.CONSTANT: 4,
                     AddressSpace.PRIVATE: 1, AddressSpace.GENERIC: 1}
# OpenCL memory scope -> LLVM NVPTX syncscope ("" is the whole system)
SYNCSCOPES = {"work_item": "singlethread", "sub_group": "block", "work_group": "block",
              "device": "device", "all_svm_devices": ""}
# What this target runs after the level's target-independent pipeline: the GPU runs
# work-items as threads, so barriers stay barriers; huge switches are split for
# LLVM's sake (see the pass).
PIPELINE = "split-large-switches,global-dce,inline"
DEFAULT = Target("cuda", codegen.DEFAULT_ARCH, codegen.PTX_FEATURES)

class NvptxTarget:
    """The answers `emit.py` asks of a target, for NVIDIA GPUs."""

    hidden_names = nvi.HIDDEN_NAMES
    # a*b+c may become fma (OpenCL C's FP_CONTRACT is on by default), also when the
    # product has other uses, as NVIDIA's OpenCL compiler does
    float_flags = ("contract",)

    def __init__(self, layout: DataLayout = NVPTX_LAYOUT) -> None:
        self.layout = layout
        self.shared: dict[str, ll.GlobalVariable] = {}

    def addrspace_of(self, space: AddressSpace) -> int:
        return ADDRSPACES[space]

    def global_addrspace(self, space: AddressSpace) -> int:
        """Where a program-scope variable of `space` lives (`__constant`: the constant bank)."""
        return GLOBAL_ADDRSPACES[space]

    def syncscope(self, scope: str) -> str:
        return SYNCSCOPES.get(scope, "")

    def hidden_params(self) -> list[ll.Type]:
        return nvi.hidden_param_types()

    def linkage(self, fn: Function) -> str:
        return "internal"

    def global_value(self, fe: FunctionEmitter, gv: GlobalVar) -> ll.Value | None:
        if gv.space is AddressSpace.LOCAL:
            return self._shared(fe.me, gv)
        llgv = fe.me.globals[gv.name]
        want = ll.PointerType(addrspace=self.addrspace_of(gv.space))
        if llgv.type.addrspace == want.addrspace:
            return None
        return fe.alloca_builder.addrspacecast(llgv, want)

    def _shared(self, me: ModuleEmitter, gv: GlobalVar) -> ll.GlobalVariable:
        found = self.shared.get(gv.name)
        if found is None:
            found = ll.GlobalVariable(me.llmod, me.lltype(gv.value_type), gv.name, addrspace=3)
            found.linkage = "internal"
            found.initializer = ll.Constant(found.value_type, ll.Undefined)
            found.align = gv.align or self.layout.align_of(gv.value_type)
            found.type = ll.PointerType(addrspace=3)
            self.shared[gv.name] = found
        return found

    def lower_intrinsic(self, fe: FunctionEmitter, instr: Instr,
                        args: list[ll.Value]) -> ll.Value | None:
        base = instr.attrs["callee"].attrs["intrinsic"]
        return nvi.lower_intrinsic(fe, base, fe.lltype(instr.type), args)


def _is_aggregate(t: Type) -> bool:
    return isinstance(t, (StructType, ArrayType)) or (isinstance(t, VectorType) and t.count == 3)


def _entry_param(me: ModuleEmitter, arg: KernelArg) -> ll.Type:
    if arg.kind in ("global", "constant"):
        return ll.PointerType(addrspace=1)
    if arg.kind == "local":
        return ll.IntType(64)
    if _is_aggregate(arg.type):  # its bytes, in units of its alignment (up to 8 bytes)
        unit = min(me.target.layout.align_of(arg.type), 8)
        return ll.ArrayType(ll.IntType(unit * 8), arg.size // unit)
    return me.lltype(arg.type)


class EntryBuilder:
    """Emits the PTX entry point of one kernel around its body."""

    def __init__(self, me: ModuleEmitter, body: ll.Function, name: str, args: list[KernelArg]):
        self.me, self.body, self.args = me, body, args
        params = [_entry_param(me, a) for a in args] + nvi.hidden_param_types()
        self.fn = ll.Function(me.llmod, ll.FunctionType(ll.VoidType(), params), name)
        self.fn.calling_convention = "ptx_kernel"
        for llarg, a in zip(self.fn.args, args):
            llarg.name = a.name
            if a.kind == "global" and "restrict" in a.attrs.get("type_qualifiers", ()):
                llarg.add_attribute("noalias")
        self.b = ll.IRBuilder(self.fn.append_basic_block("entry"))

    def emit(self) -> None:
        b = self.b
        values: list[ll.Value] = []
        local_offset: ll.Value = ll.Constant(ll.IntType(64), 0)
        for llarg, a in zip(self.fn.args, self.args):
            if a.kind == "local":
                values.append(b.gep(self._dynamic_shared(), [local_offset],
                                    source_etype=ll.IntType(8)))
                end = b.add(local_offset, llarg)
                local_offset = b.and_(b.add(end, ll.Constant(end.type, LOCAL_ALIGN - 1)),
                                      ll.Constant(end.type, -LOCAL_ALIGN))
            else:
                values.append(self._convert(llarg, a))
        hidden = list(self.fn.args[len(self.args):])
        b.call(self.body, values + hidden)
        b.ret_void()

    def _convert(self, llarg: ll.Value, a: KernelArg) -> ll.Value:
        want = self.me.lltype(a.type)
        if llarg.type == want:
            return llarg
        if a.kind == "constant":
            return self.b.addrspacecast(llarg, want)
        slot = self.b.alloca(llarg.type)  # byte array -> the IR type, through memory
        slot.align = self.me.target.layout.align_of(a.type)
        self.b.store(llarg, slot)
        return self.b.load(slot, typ=want, align=slot.align)

    def _dynamic_shared(self) -> ll.GlobalVariable:
        found = self.me.llmod.globals.get(DYNAMIC_SHARED)
        if found is None:
            found = ll.GlobalVariable(self.me.llmod, ll.ArrayType(ll.IntType(8), 0),
                                      DYNAMIC_SHARED, addrspace=3)
            found.linkage = "external"
            found.align = LOCAL_ALIGN
            found.type = ll.PointerType(addrspace=3)
        return found


def annotate_reqntid(llmod: ll.Module, entry: ll.Function, reqd: Any) -> None:
    """`reqd_work_group_size(x, y, z)` as NVVM's `reqntid` annotations, so PTX says
    `.reqntid x, y, z` and ptxas may size registers for exactly that block."""
    if not reqd:
        return
    i32 = ll.IntType(32)
    for axis, size in zip("xyz", reqd):
        llmod.add_named_metadata("nvvm.annotations",
                                 [entry, ll.MetaDataString(llmod, f"reqntid{axis}"),
                                  ll.Constant(i32, int(size))])




def _static_shared_bytes(target: NvptxTarget, kernel: Function) -> int:
    """Bytes of the static `__local` variables `kernel` (or a function it calls) uses."""
    total = 0
    for gv in local_vars_reached(kernel):
        total = align_up(total, gv.align or target.layout.align_of(gv.value_type))
        total += target.layout.size_of(gv.value_type)
    return total


def precision_for(opts: BuildOptions) -> codegen.Precision:
    if opts.fast_relaxed_math or opts.unsafe_math_optimizations:
        return codegen.Precision(div_f32=0, sqrt_f32=0)
    if opts.correctly_rounded_divide_sqrt:
        return codegen.Precision(div_f32=2, sqrt_f32=1)
    return codegen.Precision()


def emit_llvm(module: Module, target: NvptxTarget | None = None, fast_math: bool = False,
              arch: str = codegen.DEFAULT_ARCH,
              features: str = codegen.PTX_FEATURES) -> tuple[ll.Module, dict]:
    """The LLVM module (bodies and entries) and each kernel's (args, blob size)."""
    target = target or NvptxTarget()
    kernels = [fn for fn in module.kernels() if not fn.is_declaration]
    names = {id(fn): fn.name for fn in kernels}
    for fn in kernels:
        module.rename_function(fn, fn.name + BODY_SUFFIX)
    try:
        me = ModuleEmitter(module, target)
        me.fast_math = me.fast_math or fast_math
        llmod = me.emit()
    finally:
        for fn in kernels:
            module.rename_function(fn, names[id(fn)])
    infos = {}
    for fn in kernels:
        body = me.functions[fn.name + BODY_SUFFIX]
        body.attributes.add("alwaysinline")
        args, blob_size = kernel_args(fn, target.layout)
        entry = EntryBuilder(me, body, fn.name, args)
        entry.emit()
        annotate_reqntid(llmod, entry.fn, fn.attrs.get("reqd_work_group_size"))
        infos[fn.name] = (args, blob_size)
    llmod.triple = codegen.TRIPLE
    llmod.data_layout = codegen.data_layout(arch, features)
    return llmod, infos


def compile_nvptx(module: Module, target: Target = DEFAULT, options: str = "") -> PtxProgram:
    """Compile every kernel defined in `module` to PTX for `target` (its `sm_XY`);
    `options` are the OpenCL build options (their float-precision choices:
    `precision_for`). The Target's level chose our pipeline; LLVM's NVPTX code
    generation runs at -O3 whatever it is, because NVPTX fuses a*b+c only when
    optimising, and -cl-opt-disable must not change a kernel's results."""
    arch, features = target.arch or codegen.DEFAULT_ARCH, target.features or codegen.PTX_FEATURES
    opts = parse_build_options(options)
    nvptx = NvptxTarget()
    fast = opts.fast_relaxed_math or opts.unsafe_math_optimizations
    llmod, infos = emit_llvm(module, nvptx, fast_math=fast, arch=arch, features=features)
    for name, (_, blob_size) in infos.items():
        if blob_size > codegen.MAX_ARGUMENT_BYTES:
            raise CompileError(f"{module.name}: error: kernel '{name}' takes {blob_size} bytes of "
                               f"arguments; a cuda kernel takes at most {codegen.MAX_ARGUMENT_BYTES} "
                               f"(CL_DEVICE_MAX_PARAMETER_SIZE; CUDA's 4 KB of parameters hold "
                               f"the hidden ones too)\n")
    text = str(llmod)
    try:
        ptx, optimized = codegen.compile_ptx(text, set(infos), arch, 3,
                                             precision_for(opts), features)
    except codegen.LibdeviceMissing as exc:
        raise CompileError(f"{module.name}: error: {exc}\n") from None
    program = PtxProgram({}, ptx, text, optimized, arch, ptx_key(ptx, arch), has_program_variables(module))
    for fn in module.kernels():
        if fn.name not in infos:
            continue
        args, blob_size = infos[fn.name]
        reqd = fn.attrs.get("reqd_work_group_size")
        program.kernels[fn.name] = PtxKernel(
            fn.name, args, blob_size, tuple(reqd) if reqd else None,
            _static_shared_bytes(nvptx, fn), program)
    return program
