"""`__attribute__((...))` in every position clang takes it (issue 12): on
declarations, types, parameters, struct members, after the struct keyword and
after its closing brace, after declarators, on statements, labels and kernels;
the GNU attributes real code carries are accepted without a warning; clang's
`ext_vector_type` typedefs are OpenCL vectors."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

cl = pytest.importorskip("oclpy")


def run(queue, src: str, n: int) -> list[int]:  # type: ignore[no-untyped-def]
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    out = np.zeros(n, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (1,), None, buf)
    cl.enqueue_copy(q, out, buf)
    return out.tolist()


def diagnostics(src: str) -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    return re.findall(r"^<kernel>:(\d+:\d+: (?:error|warning|note): .*)$", info.value.log, re.M)


POSITIONS = """
typedef struct __attribute__((packed)) { char c; int i; } P;
struct __attribute__((aligned(16))) A { int x; };
struct B { int x __attribute__((aligned(8))); char c; } __attribute__((packed));
struct __attribute__((packed)) C { char c; int i; } __attribute__((aligned(4)));
typedef struct { char c __attribute__((aligned(8))); } __attribute__((aligned(16))) A1;
union __attribute__((aligned(8))) U1 { int i; };
enum __attribute__((packed)) E1 { EA, EB };
__attribute__((always_inline)) inline int f1(int x) { return x; }
inline __attribute__((always_inline)) int f1b(int x) { return x; }
int __attribute__((noinline)) f2(int x) { return x; }
static __attribute__((unused)) int f2b(int x) { return x; }
int f2c(int x) __attribute__((const));
int f2c(int x) { return x; }
int __attribute__((pure)) f2d(int x);
__attribute__((noinline)) int f2d(int x) { return x; }
int f3(int x __attribute__((unused)), __attribute__((unused)) int y, int *__attribute__((unused)) z) { return x; }
__attribute__((warn_unused_result, nonnull(1))) int f4(int *p) { return *p; }
constant int gc __attribute__((aligned(16))) = 3;
__constant int gc2[2] __attribute__((unused)) = {1, 2};
__kernel __attribute__((vec_type_hint(float4))) __attribute__((reqd_work_group_size(1, 1, 1)))
__attribute__((work_group_size_hint(1, 1, 1)))
void k(global int *o) {
  int unusedv __attribute__((unused)) = 0;
  __attribute__((unused)) int u2 = 1;
  int __attribute__((unused)) u3 = 2;
  __attribute__((opencl_unroll_hint(4))) for (int i = 0; i < 4; i++) o[i] = f1(i) + f2(i) + f1b(i) + f2c(i) + f2d(i);
  __attribute__((opencl_unroll_hint)) while (0) {}
  __attribute__((opencl_unroll_hint(2))) do { } while (0);
lbl: __attribute__((unused));
  local float lbuf[16] __attribute__((aligned(16)));
  switch (u2) { case 1: o[4] = f3(1, 2, &u3); __attribute__((fallthrough)); case 2: o[4] += f4(&u3); }
  o[5] = sizeof(P) + sizeof(struct A) * 100 + sizeof(struct B) * 1000 + sizeof(struct C) * 10000;
  o[6] = sizeof(A1) + __alignof__(struct C) * 100 + sizeof(union U1) * 1000 + gc + gc2[1];
}
__kernel void __attribute__((reqd_work_group_size(1, 1, 1))) k2(global int *o) {}
kernel __attribute__((work_group_size_hint(8, 1, 1))) void k3(global int *o) {}
"""


def test_attributes_in_every_position_build_without_warnings(queue) -> None:  # type: ignore[no-untyped-def]
    assert compile_to_ir(POSITIONS).log == ""
    # values and layouts as clang computes them (clang-14 -O2 folds the same numbers)
    assert run(queue, POSITIONS, 7) == [0, 5, 10, 15, 3, 89605, 8421]


def test_ext_vector_type_typedefs(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef float myfloat4 __attribute__((ext_vector_type(4)));
    typedef int int2_t __attribute__((ext_vector_type(2)));
    kernel void k(global int *o) {
        myfloat4 v = (myfloat4)(1.0f, 2.0f, 3.0f, 4.0f);
        int2_t w = (int2_t)(5, 6);
        float4 same = v;
        o[0] = (int)(same.w + v.x) + w.y;
        o[1] = vec_step(myfloat4) * 10 + sizeof(int2_t);
    }"""
    assert run(queue, src, 2) == [11, 48]


def test_ext_vector_type_misuse() -> None:
    src = """typedef int bad5 __attribute__((ext_vector_type(5)));
typedef struct { int a; } St;
typedef St badst __attribute__((ext_vector_type(2)));
kernel void k(global int *o) { float x __attribute__((ext_vector_type(2))); }"""
    assert diagnostics(src) == [
        "1:33: error: vectors of 5 elements are not supported (OpenCL C vectors have 2, 3, 4, 8 or 16)",
        "3:33: error: invalid vector element type 'struct (anonymous)'",
        "4:55: error: 'ext_vector_type' attribute only applies to typedefs",
    ]


def test_unknown_attribute_is_a_warning() -> None:
    log = compile_to_ir("int x(int a) __attribute__((frobnicate(3)));").log
    assert log.startswith("<kernel>:1:29: warning: unknown attribute 'frobnicate' ignored\n")


def test_aligned_typedefs_align_without_growing(queue) -> None:  # type: ignore[no-untyped-def]
    """clang: `aligned` on a typedef raises the alignment, the size stays (structs
    holding such members are laid out accordingly; values from clang-14 -O2)."""
    src = """typedef struct { char c; } T16 __attribute__((aligned(16)));
    typedef int int_al __attribute__((aligned(8)));
    typedef float4 f4a __attribute__((aligned(32)));
    struct W { char c; int_al x; };
    struct V { char c; f4a v; };
    kernel void k(global int *o) {
        struct W w = { 1, 2 };
        int_al loc = 5;
        int arr[sizeof(struct W)];
        o[0] = sizeof(T16) * 100 + __alignof__(T16);
        o[1] = sizeof(struct W) * 100 + __alignof__(struct W);
        o[2] = sizeof(struct V) * 100 + __alignof__(struct V);
        o[3] = sizeof(arr) + w.x + loc;
        o[4] = (int)((ulong)&loc % 8) + __alignof__(int_al);
    }"""
    assert run(queue, src, 5) == [116, 1608, 6432, 71, 8]


def test_loop_and_kernel_attribute_misuse() -> None:
    src = """kernel void k(global int *o) {
  __attribute__((opencl_unroll_hint(0))) for (int i = 0; i < 2; i++) o[i] = i;
  __attribute__((opencl_unroll_hint(2))) o[0] = 1;
  __attribute__((opencl_unroll_hint(-1))) while (0) {}
}
void f(void) __attribute__((reqd_work_group_size(1,1,1)));
__attribute__((vec_type_hint(float4))) void g(void) {}"""
    assert diagnostics(src) == [
        "2:18: error: 'opencl_unroll_hint' attribute requires a positive integral compile time constant expression",
        "3:18: error: 'opencl_unroll_hint' attribute only applies to 'for', 'while', and 'do' statements",
        "4:18: error: 'opencl_unroll_hint' attribute requires a positive integral compile time constant expression",
        "6:6: error: attribute 'reqd_work_group_size' can only be applied to an OpenCL kernel function",
        "7:45: error: attribute 'vec_type_hint' can only be applied to an OpenCL kernel function",
    ]


@pytest.mark.parametrize("options, want", [
    ("", "1:44: error: attribute 'nosvm' is supported in the OpenCL version 2.0 onwards"),
    ("-cl-std=CL2.0", "1:44: warning: 'nosvm' attribute is deprecated and ignored in OpenCL C version 2.0"),
    ("-cl-std=CL3.0", "1:44: warning: 'nosvm' attribute is deprecated and ignored in OpenCL C version 3.0"),
])
def test_nosvm_depends_on_the_language_version(options: str, want: str) -> None:
    src = "kernel void k(global int *o __attribute__((nosvm))) {}"
    try:
        log = compile_to_ir(src, options).log
    except CompileError as exc:
        log = exc.log
    assert re.findall(r"^<kernel>:(\d+:\d+: (?:error|warning): .*)$", log, re.M) == [want]


def test_amd_kernel_attributes_only_apply_to_kernels() -> None:
    """clang's SemaOpenCL/amdgpu-attrs.cl: AMD's kernel hints are taken on a kernel, refused elsewhere."""
    src = """typedef __attribute__((amdgpu_flat_work_group_size(32, 64))) struct s { int x; } s_t;
__attribute__((amdgpu_waves_per_eu(2))) void f(void) {}
__attribute__((amdgpu_num_sgpr(32), amdgpu_num_vgpr(64))) void g(void);
__attribute__((amdgpu_flat_work_group_size(1, 256), amdgpu_waves_per_eu(2, 4))) kernel void k(global int *o) { o[0] = 1; }"""
    assert diagnostics(src) == [
        "1:24: error: 'amdgpu_flat_work_group_size' attribute only applies to kernel functions",
        "2:46: error: 'amdgpu_waves_per_eu' attribute only applies to kernel functions",
        "3:64: error: 'amdgpu_num_sgpr' attribute only applies to kernel functions",
        "3:64: error: 'amdgpu_num_vgpr' attribute only applies to kernel functions",
    ]
    compile_to_ir(src.splitlines()[-1])


def test_numbered_address_spaces_are_refused() -> None:
    """clang's numbered-address-space.cl: `address_space(3)` is amdgcn's LDS; oclpy refuses it
    where it is written (it used to drop it, leaving a private or generic pointer)."""
    src = "void f(__attribute__((address_space(3))) int *p) { }\nkernel void k() { }"
    assert diagnostics(src) == ["1:23: error: 'address_space' attribute is not supported: oclpy's address spaces "
                                "are OpenCL C's named ones"]
