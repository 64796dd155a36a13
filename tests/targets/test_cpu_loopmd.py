"""Work-item loops marked parallel: metadata form, vectorisation, and results."""

from __future__ import annotations

import numpy as np

from oclpy.compiler import compile_program
from oclpy.targets.llvm.cpu.loopmd import GROUP_MARK, LOOP_MARK, finalize
from tools.cpu_harness import run


def test_finalize_makes_distinct_group_and_self_referencing_loop_ids() -> None:
    text = (f'!3 = !{{ !"{GROUP_MARK}" }}\n!4 = !{{ !"llvm.loop.parallel_accesses", !3 }}\n'
            f'!5 = !{{ !"{LOOP_MARK}.1", !4 }}\n!6 = !{{  }}\n')
    out = finalize(text)
    assert "!3 = distinct !{}" in out
    assert "!5 = distinct !{!5, !4}" in out
    assert "!6 = !{  }" in out  # other empty nodes (invariant.load) untouched


def _build(src: str):  # type: ignore[no-untyped-def]
    return compile_program(src).program


def test_elementwise_kernel_is_vectorised_across_work_items() -> None:
    prog = _build("__kernel void axpy(float a, __global const float *x, __global float *y) {"
                  " size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }")
    ir = prog.optimized_llvm_ir
    assert "llvm.loop.parallel_accesses" in ir
    assert "load <" in ir and "store <" in ir


def test_barrier_kernels_get_one_parallel_loop_per_region() -> None:
    prog = _build("__kernel void k(__global int *x, __local int *t) { int l = get_local_id(0);"
                  " t[l] = x[l]; barrier(CLK_LOCAL_MEM_FENCE); x[l] = t[(l + 1) % 4]; }")
    ir = prog.llvm_ir
    assert "region.0" in ir and "region.1" in ir and "region.2" not in ir
    assert ir.count("llvm.loop.parallel_accesses") == 1 and ir.count("= distinct !{!") == 2
    x = np.arange(8, dtype=np.int32)
    run(prog.kernels["k"], [x, 16], (8,), (4,))
    assert x.tolist() == [2, 3, 0, 1, 4, 5, 6, 7]  # both groups work on x[0:4], in order


def test_barrier_in_uniform_loop_with_private_state_across_regions() -> None:
    src = """__kernel void k(__global float *x, __local float *t) {
        int l = get_local_id(0), n = get_local_size(0);
        float mine[2] = {x[get_global_id(0)], 0.0f};
        for (int s = 1; s < n; s <<= 1) {
            t[l] = mine[0];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l >= s) mine[0] += t[l - s];
            mine[1] += 1.0f;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        x[get_global_id(0)] = mine[0] + 100.0f * mine[1];
    }"""
    prog = _build(src)
    x = np.arange(1, 33, dtype=np.float32)
    run(prog.kernels["k"], [x, 16 * 4], (32,), (16,))
    want = np.cumsum(np.arange(1, 33, dtype=np.float32).reshape(2, 16), 1).ravel() + 400.0
    assert x.tolist() == want.tolist()


def test_private_arrays_stay_per_work_item_when_vectorised() -> None:
    src = """__kernel void k(__global const int *x, __global int *y) {
        size_t i = get_global_id(0);
        int tmp[4];
        for (int j = 0; j < 4; ++j) tmp[j] = x[i] + j;
        y[i] = tmp[x[i] & 3] * 10 + tmp[(x[i] + 1) & 3];
    }"""
    prog = _build(src)
    assert "oclpy.access.group" not in prog.llvm_ir  # markers never reach LLVM
    x = np.arange(64, dtype=np.int32)
    y = np.zeros(64, dtype=np.int32)
    run(prog.kernels["k"], [x, y], (64,), (16,))
    t = x[:, None] + np.arange(4)
    want = t[np.arange(64), x & 3] * 10 + t[np.arange(64), (x + 1) & 3]
    assert y.tolist() == want.tolist()


def test_local_memory_without_barriers_keeps_its_results() -> None:
    src = """__kernel void k(__global int *y, __local int *t) {
        size_t l = get_local_id(0);
        t[l] = (int)l * 3;
        y[get_global_id(0)] = t[l] + 1;
    }"""
    prog = _build(src)
    y = np.zeros(32, dtype=np.int32)
    run(prog.kernels["k"], [y, 16 * 4], (32,), (16,))
    assert y.tolist() == [3 * (i % 16) + 1 for i in range(32)]


def test_a_kernel_too_large_for_the_loop_vectoriser_is_left_scalar(monkeypatch) -> None:
    """Issue 13's compile-time benchmark: LLVM's loop vectoriser took 3 s on a work-item loop
    of 1,000 lines of arithmetic and 13.5 s on 2,000 (its time grows with the square of
    the loop's size); past VECTORIZE_MAX_INSTRUCTIONS the x loop says vectorize.enable false."""
    from oclpy.targets.llvm.cpu import cpu_target

    body = "".join(f"    x = x * {k % 7 + 2} + (x >> {k % 5 + 1}) - {k};\n" for k in range(40))
    src = f"__kernel void k(__global int *a) {{\n    int x = a[get_global_id(0)];\n{body}    a[get_global_id(0)] = x;\n}}\n"
    small = _build(src)
    assert "llvm.loop.vectorize.enable" not in small.llvm_ir and "store <" in small.optimized_llvm_ir
    monkeypatch.setattr(cpu_target, "VECTORIZE_MAX_INSTRUCTIONS", 100)
    large = _build(src)
    assert '!"llvm.loop.vectorize.enable", i1 0' in large.llvm_ir
    assert "llvm.loop.parallel_accesses" in large.llvm_ir and "store <" not in large.optimized_llvm_ir
    a = np.arange(64, dtype=np.int32)
    expected = a.copy()
    run(small.kernels["k"], [expected], (64,), (16,))
    run(large.kernels["k"], [a], (64,), (16,))
    assert (a == expected).all()


def test_launchers_ask_for_512_bit_vectors_only_on_avx512_cpus() -> None:
    from oclpy.targets.target import Target
    src = "__kernel void k(__global float *y) { y[get_global_id(0)] *= 2.0f; }"
    wide = compile_program(src, target=Target("cpu", "skylake-avx512", "+avx2,+fma,+avx512f")).program
    narrow = compile_program(src, target=Target("cpu", "haswell", "+avx2,+fma,-avx512f")).program
    assert '"prefer-vector-width"="512"' in wide.llvm_ir
    assert "prefer-vector-width" not in narrow.llvm_ir
