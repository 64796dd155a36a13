"""FileCheck tests of the PTX the nvptx target emits (no GPU needed), and ptxas on it.

Each case is OpenCL C with `// CHECK` lines, built for the cuda device with
the given options; the PTX is matched with the `filecheck` package. Where
`ptxas` is installed (CUDA toolkit or the nvidia-cuda-nvcc wheel), every
case's PTX is also assembled for sm_90.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from filecheck.matcher import Matcher
from filecheck.options import parse_argv_options

from oclpy.compiler import compile_program, cuda_target
from oclpy.diagnostics import CompileError
from oclpy.targets.llvm.nvptx import ptx_codegen as nvptx_codegen

CASES: dict[str, tuple[str, str]] = {
    "address_spaces": ("", """
__kernel void vadd(__global const float *a, __global float *c, float s) {
  size_t i = get_global_id(0);
  c[i] = a[i] * s;
}
// CHECK: .visible .entry vadd(
// CHECK: .param .u64 .ptr .global .align 1 vadd_param_0
// CHECK: .param .f32 vadd_param_2
// CHECK-DAG: ld.param.b64 {{.*}}[vadd_param_0]
// CHECK-DAG: mov.u32 {{.*}}%ctaid.x
// CHECK-DAG: mov.u32 {{.*}}%ntid.x
// CHECK-DAG: mov.u32 {{.*}}%tid.x
// CHECK: ld.global.b32
// CHECK: st.global.b32
"""),
    "shared_memory_and_barrier": ("", """
__kernel void red(__global const float *in, __global float *out, __local float *tmp) {
  __local float tile[64];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  tile[l] = tmp[l] * 2.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[63 - l];
}
// CHECK: .extern .shared .align 16 .b8 __oclpy_dynamic_shared[];
// CHECK: .entry red(
// CHECK: .shared .align 4 .b8 red_$_tile[256];
// CHECK: st.shared.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
"""),
    "no_packed_16_bit_integer_ops": ("", """
__kernel void div3(__global const short *a, __global const short *b, __global short *o) {
  size_t i = get_global_id(0);
  vstore3(vload3(i, a) / ((short3)(vload3(i, b) & (short3)7) + (short3)1), i, o);
}
// The PTX ISA is the oldest sm_90 takes (7.8): with 8.0, LLVM packs short3's lanes
// into add.s16x2, and the 580 driver's JIT dropped the second add's immediate.
// CHECK: .version 7.8
// CHECK: .target sm_90
// CHECK-NOT: {{[us]}}16x2
// CHECK: div.s16
// CHECK: div.s16
// CHECK: div.s16
// CHECK-NOT: {{[us]}}16x2
"""),
    "grid_stride_loop_unrolled": ("", """
__kernel void dot(int n, __global const float *x, __global const float *y, __global float *o) {
  float acc = 0.0f;
  for (int i = get_global_id(0); i < n; i += 128 * (int)get_num_groups(0)) acc += x[i] * y[i];
  o[get_global_id(0)] = acc;
}
// A run-time trip count with a stride of unknown sign: unrolled (mustprogress and the
// SCEV budget, ptx_codegen.py), so several iterations' loads are in flight at once.
// CHECK-LABEL: .entry dot(
// CHECK-COUNT-8: {{ld.global(.nc)?.b32}}
"""),
    "reqd_work_group_size": ("", """
__kernel __attribute__((reqd_work_group_size(64, 2, 1)))
void fixed(__global float *a) { a[get_global_id(0)] = 1.0f; }
__kernel void free_size(__global float *a) { a[get_global_id(0)] = 2.0f; }
// CHECK-LABEL: .entry fixed(
// CHECK: .reqntid 64, 2, 1
// CHECK: {
// CHECK-LABEL: .entry free_size(
// CHECK-NOT: .reqntid
// CHECK: {
"""),
    "atomics": ("", """
__kernel void atoms(__global int *g, __global float *f) {
  __local int l[4];
  if (get_local_id(0) == 0) l[0] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(g, 1);
  atomic_inc(&l[0]);
  atomic_cmpxchg(g + 1, 0, 5);
  atomic_max(g + 2, (int)get_global_id(0));
  atomic_xchg(f, 1.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) g[3] = l[0];
}
// CHECK: atom.global.add.u32
// CHECK: atom.shared.add.u32
// CHECK: atom.relaxed.gpu.global.cas.b32
// CHECK: atom.global.max.s32
// CHECK: atom.global.exch.b32
"""),
    "constant_memory": ("", """
__constant float coef[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__kernel void k(__constant float *c, __global float *out) {
  size_t i = get_global_id(0);
  out[i] = coef[i & 3] + c[i];
}
// CHECK: .const .align 4 .b8 coef[16] = {0, 0, 128, 63,
// CHECK: .entry k(
// CHECK: ld.const.b32
// CHECK: ld.global.b32
"""),
    "address_constants": ("", """
__constant int t[4] = {10, 20, 30, 40};
typedef struct { int a; __constant int *q; } E;
__constant E table[3] = { { 1, t + 1 }, { 2, &t[3] }, { 3, t } };
__kernel void k(__global int *o) { o[0] = *table[o[1] % 3].q; }
// __constant data is in .const, its pointers are generic: an addrspacecast constant
// CHECK: .const .align 4 .b8 t[16] = {10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40};
// CHECK-NEXT: .const .align 8 .u64 table[6] = {1, generic(t)+4, 2, generic(t)+12, 3, generic(t)};
// CHECK: ld.const.b64
"""),
    "generic_address_constants": ("-cl-std=CL2.0", """
global int g;
global int h[4];
generic int *arr[2] = {&g, &h[1]};
__kernel void k(__global int *o) { o[0] = *arr[o[1] % 2]; }
// a global's generic address: an addrspacecast constant, as clang's
// CHECK: .global .align 8 .u64 arr[2] = {generic(g), generic(h)+4};
"""),
    "struct_argument": ("", """
typedef struct { float3 v; int k; } P;
__kernel void k(P p, __global float *out) { out[get_global_id(0)] = p.v.y * p.k; }
// CHECK: .param .align 8 .b8 k_param_0[32]
// CHECK: ld.param
"""),
    "precision_default": ("", """
__kernel void f(__global float *a, float b) {
  size_t i = get_global_id(0);
  a[i] = a[i] * b + sqrt(b) / a[i];
}
// CHECK-DAG: sqrt.approx.f32
// CHECK-DAG: div.full.f32
// CHECK-DAG: fma.rn.f32
"""),
    "precision_correctly_rounded": ("-cl-fp32-correctly-rounded-divide-sqrt", """
__kernel void f(__global float *a, float b) { a[get_global_id(0)] = sqrt(b) / a[get_global_id(0)]; }
// CHECK-DAG: sqrt.rn.f32
// CHECK-DAG: div.rn.f32
"""),
    "precision_fast": ("-cl-fast-relaxed-math", """
__kernel void f(__global float *a, float b) { a[get_global_id(0)] = sqrt(b) / a[get_global_id(0)] + sin(b); }
// CHECK-DAG: sqrt.approx
// CHECK-DAG: div.approx
// CHECK-DAG: sin.approx
"""),
    "double_sqrt_is_ieee": ("", """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void f(__global double *a, double b) { a[get_global_id(0)] = sqrt(b); }
// CHECK: sqrt.rn.f64
"""),
    "constant_trip_loop_unrolled_fully": ("", """
__kernel void dot64(__global const float *a, __global float *y, __local float *x) {
  int row = get_global_id(0);
  x[get_local_id(0)] = a[get_local_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0.0f;
  for (int k = 0; k < 64; k++)
    acc += a[row * 4096 + k] * x[k];
  y[row] = acc;
}
// CHECK-COUNT-64: fma.rn.f32
// CHECK-NOT: fma.rn.f32
// CHECK-NOT: bra
// CHECK: ret;
"""),
    "printf": ("", """
__kernel void p(void) { printf("%d %f\\n", (int)get_global_id(0), 1.5f); }
// CHECK: .extern .func (.param .b32 func_retval0) vprintf
// CHECK: st.local.b32
// CHECK: st.local.b64
// CHECK: call.uni (retval0), vprintf,
"""),
    "generic_pointers": ("-cl-std=CL2.0", """
float first(float *p) { return p[0]; }
__kernel void g(__global float *a, __local float *l) {
  l[get_local_id(0)] = a[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  a[get_global_id(0)] = first(a) + first(l);
}
// CHECK: ld.global.b32
// CHECK: ld.shared.b32
// CHECK-NOT: cvta
"""),
    "offset_and_work_dim": ("", """
__kernel void q(__global long *o) {
  o[0] = get_global_offset(0) + get_work_dim() + get_num_groups(1) + get_local_size(2);
}
// CHECK-DAG: ld.param.b64 {{.*}}[q_param_1]
// CHECK-DAG: ld.param.b64 {{.*}}[q_param_8]
// CHECK-DAG: ld.param.b32 {{.*}}[q_param_10]
// CHECK-DAG: %ntid.z
// CHECK-NOT: %nctaid
"""),
    "group_id_counts_from_the_launch_group_base": ("", """
__kernel void q(__global long *o) { o[get_group_id(1)] = get_global_size(2); }
// CHECK-DAG: ld.param.b64 {{.*}}[q_param_5]
// CHECK-DAG: %ctaid.y
// CHECK-DAG: ld.param.b64 {{.*}}[q_param_9]
// CHECK-DAG: %ntid.z
"""),
    "generic_space_tests": ("-cl-std=CL2.0", """
__kernel void k(__global int *g, __local int *l, __global int *out) {
  int priv = 3;
  int *ps[3] = {g, l, &priv};
  int *p = ps[get_global_id(0) % 3];
  out[get_global_id(0)] = (to_global(p) != 0) + 2 * (to_local(p) != 0) + 4 * (to_private(p) != 0);
}
// CHECK-DAG: isspacep.global
// CHECK-DAG: isspacep.shared
// CHECK-DAG: isspacep.local
"""),
}

_MATH = """
__kernel void m(__global float *a, __global double *d) {
  size_t i = get_global_id(0);
  a[i] = sin(a[i]) + exp(a[i]) + pow(a[i], 2.5f) + rsqrt(a[i]) + asinpi(a[i]);
  d[i] = cos(d[i]) + log1p(d[i]) + rootn(d[i], 3);
}
"""


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path / "cache"))


def ptx_of(source: str, options: str = "") -> str:
    return compile_program(source, options, cuda_target()).program.ptx


def filecheck(check_text: str, output: str, tmp_path: Path) -> int:
    check_file, input_file = tmp_path / "check.cl", tmp_path / "out.ptx"
    check_file.write_text(check_text)
    input_file.write_text(output)
    opts = parse_argv_options(["filecheck", str(check_file), "--input-file", str(input_file)])
    return Matcher.from_opts(opts).run()


@pytest.mark.parametrize("name", sorted(CASES))
def test_ptx(name: str, tmp_path: Path) -> None:
    options, source = CASES[name]
    ptx = ptx_of(source, options)
    print(ptx)
    assert filecheck(source, ptx, tmp_path) == 0


def test_arguments_past_cudas_parameter_space_are_a_build_error() -> None:
    """CUDA's 4 KB of kernel parameters (PTX 7.8) hold the arguments and the hidden ones."""
    fits = "typedef struct { float w[1002]; } S;\n__kernel void k(__global float *o, S s) { o[0] = s.w[9]; }"
    assert ".entry k(" in ptx_of(fits)  # 8 + 4008 bytes: the most there is room for
    with pytest.raises(CompileError, match=r"kernel 'k' takes 16392 bytes of arguments; a cuda kernel "
                                           r"takes at most 4016 \(CL_DEVICE_MAX_PARAMETER_SIZE"):
        ptx_of(fits.replace("1002", "4096").replace("w[9]", "w[4095]"))


def test_filecheck_detects_a_mismatch(tmp_path: Path) -> None:
    ptx = ptx_of(CASES["address_spaces"][1])
    assert filecheck("// CHECK: st.shared.b32\n", ptx, tmp_path) != 0


@pytest.mark.skipif(nvptx_codegen.find_libdevice() is None, reason="libdevice.10.bc not installed")
def test_libdevice_math_is_linked_and_inlined() -> None:
    ptx = ptx_of(_MATH)
    assert "__nv_" not in ptx and ".extern .func" not in ptx  # linked, nothing left to resolve
    assert "rsqrt.approx.f32" in ptx


def test_missing_libdevice_is_a_build_error(monkeypatch) -> None:

    monkeypatch.setattr(nvptx_codegen, "find_libdevice", lambda: None)
    with pytest.raises(CompileError, match="libdevice.10.bc.*nvidia-cuda-nvcc"):
        ptx_of(_MATH)


def test_the_target_value_says_the_architecture() -> None:
    source = CASES["address_spaces"][1]
    for arch in ("sm_80", "sm_90"):
        ptx = compile_program(source, "", cuda_target(arch)).program.ptx
        assert f".target {arch}" in ptx.splitlines()


def test_opt_disable_keeps_the_arithmetic() -> None:
    """-cl-opt-disable runs our O0 pipeline, but NVPTX code generation stays at LLVM -O3:
    it fuses a*b+c only when optimising, so the level must not change a kernel's floats."""
    source = "__kernel void f(__global float *a, float b) { size_t i = get_global_id(0); a[i] = a[i] * b + 1.0f; }"
    assert "fma.rn.f32" in ptx_of(source, "-cl-opt-disable") and "fma.rn.f32" in ptx_of(source)


def _ptxas() -> str | None:
    found = shutil.which("ptxas")
    if found:
        return found
    for cand in Path("/usr/local").glob("cuda*/bin/ptxas"):
        return str(cand)
    return None


PTXAS = _ptxas()


@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed (CUDA toolkit or nvidia-cuda-nvcc)")
@pytest.mark.parametrize("name", sorted(CASES) + ["math", "math_O0"])
def test_ptxas_assembles(name: str, tmp_path: Path) -> None:
    if name.startswith("math") and nvptx_codegen.find_libdevice() is None:
        pytest.skip("libdevice.10.bc not installed")
    options, source = CASES[name] if not name.startswith("math") else \
        ("-cl-opt-disable" if name == "math_O0" else "", _MATH)
    ptx_file = tmp_path / "k.ptx"
    ptx_file.write_text(ptx_of(source, options))
    done = subprocess.run([PTXAS, "-arch=sm_90", str(ptx_file), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

