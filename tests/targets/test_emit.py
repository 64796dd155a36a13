"""The LLVM emitter on its own: every opcode and global kind lowers to IR that LLVM
verifies, the target (not the emitter) decides address spaces, and error paths."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tools.cpu_harness import compile_text, run
from oclpy.ir.builder import Builder
from oclpy.ir.parser import parse_module
from oclpy.ir.types import F32, I32, VOID, AddressSpace, FunctionType, ptr
from oclpy.ir.values import Argument, Function, Module
from oclpy.targets.llvm import binding
from oclpy.targets.llvm.cpu.cpu_target import CpuTarget, compile_cpu
from oclpy.targets.llvm.emit import emit_module
from oclpy.targets.llvm.emit_types import EmitError

sys.path.insert(0, str(Path(__file__).parent.parent / "ir"))
import irmodules  # noqa: E402


def _without_barriers(m: Module) -> Module:
    for fn in m.functions:
        for block in fn.blocks:
            block.instrs = [i for i in block.instrs
                            if not (i.op == "call" and i.attrs["callee"].name == "ocl.barrier")]
    return m


@pytest.mark.parametrize("name", sorted(irmodules.ALL_MODULES))
def test_every_shared_test_module_lowers_to_valid_llvm(name: str) -> None:
    m = _without_barriers(irmodules.ALL_MODULES[name]())
    text = str(emit_module(m, CpuTarget(m)))
    binding.parse_and_verify(text)


def test_all_ops_lowering_details() -> None:
    m = _without_barriers(irmodules.all_ops_module())
    text = str(emit_module(m, CpuTarget(m)))
    assert 'syncscope("singlethread") monotonic monotonic' in text  # work_item scope
    assert "cmpxchg ptr %\"gp\", i32 %\"i\", i32 5 acq_rel acquire" in text
    assert "atomicrmw fadd ptr %\"lp\"" not in text  # __local: a plain read-modify-write on cpu
    assert "= fadd float" in text
    assert "store volatile float" in text and "load volatile float" in text
    assert "addrspacecast" not in text  # every space is LLVM's 0 on cpu
    assert 'alloca [16 x i8], align 16' in text  # [4 x float] by our DataLayout
    assert "<8 x i32> <i32 3, i32 2, i32 0, i32 0, i32 1, i32 1, i32 7, i32 4>" in text
    assert 'call i32 (ptr, ...) @"printf"(ptr @"fmt", i32 %"i", double %"d")' in text


def test_global_initializers_may_name_other_globals() -> None:
    m = irmodules.globals_module()
    text = str(emit_module(m, CpuTarget(m)))
    assert '@"self_ref" = internal global ptr @"counter"' in text
    assert '@"lut" = internal constant [3 x float]' in text
    assert "k.tile" not in text  # __local variables live in each group's local memory


def test_constant_offsets_are_llvm_constant_expressions() -> None:
    m = parse_module("@t = addrspace(constant) constant [4 x i32] zeroinitializer\n"
                     "@p = addrspace(global) global {ptr<constant>, ptr<constant>} {ptr<constant> "
                     "getelementptr (i8, ptr<constant> @t, i64 8), ptr<constant> @t}\n")
    text = str(emit_module(m, CpuTarget(m)))
    assert '@"p" = internal global {ptr, ptr} {ptr getelementptr (i8, ptr @"t", i64 8), ptr @"t"}' in text
    binding.parse_and_verify(text)


def test_constant_addrspacecasts_are_no_casts_on_the_cpu() -> None:
    # the cpu's address spaces are all LLVM's 0 (nvptx's cast: tests/targets/test_nvptx_ptx.py)
    m = parse_module("@g = addrspace(global) global [2 x i32] zeroinitializer\n"
                     "@p = addrspace(global) global ptr<generic> addrspacecast (ptr<global> "
                     "getelementptr (i8, ptr<global> @g, i64 4) to ptr<generic>)\n")
    text = str(emit_module(m, CpuTarget(m)))
    assert '@"p" = internal global ptr getelementptr (i8, ptr @"g", i64 4)' in text
    binding.parse_and_verify(text)


def test_barrier_left_in_a_function_is_an_emit_error() -> None:
    m = irmodules.all_ops_module()
    with pytest.raises(EmitError, match="@everything: ocl.barrier left after form-workgroups"):
        emit_module(m, CpuTarget(m))


def test_unknown_intrinsic_is_an_emit_error() -> None:
    m = Module()
    weird = m.add_function(Function("ocl.frobnicate", FunctionType(VOID, ()), [],
                                    attrs={"intrinsic": "frobnicate"}))
    k = m.add_function(Function("k", FunctionType(VOID, ()), [], is_kernel=True))
    b = Builder(k.add_block("entry"))
    b.call(weird, [])
    b.ret()
    with pytest.raises(EmitError, match="cpu target: no lowering for intrinsic 'ocl.frobnicate'"):
        compile_cpu(m)


class _NumberedSpaces(CpuTarget):
    """A target with NVPTX-like numbers, to show the emitter only asks."""

    NUMBERS = {AddressSpace.GENERIC: 0, AddressSpace.GLOBAL: 1, AddressSpace.LOCAL: 3,
               AddressSpace.CONSTANT: 4, AddressSpace.PRIVATE: 5}

    def addrspace_of(self, space: AddressSpace) -> int:
        return self.NUMBERS[space]


def test_address_space_numbers_come_from_the_target() -> None:
    m = parse_module("""
define void @f(ptr<global> %g, ptr<generic> %p) {
entry:
  %x = alloca i32
  %c = addrspacecast ptr<global> %g to ptr<generic>
  %v = load i32, ptr<global> %g
  store i32 %v, ptr<private> %x
  ret void
}
""")
    text = str(emit_module(m, _NumberedSpaces(m)))
    assert 'ptr addrspace(1) %"g", ptr %"p"' in text
    assert "addrspacecast ptr addrspace(1) %\"g\" to ptr" in text
    assert 'store i32 %"v", ptr addrspace(5) %"x"' in text


FAST = """
define float @f(float %a, float %b) #{fast_math = true} {
entry:
  %s = fadd float %a, %b
  %c = fcmp olt float %s, %a
  %r = select i1 %c, float %s, float %b
  ret float %r
}
define float @g(float %a, float %b) {
entry:
  %s = fmul float %a, %b
  ret float %s
}
"""


def test_fast_math_flags_follow_the_attribute() -> None:
    m = parse_module(FAST)
    text = str(emit_module(m, CpuTarget(m)))
    assert 'fadd fast float %"a", %"b"' in text
    assert "fcmp fast olt" in text
    assert 'fmul float %"a", %"b"' in text


UNREACHABLE = """
declare i64 @ocl.get_global_id(i32)
kernel void @k(ptr<global> %a) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  br label %join
dead:
  %z = add i64 %i, 5
  br label %join
join:
  %v = phi i64 [%i, %entry], [%z, %dead]
  %p = getelementptr i64, ptr<global> %a, i64 %v
  store i64 %v, ptr<global> %p
  ret void
}
"""


def test_unreachable_blocks_and_their_phi_edges() -> None:
    k = compile_text(UNREACHABLE).kernels["k"]
    a = np.zeros(16, np.int64)
    run(k, [a], (16,), (4,))
    np.testing.assert_array_equal(a, np.arange(16))


HALF = """
declare i64 @ocl.get_global_id(i32)
declare half @ocl.sqrt.f16(half)
declare half @ocl.tan.f16(half)
kernel void @h(ptr<global> %a, ptr<global> %o) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %p = getelementptr half, ptr<global> %a, i64 %i
  %x = load half, ptr<global> %p
  %s = call half @ocl.sqrt.f16(half %x)
  %t = call half @ocl.tan.f16(half %x)
  %r = fadd half %s, %t
  %q = getelementptr half, ptr<global> %o, i64 %i
  store half %r, ptr<global> %q
  ret void
}
"""


def test_half_precision_arithmetic_and_math() -> None:
    a = np.linspace(0.1, 1.2, 32).astype(np.float16)
    o = np.zeros(32, np.float16)
    run(compile_text(HALF).kernels["h"], [a, o], (32,), (8,))
    x = a.astype(np.float64)
    ref = (np.sqrt(x).astype(np.float16).astype(np.float64) + np.tan(x).astype(np.float16))
    np.testing.assert_allclose(o.astype(np.float64), ref, rtol=2e-3)


PRINTF = """
@fmt = addrspace(constant) constant [7 x i8] [i8 37, i8 100, i8 32, i8 37, i8 102, i8 10, i8 0]
declare i64 @ocl.get_global_id(i32)
declare i32 @ocl.printf(ptr<constant>, ...)
declare void @ocl.mem_fence(i32)
kernel void @say(float %x) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %t = trunc i64 %i to i32
  call void @ocl.mem_fence(i32 2)
  %n = call i32 @ocl.printf(ptr<constant> @fmt, i32 %t, float %x)
  ret void
}
"""


def test_printf_and_mem_fence(capfd: pytest.CaptureFixture[str]) -> None:
    prog = compile_text(PRINTF)
    assert "fence acq_rel" in prog.llvm_ir
    run(prog.kernels["say"], [np.float32(1.5)], (2,), (1,))
    out = capfd.readouterr().out
    assert out.splitlines() == ["0 1.500000", "1 1.500000"]


def test_kernel_abi_reports_args_for_the_runtime() -> None:
    m = Module()
    g = ptr("global")
    k = m.add_function(Function("k", FunctionType(VOID, (I32, g, ptr("local"), F32)),
                                [Argument(I32, "n", 0), Argument(g, "p", 1),
                                 Argument(ptr("local"), "l", 2), Argument(F32, "f", 3)],
                                is_kernel=True, attrs={"reqd_work_group_size": (8, 1, 1)}))
    k.args[1].attrs["type_name"] = "float*"
    Builder(k.add_block("entry")).ret()
    ck = compile_cpu(m).kernels["k"]
    assert [(a.name, a.kind, a.size, a.offset) for a in ck.args] == [
        ("n", "scalar", 4, 0), ("p", "global", 8, 8), ("l", "local", 8, 16), ("f", "scalar", 4, 24)]
    assert ck.blob_size == 32 and ck.reqd_work_group_size == (8, 1, 1)
    assert ck.args[1].attrs == {"type_name": "float*"}


def test_declared_kernels_are_skipped() -> None:
    m = irmodules.naming_module()  # holds a kernel declaration, @ext_kernel
    prog = compile_cpu(m)
    assert prog.kernels == {}
    assert '@"1st fn"' in prog.llvm_ir


def test_wrap_flags_from_instruction_attrs() -> None:
    """A frontend may mark signed arithmetic `nsw` (overflow is undefined in OpenCL C)."""
    from oclpy.ir.parser import parse_module
    from oclpy.targets.llvm.cpu.cpu_target import compile_cpu

    module = parse_module("kernel void @k(ptr<global> %x, i32 %a, i32 %b) {\n"
                          "entry:\n  %s = add i32 %a, %b\n  %t = mul i32 %s, %b\n"
                          "  %u = sub i32 %t, %a\n  store i32 %u, ptr<global> %x\n  ret void\n}\n")
    for instr in module.functions[0].instructions():
        if instr.op == "add":
            instr.attrs["nsw"] = True
        if instr.op == "mul":
            instr.attrs["nsw"] = instr.attrs["nuw"] = True
    ir = compile_cpu(module).llvm_ir
    assert "add nsw i32" in ir and "mul nsw nuw i32" in ir
    assert "sub i32" in ir  # no attrs: no flags


# A phi choosing between two __local arrays, its incoming block emitted after the
# phi's own (a barrier split the CFG). On the cpu a __local address takes
# instructions to make (the work-group's local base + the array's offset): they
# belong at the end of the incoming block, not wherever the builder stopped
# (silx's bitshuffle kernel: "expected instruction opcode" from LLVM's parser).
LOCAL_PHI = """
declare i64 @ocl.get_local_id(i32)
declare void @ocl.barrier(i32)
@k.a = addrspace(local) global [8 x i32], align 4
@k.b = addrspace(local) global [8 x i32], align 4
kernel void @k(ptr<global> %o, i32 %flag) {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  %pa = getelementptr i32, ptr<local> @k.a, i64 %l
  store i32 1, ptr<local> %pa
  %pb = getelementptr i32, ptr<local> @k.b, i64 %l
  store i32 2, ptr<local> %pb
  call void @ocl.barrier(i32 1)
  %c = icmp eq i32 %flag, 1
  condbr i1 %c, label %then, label %join
then:
  call void @ocl.barrier(i32 1)
  br label %join
join:
  %buf = phi ptr<local> [ @k.a, %entry ], [ @k.b, %then ]
  %q = getelementptr i32, ptr<local> %buf, i64 %l
  %v = load i32, ptr<local> %q
  %r = getelementptr i32, ptr<global> %o, i64 %l
  store i32 %v, ptr<global> %r
  ret void
}
"""


@pytest.mark.parametrize("flag,expected", [(0, 1), (1, 2)])
def test_a_phi_of_local_arrays_is_made_in_its_incoming_blocks(flag: int, expected: int) -> None:
    k = compile_text(LOCAL_PHI).kernels["k"]
    o = np.zeros(8, np.int32)
    run(k, [o, np.int32(flag)], (8,), (8,))
    np.testing.assert_array_equal(o, np.full(8, expected, np.int32))
