"""SPIR-V kernels run on the device under test (cpu by default), checked against NumPy.

The kernels are LLVM IR written as clang writes OpenCL C, turned into SPIR-V
by LLVM's SPIR-V backend (llvmlite), then built with `Program(ctx, spirv)`:
our reader, our passes, our cpu target.
"""

from __future__ import annotations

import numpy as np
import oclpy as cl
from tests.frontend.spirv.spirv_helpers import from_llvm

WORK_ITEMS = """
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i64 @_Z12get_local_idj(i32)
declare spir_func i64 @_Z12get_group_idj(i32)
declare spir_func i64 @_Z14get_local_sizej(i32)
declare spir_func void @_Z7barrierj(i32)
"""

INTS = WORK_ITEMS + """
declare spir_func i32 @_Z3maxii(i32, i32)
declare spir_func i32 @_Z3absi(i32)
declare spir_func i32 @_Z8popcountj(i32)
declare spir_func i32 @_Z6mul_hijj(i32, i32)
declare spir_func i32 @_Z5clampiii(i32, i32, i32)
declare spir_func i32 @_Z10atomic_addPU3AS1Vii(ptr addrspace(1), i32)
define spir_kernel void @ints(ptr addrspace(1) %a, ptr addrspace(1) %out, ptr addrspace(1) %cnt) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %a, i64 %g
  %x = load i32, ptr addrspace(1) %p
  %m = call spir_func i32 @_Z3maxii(i32 %x, i32 3)
  %ab = call spir_func i32 @_Z3absi(i32 %x)
  %pc = call spir_func i32 @_Z8popcountj(i32 %x)
  %mh = call spir_func i32 @_Z6mul_hijj(i32 %x, i32 %x)
  %cl = call spir_func i32 @_Z5clampiii(i32 %x, i32 -5, i32 5)
  %q = getelementptr [5 x i32], ptr addrspace(1) %out, i64 %g
  store i32 %m, ptr addrspace(1) %q
  %q1 = getelementptr i32, ptr addrspace(1) %q, i64 1
  store i32 %ab, ptr addrspace(1) %q1
  %q2 = getelementptr i32, ptr addrspace(1) %q, i64 2
  store i32 %pc, ptr addrspace(1) %q2
  %q3 = getelementptr i32, ptr addrspace(1) %q, i64 3
  store i32 %mh, ptr addrspace(1) %q3
  %q4 = getelementptr i32, ptr addrspace(1) %q, i64 4
  store i32 %cl, ptr addrspace(1) %q4
  %old = call spir_func i32 @_Z10atomic_addPU3AS1Vii(ptr addrspace(1) %cnt, i32 %x)
  ret void
}
"""

FLOATS = WORK_ITEMS + """
declare spir_func float @_Z4sqrtf(float)
declare spir_func float @_Z3powff(float, float)
declare spir_func float @_Z3sinf(float)
declare spir_func float @_Z4fmaxff(float, float)
declare spir_func i32 @_Z15convert_int_rtef(float)
declare spir_func i8 @_Z20convert_char_sat_rtei(i32)
define spir_kernel void @floats(ptr addrspace(1) %a, ptr addrspace(1) %out, ptr addrspace(1) %iout, ptr addrspace(1) %cout) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr float, ptr addrspace(1) %a, i64 %g
  %x = load float, ptr addrspace(1) %p
  %s = call spir_func float @_Z4sqrtf(float %x)
  %w = call spir_func float @_Z3powff(float %x, float 1.5)
  %n = call spir_func float @_Z3sinf(float %x)
  %f = call spir_func float @_Z4fmaxff(float %s, float %w)
  %t = fadd float %f, %n
  %q = getelementptr float, ptr addrspace(1) %out, i64 %g
  store float %t, ptr addrspace(1) %q
  %r = fmul float %x, 100.0
  %i = call spir_func i32 @_Z15convert_int_rtef(float %r)
  %qi = getelementptr i32, ptr addrspace(1) %iout, i64 %g
  store i32 %i, ptr addrspace(1) %qi
  %c = call spir_func i8 @_Z20convert_char_sat_rtei(i32 %i)
  %qc = getelementptr i8, ptr addrspace(1) %cout, i64 %g
  store i8 %c, ptr addrspace(1) %qc
  ret void
}
"""

# Work-group sum through __local memory: a loop with phis, a barrier inside it, a branch.
REDUCE = WORK_ITEMS + """
@reduce.tile = internal addrspace(3) global [64 x float] undef, align 4
define spir_kernel void @reduce(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %l = call spir_func i64 @_Z12get_local_idj(i32 0)
  %grp = call spir_func i64 @_Z12get_group_idj(i32 0)
  %p = getelementptr float, ptr addrspace(1) %in, i64 %g
  %x = load float, ptr addrspace(1) %p
  %slot = getelementptr [64 x float], ptr addrspace(3) @reduce.tile, i64 0, i64 %l
  store float %x, ptr addrspace(3) %slot
  call spir_func void @_Z7barrierj(i32 1)
  br label %loop
loop:
  %s = phi i64 [ 32, %entry ], [ %s2, %next ]
  %active = icmp ult i64 %l, %s
  br i1 %active, label %add, label %next
add:
  %o = add i64 %l, %s
  %other = getelementptr [64 x float], ptr addrspace(3) @reduce.tile, i64 0, i64 %o
  %y = load float, ptr addrspace(3) %other
  %mine = load float, ptr addrspace(3) %slot
  %sum = fadd float %mine, %y
  store float %sum, ptr addrspace(3) %slot
  br label %next
next:
  call spir_func void @_Z7barrierj(i32 1)
  %s2 = lshr i64 %s, 1
  %more = icmp ne i64 %s2, 0
  br i1 %more, label %loop, label %done
done:
  %first = icmp eq i64 %l, 0
  br i1 %first, label %write, label %exit
write:
  %t = load float, ptr addrspace(3) @reduce.tile
  %q = getelementptr float, ptr addrspace(1) %out, i64 %grp
  store float %t, ptr addrspace(1) %q
  br label %exit
exit:
  ret void
}
"""

# A by-value struct argument, a constant table, a switch, a helper function and vectors.
MIXED = WORK_ITEMS + """
%struct.P = type { i32, float }
@table = internal addrspace(2) constant [4 x float] [float 1.0, float 2.0, float 4.0, float 8.0], align 4
define internal spir_func float @pick(i32 %k) {
  switch i32 %k, label %other [ i32 0, label %zero
                                i32 1, label %one ]
zero:
  ret float 10.0
one:
  ret float 20.0
other:
  %i = and i32 %k, 3
  %p = getelementptr [4 x float], ptr addrspace(2) @table, i32 0, i32 %i
  %v = load float, ptr addrspace(2) %p
  ret float %v
}
define spir_kernel void @mixed(ptr addrspace(1) %out, ptr addrspace(1) %vout, ptr byval(%struct.P) %s) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %gi = trunc i64 %g to i32
  %f = call spir_func float @pick(i32 %gi)
  %bp = getelementptr %struct.P, ptr %s, i32 0, i32 1
  %b = load float, ptr %bp
  %ap = getelementptr %struct.P, ptr %s, i32 0, i32 0
  %a = load i32, ptr %ap
  %af = sitofp i32 %a to float
  %r1 = fmul float %f, %b
  %r = fadd float %r1, %af
  %q = getelementptr float, ptr addrspace(1) %out, i64 %g
  store float %r, ptr addrspace(1) %q
  %v0 = insertelement <4 x float> undef, float %r, i32 0
  %v1 = shufflevector <4 x float> %v0, <4 x float> undef, <4 x i32> zeroinitializer
  %v2 = fadd <4 x float> %v1, <float 0.0, float 1.0, float 2.0, float 3.0>
  %vq = getelementptr <4 x float>, ptr addrspace(1) %vout, i64 %g
  store <4 x float> %v2, ptr addrspace(1) %vq, align 16
  ret void
}
"""


# vload4/vstore4, shuffle, dot, a saturating conversion rounding down, memcpy into a private
# array, a generic pointer and to_global, atomic_cmpxchg and atomic_inc (which LLVM's backend
# leaves as a call to the mangled builtin).
MISC = WORK_ITEMS + """
declare spir_func <4 x float> @_Z6vload4mPU3AS1Kf(i64, ptr addrspace(1))
declare spir_func void @_Z7vstore4Dv4_fmPU3AS1f(<4 x float>, i64, ptr addrspace(1))
declare spir_func i32 @_Z19convert_int_sat_rtnf(float)
declare spir_func i32 @_Z14atomic_cmpxchgPU3AS1Viii(ptr addrspace(1), i32, i32)
declare spir_func i32 @_Z10atomic_incPU3AS1Vi(ptr addrspace(1))
declare spir_func ptr addrspace(1) @_Z9to_globalPv(ptr addrspace(4))
declare void @llvm.memcpy.p0.p1.i64(ptr, ptr addrspace(1), i64, i1)
declare spir_func <4 x float> @_Z7shuffleDv4_fDv4_j(<4 x float>, <4 x i32>)
declare spir_func float @_Z3dotDv4_fS_(<4 x float>, <4 x float>)
define spir_kernel void @misc(ptr addrspace(1) %f, ptr addrspace(1) %i, ptr addrspace(1) %c) {
entry:
  %arr = alloca [4 x i32], align 4
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %v = call spir_func <4 x float> @_Z6vload4mPU3AS1Kf(i64 %g, ptr addrspace(1) %f)
  %sh = call spir_func <4 x float> @_Z7shuffleDv4_fDv4_j(<4 x float> %v, <4 x i32> <i32 3, i32 2, i32 1, i32 0>)
  %d = call spir_func float @_Z3dotDv4_fS_(<4 x float> %v, <4 x float> %sh)
  %v2 = fmul <4 x float> %sh, <float 2.0, float 2.0, float 2.0, float 2.0>
  call spir_func void @_Z7vstore4Dv4_fmPU3AS1f(<4 x float> %v2, i64 %g, ptr addrspace(1) %f)
  %e = extractelement <4 x float> %v, i32 1
  %fm = frem float %e, 0.75
  %n = call spir_func i32 @_Z19convert_int_sat_rtnf(float %d)
  %gi = trunc i64 %g to i32
  %r = srem i32 %n, 3
  call void @llvm.memcpy.p0.p1.i64(ptr %arr, ptr addrspace(1) %i, i64 16, i1 false)
  %ap = getelementptr [4 x i32], ptr %arr, i32 0, i32 %r
  %av = load i32, ptr %ap
  %gen = addrspacecast ptr addrspace(1) %c to ptr addrspace(4)
  %back = call spir_func ptr addrspace(1) @_Z9to_globalPv(ptr addrspace(4) %gen)
  %old = call spir_func i32 @_Z14atomic_cmpxchgPU3AS1Viii(ptr addrspace(1) %back, i32 0, i32 %av)
  %inc = call spir_func i32 @_Z10atomic_incPU3AS1Vi(ptr addrspace(1) %c)
  ret void
}
"""


def _buffers(ctx, *arrays):
    mf = cl.mem_flags
    return [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in arrays]


def _read(queue, buf, like):
    out = np.empty_like(like)
    cl.enqueue_copy(queue, out, buf)
    return out


def test_integer_builtins_and_global_atomics(ctx, queue):
    a = np.arange(-20, 44, dtype=np.int32) * 7919
    out, cnt = np.zeros((64, 5), np.int32), np.zeros(1, np.int32)
    bufs = _buffers(ctx, a, out, cnt)
    cl.Program(ctx, from_llvm(INTS)).build().ints(queue, (64,), (16,), *bufs)
    got, total = _read(queue, bufs[1], out), _read(queue, bufs[2], cnt)
    u = a.astype(np.uint32).astype(np.uint64)
    want = np.stack([np.maximum(a, 3), np.abs(a),
                     [bin(int(v) & 0xFFFFFFFF).count("1") for v in a],
                     ((u * u) >> 32).astype(np.uint32).view(np.int32),
                     np.clip(a, -5, 5)], axis=1)
    np.testing.assert_array_equal(got, want)
    assert total[0] == a.sum(dtype=np.int32)


def test_math_and_conversions(ctx, queue):
    a = np.linspace(0.0, 3.0, 64, dtype=np.float32)
    out, iout, cout = np.zeros(64, np.float32), np.zeros(64, np.int32), np.zeros(64, np.int8)
    bufs = _buffers(ctx, a, out, iout, cout)
    cl.Program(ctx, from_llvm(FLOATS)).build().floats(queue, (64,), None, *bufs)
    want = np.maximum(np.sqrt(a), a ** 1.5) + np.sin(a)
    np.testing.assert_allclose(_read(queue, bufs[1], out), want, rtol=1e-5)
    rounded = np.rint(a * np.float32(100)).astype(np.int32)
    np.testing.assert_array_equal(_read(queue, bufs[2], iout), rounded)
    np.testing.assert_array_equal(_read(queue, bufs[3], cout), np.clip(rounded, -128, 127))


def test_local_memory_reduction_with_barriers(ctx, queue):
    data = np.random.default_rng(1).random(256).astype(np.float32)
    out = np.zeros(4, np.float32)
    bufs = _buffers(ctx, data, out)
    cl.Program(ctx, from_llvm(REDUCE)).build().reduce(queue, (256,), (64,), *bufs)
    np.testing.assert_allclose(_read(queue, bufs[1], out), data.reshape(4, 64).sum(axis=1), rtol=1e-5)


def test_struct_by_value_constant_table_switch_and_vectors(ctx, queue):
    out, vout = np.zeros(8, np.float32), np.zeros((8, 4), np.float32)
    bufs = _buffers(ctx, out, vout)
    s = np.zeros(1, dtype=[("a", np.int32), ("b", np.float32)])
    s["a"], s["b"] = 5, 0.5
    prg = cl.Program(ctx, from_llvm(MIXED)).build()
    prg.mixed(queue, (8,), None, bufs[0], bufs[1], s)
    picks = np.array([10, 20, 4, 8, 1, 2, 4, 8], np.float32)
    want = picks * 0.5 + 5
    np.testing.assert_allclose(_read(queue, bufs[0], out), want)
    np.testing.assert_allclose(_read(queue, bufs[1], vout), want[:, None] + np.arange(4))


def test_vectors_memcpy_generic_pointers_and_mangled_builtins(ctx, queue):
    f = np.linspace(0.5, 2.0, 16, dtype=np.float32)
    ints, counter = np.full(4, 5, np.int32), np.zeros(1, np.int32)
    bufs = _buffers(ctx, f, ints, counter)
    cl.Program(ctx, from_llvm(MISC)).build().misc(queue, (4,), None, *bufs)
    v = f.reshape(4, 4)
    np.testing.assert_allclose(_read(queue, bufs[0], f).reshape(4, 4), v[:, ::-1] * 2)
    assert _read(queue, bufs[2], counter)[0] == 5 + 4


PRINTF = """
@.str = private unnamed_addr addrspace(2) constant [13 x i8] c"v=%d f=%v2f\\0A\\00", align 1
declare spir_func i32 @printf(ptr addrspace(2), ...)
define spir_kernel void @p(i32 %x) {
  %r = call spir_func i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.str, i32 %x, <2 x float> <float 1.0, float 2.5>)
  ret void
}
"""


def test_printf_with_a_vector_conversion(ctx, queue, capfd):
    cl.Program(ctx, from_llvm(PRINTF)).build().p(queue, (2,), None, np.int32(42))
    queue.finish()
    assert capfd.readouterr().out.count("v=42 f=1.000000,2.500000\n") == 2


# vload_half, vstore_half_rtz, vload_half4 and a vector select.
HALVES = WORK_ITEMS + """
declare spir_func float @_Z10vload_halfmPU3AS1KDh(i64, ptr addrspace(1))
declare spir_func void @_Z15vstore_half_rtzfmPU3AS1Dh(float, i64, ptr addrspace(1))
declare spir_func <4 x float> @_Z11vload_half4mPU3AS1KDh(i64, ptr addrspace(1))
declare spir_func <4 x i32> @_Z6selectDv4_iS_S_(<4 x i32>, <4 x i32>, <4 x i32>)
define spir_kernel void @h(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %v4) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %x = call spir_func float @_Z10vload_halfmPU3AS1KDh(i64 %g, ptr addrspace(1) %in)
  %y = fmul float %x, 3.0
  call spir_func void @_Z15vstore_half_rtzfmPU3AS1Dh(float %y, i64 %g, ptr addrspace(1) %out)
  %v = call spir_func <4 x float> @_Z11vload_half4mPU3AS1KDh(i64 0, ptr addrspace(1) %in)
  %vi = fptosi <4 x float> %v to <4 x i32>
  %s = call spir_func <4 x i32> @_Z6selectDv4_iS_S_(<4 x i32> %vi, <4 x i32> <i32 9, i32 9, i32 9, i32 9>, <4 x i32> <i32 -1, i32 0, i32 -1, i32 0>)
  %q = getelementptr <4 x i32>, ptr addrspace(1) %v4, i64 %g
  store <4 x i32> %s, ptr addrspace(1) %q
  ret void
}
"""


def test_half_loads_stores_and_vector_select(ctx, queue):
    halves = np.array([1.5, 2.25, 3.0, 4.0], np.float16)
    out, v4 = np.zeros(4, np.float16), np.zeros((4, 4), np.int32)
    bufs = _buffers(ctx, halves, out, v4)
    cl.Program(ctx, from_llvm(HALVES)).build().h(queue, (4,), None, *bufs)
    np.testing.assert_array_equal(_read(queue, bufs[1], out), halves * 3)
    np.testing.assert_array_equal(_read(queue, bufs[2], v4), [[9, 2, 9, 4]] * 4)


# A helper taking a struct by value (FuncParamAttr ByVal) changes its own copy only.
BYVAL_HELPER = """
%struct.P = type { i32, i32 }
define internal spir_func i32 @bump(ptr byval(%struct.P) %p) {
  %a = getelementptr %struct.P, ptr %p, i32 0, i32 0
  %v = load i32, ptr %a
  %w = add i32 %v, 100
  store i32 %w, ptr %a
  ret i32 %w
}
define spir_kernel void @k(ptr addrspace(1) %out) {
  %s = alloca %struct.P
  %a = getelementptr %struct.P, ptr %s, i32 0, i32 0
  store i32 5, ptr %a
  %r = call spir_func i32 @bump(ptr byval(%struct.P) %s)
  %v = load i32, ptr %a
  store i32 %r, ptr addrspace(1) %out
  %o1 = getelementptr i32, ptr addrspace(1) %out, i64 1
  store i32 %v, ptr addrspace(1) %o1
  ret void
}
"""


def test_by_value_struct_to_a_helper_is_copied(ctx, queue):
    out = np.zeros(2, np.int32)
    bufs = _buffers(ctx, out)
    cl.Program(ctx, from_llvm(BYVAL_HELPER)).build().k(queue, (1,), None, *bufs)
    np.testing.assert_array_equal(_read(queue, bufs[0], out), [105, 5])


# A kernel calling another kernel (OpFunctionCall names the entry point): the callee also
# gets a callable twin, `inner.body`.
KERNEL_CALLS = """
define spir_kernel void @inner(ptr addrspace(1) %p, i32 %v) {
  %old = load i32, ptr addrspace(1) %p
  %new = add i32 %old, %v
  store i32 %new, ptr addrspace(1) %p
  ret void
}
define spir_kernel void @outer(ptr addrspace(1) %p) {
  call spir_kernel void @inner(ptr addrspace(1) %p, i32 5)
  call spir_kernel void @inner(ptr addrspace(1) %p, i32 30)
  ret void
}
"""


def test_a_kernel_calling_a_kernel(ctx, queue):
    out = np.array([1], np.int32)
    bufs = _buffers(ctx, out)
    prg = cl.Program(ctx, from_llvm(KERNEL_CALLS)).build()
    assert sorted(prg.kernel_names.split(";")) == ["inner", "outer"]
    prg.outer(queue, (1,), None, *bufs)
    prg.inner(queue, (1,), None, bufs[0], np.int32(100))
    np.testing.assert_array_equal(_read(queue, bufs[0], out), [136])


# get_fence on generic pointers (LLVM leaves it as a call to the mangled builtin).
FENCES = """
@k.tile = internal addrspace(3) global [4 x i32] undef, align 4
declare spir_func i32 @_Z9get_fencePv(ptr addrspace(4))
define spir_kernel void @k(ptr addrspace(1) %out) {
  %gl = addrspacecast ptr addrspace(1) %out to ptr addrspace(4)
  %lo = addrspacecast ptr addrspace(3) @k.tile to ptr addrspace(4)
  %a = call spir_func i32 @_Z9get_fencePv(ptr addrspace(4) %gl)
  %b = call spir_func i32 @_Z9get_fencePv(ptr addrspace(4) %lo)
  store i32 %a, ptr addrspace(1) %out
  %o1 = getelementptr i32, ptr addrspace(1) %out, i64 1
  store i32 %b, ptr addrspace(1) %o1
  ret void
}
"""


def test_get_fence_of_generic_pointers(ctx, queue):
    out = np.zeros(2, np.int32)
    bufs = _buffers(ctx, out)
    cl.Program(ctx, from_llvm(FENCES)).build().k(queue, (1,), None, *bufs)
    np.testing.assert_array_equal(_read(queue, bufs[0], out), [2, 1])  # CLK_GLOBAL, CLK_LOCAL


# LLVM atomics on global and local memory with several orderings, cmpxchg, atomic load/store.
ATOMICS = WORK_ITEMS + """
@k.counter = internal addrspace(3) global i32 undef, align 4
define spir_kernel void @k(ptr addrspace(1) %o) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %l = call spir_func i64 @_Z12get_local_idj(i32 0)
  %v = trunc i64 %g to i32
  %first = icmp eq i64 %l, 0
  br i1 %first, label %init, label %go
init:
  store i32 0, ptr addrspace(3) @k.counter
  br label %go
go:
  call spir_func void @_Z7barrierj(i32 1)
  %p1 = getelementptr i32, ptr addrspace(1) %o, i64 1
  %p2 = getelementptr i32, ptr addrspace(1) %o, i64 2
  %p3 = getelementptr i32, ptr addrspace(1) %o, i64 3
  %p4 = getelementptr i32, ptr addrspace(1) %o, i64 4
  %p5 = getelementptr i32, ptr addrspace(1) %o, i64 5
  %p6 = getelementptr i32, ptr addrspace(1) %o, i64 6
  %p7 = getelementptr i32, ptr addrspace(1) %o, i64 7
  %a0 = atomicrmw add ptr addrspace(1) %o, i32 %v seq_cst
  %a1 = atomicrmw sub ptr addrspace(1) %p1, i32 %v monotonic
  %a2 = atomicrmw max ptr addrspace(1) %p2, i32 %v acq_rel
  %neg = sub i32 0, %v
  %a3 = atomicrmw min ptr addrspace(1) %p3, i32 %neg monotonic
  %a4 = atomicrmw umax ptr addrspace(1) %p4, i32 %v monotonic
  %bit = shl i32 1, %v
  %a5 = atomicrmw or ptr addrspace(1) %p5, i32 %bit monotonic
  %a6 = atomicrmw xor ptr addrspace(1) %p6, i32 %bit monotonic
  %c = cmpxchg ptr addrspace(1) %p7, i32 0, i32 77 seq_cst seq_cst
  %a8 = atomicrmw add ptr addrspace(3) @k.counter, i32 1 monotonic
  call spir_func void @_Z7barrierj(i32 1)
  br i1 %first, label %out, label %done
out:
  %n = load atomic i32, ptr addrspace(3) @k.counter monotonic, align 4
  %grp = udiv i64 %g, 4
  %slot = add i64 %grp, 8
  %p = getelementptr i32, ptr addrspace(1) %o, i64 %slot
  store atomic i32 %n, ptr addrspace(1) %p monotonic, align 4
  br label %done
done:
  ret void
}
"""


def test_atomics_on_global_and_local_memory(ctx, queue):
    out = np.zeros(10, np.int32)
    bufs = _buffers(ctx, out)
    cl.Program(ctx, from_llvm(ATOMICS)).build().k(queue, (8,), (4,), *bufs)
    np.testing.assert_array_equal(_read(queue, bufs[0], out), [28, -28, 7, -7, 7, 255, 255, 77, 4, 4])


# async_work_group_copy into __local memory and wait_group_events (OpGroupAsyncCopy, OpGroupWaitEvents).
ASYNC_COPY = WORK_ITEMS + """
declare spir_func ptr @_Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event(ptr addrspace(3), ptr addrspace(1), i64, ptr)
declare spir_func void @_Z17wait_group_eventsiP9ocl_event(i32, ptr)
@k.tile = internal addrspace(3) global [8 x float] undef, align 4
define spir_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out) {
  %ev = alloca ptr
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %l = call spir_func i64 @_Z12get_local_idj(i32 0)
  %grp = and i64 %g, -8
  %src = getelementptr float, ptr addrspace(1) %in, i64 %grp
  %e = call spir_func ptr @_Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event(ptr addrspace(3) @k.tile, ptr addrspace(1) %src, i64 8, ptr null)
  store ptr %e, ptr %ev
  call spir_func void @_Z17wait_group_eventsiP9ocl_event(i32 1, ptr %ev)
  %r = sub i64 7, %l
  %p = getelementptr [8 x float], ptr addrspace(3) @k.tile, i64 0, i64 %r
  %x = load float, ptr addrspace(3) %p
  %q = getelementptr float, ptr addrspace(1) %out, i64 %g
  store float %x, ptr addrspace(1) %q
  ret void
}
"""


def test_async_work_group_copy(ctx, queue):
    data, out = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    bufs = _buffers(ctx, data, out)
    cl.Program(ctx, from_llvm(ASYNC_COPY)).build().k(queue, (16,), (8,), *bufs)
    np.testing.assert_array_equal(_read(queue, bufs[1], out), data.reshape(2, 8)[:, ::-1].ravel())
