"""C99 and GNU initializers that clang accepts (issue 12), run on the cpu device:
nested designators (`.in.y = 5`, `[1][1] = 4`, `[1].in = {...}`), designators of
members of anonymous structs and unions, GNU designator ranges (`[2 ... 5] = 7`),
the continuation after a designator, brace elision, compound literals of
struct, union and array type; clang's diagnostics for their misuse."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

cl = pytest.importorskip("oclpy")


def run(queue, src: str, n: int) -> list[int]:  # type: ignore[no-untyped-def]
    """Run kernel `k(global int *o)` on one work-item; return `o` (n zeros before)."""
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


TYPES = """typedef struct { int a; struct { int x, y; } in; int arr[4]; } S;
typedef struct { union { int i; float f; }; int tail; } U;
typedef struct { char name[4]; int n; } N;
"""


def test_nested_and_anonymous_member_designators(queue) -> None:  # type: ignore[no-untyped-def]
    src = TYPES + """kernel void k(global int *o) {
        S s = { .in.y = 5, .arr[2] = 7, .a = 1 };
        S t = { .in = { .x = 1 }, .arr = { [3] = 9 } };
        int m[3][2] = { [1][1] = 4, [2] = { 6 } };
        S u = { 1, .arr[1] = 2, 3 };
        U v = { .f = 1.0f, .tail = 2 };
        U w = { .tail = 3, .i = 5 };
        o[0] = s.in.y; o[1] = s.arr[2]; o[2] = s.a; o[3] = s.in.x;
        o[4] = t.in.x; o[5] = t.arr[3];
        o[6] = m[1][1]; o[7] = m[2][0];
        o[8] = u.arr[1]; o[9] = u.arr[2];
        o[10] = as_int(v.f); o[11] = v.tail; o[12] = w.i + w.tail;
    }"""
    assert run(queue, src, 13) == [5, 7, 1, 0, 1, 9, 4, 6, 2, 3, 0x3F800000, 2, 8]


def test_ranges_continuation_elision_and_program_scope(queue) -> None:  # type: ignore[no-untyped-def]
    src = TYPES + """constant S cs = { .in.y = 5, .arr[1 ... 2] = 7, .a = 1 };
    constant int ca[8] = { [2 ... 4] = 3, [6] = 1, 9 };
    kernel void k(global int *o) {
        S s = { .in.x = 1, 2, 3 };
        int a[10] = { [3] = 1, [5 ... 7] = 2 };
        N n = { "abc", 4 };
        S e = { 1, 2, 3, 4, 5, 6, 7 };
        S z[2] = { [1].in = { 8, 9 }, [0].arr[3] = 6 };
        int r[] = { [0 ... 2] = 1, [5] = 2 };
        o[0] = s.in.y; o[1] = s.arr[0]; o[2] = a[6] + a[3] * 10 + a[4] * 100;
        o[3] = n.name[2]; o[4] = n.n;
        o[5] = e.arr[3]; o[6] = e.in.y;
        o[7] = z[1].in.y; o[8] = z[0].arr[3];
        o[9] = cs.in.y; o[10] = cs.arr[2]; o[11] = cs.arr[3]; o[12] = ca[4] + ca[7] * 10;
        o[13] = sizeof(r) / sizeof(int) * 10 + r[2];
    }"""
    assert run(queue, src, 14) == [2, 3, 12, ord("c"), 4, 7, 3, 9, 6, 5, 7, 0, 93, 61]


def test_designator_misuse() -> None:
    src = TYPES + """kernel void k(global int *o) {
  S s = { .b = 1 };
  S t = { .in.z = 1 };
  int a[3] = { [5] = 1 };
  int b[3] = { [1 ... 4] = 1 };
  int c = { .x = 1 };
  S u = { .a[0] = 1 };
  int f[3] = { .x = 1 };
}"""
    assert diagnostics(src) == [
        "5:12: error: field designator 'b' does not refer to any field in type 'struct (anonymous)'",
        "6:15: error: field designator 'z' does not refer to any field in type 'struct (anonymous)'",
        "7:17: error: array designator index (5) exceeds array bounds (3)",
        "8:23: error: array designator index (4) exceeds array bounds (3)",
        "9:13: error: designator in initializer for scalar type 'int'",
        "10:13: error: array designator cannot initialize non-array type 'int'",
        "11:16: error: field designator cannot initialize a non-struct, non-union type 'int [3]'",
    ]


def test_excess_elements_are_warnings_as_in_clang(queue) -> None:  # type: ignore[no-untyped-def]
    src = """kernel void k(global int *o) {
  int d[2] = { 1, 2, 3 };
  int c = { 4, 5 };
  int e = {{ 6 }};
  o[0] = d[1] + c + e;
}"""
    log = compile_to_ir(src).log
    assert re.findall(r"^<kernel>:(\d+:\d+: warning: .*)$", log, re.M) == [
        "2:22: warning: excess elements in array initializer",
        "3:16: warning: excess elements in scalar initializer",
        "4:12: warning: too many braces around scalar initializer",
    ]
    assert run(queue, src, 1) == [12]


def test_compound_literals(queue) -> None:  # type: ignore[no-untyped-def]
    src = TYPES + """constant U gu = (U){ .tail = 4 };
    int sum3(const int *p) { return p[0] + p[1] + p[2]; }
    kernel void k(global int *o) {
        S s = (S){ 1, { 2, 3 } };
        s = (S){ .in.y = 6, .a = 4 };
        o[0] = s.a + s.in.y + s.in.x;
        o[1] = ((S){ .arr = { 5, 6 } }).arr[1];
        private int *p = (int[]){ 1, 2, 3 };
        o[2] = p[2] + ((int[3]){ 7, 8, 9 })[1] + sum3((int[]){ 10, 20, 30 });
        S *q = &(S){ 9 };
        q->a += 1;
        o[3] = q->a;
        o[4] = gu.tail;
        int acc = 0;
        for (int i = 0; i < 3; i++) { U *u = &(U){ .i = i }; u->i += 1; acc += u->i; }
        o[5] = acc;
    }"""
    assert run(queue, src, 6) == [10, 6, 71, 10, 4, 6]


def test_compound_literal_misuse() -> None:
    src = "struct T;\nkernel void k(global int *o) { o[0] = (struct T){ 1 }.x; int *p = (int[]){}; }"
    assert diagnostics(src)[0] == "2:39: error: variable has incomplete type 'struct T'"


def test_program_scope_unions_initialized_through_any_member(queue) -> None:  # type: ignore[no-untyped-def]
    """The constant takes the chosen member's bytes, whatever the union's storage type."""
    src = """union U { int i; float f; };
    union W { char c; double d; float4 v; int arr[3]; };
    typedef struct { int tag; union { short s; float f; }; char z; } S;
    constant union U gu = { .f = 1.0f };
    constant union U gi = { 7 };
    constant union W gw = { .arr = { 1, 2, 3 } };
    constant union W gc = { .c = 5 };
    constant S gs[2] = { { 1, { .f = 2.0f }, 3 }, { .z = 9, .s = -2 } };
    kernel void k(global int *o) {
        o[0] = gu.i; o[1] = gi.i; o[2] = gw.arr[2] * 10 + gw.arr[0]; o[3] = gc.c;
        o[4] = as_int(gs[0].f) == as_int(2.0f); o[5] = gs[1].s; o[6] = gs[1].z + gs[0].tag + gs[0].z;
    }"""
    assert run(queue, src, 7) == [0x3F800000, 7, 31, 5, 1, -2, 13]


def test_a_scalar_item_for_a_vector_member_splats_as_in_clang(queue):
    # clang -x cl: `long4 data[] = {0, 1, 2}` is three splats, not brace elision into data[0]
    src = """typedef struct { float4 v; int n; } T;
    kernel void k(global int *o) {
      long4 data[] = {0, 1, 2};
      T t = {1.5f, 2};
      o[0] = sizeof(data) / sizeof(data[0]);
      for (int i = 0; i < 3; i++) o[1 + i] = (int)(data[i].x + data[i].y + data[i].z + data[i].w);
      o[4] = (int)(2 * (t.v.x + t.v.y + t.v.z + t.v.w)); o[5] = t.n;
    }"""
    assert run(queue, src, 6) == [3, 0, 4, 8, 12, 2]


def test_vector_components_of_a_constant_vector_literal_give_all_their_elements(queue):
    # clang: (int4)(1, 2, (int2)(3)) is {1, 2, 3, 3}; (int4)((int2)(7), (int2)(1, 2)) is {7, 7, 1, 2}
    src = """__constant int4 c = (int4)(1, 2, (int2)(3));
    __constant int4 d = (int4)((int2)(7), (int2)(1, 2));
    kernel void k(global int *o) { vstore4(c, 0, o); vstore4(d, 1, o); }"""
    assert run(queue, src, 8) == [1, 2, 3, 3, 7, 7, 1, 2]


def test_too_few_elements_in_a_braced_vector_initializer_is_clangs_error() -> None:
    src = "typedef struct { int4 a; int b; } S;\nkernel void k(global int *o) {\n  int4 v = {1, 2, 3};\n  S s = {{1, 2}, 3};\n  int4 z = {};\n  o[0] = v.w + s.b + z.x;\n}\n"
    assert diagnostics(src) == [
        "3:12: error: too few elements in vector initialization (expected 4 elements, have 3)",
        "4:10: error: too few elements in vector initialization (expected 4 elements, have 2)"]
