"""Work-group collectives and sub-group functions (builtins/collectives.py) run on
the cpu device and checked against NumPy, per work-group, at several shapes."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

cl = pytest.importorskip("oclpy")

CL20 = "-cl-std=CL2.0"

FOLDS = """
kernel void k(global const T *x, global T *red, global T *inc, global T *exc) {
    size_t g = get_global_id(0);
    red[g] = work_group_reduce_OP(x[g]);
    inc[g] = work_group_scan_inclusive_OP(x[g]);
    exc[g] = work_group_scan_exclusive_OP(x[g]);
}
"""

NUMPY_FOLD = {"add": np.add, "min": np.minimum, "max": np.maximum}
CTYPES = {np.int32: "int", np.uint32: "uint", np.int64: "long", np.uint64: "ulong",
          np.float32: "float", np.float64: "double"}


def identity(op: str, dtype: type) -> object:
    if op == "add":
        return dtype(0)
    if np.issubdtype(dtype, np.floating):
        return dtype(np.inf if op == "min" else -np.inf)
    info = np.iinfo(dtype)
    return info.max if op == "min" else info.min


def run(queue, src: str, arrays: list[np.ndarray], global_size: tuple[int, ...],  # type: ignore[no-untyped-def]
        local_size: tuple[int, ...]) -> list[np.ndarray]:
    ctx, q = queue
    mf = cl.mem_flags
    prg = cl.Program(ctx, src).build(options=CL20)
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in arrays]
    prg.k(q, global_size, local_size, *bufs)
    outs = [np.empty_like(a) for a in arrays]
    for out, buf in zip(outs, bufs):
        cl.enqueue_copy(q, out, buf)
    return outs


@pytest.mark.parametrize("dtype", list(CTYPES))
@pytest.mark.parametrize("op", ["add", "min", "max"])
def test_reduce_and_scans_per_work_group(queue, dtype: type, op: str) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    local, groups = 48, 3
    if np.issubdtype(dtype, np.floating):
        x = rng.integers(-50, 50, local * groups).astype(dtype)  # exact sums in any order
    else:
        low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -1000
        x = rng.integers(low, 1000, local * groups).astype(dtype)
    src = FOLDS.replace("T", CTYPES[dtype]).replace("OP", op)
    zeros = [np.zeros_like(x) for _ in range(3)]
    _, red, inc, exc = run(queue, src, [x, *zeros], (local * groups,), (local,))
    for g in range(groups):
        part = x[g * local:(g + 1) * local]
        scan = NUMPY_FOLD[op].accumulate(part)
        np.testing.assert_array_equal(red[g * local:(g + 1) * local], np.full(local, scan[-1], dtype))
        np.testing.assert_array_equal(inc[g * local:(g + 1) * local], scan)
        np.testing.assert_array_equal(exc[g * local:(g + 1) * local],
                                      np.concatenate([[identity(op, dtype)], scan[:-1]]).astype(dtype))


def test_float_reduction_folds_in_local_id_order(queue) -> None:  # type: ignore[no-untyped-def]
    """1e8 + 1 + 1 + ... in order loses every 1 in float; a tree would keep some."""
    x = np.ones(64, np.float32)
    x[0] = 1e8
    src = FOLDS.replace("T", "float").replace("OP", "add")
    _, red, _, _ = run(queue, src, [x, *[np.zeros_like(x) for _ in range(3)]], (64,), (64,))
    expected = np.float32(1e8)
    for v in x[1:]:
        expected = np.float32(expected + v)
    assert red[0] == expected


def test_broadcast_in_three_dimensions_and_predicates(queue) -> None:  # type: ignore[no-untyped-def]
    src = """
    kernel void k(global int *b1, global int *b3, global int *all, global int *any) {
        size_t i = get_global_linear_id();
        int v = (int)(get_global_id(0) * 100 + get_global_id(1) * 10 + get_global_id(2));
        b1[i] = work_group_broadcast(v, 5);
        b3[i] = work_group_broadcast(v, 1, 2, 1);
        all[i] = work_group_all(v >= 0) + 2 * work_group_all(v != 123);
        any[i] = work_group_any(v == 123) + 2 * work_group_any(v < 0);
    }"""
    shape, local = (8, 4, 2), (4, 4, 2)  # run() builds with -cl-std=CL2.0
    n = int(np.prod(shape))
    b1, b3, all_, any_ = run(queue, src, [np.zeros(n, np.int32) for _ in range(4)], shape, local)
    # work-item (x, y, z) of a group sits at linear id x + 4 y + 16 z; group 0 starts at x = 0, group 1 at x = 4
    for group, x0 in enumerate((0, 4)):
        ids = [i for i in range(n) if (i % 8) // 4 == group]
        assert set(b1[ids]) == {(x0 + 1) * 100 + 1 * 10 + 0}  # local linear id 5 = (1, 1, 0)
        assert set(b3[ids]) == {(x0 + 1) * 100 + 2 * 10 + 1}
    # v == 123 would be work-item (1, 2, 3), and z stops at 1: no work-item has it
    assert set(all_) == {3} and set(any_) == {0}


def test_collectives_in_a_loop_and_with_local_size_one(queue) -> None:  # type: ignore[no-untyped-def]
    src = """
    kernel void k(global int *o) {
        int acc = 0;
        for (int r = 0; r < 3; r++)
            acc += work_group_reduce_add((int)get_local_id(0) + r);
        o[get_global_id(0)] = acc;
    }"""
    (o,) = run(queue, src, [np.zeros(30, np.int32)], (30,), (10,))
    assert set(o) == {sum(sum(range(10)) + 10 * r for r in range(3))}
    (o,) = run(queue, src, [np.zeros(4, np.int32)], (4,), (1,))
    assert list(o) == [0 + 1 + 2] * 4


def test_sub_groups_have_one_work_item(queue) -> None:  # type: ignore[no-untyped-def]
    src = """
    #pragma OPENCL EXTENSION cl_khr_subgroups : enable
    kernel void k(global uint *q, global int *f) {
        size_t i = get_global_id(0);
        q[4 * i + 0] = get_sub_group_size() * 1000 + get_max_sub_group_size();
        q[4 * i + 1] = get_num_sub_groups();
        q[4 * i + 2] = get_sub_group_id();
        q[4 * i + 3] = get_sub_group_local_id();
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        int v = (int)i - 3;
        f[4 * i + 0] = sub_group_reduce_add(v) + sub_group_scan_inclusive_max(v);
        f[4 * i + 1] = sub_group_scan_exclusive_min(v);
        f[4 * i + 2] = sub_group_broadcast(v, 0);
        f[4 * i + 3] = sub_group_all(v) + 2 * sub_group_any(v);
    }"""
    q, f = run(queue, src, [np.zeros(4 * 12, np.uint32), np.zeros(4 * 12, np.int32)], (12,), (6,))
    q, f = q.reshape(12, 4), f.reshape(12, 4)
    v = np.arange(12) - 3
    assert list(q[:, 0]) == [1001] * 12 and list(q[:, 1]) == [6] * 12
    assert list(q[:, 2]) == [i % 6 for i in range(12)] and list(q[:, 3]) == [0] * 12
    assert list(f[:, 0]) == list(2 * v) and list(f[:, 1]) == [np.iinfo(np.int32).max] * 12
    assert list(f[:, 2]) == list(v) and list(f[:, 3]) == [3 if x else 0 for x in v]


def test_collectives_are_opencl_c_2_0() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("kernel void k(global int *o) { o[0] = work_group_reduce_add(1); }", "-cl-std=CL1.2")
    assert "implicit declaration of function 'work_group_reduce_add' is invalid in OpenCL" in info.value.log


def test_sub_groups_are_there_before_opencl_c_2_0(queue) -> None:  # type: ignore[no-untyped-def]
    """cl_khr_subgroups depends on no OpenCL version: the device that defines the macro at
    -cl-std=CL1.2 declares its functions there too (clang 23 does)."""
    src = """
    kernel void k(global uint *q) {
    #ifdef cl_khr_subgroups
        size_t i = get_global_id(0);
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);
        q[i] = get_sub_group_size() * 100 + get_num_sub_groups() * 10 + get_sub_group_id()
             + sub_group_reduce_add(0u) + sub_group_broadcast(0u, 0u) + (uint)sub_group_all(0);
    #endif
    }"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build(options="-cl-std=CL1.2")
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 4)
    prg.k(q, (4,), (2,), buf)
    out = np.empty(4, np.uint32)
    cl.enqueue_copy(q, out, buf)
    assert list(out) == [120, 121, 120, 121]


@pytest.mark.parametrize("call, message", [
    ("get_enqueued_num_sub_groups()", "implicit declaration of function 'get_enqueued_num_sub_groups' is invalid in OpenCL"),
    ("(sub_group_barrier(CLK_LOCAL_MEM_FENCE, 4), 0)", "no matching function for call to 'sub_group_barrier'"),
])
def test_the_sub_group_functions_of_opencl_2_0_are_not_in_1_2(call: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir(f"kernel void k(global uint *o) {{ o[0] = {call}; }}", "-cl-std=CL1.2")
    assert message in info.value.log
    compile_to_ir(f"kernel void k(global uint *o) {{ o[0] = {call}; }}", CL20)


def test_wrong_argument_type_is_a_diagnostic() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("kernel void k(global int *o) { o[0] = work_group_broadcast(o, 0); }", CL20)
    assert "no matching function for call to 'work_group_broadcast'" in info.value.log


def test_opencl_c_3_0_names_the_features_and_the_device_the_extension(queue) -> None:  # type: ignore[no-untyped-def]
    src = """
    #if defined(__opencl_c_work_group_collective_functions) && defined(__opencl_c_subgroups) && cl_khr_subgroups
    kernel void k(global int *o) { o[get_global_id(0)] = work_group_reduce_max((int)get_local_id(0)); }
    #endif"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build(options="-cl-std=CL3.0")
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8 * 4)
    prg.k(q, (8,), (4,), buf)
    out = np.empty(8, np.int32)
    cl.enqueue_copy(q, out, buf)
    assert list(out) == [3] * 8
    device = ctx.devices[0]
    assert "cl_khr_subgroups" in device.extensions.split()
    assert device.get_info(cl.device_info.MAX_NUM_SUB_GROUPS) == 1024
