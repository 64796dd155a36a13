"""What clang accepts beyond the letter of OpenCL C, and oclpy now does too, reduced from
the corpus kernels that needed it (issue 12): the type and size macros (`typedef
__SIZE_TYPE__ size_t;` in SPIRV-LLVM-Translator's and clang's tests), the C library
builtins clang offers in OpenCL C (`__builtin_printf`, `__builtin_store_halff` and its
kin), printf formats that clang only warns about, and array sizes from const variables."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from oclpy.frontend.driver import compile_to_ir
from tests.frontend.sema_helpers import build_errors

cl = pytest.importorskip("oclpy")


def run(queue, src: str, n: int, dtype=np.int64, inputs=()) -> list:  # type: ignore[no-untyped-def]
    """Run kernel `k(global T *o, ...)` on one work-item; return `o` (n zeros before)."""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    out = np.zeros(n, dtype)
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in (out, *inputs)]
    prg.k(q, (1,), None, *bufs)
    cl.enqueue_copy(q, out, bufs[0])
    return out.tolist()


def errors(src: str, std: str = "CL1.2") -> list[tuple[str, str]]:
    return build_errors(src, std)


def test_type_macros_name_opencl_types(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __UINTPTR_TYPE__ uintptr_t;
kernel void k(global long *o) {
  o[0] = sizeof(size_t); o[1] = sizeof(ptrdiff_t); o[2] = sizeof(__INT8_TYPE__);
  o[3] = sizeof(__UINT16_TYPE__); o[4] = sizeof(__INT64_TYPE__); o[5] = __SIZEOF_INT__;
  o[6] = __SIZEOF_LONG__; o[7] = __CHAR_BIT__; o[8] = __INT_MAX__; o[9] = (ptrdiff_t)-1 < 0;
  o[10] = (size_t)-1 > 0; o[11] = __SIZEOF_POINTER__;
}"""
    got = run(queue, src, 12)
    assert got[:11] == [8, 8, 1, 2, 8, 4, 8, 8, 2**31 - 1, 1, 1]
    assert got[11] in (4, 8)


def test_type_macros_follow_the_target_pointer_width() -> None:
    from oclpy.frontend.options import parse_build_options
    from oclpy.frontend.c.type_macros import type_macros
    assert type_macros(parse_build_options("").size_rules)["__SIZEOF_POINTER__"] == "8"
    assert type_macros(parse_build_options("").size_rules)["__SIZE_TYPE__"] == "long unsigned int"


def test_int128_types_are_not_predefined() -> None:
    assert errors("kernel void k(global int *o) { __INT128_TYPE__ x = 0; }") == \
        [("1:32", "unknown type name '__INT128_TYPE__'")]


def test_builtin_printf_is_printf(queue, capfd) -> None:  # type: ignore[no-untyped-def]
    run(queue, 'kernel void k(global long *o) { o[0] = __builtin_printf("n=%d\\n", 42); }', 1)
    assert "n=42" in capfd.readouterr().out
    assert errors('kernel void k() { __builtin_printf("%s\\n", 1); }') == \
        [("1:36", "format specifies type 'char *' but the argument has type 'int'")]


def test_half_conversions_through_pointers(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global float *o, global half *h, global double *d) {
  __builtin_store_halff(o[0], h);
  __builtin_store_half(d[0], h + 1);
  o[1] = __builtin_load_halff(h);
  d[1] = __builtin_load_half(h + 1);
  __builtin_store_halff(2.5f, h + 2);
  o[2] = __builtin_load_halff(h + 2);
}"""
    o = np.array([1.0 / 3.0, 0, 0], np.float32)
    h = np.zeros(3, np.float16)
    d = np.array([2.0 / 3.0, 0], np.float64)
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in (o, h, d)]
    prg.k(q, (1,), None, *bufs)
    for buf, a in zip(bufs, (o, h, d)):
        cl.enqueue_copy(q, a, buf)
    assert h.tolist() == [float(np.float16(1.0 / 3.0)), float(np.float16(2.0 / 3.0)), 2.5]  # nearest even
    assert o[1] == np.float32(np.float16(1.0 / 3.0)) and d[1] == float(np.float16(2.0 / 3.0))
    assert o[2] == 2.5


PRINTF_WARNED = r'''kernel void k(global long *o) {
  int4 v = (int4)(1, 2, 3, 4);
  printf("A %d %d|\n", 4);
  printf("B|\n", 4);
  printf("C %v8d|\n", v);
  printf("D %d|\n", v);
  printf("E %s %s|\n", "a");
  printf("F %v4d|\n", v);
  printf("G %hlf|\n", 2.5f);
}'''


def test_printf_format_mismatches_warn_as_clang() -> None:
    log = compile_to_ir(PRINTF_WARNED).log
    got = re.findall(r"^<kernel>:(\d+:\d+): warning: (.*)$", log, re.M)
    assert got == [  # clang-14's -Wformat warnings, each at clang's line
        ("3:17", "more '%' conversions than data arguments"),
        ("4:18", "data argument not used by format string"),
        ("5:23", "format specifies type 'int8' but the argument has type 'int4'"),
        ("6:21", "format specifies type 'int' but the argument has type 'int4'"),
        ("7:17", "more '%' conversions than data arguments"),
        ("9:14", "length modifier 'hl' results in undefined behavior or no effect with 'f' conversion specifier"),
    ]


def test_printf_with_warnings_prints_zeros_for_missing_arguments(queue, capfd) -> None:  # type: ignore[no-untyped-def]
    capfd.readouterr()
    run(queue, PRINTF_WARNED, 1)
    out = capfd.readouterr().out
    assert out.splitlines() == ["A 4 0|", "B|", "C 1,2,3,4,0,0,0,0|", "D 1|", "E a |", "F 1,2,3,4|", "G 2.500000|"]


def test_const_variables_fold_into_array_sizes(queue) -> None:  # type: ignore[no-untyped-def]
    src = """constant int sz0 = 5;
kernel void k(global long *o) {
  const int n = 4;
  const int twice = n * 2;
  int a[n];
  int b[sz0];
  local short c[twice + 1];
  for (int i = 0; i < n; i++) a[i] = i;
  o[0] = sizeof(a); o[1] = sizeof(b); o[2] = sizeof(c); o[3] = a[3];
}"""
    assert run(queue, src, 4) == [16, 20, 18, 3]


def test_a_size_that_does_not_fold_is_a_vla() -> None:
    src = "kernel void k(global int *o, int m) {\n  const int q = m;\n  int c[q];\n  int d[m + 1];\n}"
    assert errors(src) == [("3:9", "variable length arrays are not supported in OpenCL"),
                           ("4:9", "variable length arrays are not supported in OpenCL")]
    assert errors("kernel void k() { int n = 2; int c[n]; }") == \
        [("1:36", "variable length arrays are not supported in OpenCL")]  # not const: clang's VLA too


def test_inline_assembly_parses_and_is_refused() -> None:
    src = """__asm__("top level");
kernel void k(global int *o) {
  __asm__ volatile ("s_barrier" : : : "memory");
  int x;
  __asm__("intcommand %0 %1" : "=r"(x) : "r"(o[0]));
  o[0] = 1;
}"""
    why = "inline assembly is not supported: oclpy's devices take no target assembly"
    assert errors(src) == [("1:1", why), ("3:3", why), ("5:3", why)]
    assert errors("kernel void k() { __asm__ volatile; }") == [("1:35", "expected '(' after 'asm'")]


def test_builtin_astype_is_as_type(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global uint *o) {
  float4 f = (float4)(1.0f, 2.0f, -0.0f, 4.0f);
  float3 t = __builtin_astype(f, float3);
  uint4 u = __builtin_astype(f, uint4);
  o[0] = u.x; o[1] = u.z; o[2] = __builtin_astype(t.y, uint);
}"""
    assert run(queue, src, 3, np.uint32) == [0x3F800000, 0x80000000, 0x40000000]
    assert errors("kernel void k(global int *p) { __builtin_astype(p, global int *); }") == \
        [("1:32", "'__builtin_astype' to '__global int *' is not supported: oclpy reinterprets values as "
                  "scalar and vector types")]
    assert errors("kernel void k(float4 f) { __builtin_astype(f, int2); }") == \
        [("1:27", "invalid reinterpretation: sizes of 'int2' and 'float4' must match")]


def test_pointer_integer_comparison_warns_as_clang(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global long *o, global int *in) {
  o[0] = in == 0; o[1] = in == 1; o[2] = 1 != in; o[3] = in > 1; o[4] = (global int *)8 == 8;
}"""
    log = compile_to_ir(src).log
    assert re.findall(r"^<kernel>:(\d+:\d+): warning: (.*)$", log, re.M) == [
        ("2:29", "comparison between pointer and integer ('__global int *' and 'int')"),
        ("2:44", "comparison between pointer and integer ('int' and '__global int *')"),
        ("2:61", "ordered comparison between pointer and integer ('__global int *' and 'int')"),
        ("2:89", "comparison between pointer and integer ('__global int *' and 'int')"),
    ]
    assert run(queue, src, 5, inputs=(np.zeros(1, np.int32),)) == [0, 0, 1, 1, 1]


def test_conditional_pointers_meet_in_the_generic_space(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global long *o, global int *g, local int *l, global const int *gc) {
  int *p = o[0] ? g : (int *)0;
  int *q = o[1] ? p : g;
  const global int *r = o[2] ? g : gc;
  l[0] = 5;
  int *s = o[3] ? (int *)l : g;
  o[0] = *q + *r;
  o[1] = *s;
}"""
    g = np.array([7], np.int32)
    ctx, q = queue
    prg = cl.Program(ctx, src).build(options="-cl-std=CL2.0")
    o = np.array([0, 0, 1, 1], np.int64)
    mf = cl.mem_flags
    ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=o)
    gb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=g)
    prg.k(q, (1,), None, ob, gb, cl.LocalMemory(4), gb)
    cl.enqueue_copy(q, o, ob)
    assert o.tolist() == [14, 5, 1, 1]
    assert errors("kernel void k(global int *g, local int *l, int c) { *(c ? g : l) = 1; }", "CL2.0") == [
        ("1:57", "conditional operator with the second and third operands of type  ('__global int *' and "
                 "'__local int *') which are pointers to non-overlapping address spaces")]


def test_builtin_memcpy_copies_bytes_between_spaces(queue) -> None:  # type: ignore[no-untyped-def]
    src = """constant float table[4] = {1.5f, 2.5f, 3.5f, 4.5f};
kernel void k(global float *o, global float *in) {
  __builtin_memcpy(o, table, 8);
  float p[2];
  global float *back = __builtin_memcpy(p, in + 1, sizeof(p)) == (void *)p ? o : 0;
  __builtin_memcpy(back + 2, p, 2 * sizeof(float));
  __builtin_memcpy(o + 4, in, 0);
}"""
    got = run(queue, src, 5, np.float32, inputs=(np.array([9.0, 8.0, 7.0], np.float32),))
    assert got == [1.5, 2.5, 8.0, 7.0, 0.0]
    # an integer for a pointer: clang 14 warns, clang 15 and later reject it
    assert errors("kernel void k(global int *o) { __builtin_memcpy(o, 1, 4); }")[0] == \
        ("1:32", "no matching function for call to '__builtin_memcpy'")
    assert errors("kernel void k(global int *o) { __builtin_memcpy(o, o); }") == \
        [("1:53", "too few arguments to function call, expected 3, have 2")]  # at its ")", as clang


def test_blocks_are_refused_with_their_own_error() -> None:
    src = """kernel void k(global int *o) {
  typedef int (^block_t)(int);
  o[0] = 1;
  int x = ^(int i) { return i; }(2);
}"""
    why = "blocks are not supported: oclpy has no device-side enqueue to call them"
    assert errors(src, "CL2.0") == [("2:16", why), ("4:11", why)]


def test_a_struct_declaring_nothing_is_still_checked() -> None:
    src = "struct {\n  int a : 1;\n};\nvoid f(int n) {\n  int a[n];\n}"
    assert errors(src) == [("2:7", "bit-fields are not supported in OpenCL (field 'a')"),
                           ("5:9", "variable length arrays are not supported in OpenCL")]  # clang's order
    assert compile_to_ir("struct { int a; };\nkernel void k(global int *o) { o[0] = 1; }").log.startswith(
        "<kernel>:1:1: warning: declaration does not declare anything")


def test_rgba_swizzles_before_opencl_c_3_warn_as_clang(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global float *o) {
  float4 v = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
  float4 w = v.abgr;
  o[0] = w.x; o[1] = w.w; o[2] = v.g; o[3] = v.rg.y;
}"""
    log = compile_to_ir(src).log
    assert re.findall(r"^<kernel>:(\d+):\d+: warning: (.*)$", log, re.M) == [
        ("3", "vector component name 'a' is a feature from OpenCL version 3.0 onwards"),
        ("4", "vector component name 'g' is a feature from OpenCL version 3.0 onwards"),
        ("4", "vector component name 'r' is a feature from OpenCL version 3.0 onwards")]
    assert compile_to_ir(src, "-cl-std=CL3.0").log == ""
    assert run(queue, src, 4, np.float32) == [4.0, 1.0, 2.0, 2.0]
    assert errors("kernel void k(float4 v) { v.xyzr; }")[0][1] == "illegal vector component name 'r'"


def test_float_logical_operands_need_opencl_c_1_2() -> None:
    src = "kernel void k(float4 a, float f, int i) {\n  int4 x = a && a;\n  int y = f && i;\n  int z = i || 1;\n}"
    assert errors(src, "CL1.1") == [("2:14", "invalid operands to binary expression ('float4' and 'float4')"),
                                    ("3:13", "invalid operands to binary expression ('float' and 'int')")]
    assert compile_to_ir(src, "-cl-std=CL1.2").log == ""


def test_generic_needs_opencl_c_2_0() -> None:
    src = "kernel void k(global int *g) {\n  __generic int *p = g;\n  generic int *q = g;\n}"
    got = errors(src)
    assert got[:2] == [("2:3", "OpenCL C version 1.2 does not support the '__generic' type qualifier"),
                       ("3:3", "OpenCL C version 1.2 does not support the 'generic' type qualifier")]
    assert compile_to_ir(src, "-cl-std=CL2.0").log == ""


def test_flag_attributes_take_no_arguments() -> None:
    src = ("void f2(void) __attribute__((convergent(1)));\nvoid f3(void) __attribute__((noinline()));\n"
           "void f4(void) __attribute__((always_inline(2)));\nkernel void k() {}")
    assert errors(src) == [("1:30", "'convergent' attribute takes no arguments"),
                           ("3:30", "'always_inline' attribute takes no arguments")]


def test_vector_items_fill_several_elements_of_a_braced_vector(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global float *o) {
  float2 p = (float2)(1.0f, 2.0f);
  float4 v = {p, p.yx};
  float4 w = {p, 3.0f, 4.0f};
  float4 val[2] = {{p.yx, p}, {(float2)(5.0f, 6.0f), 0.0f, 0.0f}};
  for (int i = 0; i < 4; i++) { o[i] = v[i]; o[4 + i] = w[i]; o[8 + i] = val[1][i]; }
}"""
    got = run(queue, src, 12, np.float32)
    assert got == [1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.0, 0.0]
    assert errors("kernel void k(float2 p) { float4 v = {p, p, p}; float4 w[2] = {{p, p, p}, {p}}; }") == [
        ("1:38", "too many elements in vector initialization (expected 4 elements, have 6)"),
        ("1:64", "too many elements in vector initialization (expected 4 elements, have 6)"),
        ("1:75", "too few elements in vector initialization (expected 4 elements, have 2)")]  # as clang-14


def test_conditional_pointers_to_different_types_warn_as_clang(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global int *o, global float *f, int c) {
  global void *p = c ? o : f;
  *(global int *)p = 7;
}"""
    assert re.findall(r"warning: (.*)", compile_to_ir(src, "-cl-std=CL2.0").log) == [
        "pointer type mismatch ('__global int *' and '__global float *')"]
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    o = np.zeros(1, np.int32)
    mf = cl.mem_flags
    ob = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=o)
    fb = cl.Buffer(ctx, mf.READ_WRITE, 4)
    prg.k(q, (1,), None, ob, fb, np.int32(1))
    cl.enqueue_copy(q, o, ob)
    assert o.tolist() == [7]


def test_a_null_pointer_into_global_memory_stays_global() -> None:
    src = ("#define NULL ((void*)0)\nkernel void k() {\n  global int* ptr1 = NULL;\n"
           "  global int* ptr2 = (global void*)0;\n  constant int* ptr3 = NULL;\n"
           "  constant int* ptr4 = (global void*)0;\n}")
    assert errors(src) == [("6:24", "initializing '__constant int *' with an expression of type "
                                    "'__global void *' changes address space of pointer")]


def test_sizeof_of_a_variable_in_an_array_size_is_no_vla() -> None:
    src = "kernel void k(global long *arg, int n) { int r[sizeof(arg) == 8 ? 1 : -1]; int q[n]; }"
    assert errors(src) == [("1:82", "variable length arrays are not supported in OpenCL")]


def test_frexp_ldexp_canonicalize_and_half_math_builtins(queue) -> None:  # type: ignore[no-untyped-def]
    """clang 23's `__builtin_frexpf` (a pointer into any space, clang's Sema/builtins.cl),
    `__builtin_ldexpf`, `__builtin_canonicalizef` and the `f16` spellings (builtins-f16.cl)."""
    src = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global float *o, global int *e) {
  local int l[1];
  int p;
  o[0] = __builtin_frexpf(12.0f, e);
  o[1] = __builtin_frexpf(0.75f, &p);
  e[1] = p;
  o[2] = __builtin_frexpf(-3.0f, l);
  e[2] = l[0];
  o[3] = __builtin_ldexpf(1.5f, 3);
  o[4] = __builtin_canonicalizef(-2.25f);
  half h = __builtin_sqrtf16((half)2.25f);
  o[5] = __builtin_copysignf16(h, (half)-1.0f);
  o[6] = __builtin_fmaf16((half)2.0f, (half)3.0f, __builtin_canonicalizef16((half)0.5f));
  o[7] = __builtin_ldexpf16(__builtin_frexpf16((half)40.0f, &p), p);
}"""
    o, e = np.zeros(8, np.float32), np.zeros(3, np.int32)
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in (o, e)]
    prg.k(q, (1,), None, *bufs)
    for buf, a in zip(bufs, (o, e)):
        cl.enqueue_copy(q, a, buf)
    assert o.tolist() == [0.75, 0.75, -0.75, 12.0, -2.25, -1.5, 6.5, 40.0]
    assert e.tolist() == [4, 0, 2]


def test_modf_remquo_roundeven_and_maximum_num_builtins(queue) -> None:  # type: ignore[no-untyped-def]
    """clang 23's `__builtin_modff`, `__builtin_remquof` (a pointer into global, local or private
    memory), `__builtin_roundeven*` and `__builtin_fmaximum_num*`/`__builtin_fminimum_num*`
    (IEEE 754-2019 maximumNumber: a NaN only when both are, -0 < +0), against NumPy and
    hand-computed cases."""
    src = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global const float *x, global const float *y, global float *frac, global float *whole,
              global float *rem, global int *quo, global float *even, global float *mx, global float *mn,
              global double *d) {
  int i = get_global_id(0);
  local float lw[8];
  local int lq[8];
  float w;
  int q;
  if (i % 3 == 0) {
    frac[i] = __builtin_modff(x[i], &whole[i]);
    rem[i] = __builtin_remquof(x[i], y[i], &quo[i]);
  } else if (i % 3 == 1) {
    frac[i] = __builtin_modff(x[i], &w);
    whole[i] = w;
    rem[i] = __builtin_remquof(x[i], y[i], &q);
    quo[i] = q;
  } else {
    frac[i] = __builtin_modff(x[i], &lw[i % 8]);
    whole[i] = lw[i % 8];
    rem[i] = __builtin_remquof(x[i], y[i], &lq[i % 8]);
    quo[i] = lq[i % 8];
  }
  even[i] = i % 2 ? __builtin_roundevenf(x[i]) : (float)__builtin_roundevenf16((half)x[i]);
  mx[i] = __builtin_fmaximum_numf(x[i], y[i]);
  mn[i] = __builtin_fminimum_numf(x[i], y[i]);
  if (i == 0) {
    double dw;
    d[0] = __builtin_modf(-2.75, &dw);
    d[1] = dw;
    d[2] = __builtin_remquo(7.0, 2.0, &q);
    d[3] = q;
    d[4] = __builtin_roundeven(-2.5);
    d[5] = __builtin_fmaximum_num(__builtin_nan(""), -0.0);
    d[6] = __builtin_fminimum_num(0.0, -0.0);
    d[7] = (float)__builtin_fmaximum_numf16((half)-0.0f, (half)0.0f);
    d[8] = (float)__builtin_fminimum_numf16((half)NAN, (half)-1.5f);
  }
}"""
    nan, inf = float("nan"), float("inf")
    x = np.array([1.5, -2.75, 5.0, 7.0, -7.0, 10.0, 2.5, -0.5, -0.0, 0.0, nan, 1.0, nan, -inf, 0.5, 3.5], np.float32)
    y = np.array([2.0, 1.0, 2.0, 2.0, 2.0, 3.0, 4.0, 1.0, 0.0, -0.0, 1.0, nan, nan, 1.0, -0.5, 3.5], np.float32)
    n = len(x)
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    mf = cl.mem_flags
    ins = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a) for a in (x, y)]
    outs = [np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.int32),
            np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.float32), np.zeros(9, np.float64)]
    bufs = [cl.Buffer(ctx, mf.READ_WRITE, a.nbytes) for a in outs]
    prg.k(q, (n,), None, *ins, *bufs)
    for buf, a in zip(bufs, outs):
        cl.enqueue_copy(q, a, buf)
    frac, whole, rem, quo, even, mx, mn, d = outs

    def same(got, want) -> bool:  # NaN as NaN, and the sign of a zero
        return np.array_equal(np.signbit(got), np.signbit(want)) and np.allclose(got, want, equal_nan=True, atol=0)

    want_frac, want_whole = np.modf(x)
    assert same(frac, want_frac) and same(whole, want_whole)
    ok = ~(np.isnan(x) | np.isnan(y) | np.isinf(x) | (y == 0))
    assert rem[ok].tolist() == [math.remainder(a, b) for a, b in zip(x[ok].tolist(), y[ok].tolist())]
    assert quo[:6].tolist() == [1, -3, 2, 4, -4, 3]  # round-half-even quotients, low bits and sign
    assert same(even, np.round(x))
    assert same(mx, np.array([2.0, 1.0, 5.0, 7.0, 2.0, 10.0, 4.0, 1.0, 0.0, 0.0, 1.0, 1.0, nan, 1.0, 0.5, 3.5]))
    assert same(mn, np.array([1.5, -2.75, 2.0, 2.0, -7.0, 3.0, 2.5, -0.5, -0.0, -0.0, 1.0, 1.0, nan, -inf, -0.5,
                              3.5]))
    assert same(d, np.array([-0.75, -2.0, -1.0, 4.0, -2.0, -0.0, -0.0, 0.0, -1.5]))


def test_modf_remquo_roundeven_and_maximum_num_types_as_clang() -> None:
    """The result types clang 23 gives (each `_Static_assert` holds there too), a generic
    pointer in OpenCL C 2.0, and oclpy's one refusal: a pointer to constant memory, which
    clang takes and the builtin would write through."""
    src = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global int *q, local float *lf, global double *gd) {
  float f; half h = 1; generic float *g = lf;
  _Static_assert(sizeof(__builtin_modff(1.5f, &f)) == 4, "");
  _Static_assert(sizeof(__builtin_modff(1.5f, g)) == 4, "");
  _Static_assert(sizeof(__builtin_modf(1.5, gd)) == 8, "");
  _Static_assert(sizeof(__builtin_remquof(5.f, 2.f, q)) == 4, "");
  _Static_assert(sizeof(__builtin_remquo(5.0, 2.0, q)) == 8, "");
  _Static_assert(sizeof(__builtin_roundevenf16(h)) == 2, "");
  _Static_assert(sizeof(__builtin_roundevenf(h)) == 4, "");
  _Static_assert(sizeof(__builtin_roundeven(1)) == 8, "");
  _Static_assert(sizeof(__builtin_fmaximum_numf16(h, h)) == 2, "");
  _Static_assert(sizeof(__builtin_fmaximum_numf(1, 2)) == 4, "");
  _Static_assert(sizeof(__builtin_fminimum_num(1, 2.f)) == 8, "");
#if !__has_builtin(__builtin_fminimum_numf16) || !__has_builtin(__builtin_remquof)
#error
#endif
}"""
    assert compile_to_ir(src, "-cl-std=CL2.0").log == ""
    assert errors("kernel void k(constant float *c, global float *o) { o[0] = __builtin_modff(1.5f, c); }") == [
        ("1:60", "no matching function for call to '__builtin_modff'")]
