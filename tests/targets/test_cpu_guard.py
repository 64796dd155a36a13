"""The cpu launcher of a kernel split by split-entry-guard, and vecmath bodies in
outer-vectorised functions: the LLVM IR (FileCheck) and the results."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from filecheck.matcher import Matcher
from filecheck.options import parse_argv_options

from oclpy.compiler import compile_program
from tools.cpu_harness import compile_without, run

PATHS = """
__kernel void paths(__global float *out, __global const float *r, int n, int m) {
    int g = get_global_id(0);
    if (g < n) {
        float s = 0.0f;
        for (int i = 0; i < m; i++) s += exp(r[i] * (float)g);
        out[g] = s;
    }
}
"""

# the launcher: per row, a scan of the guard, the unguarded body in the parallel
# x loop (with the outer-loop hint), then the rest through the kernel itself
LAUNCHER_CHECKS = """
; CHECK-LABEL: define internal i1 @"paths.guard"(
; CHECK-LABEL: define internal void @"paths.unguarded"(
; CHECK-NOT:   define
; CHECK:         call float @"oclpy.exp.f32"(
; CHECK-LABEL: define internal void @"paths"(
; CHECK:         call i1 @"paths.guard"(
; CHECK:         call void @"paths.unguarded"(
; CHECK-LABEL: define void @"paths.launch"(
; CHECK:       scan.head:
; CHECK:       scan.test:
; CHECK-NEXT:    [[HOLDS:%.+]] = call i1 @"paths.guard"(
; CHECK:         br i1 [[HOLDS]], label %"scan.head", label %"scan.done"
; CHECK:       lx.body:
; CHECK-NEXT:    call void @"paths.unguarded"(
; CHECK-NEXT:    {{%.+}} = add i64 {{%.+}}, 1
; CHECK-NEXT:    br label %"lx.head", !llvm.loop [[LOOP:![0-9]+]]
; CHECK:       rest.body:
; CHECK-NEXT:    call void @"paths"(
; CHECK:       [[HINT:![0-9]+]] = !{ !"llvm.loop.vectorize.enable", i1 1 }
; CHECK-NEXT:  [[LOOP]] = distinct !{[[LOOP]], {{![0-9]+}}, [[HINT]]}
"""


def filecheck(check_text: str, output: str, tmp_path: Path) -> int:
    check_file, input_file = tmp_path / "check.ll", tmp_path / "out.ll"
    check_file.write_text(check_text)
    input_file.write_text(output)
    opts = parse_argv_options(["filecheck", str(check_file), "--input-file", str(input_file)])
    return Matcher.from_opts(opts).run()


def test_guarded_kernel_launcher(tmp_path: Path) -> None:
    ir = compile_without(PATHS, ("widen-work-items",)).llvm_ir  # the outer-loop hint's launcher
    assert filecheck(LAUNCHER_CHECKS, ir, tmp_path) == 0


def test_guarded_kernel_results_and_vector_math() -> None:
    prog = compile_program(PATHS).program
    r = np.linspace(-0.01, 0.01, 37).astype(np.float32)
    n = 45  # the last group is partly guarded off
    out = np.full(64, -1.0, np.float32)
    run(prog.kernels["paths"], [out, r, np.int32(n), np.int32(r.size)], (64,), (16,))
    g = np.arange(n, dtype=np.float64)
    want = np.exp(r[None, :].astype(np.float64) * g[:, None]).sum(1)
    assert np.allclose(out[:n], want, rtol=1e-5)
    assert (out[n:] == -1.0).all()
    ir = prog.optimized_llvm_ir  # vecmath's exp (in float) widened with the work-items
    assert any(f"<{n} x float>" in ir for n in (4, 8, 16)) and "@expf(" not in ir


def test_guard_that_is_not_a_prefix() -> None:
    """Work-items the scan does not reach still run their guard: the odd ones here."""
    src = """
    __kernel void odd(__global int *out, int m) {
        int g = get_global_id(0);
        if (g % 2 == 1) { int s = 0; for (int i = 0; i < m; i++) s += i * g; out[g] = s; }
    }"""
    prog = compile_program(src).program
    assert "odd.unguarded" in prog.llvm_ir
    out = np.zeros(32, np.int32)
    run(prog.kernels["odd"], [out, np.int32(5)], (32,), (8,))
    g = np.arange(32)
    assert (out == np.where(g % 2 == 1, 10 * g, 0)).all()


def test_early_return_in_two_dimensions() -> None:
    src = """
    __kernel void tri(__global int *out, int w) {
        size_t x = get_global_id(0), y = get_global_id(1);
        if (x > y) return;
        int s = 0; for (int i = 0; i <= (int)x; i++) s += i;
        out[y * w + x] = s;
    }"""
    prog = compile_program(src).program
    out = np.full((8, 8), -1, np.int32)
    run(prog.kernels["tri"], [out, np.int32(8)], (8, 8), (4, 2))
    x, y = np.meshgrid(np.arange(8), np.arange(8))
    assert (out == np.where(x <= y, x * (x + 1) // 2, -1)).all()


def test_rebased_loop_gets_outer_hint_and_result() -> None:
    src = """
    __kernel void pi(__global float *out, int niters, float step) {
        int g = get_global_id(0); int a = g * niters; float acc = 0.0f;
        for (int i = a; i < a + niters; i++) { float x = (i + 0.5f) * step; acc += 4.0f / (1.0f + x * x); }
        out[g] = acc;
    }"""
    assert "llvm.loop.vectorize.enable" in compile_without(src, ("widen-work-items",)).llvm_ir
    prog = compile_program(src).program
    assert "pi.wide" in prog.llvm_ir  # widened by widen-work-items instead
    out = np.zeros(32, np.float32)
    run(prog.kernels["pi"], [out, np.int32(16), np.float32(1.0 / 512)], (32,), (8,))
    x = (np.arange(512) + 0.5) / 512
    assert np.allclose(out, (4.0 / (1.0 + x * x)).reshape(32, 16).sum(1), rtol=1e-5)
