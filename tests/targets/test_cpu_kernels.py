"""Kernels without barriers on the cpu target: compiled from IR text, run, checked with numpy."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tools.cpu_harness import compile_text, pack, run

QUERIES = """
declare i64 @ocl.get_global_id(i32)
declare i64 @ocl.get_local_id(i32)
declare i64 @ocl.get_group_id(i32)
declare i64 @ocl.get_local_size(i32)
declare i64 @ocl.get_global_size(i32)
declare i64 @ocl.get_num_groups(i32)
declare i64 @ocl.get_global_offset(i32)
declare i32 @ocl.get_work_dim()
declare i64 @ocl.get_global_linear_id()
declare i64 @ocl.get_local_linear_id()
"""

VADD = QUERIES + """
kernel void @vadd(ptr<global> %a, ptr<global> %b, ptr<global> %out, i32 %n) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %n64 = sext i32 %n to i64
  %in = icmp slt i64 %i, %n64
  condbr i1 %in, label %body, label %done
body:
  %pa = getelementptr inbounds float, ptr<global> %a, i64 %i
  %pb = getelementptr inbounds float, ptr<global> %b, i64 %i
  %x = load float, ptr<global> %pa, align 4
  %y = load float, ptr<global> %pb, align 4
  %s = fadd float %x, %y
  %po = getelementptr inbounds float, ptr<global> %out, i64 %i
  store float %s, ptr<global> %po, align 4
  br label %done
done:
  ret void
}
"""


def test_vector_add_with_bounds_and_offset() -> None:
    prog = compile_text(VADD)
    k = prog.kernels["vadd"]
    assert [a.kind for a in k.args] == ["global", "global", "global", "scalar"]
    assert [a.offset for a in k.args] == [0, 8, 16, 24] and k.blob_size == 32
    n = 1000
    a, b = np.random.rand(1024).astype(np.float32), np.random.rand(1024).astype(np.float32)
    out = np.zeros(1024, np.float32)
    run(k, [a, b, out, np.int32(n)], (1024,), (64,))
    np.testing.assert_array_equal(out[:n], a[:n] + b[:n])
    assert not out[n:].any()
    out[:] = 0
    run(k, [a, b, out, np.int32(n)], (512,), (32,), offset=(256,))
    np.testing.assert_array_equal(out[256:768], a[256:768] + b[256:768])
    assert not out[:256].any() and not out[768:].any()


def test_llvm_ir_and_asm_are_available() -> None:
    prog = compile_text(VADD)
    assert 'define void @"vadd.launch"' in prog.llvm_ir
    assert "vadd.launch" in prog.asm()


LOOP = QUERIES + """
kernel void @rowsum(ptr<global> %m, ptr<global> %out, i32 %cols) {
entry:
  %row = call i64 @ocl.get_global_id(i32 0)
  %c64 = sext i32 %cols to i64
  %base = mul i64 %row, %c64
  br label %loop
loop:
  %j = phi i64 [0, %entry], [%j1, %body]
  %acc = phi float [0.0, %entry], [%acc1, %body]
  %more = icmp slt i64 %j, %c64
  condbr i1 %more, label %body, label %exit
body:
  %k = add i64 %base, %j
  %p = getelementptr float, ptr<global> %m, i64 %k
  %v = load float, ptr<global> %p
  %acc1 = fadd float %acc, %v
  %j1 = add i64 %j, 1
  br label %loop
exit:
  %o = getelementptr float, ptr<global> %out, i64 %row
  store float %acc, ptr<global> %o
  ret void
}
"""


def test_loop_with_phis() -> None:
    k = compile_text(LOOP).kernels["rowsum"]
    m = np.arange(64 * 10, dtype=np.float32).reshape(64, 10)
    out = np.zeros(64, np.float32)
    run(k, [m, out, np.int32(10)], (64,), (16,))
    np.testing.assert_allclose(out, m.sum(axis=1), rtol=1e-6)


QUERY_DUMP = QUERIES + """
kernel void @where(ptr<global> %out) {
entry:
  %lin = call i64 @ocl.get_global_linear_id()
  %base = mul i64 %lin, 12
  %v0 = call i64 @ocl.get_global_id(i32 0)
  %v1 = call i64 @ocl.get_global_id(i32 1)
  %v2 = call i64 @ocl.get_local_id(i32 0)
  %v3 = call i64 @ocl.get_local_id(i32 1)
  %v4 = call i64 @ocl.get_group_id(i32 0)
  %v5 = call i64 @ocl.get_group_id(i32 1)
  %v6 = call i64 @ocl.get_num_groups(i32 1)
  %v7 = call i64 @ocl.get_global_size(i32 1)
  %v8 = call i64 @ocl.get_local_linear_id()
  %wd = call i32 @ocl.get_work_dim()
  %v9 = zext i32 %wd to i64
  %v10 = call i64 @ocl.get_local_size(i32 7)
  %v11 = call i64 @ocl.get_global_id(i32 %wd)
  %p0 = getelementptr i64, ptr<global> %out, i64 %base
  store i64 %v0, ptr<global> %p0
  %p1 = getelementptr i64, ptr<global> %p0, i64 1
  store i64 %v1, ptr<global> %p1
  %p2 = getelementptr i64, ptr<global> %p0, i64 2
  store i64 %v2, ptr<global> %p2
  %p3 = getelementptr i64, ptr<global> %p0, i64 3
  store i64 %v3, ptr<global> %p3
  %p4 = getelementptr i64, ptr<global> %p0, i64 4
  store i64 %v4, ptr<global> %p4
  %p5 = getelementptr i64, ptr<global> %p0, i64 5
  store i64 %v5, ptr<global> %p5
  %p6 = getelementptr i64, ptr<global> %p0, i64 6
  store i64 %v6, ptr<global> %p6
  %p7 = getelementptr i64, ptr<global> %p0, i64 7
  store i64 %v7, ptr<global> %p7
  %p8 = getelementptr i64, ptr<global> %p0, i64 8
  store i64 %v8, ptr<global> %p8
  %p9 = getelementptr i64, ptr<global> %p0, i64 9
  store i64 %v9, ptr<global> %p9
  %p10 = getelementptr i64, ptr<global> %p0, i64 10
  store i64 %v10, ptr<global> %p10
  %p11 = getelementptr i64, ptr<global> %p0, i64 11
  store i64 %v11, ptr<global> %p11
  ret void
}
"""


def test_work_item_queries_in_two_dimensions() -> None:
    k = compile_text(QUERY_DUMP).kernels["where"]
    gx, gy, lx, ly = 8, 6, 4, 3
    out = np.zeros((gy, gx, 12), np.int64)
    run(k, [out], (gx, gy), (lx, ly))
    y, x = np.mgrid[0:gy, 0:gx]
    expected = [x, y, x % lx, y % ly, x // lx, y // ly, np.full_like(x, gy // ly),
                np.full_like(x, gy), (y % ly) * lx + x % lx, np.full_like(x, 2),
                np.full_like(x, 1), np.zeros_like(x)]
    for field, want in enumerate(expected):
        np.testing.assert_array_equal(out[..., field], want, err_msg=f"field {field}")


HELPER = QUERIES + """
define float @scale(float %x, float %k) {
entry:
  %gid = call i64 @ocl.get_global_id(i32 0)
  %g = uitofp i64 %gid to float
  %m = fmul float %x, %k
  %r = fadd float %m, %g
  ret float %r
}

kernel void @apply(ptr<global> %a, float %k) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %p = getelementptr float, ptr<global> %a, i64 %i
  %v = load float, ptr<global> %p
  %r = call float @scale(float %v, float %k)
  store float %r, ptr<global> %p
  ret void
}
"""


def test_calls_to_a_helper_that_queries_ids() -> None:
    prog = compile_text(HELPER)
    assert 'define internal float @"scale"' in prog.llvm_ir
    a = np.arange(128, dtype=np.float32)
    run(prog.kernels["apply"], [a, np.float32(2.0)], (128,), (32,))
    np.testing.assert_array_equal(a, np.arange(128) * 2.0 + np.arange(128))


ATOMICS = QUERIES + """
kernel void @count(ptr<global> %ctr, ptr<global> %old, ptr<global> %mx) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %i32 = trunc i64 %i to i32
  %prev = atomicrmw add ptr<global> %ctr, i32 1 scope(device) monotonic
  %p = getelementptr i32, ptr<global> %old, i64 %i
  store i32 %prev, ptr<global> %p
  %m = atomicrmw max ptr<global> %mx, i32 %i32 scope(work_group) seq_cst
  %f = getelementptr i32, ptr<global> %ctr, i64 1
  %x = cmpxchg ptr<global> %f, i32 0, i32 %i32 scope(device) acq_rel
  ret void
}
"""


def test_atomics_from_many_work_items() -> None:
    prog = compile_text(ATOMICS)
    assert "atomicrmw max" in prog.llvm_ir and "acq_rel acquire" in prog.llvm_ir
    k = prog.kernels["count"]
    n = 4096
    ctr, old, mx = np.zeros(2, np.int32), np.zeros(n, np.int32), np.zeros(1, np.int32)
    blob = pack(k, ctr, old, mx)
    threads = [threading.Thread(target=k.launch, args=(blob, 1, (n, 1, 1), (64, 1, 1), (0, 0, 0),
                                                       t * 32, (t + 1) * 32)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ctr[0] == n
    assert sorted(old) == list(range(n))
    assert mx[0] == n - 1
    assert 0 <= ctr[1] < n  # exactly one work-item swapped its id in


def test_two_threads_launch_disjoint_groups_at_once() -> None:
    k = compile_text(LOOP).kernels["rowsum"]
    rows, cols = 4096, 33
    m = np.random.rand(rows, cols).astype(np.float32)
    out = np.zeros(rows, np.float32)
    blob = pack(k, m, out, np.int32(cols))
    groups = rows // 64
    threads = [threading.Thread(target=k.launch, args=(blob, 1, (rows, 1, 1), (64, 1, 1),
                                                       (0, 0, 0), g0, g1))
               for g0, g1 in ((0, groups // 2), (groups // 2, groups))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_allclose(out, m.sum(axis=1), rtol=1e-5)


VEC3 = QUERIES + """
kernel void @v3(ptr<global> %a, ptr<global> %out, <3 x float> %add) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %p = getelementptr <3 x float>, ptr<global> %a, i64 %i
  %v = load <3 x float>, ptr<global> %p
  %s = fadd <3 x float> %v, %add
  %y = getelementptr <3 x float>, ptr<global> %p, i64 0, i32 1
  %yv = load float, ptr<global> %y
  %r = insertelement <3 x float> %s, float %yv, i32 2
  %q = getelementptr <3 x float>, ptr<global> %out, i64 %i
  store <3 x float> %r, ptr<global> %q
  ret void
}
"""


def test_three_element_vectors_occupy_four_in_memory() -> None:
    k = compile_text(VEC3).kernels["v3"]
    assert k.args[2].size == 16 and k.args[2].offset == 16
    a = np.arange(32 * 4, dtype=np.float32).reshape(32, 4)
    out = np.full((32, 4), -1.0, np.float32)
    run(k, [a, out, np.array([1, 2, 3, 99], np.float32)], (32,), (8,))
    np.testing.assert_array_equal(out[:, 0], a[:, 0] + 1)
    np.testing.assert_array_equal(out[:, 1], a[:, 1] + 2)
    np.testing.assert_array_equal(out[:, 2], a[:, 1])
    assert (out[:, 3] == -1).all()  # the padding element is not written


STRUCT = QUERIES + """
kernel void @affine(ptr<global> %a, {i8, double, <2 x float>, i32} %s) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %p = getelementptr double, ptr<global> %a, i64 %i
  %v = load double, ptr<global> %p
  %k = extractvalue {i8, double, <2 x float>, i32} %s, 1
  %c = extractvalue {i8, double, <2 x float>, i32} %s, 3
  %cf = sitofp i32 %c to double
  %vec = extractvalue {i8, double, <2 x float>, i32} %s, 2
  %e = extractelement <2 x float> %vec, i32 1
  %ed = fpext float %e to double
  %m = fmul double %v, %k
  %r1 = fadd double %m, %cf
  %r = fadd double %r1, %ed
  store double %r, ptr<global> %p
  ret void
}
"""


def test_struct_argument_by_value() -> None:
    k = compile_text(STRUCT).kernels["affine"]
    arg = k.args[1]
    assert (arg.offset, arg.size) == (8, 32)
    dt = np.dtype({"names": ["c", "k", "v", "n"], "formats": ["i1", "f8", ("f4", 2), "i4"],
                   "offsets": [0, 8, 16, 24], "itemsize": 32})
    s = np.zeros(1, dt)
    s[0] = (7, 3.0, (0.5, 0.25), -4)
    a = np.arange(16, dtype=np.float64)
    run(k, [a, s.tobytes()], (16,), (4,))
    np.testing.assert_array_equal(a, np.arange(16) * 3.0 - 4 + 0.25)


LOCAL_ARG = QUERIES + """
@lut = addrspace(constant) constant [4 x i32] [i32 10, i32 20, i32 30, i32 40], align 16
@rev.stat = addrspace(local) global [2 x i32], align 4

kernel void @rev(ptr<global> %a, ptr<local> %buf, ptr<local> %buf2) {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  %g = call i64 @ocl.get_global_id(i32 0)
  %n = call i64 @ocl.get_local_size(i32 0)
  %p = getelementptr i32, ptr<global> %a, i64 %g
  %v = load i32, ptr<global> %p
  %q = getelementptr i32, ptr<local> %buf, i64 %l
  store i32 %v, ptr<local> %q
  %q2 = getelementptr i32, ptr<local> %buf2, i64 %l
  store i32 %v, ptr<local> %q2
  %s0 = getelementptr [2 x i32], ptr<local> @rev.stat, i64 0, i64 1
  store i32 5, ptr<local> %s0
  %sel = and i64 %g, 3
  %lp = getelementptr [4 x i32], ptr<constant> @lut, i64 0, i64 %sel
  %lv = load i32, ptr<constant> %lp
  %sum = add i32 %v, %lv
  store i32 %sum, ptr<global> %p
  ret void
}
"""


def test_local_arguments_static_locals_and_constant_globals() -> None:
    k = compile_text(LOCAL_ARG).kernels["rev"]
    assert [a.kind for a in k.args] == ["global", "local", "local"]
    assert k.static_local_bytes == 16
    assert k.local_bytes(pack(k, None, 100, 64)) == 16 + 112 + 64
    a = np.arange(64, dtype=np.int32)
    run(k, [a, 4 * 16, 4 * 16], (64,), (16,))
    np.testing.assert_array_equal(a, np.arange(64) + 10 * (np.arange(64) % 4 + 1))


def test_launch_rejects_a_short_blob_and_uneven_sizes() -> None:
    k = compile_text(VADD).kernels["vadd"]
    with pytest.raises(ValueError, match="argument blob has 8 bytes, expected 32"):
        k.launch(bytes(8), 1, (64, 1, 1), (64, 1, 1), (0, 0, 0), 0, 1)
    with pytest.raises(ValueError, match=r"global size \(100, 1, 1\) is not a multiple"):
        k.launch(bytes(32), 1, (100, 1, 1), (64, 1, 1), (0, 0, 0), 0, 1)


TWO_KERNELS = QUERIES + """
@first.big = addrspace(local) global [64 x i32], align 4
@second.small = addrspace(local) global [4 x i32], align 4

define void @touch_small(i64 %l) {
entry:
  %p = getelementptr [4 x i32], ptr<local> @second.small, i64 0, i64 %l
  store i32 1, ptr<local> %p
  ret void
}

kernel void @first(ptr<global> %a) {
entry:
  %p = getelementptr [64 x i32], ptr<local> @first.big, i64 0, i64 0
  store i32 1, ptr<local> %p
  ret void
}

kernel void @second(ptr<global> %a, ptr<local> %scratch) {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  call void @touch_small(i64 %l)
  %q = getelementptr i32, ptr<local> %scratch, i64 %l
  store i32 7, ptr<local> %q
  %g = call i64 @ocl.get_global_id(i32 0)
  %o = getelementptr i32, ptr<global> %a, i64 %g
  %v = load i32, ptr<local> %q
  store i32 %v, ptr<global> %o
  ret void
}
"""


def test_static_local_bytes_count_what_a_kernel_reaches() -> None:
    prog = compile_text(TWO_KERNELS)
    assert prog.kernels["first"].static_local_bytes == 256
    # @second.small sits after @first.big in the module-wide layout, reached through a helper
    assert prog.kernels["second"].static_local_bytes == 272
    a = np.zeros(8, np.int32)
    run(prog.kernels["second"], [a, 16], (8,), (4,))
    assert (a == 7).all()
