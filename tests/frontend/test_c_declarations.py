"""C declarations real OpenCL code relies on (issue 12), run on the cpu device:
flexible array members, `f()` meaning `f(void)`, `restrict` in every place,
`#pragma unroll` and friends on loops; clang's diagnostics for their misuse."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

cl = pytest.importorskip("oclpy")


def diagnostics(src: str) -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    return re.findall(r"^<kernel>:(\d+:\d+: (?:error|warning|note): .*)$", info.value.log, re.M)


def test_flexible_array_members_read_from_a_buffer(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef struct { int n; float data[]; } F;
    kernel void k(global F *f, global int *o) {
        for (int i = 0; i < f->n; i++) o[i] = (int)(f->data[i] * 2.0f);
        o[4] = sizeof(F);
    }"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    blob = np.array([3, 0, 0, 0], np.int32)
    blob[1:] = np.array([1.5, 2.5, 3.5], np.float32).view(np.int32)
    out = np.zeros(5, np.int32)
    mf = cl.mem_flags
    bf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=blob)
    bo = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (1,), None, bf, bo)
    cl.enqueue_copy(q, out, bo)
    assert out.tolist() == [3, 5, 7, 0, 4]


def test_zero_length_arrays_are_errors() -> None:
    """C99 6.7.5.2p1: an array's constant size is above zero; GNU C's `[0]` is an error in
    OpenCL C, at the size, in clang 23's words (clang 14 took it as GNU C does)."""
    src = """typedef struct { int n; int d[0]; } S;
void f(int a[0]) {}
kernel void k(global int *o) { int v[1 - 1]; o[0] = sizeof(int[0]); }"""
    assert diagnostics(src) == [
        "1:31: error: zero-length arrays are not permitted in OpenCL",
        "2:14: error: zero-length arrays are not permitted in OpenCL",
        "3:38: error: zero-length arrays are not permitted in OpenCL",
        "3:64: error: zero-length arrays are not permitted in OpenCL",
    ]


def test_flexible_array_member_misuse() -> None:
    src = """typedef struct { float data[]; } Only;
typedef struct { int n; float data[]; int after; } Mid;
union U { int a; float d[]; };
struct S { int n; int d[]; };
kernel void k(global int *o) { struct S s = { 1, { 2 } }; }"""
    assert diagnostics(src) == [
        "1:24: error: flexible array member 'data' not allowed in otherwise empty struct",
        "2:31: error: flexible array member 'data' with type 'float[]' is not at the end of struct",
        "3:24: error: flexible array member 'd' in a union is not allowed",
        "5:50: error: initialization of flexible array member is not allowed",
    ]


def test_a_member_of_incomplete_type_is_an_error() -> None:
    """clang's words; the OpenCL C mutator's fast tier found `void y;` in a struct an
    internal error (the layout asked the size of void), and so was a member of a struct
    declared but not defined."""
    src = """struct S { int x; void y; struct T t; struct S self; struct T many[2][3]; struct T *fine; };
kernel void k(global int *o) { struct S s; s.x = 1; o[0] = s.x; }"""
    assert diagnostics(src) == [
        "1:24: error: field has incomplete type 'void'",
        "1:36: error: field has incomplete type 'struct T'",
        "1:48: error: field has incomplete type 'struct S'",
        "1:63: error: array has incomplete element type 'struct T'",
    ]


def test_an_array_parameter_of_incomplete_element_is_an_error() -> None:
    """clang's error at the innermost '[', before the array becomes a pointer (the OpenCL C
    mutator's `void a[2]` had reached the layout); a pointer to either is fine."""
    assert diagnostics("void f(struct S a[2]) { }\nvoid g(void b[][3]);\nvoid h(struct S *p, void *q);") == [
        "1:18: error: array has incomplete element type 'struct S'",
        "2:16: error: array has incomplete element type 'void'",
    ]


def test_empty_parameter_list_means_void(queue) -> None:  # type: ignore[no-untyped-def]
    src = "int f();\nint g() { return f() + 1; }\nint f() { return 3; }\n" \
          "kernel void k(global int *o) { o[0] = g(); }"
    ctx, q = queue
    out = np.zeros(1, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    cl.Program(ctx, src).build().k(q, (1,), None, buf)
    cl.enqueue_copy(q, out, buf)
    assert out[0] == 4
    assert diagnostics("int f();\nkernel void k(global int *o) { o[0] = f(1); }\nint f() { return 3; }") == [
        "2:41: error: too many arguments to function call, expected 0, have 1",
        "1:5: note: 'f' declared here",
    ]


def test_restrict_in_every_place_and_loop_pragmas_build() -> None:
    src = """void r1(global int *restrict a, const global int *__restrict b, global int *__restrict__ c) { a[0] = b[0] + c[0]; }
void r2(int a[restrict 4], int *const restrict p, int *__restrict__ const q);
typedef int *restrict rptr;
kernel void k(global int *restrict o, global int * __restrict__ p) {
  int *restrict q = 0;
  rptr w = 0;
  r1(o, p, o);
#pragma unroll 4
  for (int i = 0; i < 8; i++) o[i] += i;
#pragma unroll
  for (int i = 0; i < 2; i++) o[i] += i;
#pragma nounroll
  for (int i = 0; i < 2; i++) o[i] += i;
#pragma clang loop unroll(full)
  for (int i = 0; i < 2; i++) o[i] += i;
  __attribute__((opencl_unroll_hint(2))) for (int i = 0; i < 8; i++) o[i] += i;
}"""
    result = compile_to_ir(src)
    assert result.log == ""
    k = next(f for f in result.module.functions if f.name == "k")
    assert [("restrict" in a.attrs["type_qualifiers"]) for a in k.args] == [True, True]


def test_too_few_and_too_many_arguments_point_where_clang_does() -> None:
    src = "int f2(int a, int b) { return a; }\nkernel void k(global int *o) { o[0] = f2(1); o[1] = f2(1, 2, 3); }"
    assert diagnostics(src) == [
        "2:43: error: too few arguments to function call, expected 2, have 1",
        "1:5: note: 'f2' declared here",
        "2:62: error: too many arguments to function call, expected 2, have 3",
        "1:5: note: 'f2' declared here",
    ]


def test_anonymous_structs_and_unions(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef struct {
        int tag;
        union { int i; float f; struct { short lo, hi; }; };
        struct { int a; union { int b; uint ub; }; };
    } S;
    kernel void k(global int *o, global S *g) {
        S s; s.tag = 1; s.f = 1.0f; s.a = 3; s.b = -1;
        o[0] = s.i; o[1] = s.a + s.ub % 7;
        s.lo = 5; s.hi = 6;
        o[2] = s.i == ((6 << 16) | 5);
        S *p = &s; p->hi = 9;
        o[3] = p->hi + sizeof(S);
        g->a = 42; o[4] = g->b;
        S t = { 7, { .f = 2.0f }, { 8, { 9 } } };
        o[5] = t.a * 10 + t.b;
    }"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    o, g = np.zeros(6, np.int32), np.zeros(4, np.int32)
    mf = cl.mem_flags
    bo = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=o)
    bg = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=g)
    prg.k(q, (1,), None, bo, bg)
    cl.enqueue_copy(q, o, bo)
    cl.enqueue_copy(q, g, bg)
    assert o.tolist() == [0x3F800000, 6, 1, 25, 0, 89] and g.tolist() == [0, 0, 42, 0]
