"""Kernels with barriers on the cpu target (form-workgroups + the round-based launcher)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tools.cpu_harness import compile_text, pack, run
from oclpy.ir.parser import parse_module
from oclpy.passes.manager import PassError, run_pipeline
from oclpy.targets.llvm.emit_types import EmitError
from oclpy.targets.llvm.cpu.cpu_target import compile_cpu

DECLS = """
declare i64 @ocl.get_global_id(i32)
declare i64 @ocl.get_local_id(i32)
declare i64 @ocl.get_local_size(i32)
declare i64 @ocl.get_group_id(i32)
declare void @ocl.barrier(i32)
"""

# Tree reduction in __local memory: the barrier sits inside the loop, after an if.
REDUCE = DECLS + """
@reduce.tmp = addrspace(local) global [64 x float], align 4

kernel void @reduce(ptr<global> %in, ptr<global> %out) {
entry:
  %gid = call i64 @ocl.get_global_id(i32 0)
  %lid = call i64 @ocl.get_local_id(i32 0)
  %ls = call i64 @ocl.get_local_size(i32 0)
  %p = getelementptr float, ptr<global> %in, i64 %gid
  %v = load float, ptr<global> %p
  %t = getelementptr [64 x float], ptr<local> @reduce.tmp, i64 0, i64 %lid
  store float %v, ptr<local> %t
  call void @ocl.barrier(i32 1)
  %s0 = lshr i64 %ls, 1
  br label %loop
loop:
  %s = phi i64 [%s0, %entry], [%s1, %next]
  %more = icmp ugt i64 %s, 0
  condbr i1 %more, label %body, label %done
body:
  %act = icmp ult i64 %lid, %s
  condbr i1 %act, label %add, label %sync
add:
  %j = add i64 %lid, %s
  %q = getelementptr [64 x float], ptr<local> @reduce.tmp, i64 0, i64 %j
  %a = load float, ptr<local> %t
  %b = load float, ptr<local> %q
  %c = fadd float %a, %b
  store float %c, ptr<local> %t
  br label %sync
sync:
  call void @ocl.barrier(i32 1)
  br label %next
next:
  %s1 = lshr i64 %s, 1
  br label %loop
done:
  %first = icmp eq i64 %lid, 0
  condbr i1 %first, label %write, label %exit
write:
  %g = call i64 @ocl.get_group_id(i32 0)
  %o = getelementptr float, ptr<global> %out, i64 %g
  %r = load float, ptr<local> %t
  store float %r, ptr<global> %o
  br label %exit
exit:
  ret void
}
"""


@pytest.mark.parametrize("local", [64, 32, 8, 1])
def test_local_reduction_with_barriers_in_a_loop(local: int) -> None:
    k = compile_text(REDUCE).kernels["reduce"]
    assert k.frame_size > 0 and k.static_local_bytes == 256
    n = 2048
    a = np.random.rand(n).astype(np.float32)
    out = np.zeros(n // local, np.float32)
    run(k, [a, out], (n,), (local,))
    np.testing.assert_allclose(out, a.reshape(-1, local).sum(axis=1), rtol=1e-5)


def test_reduction_from_two_threads_at_once() -> None:
    k = compile_text(REDUCE).kernels["reduce"]
    n, local = 1 << 16, 64
    a = np.random.rand(n).astype(np.float32)
    out = np.zeros(n // local, np.float32)
    blob = pack(k, a, out)
    groups = n // local
    threads = [threading.Thread(target=k.launch, args=(blob, 1, (n, 1, 1), (local, 1, 1),
                                                       (0, 0, 0), g0, g1))
               for g0, g1 in ((0, groups // 2), (groups // 2, groups))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(out, a.reshape(-1, local).sum(axis=1), rtol=1e-5)


# A barrier inside an if that every work-item takes (the condition is an argument),
# a private array (alloca) and a loop-carried value that both live across it.
UNIFORM_IF = DECLS + """
@shift.tile = addrspace(local) global [16 x i32], align 4

kernel void @shift(ptr<global> %a, i32 %flag) {
entry:
  %priv = alloca [4 x i32], align 4
  %lid = call i64 @ocl.get_local_id(i32 0)
  %gid = call i64 @ocl.get_global_id(i32 0)
  %ls = call i64 @ocl.get_local_size(i32 0)
  %p = getelementptr i32, ptr<global> %a, i64 %gid
  %v = load i32, ptr<global> %p
  %pv = getelementptr [4 x i32], ptr<private> %priv, i64 0, i64 3
  %v2 = mul i32 %v, 2
  store i32 %v2, ptr<private> %pv
  %on = icmp ne i32 %flag, 0
  condbr i1 %on, label %then, label %join
then:
  %t = getelementptr [16 x i32], ptr<local> @shift.tile, i64 0, i64 %lid
  store i32 %v, ptr<local> %t
  call void @ocl.barrier(i32 1)
  %l1 = add i64 %lid, 1
  %ls1 = sub i64 %ls, 1
  %wrap = and i64 %l1, %ls1
  %q = getelementptr [16 x i32], ptr<local> @shift.tile, i64 0, i64 %wrap
  %nb = load i32, ptr<local> %q
  br label %join
join:
  %r = phi i32 [%v, %entry], [%nb, %then]
  %kept = load i32, ptr<private> %pv
  %sum = add i32 %r, %kept
  store i32 %sum, ptr<global> %p
  ret void
}
"""


@pytest.mark.parametrize("flag", [0, 1])
def test_barrier_inside_a_uniform_if(flag: int) -> None:
    k = compile_text(UNIFORM_IF).kernels["shift"]
    a = np.arange(64, dtype=np.int32) * 3
    orig = a.copy()
    run(k, [a, np.int32(flag)], (64,), (16,))
    if flag:
        neighbour = np.roll(orig.reshape(4, 16), -1, axis=1).reshape(-1)
        np.testing.assert_array_equal(a, neighbour + 2 * orig)
    else:
        np.testing.assert_array_equal(a, 3 * orig)


# Two barriers in sequence in straight-line code, 2-D groups, values carried over both.
TWO_D = DECLS + """
@t2.tile = addrspace(local) global [4 x [4 x i32]], align 4

kernel void @t2(ptr<global> %a) {
entry:
  %x = call i64 @ocl.get_local_id(i32 0)
  %y = call i64 @ocl.get_local_id(i32 1)
  %gx = call i64 @ocl.get_global_id(i32 0)
  %gy = call i64 @ocl.get_global_id(i32 1)
  %row = mul i64 %gy, 8
  %idx = add i64 %row, %gx
  %p = getelementptr i32, ptr<global> %a, i64 %idx
  %v = load i32, ptr<global> %p
  %t = getelementptr [4 x [4 x i32]], ptr<local> @t2.tile, i64 0, i64 %y, i64 %x
  store i32 %v, ptr<local> %t
  call void @ocl.barrier(i32 1)
  %tt = getelementptr [4 x [4 x i32]], ptr<local> @t2.tile, i64 0, i64 %x, i64 %y
  %w = load i32, ptr<local> %tt
  call void @ocl.barrier(i32 1)
  store i32 %w, ptr<local> %t
  call void @ocl.barrier(i32 1)
  %z = load i32, ptr<local> %tt
  %s = add i32 %z, %v
  store i32 %s, ptr<global> %p
  ret void
}
"""


def test_three_barriers_in_two_dimensions() -> None:
    k = compile_text(TWO_D).kernels["t2"]
    a = np.arange(64, dtype=np.int32).reshape(8, 8)
    orig = a.copy()
    run(k, [a], (8, 8), (4, 4))
    np.testing.assert_array_equal(a, 2 * orig)  # transposed twice, plus itself


HELPER_BARRIER = DECLS + """
define void @sync() {
entry:
  call void @ocl.barrier(i32 1)
  ret void
}

kernel void @k(ptr<global> %a) {
entry:
  call void @sync()
  ret void
}
"""


def test_barrier_in_a_called_helper_is_an_error() -> None:
    with pytest.raises(PassError, match=r"pass 'form-workgroups': kernel @k calls @sync, "
                                        r"which contains a barrier: run 'inline' first"):
        run_pipeline(parse_module(HELPER_BARRIER), "form-workgroups")


def test_the_cpu_target_forms_no_work_groups_itself() -> None:
    """form-workgroups runs once, from the pipeline: a barrier left is an emit error."""
    with pytest.raises(EmitError, match="@sync: ocl.barrier left after form-workgroups"):
        compile_cpu(parse_module(HELPER_BARRIER))


# Every kind of private state a work-item keeps across barriers, in a 3-D
# work-group (frame slots are laid out slot by slot, indexed by the linear id):
# a private array indexed at run time, a struct, a float4, a bool, a double.
KEEPS_STATE = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { int a; float b; } Pair;
__kernel void k(__global const int *x, __global float *out, __local int *scratch) {
    int l = get_local_linear_id(), g = get_global_linear_id();
    int arr[5];
    for (int i = 0; i < 5; ++i) arr[i] = x[g] * (i + 1);
    Pair p = {x[g] + 1, 0.5f * (float)x[g]};
    float4 v = (float4)((float)l, 1.0f, (float)x[g], -2.0f);
    bool odd = (x[g] & 1) != 0;
    double d = (double)x[g] / 3.0;
    scratch[l] = x[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int n = (int)(get_local_size(0) * get_local_size(1) * get_local_size(2));
    int other = scratch[(l + 1) % n];
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[l] = other;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = (float)(arr[(other & 3) + 1] + p.a) + p.b + v.x + v.z + v.w
             + (odd ? 100.0f : 0.0f) + (float)d + (float)scratch[l];
}
"""


def test_private_state_of_every_kind_survives_barriers_in_3d() -> None:
    from oclpy.compiler import compile_program

    gsize, lsize = (4, 6, 4), (2, 3, 2)
    n = int(np.prod(gsize))
    x = np.random.default_rng(3).integers(-40, 40, n).astype(np.int32)
    out = np.zeros(n, np.float32)
    kernel = compile_program(KEEPS_STATE, "-cl-std=CL2.0").program.kernels["k"]  # the linear ids
    run(kernel, [x, out, 4 * int(np.prod(lsize))], gsize, lsize)
    want = np.zeros(n)
    for g in range(n):
        gx, gy, gz = g % 4, g // 4 % 6, g // 24
        l = gx % 2 + 2 * (gy % 3 + 3 * (gz % 2))
        group = [gi for gi in range(n) if (gi % 4) // 2 == gx // 2 and (gi // 4 % 6) // 3 == gy // 3
                 and (gi // 24) // 2 == gz // 2]
        by_l = {(gi % 4) % 2 + 2 * ((gi // 4 % 6) % 3 + 3 * ((gi // 24) % 2)): gi for gi in group}
        other = int(x[by_l[(l + 1) % 12]])
        want[g] = (x[g] * ((other & 3) + 2) + x[g] + 1 + 0.5 * x[g] + l + x[g] - 2
                   + (100 if x[g] & 1 else 0) + x[g] / 3.0 + other)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-3)
