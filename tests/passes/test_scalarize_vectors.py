"""scalarize-vectors: kernels give the same bits with and without the pass (run
natively on the cpu target), its helpers, and where the compiler runs it."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.compiler import TARGET_PIPELINES
from oclpy.ir.parser import parse_module
from oclpy.ir.printer import print_module
from oclpy.ir.types import F32, I32, VectorType
from oclpy.ir.values import Argument, ConstAggregate, ConstFloat, ConstInt, ConstZero, Undef
from oclpy.ir.verifier import verify_module
from oclpy.passes.manager import pipeline_names, run_pipeline
from oclpy.passes.scalarize_vectors import constant_element, element_align
from oclpy.targets.llvm.cpu.cpu_target import compile_cpu

from tools.cpu_harness import run

N = 64
HEAD = "declare i64 @ocl.get_global_id(i32)\n"

INT4 = HEAD + """
kernel void @k(ptr<global> %a, ptr<global> %b, ptr<global> %out) {
entry:
  %gid = call i64 @ocl.get_global_id(i32 0)
  %pa = getelementptr <4 x i32>, ptr<global> %a, i64 %gid
  %pb = getelementptr <4 x i32>, ptr<global> %b, i64 %gid
  %x = load <4 x i32>, ptr<global> %pa, align 16
  %y = load <4 x i32>, ptr<global> %pb, align 16
  %amt = and <4 x i32> %y, <i32 31, i32 31, i32 31, i32 31>
  %shl = shl <4 x i32> %x, %amt
  %ashr = ashr <4 x i32> %x, %amt
  %lshr = lshr <4 x i32> %x, %amt
  %c = icmp sgt <4 x i32> %x, %y
  %m = sext <4 x i1> %c to <4 x i32>
  %neg = icmp slt <4 x i32> %m, zeroinitializer
  %sel = select <4 x i1> %neg, <4 x i32> %shl, <4 x i32> %ashr
  %d = or <4 x i32> %y, <i32 1, i32 1, i32 1, i32 1>
  %q = sdiv <4 x i32> %x, %d
  %r = urem <4 x i32> %lshr, %d
  %s1 = add nsw <4 x i32> %sel, %q
  %s2 = xor <4 x i32> %s1, %r
  %sw = shufflevector <4 x i32> %s2, <4 x i32> %m, [7, 0, 5, 2]
  %t8 = trunc <4 x i32> %sw to <4 x i8>
  %back = sext <4 x i8> %t8 to <4 x i32>
  %res = sub <4 x i32> %back, %sw
  %po = getelementptr <4 x i32>, ptr<global> %out, i64 %gid
  store <4 x i32> %res, ptr<global> %po, align 16
  ret void
}
"""

FLOAT2 = HEAD + """
declare <2 x float> @ocl.sqrt.v2f32(<2 x float>)
declare <2 x float> @ocl.fmin.v2f32(<2 x float>, <2 x float>)
kernel void @k(ptr<global> %a, ptr<global> %b, ptr<global> %out) {
entry:
  %gid = call i64 @ocl.get_global_id(i32 0)
  %pa = getelementptr <2 x float>, ptr<global> %a, i64 %gid
  %pb = getelementptr <2 x float>, ptr<global> %b, i64 %gid
  %x = load <2 x float>, ptr<global> %pa, align 8
  %y = load <2 x float>, ptr<global> %pb, align 8
  %p = fmul <2 x float> %x, %y
  %n = fneg <2 x float> %p
  %r = call <2 x float> @ocl.sqrt.v2f32(<2 x float> %n)
  %u = fcmp uno <2 x float> %r, %r
  %f = call <2 x float> @ocl.fmin.v2f32(<2 x float> %r, <2 x float> %x)
  %z = select <2 x i1> %u, <2 x float> %p, <2 x float> %f
  %h = fptrunc <2 x float> %z to <2 x half>
  %e = fpext <2 x half> %h to <2 x float>
  %i = fptosi <2 x float> %x to <2 x i32>
  %g = sitofp <2 x i32> %i to <2 x float>
  %bits = bitcast <2 x float> %e to <2 x i32>
  %flip = xor <2 x i32> %bits, <i32 1, i32 0>
  %back = bitcast <2 x i32> %flip to <2 x float>
  %sum = fadd <2 x float> %back, %g
  %po = getelementptr <2 x float>, ptr<global> %out, i64 %gid
  store <2 x float> %sum, ptr<global> %po, align 8
  ret void
}
"""

# A vector phi in a loop, variable element indices, a 3-element vector in 4 slots.
LOOP3 = HEAD + """
kernel void @k(ptr<global> %a, ptr<global> %b, ptr<global> %out) {
entry:
  %gid = call i64 @ocl.get_global_id(i32 0)
  %pa = getelementptr <3 x float>, ptr<global> %a, i64 %gid
  %x = load <3 x float>, ptr<global> %pa, align 16
  %pb = getelementptr i32, ptr<global> %b, i64 %gid
  %n = load i32, ptr<global> %pb, align 4
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi <3 x float> [ zeroinitializer, %entry ], [ %acc2, %loop ]
  %acc1 = fadd <3 x float> %acc, %x
  %k = urem i32 %i, 3
  %e = extractelement <3 x float> %acc1, i32 %k
  %e2 = fmul float %e, 0.5
  %acc2 = insertelement <3 x float> %acc1, float %e2, i32 %k
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  condbr i1 %c, label %loop, label %exit
exit:
  %po = getelementptr <3 x float>, ptr<global> %out, i64 %gid
  store <3 x float> %acc2, ptr<global> %po, align 16
  ret void
}
"""


def _run(text: str, pipeline: str, inputs: list[np.ndarray], out: np.ndarray) -> np.ndarray:
    module = parse_module(text)
    if pipeline:
        run_pipeline(module, pipeline, verify_each=True)
    verify_module(module)
    program = compile_cpu(module)
    result = out.copy()
    run(program.kernels["k"], [*(a.copy() for a in inputs), result], (N,), (16,))
    return result


def _same_bits(text: str, inputs: list[np.ndarray], out: np.ndarray) -> np.ndarray:
    before = _run(text, "", inputs, out)
    after = _run(text, "scalarize-vectors", inputs, out)
    np.testing.assert_array_equal(before.view(np.uint8), after.view(np.uint8))
    return after


def test_int4_operations_keep_their_bits() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(-2**31, 2**31, (N, 4)).astype(np.int32)
    b = rng.integers(-2**31, 2**31, (N, 4)).astype(np.int32)
    b[:4] = 0  # shifts by 0 and divisors of 1
    out = _same_bits(INT4, [a, b], np.zeros((N, 4), np.int32))
    assert np.count_nonzero(out) > N  # the kernel computed something


def test_float2_operations_keep_their_bits() -> None:
    rng = np.random.default_rng(2)
    a = rng.uniform(-100, 100, (N, 2)).astype(np.float32)
    b = rng.uniform(-1, 1, (N, 2)).astype(np.float32)
    a[0] = [np.nan, np.inf]
    b[1] = [0.0, -0.0]
    out = _same_bits(FLOAT2, [a, b], np.zeros((N, 2), np.float32))
    assert np.isfinite(out[2:]).all()


def test_loops_dynamic_indices_and_float3_keep_their_bits() -> None:
    rng = np.random.default_rng(3)
    a = rng.random((N, 4), dtype=np.float32)
    n = rng.integers(1, 9, N).astype(np.int32)
    out = np.full((N, 4), 7.0, np.float32)
    got = _same_bits(LOOP3, [a, n], out)
    np.testing.assert_array_equal(got[:, 3], 7.0)  # the fourth slot of a float3 is not written


def test_the_pass_leaves_no_vector_arithmetic_in_these_kernels() -> None:
    for text in (INT4, FLOAT2, LOOP3):
        module = parse_module(text)
        run_pipeline(module, "scalarize-vectors", verify_each=True)
        kernel = module.kernels()[0]
        vectors = [i for i in kernel.instructions()
                   if isinstance(i.type, VectorType) or any(isinstance(v.type, VectorType)
                                                             for v in i.operands)]
        assert not vectors, vectors


def test_an_existing_scalar_declaration_of_another_type_keeps_the_vector_call() -> None:
    text = """
declare <2 x float> @ocl.sqrt.v2f32(<2 x float>)
declare double @ocl.sqrt.f32(double)
define <2 x float> @f(<2 x float> %x) {
entry:
  %r = call <2 x float> @ocl.sqrt.v2f32(<2 x float> %x)
  ret <2 x float> %r
}
"""
    module = parse_module(text)
    assert not run_pipeline(module, "scalarize-vectors", verify_each=True)
    assert "call <2 x float> @ocl.sqrt.v2f32" in print_module(module)


def test_element_align() -> None:
    v4 = VectorType(F32, 4)
    assert [element_align(16, v4, 4 * k) for k in range(4)] == [16, 4, 8, 4]
    assert [element_align(0, v4, 4 * k) for k in range(4)] == [16, 4, 8, 4]  # 0: the vector's size
    assert [element_align(4, v4, 4 * k) for k in range(4)] == [4, 4, 4, 4]
    assert element_align(2, VectorType(I32, 2), 4) == 2  # never more than the vector had
    assert element_align(0, VectorType(F32, 3), 8) == 8  # float3 is aligned like float4


def test_constant_element() -> None:
    v2 = VectorType(I32, 2)
    agg = ConstAggregate(v2, [ConstInt(I32, 5), ConstInt(I32, -1)])
    assert constant_element(agg, 1).signed() == -1  # type: ignore[union-attr]
    zero = constant_element(ConstZero(VectorType(F32, 2)), 1)
    assert isinstance(zero, ConstFloat) and zero.value == 0.0
    assert isinstance(constant_element(Undef(v2), 0), Undef)
    assert constant_element(Argument(v2, "a", 0), 0) is None


def test_runs_in_the_cpu_pipeline_before_form_workgroups_only() -> None:
    cpu = pipeline_names(TARGET_PIPELINES["cpu"])
    assert cpu.index("inline") < cpu.index("scalarize-vectors") < cpu.index("form-workgroups")
    assert "scalarize-vectors" not in pipeline_names(TARGET_PIPELINES["cuda"])


def test_bad_option_is_reported() -> None:
    with pytest.raises(ValueError, match="option 'max_elements' wants int, got 'many'"):
        run_pipeline(parse_module(""), "scalarize-vectors{max_elements=many}")


STEPS = """
declare i64 @ocl.get_global_id(i32)
declare i64 @ocl.get_local_size(i32)
define void @f(ptr<global> %p, i64 %n) {
entry:
  %x = call i64 @ocl.get_global_id(i32 0)
  %y = call i64 @ocl.get_global_id(i32 1)
  %size = call i64 @ocl.get_local_size(i32 0)
  %row = mul i64 %y, %n
  %i = add i64 %row, %x
  %twice = shl i64 %x, 1
  %back = sub i64 %n, %x
  %both = add i64 %x, %x
  %wrap = urem i64 %x, %size
  %pi = getelementptr i32, ptr<global> %p, i64 %i
  %k = load i32, ptr<global> %pi
  %pu = getelementptr i32, ptr<global> %p, i64 %n
  %u = load i32, ptr<global> %pu
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %j1, %loop ]
  %mixed = phi i64 [ 0, %entry ], [ %x, %loop ]
  %j1 = add i64 %j, 1
  %c = icmp slt i64 %j1, %n
  condbr i1 %c, label %loop, label %exit
exit:
  ret void
}
"""


def test_steps_along_x() -> None:
    from oclpy.passes.scalarize_policy import Step, StepAnalysis

    fn = parse_module(STEPS).get_function("f")
    assert fn is not None
    steps = StepAnalysis(fn)
    by_name = {i.name: steps.of(i) for i in fn.instructions() if i.name}
    want = {
        "x": Step.CONSECUTIVE, "y": Step.UNIFORM, "size": Step.UNIFORM, "row": Step.UNIFORM,
        "i": Step.CONSECUTIVE, "twice": Step.CONSECUTIVE, "back": Step.OTHER,
        "both": Step.OTHER, "wrap": Step.OTHER, "pi": Step.CONSECUTIVE, "k": Step.OTHER,
        "pu": Step.UNIFORM, "u": Step.UNIFORM, "j": Step.UNIFORM, "j1": Step.UNIFORM,
        "mixed": Step.OTHER,
    }
    assert {name: by_name[name] for name in want} == want


def _worth(src: str) -> bool:
    from oclpy.compiler import frontend_for, optimize
    from oclpy.passes.scalarize_policy import worth_splitting

    module = frontend_for(src, "", "<k>").module
    optimize(module, 2, "cuda")  # inlined, vectors left whole
    return worth_splitting(next(f for f in module.kernels() if not f.is_declaration))


def test_policy_splits_a_tile_with_halo_stores_and_keeps_gathers_whole() -> None:
    tile = """__kernel void k(__global const float4 *in, __global float4 *out) {
        __local float4 tile[66];
        int l = get_local_id(0), g = get_global_id(0);
        tile[l + 1] = in[g];
        if (l == 0) tile[0] = in[max(g - 1, 0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        out[g] = tile[l] + tile[l + 1];
    }"""
    gather = """__kernel void k(__global const float4 *in, __global const int *idx,
                                __global float4 *out) {
        int g = get_global_id(0);
        out[g] = in[idx[g]] * 2.0f;
    }"""
    assert _worth(tile)
    assert not _worth(gather)
