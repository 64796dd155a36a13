"""GNU C extensions that clang-based OpenCL compilers accept (issue 12), built and
run on the cpu device, with their misuse diagnostics: statement expressions."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError, DiagnosticEngine
from oclpy.frontend.c import ast
from oclpy.frontend.c.ast_printer import dump, to_source
from oclpy.frontend.driver import compile_to_ir
from oclpy.frontend.c.c_parser import parse
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import module_problems

cl = pytest.importorskip("oclpy")


def run(queue, src: str, n: int, dtype: type = np.int32, options: str = "") -> list:  # type: ignore[no-untyped-def]
    """Run kernel `k(global T *o)` of `src` on one work-item; return `o` (n zeros before)."""
    ctx, q = queue
    prg = cl.Program(ctx, src).build(options=options)
    out = np.zeros(n, dtype)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (1,), None, buf)
    cl.enqueue_copy(q, out, buf)
    return out.tolist()


def diagnostics(src: str, options: str = "") -> list[str]:
    """`line:col: severity: message` for each diagnostic of a build that fails."""
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, options)
    return re.findall(r"^<kernel>:(\d+:\d+: (?:error|warning|note): .*)$", info.value.log, re.M)


def build_log(src: str, options: str = "") -> str:
    result = compile_to_ir(src, options)
    assert module_problems(result.module) == []
    return result.log


# -- statement expressions ------------------------------------------------------

SAFE_ADD = """#define SAFE_ADD(a, b) ({ int _a = (a); int _b = (b); \\
    (_b > 0 && _a > 2147483647 - _b) ? _a : _a + _b; })
"""


def test_statement_expression_values(queue) -> None:  # type: ignore[no-untyped-def]
    src = SAFE_ADD + """
    kernel void k(global int *o) {
        int y = ({ int x = 3; x + 1; });
        o[0] = y;
        o[1] = SAFE_ADD(y, SAFE_ADD(2, 3));
        o[2] = SAFE_ADD(2147483647, 1);
        if (({ int t = o[0]; t > 3; })) o[3] = 1;
        ({ o[4] = 5; });
        o[5] = ({ 42; ; ; });
        o[6] = ({ int q = 1; ({ int q = 2; q * 10; }) + q; });
        o[7] = o[0] ? ({ int z = 8; z; }) : ({ 1; });
        o[8] = ({ lbl: 9; });
    }"""
    assert run(queue, src, 9) == [4, 9, 2147483647, 1, 5, 42, 21, 8, 9]


def test_statement_expression_of_struct_array_and_void(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef struct { int a; float b; } S;
    void set(global int *p, int v) { *p = v; }
    kernel void k(global int *o) {
        S s = ({ S t; t.a = 11; t.b = 2.5f; t; });
        o[0] = s.a + (int)(s.b * 2);
        o[1] = ({ S t = {3, 1.0f}; t; }).a;
        int arr[3] = {5, 6, 7};
        o[2] = ({ arr; })[2];
        ({ set(o + 3, 4); });
        o[4] = sizeof(({ (char)1; }));
    }"""
    assert run(queue, src, 5) == [16, 3, 7, 4, 1]


def test_break_continue_and_return_leave_statement_expressions(queue) -> None:  # type: ignore[no-untyped-def]
    """A loop's condition and step are outside its body (C11 6.8.6.2-3): a break or continue in a
    statement expression there leaves the enclosing loop or switch, as in clang 23 and GCC."""
    src = """int f(int x) { return ({ int y = x * 2; if (y > 10) return -1; y + 1; }); }
    kernel void k(global int *o) {
        int i = 0, n = 0;
        for (int r = 0; r < 3; r++) { while (({ if (i >= 7) break; i < 10; })) i++; n++; }
        o[0] = i * 10 + n;
        int s = 0;
        for (int j = 0; j < 10; j++) s += ({ if (j % 2) continue; j; });
        o[1] = s;
        o[2] = f(3) * 100 + f(6);
        for (int j = 0; ({ j < 3; }); j = ({ j + 1; })) o[3] += j;
        int d = 0;
        for (int r = 0; r < 2; r++) do { d++; } while (({ if (d == 4) break; 1; }));
        o[4] = d;
        for (int r = 0; r < 2; r++) for (int j = 0; ; ({ if (j == 5) break; j++; })) o[5] += j;
        int w = 0;
        while (1) { switch (({ if (w == 2) break; w; })) { default: w++; } }
        o[6] = w;
        for (int r = 0; r < 3; r++) for (int j = 0; j < 100; ({ if (j == 1) continue; j++; })) o[7]++;
    }"""
    assert run(queue, src, 8) == [70, 20, 699, 3, 4, 15, 2, 6]


def test_break_and_continue_in_a_loops_condition_need_an_enclosing_loop() -> None:
    src = """kernel void k(global int *o) {
  while (({ if (o[0]) break; 1; })) o[0]++;
  do o[1]++; while (({ if (o[1]) continue; 0; }));
  for (; o[2]; ({ if (o[2] > 9) break; o[2]++; })) ;
  switch (o[3]) { case 1: while (({ if (o[3]) break; 1; })) ; }
}"""
    assert diagnostics(src) == [
        "2:23: error: 'break' statement not in loop or switch statement",
        "3:34: error: 'continue' statement not in loop statement",
        "4:33: error: 'break' statement not in loop or switch statement",
    ]


def test_clsmith_style_safe_math_macros(queue) -> None:  # type: ignore[no-untyped-def]
    """Nested statement expressions as CLsmith's safe-math macros write them
    (an expression statement holding another statement expression ends the outer one)."""
    src = """
    #define safe_mul(_si1, _si2) ({ int si1 = (_si1); int si2 = (_si2); \\
        (((si1 > 0) && (si2 > 0) && (si1 > (INT_MAX / si2)))) ? (si1) : (si1 * si2);})
    #define safe_mad_hi(_si1, _si2, _si3) ({ int si1 = (_si1); int si2 = (_si2); int si3 = (_si3); \\
        ({ int tmp = mul_hi(si1, si2); \\
           ((tmp > 0) && (si3 > 0) && (tmp > (INT_MAX - si3))) ? (si1) : mad_hi(si1, si2, si3);}) \\
        ;})
    struct S0 { int f0; ushort f1; };
    static int func_1(struct S0 *p_2) {
        int l_3 = 7;
        for (p_2->f1 = 0; p_2->f1 < 5; p_2->f1 = ({ ushort u = p_2->f1; (ushort)(u + 1); }))
            l_3 = safe_mad_hi(safe_mul(l_3, 5), 0x7fffffff, safe_mul(l_3, 5));
        return l_3;
    }
    kernel void k(global long *o) {
        struct S0 c_1 = {2, 0};
        o[0] = func_1(&c_1) + c_1.f1;
    }"""
    l3 = 7
    for _ in range(5):
        l3 *= 5
        l3 = ((l3 * 0x7FFFFFFF) >> 32) + l3
    assert run(queue, src, 1, np.int64) == [l3 + 5]


def test_statement_expression_in_ir_is_plain_control_flow() -> None:
    src = "int f(int x) { return ({ int y = x + 1; y * 2; }); }"
    text = print_module(compile_to_ir(src).module)
    assert "mul" in text and "add" in text


def test_statement_expression_misuse() -> None:
    src = """int gg = ({ 1; });
kernel void k(global int *o) {
  int x = ({ });
  ({ break; });
  int *p = &({ int t = 1; t; });
  ({ 1; }) = 2;
}"""
    assert diagnostics(src) == [
        "1:10: error: statement expression not allowed at file scope",
        "3:11: error: initializing 'int' with an expression of incompatible type 'void'",
        "4:6: error: 'break' statement not in loop or switch statement",
        "5:12: error: cannot take the address of an rvalue of type 'int'",
        "6:12: error: expression is not assignable",
    ]


def test_jumps_into_statement_expressions_are_errors() -> None:
    src = """kernel void k(global int *o) {
  goto inside;
  o[0] = ({ inside: 4; });
  switch (o[0]) { case 1: ({ default: 3; }); }
}"""
    assert sorted(diagnostics(src)) == [
        "2:3: error: cannot jump from this goto statement to its label",
        "3:10: note: jump enters a statement expression",
        "4:27: note: jump enters a statement expression",
        "4:30: error: cannot jump from switch statement to this case label",
    ]


def test_jumps_out_of_and_within_statement_expressions_are_fine() -> None:
    src = """kernel void k(global int *o) {
  o[0] = ({ int r = 0; switch (o[1]) { case 1: r = 5; break; default: goto done; } done: r; });
  ({ if (o[2]) goto out; 0; });
out:
  o[3] = 1;
}"""
    assert build_log(src) == ""


def test_return_in_statement_expression_counts_for_missing_return() -> None:
    assert build_log("int f(int a) { ({ return a; }); }") == ""
    log = build_log("int g(int a) { int b = ({ if (a) return 1; 2; }); }")
    assert "warning: non-void function does not return a value in all control paths" in log


def parse_tree(text: str) -> ast.TranslationUnit:
    diags = DiagnosticEngine({"k.cl": text})
    tu = parse(text, "k.cl", diags)
    assert not diags.diagnostics, diags.render() + text
    return tu


def assert_roundtrip(source: str) -> None:
    """parse -> to_source -> parse gives the same tree (locations aside)."""
    tu = parse_tree(source)
    again = parse_tree(to_source(tu))
    assert re.sub(r" <[^>]*>", "", dump(again)) == re.sub(r" <[^>]*>", "", dump(tu))


def test_statement_expression_round_trips_through_to_source() -> None:
    assert_roundtrip("int f(int x) { return ({ int y = x; lbl: y + 1; ; }) + ({ }); }")


# -- unnamed parameters ---------------------------------------------------------------


def test_unnamed_parameters_in_prototypes(queue) -> None:  # type: ignore[no-untyped-def]
    src = """char *first(const char*);
    int f(int, float*, global int *, const int [], int [4], int (*)[3], int *const*, int[][2]);
    void g(int *restrict, const __global float * const, local int*);
    int sum(global const int *, int);
    kernel void k(global int *o) { o[0] = sum(o + 1, 3); }
    int sum(global const int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    data = np.array([0, 4, 5, 6], np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    prg.k(q, (1,), None, buf)
    cl.enqueue_copy(q, data, buf)
    assert data[0] == 15


def test_unnamed_parameter_types_are_adjusted() -> None:
    tu = parse_tree("void f(const char*, int [4], int[][2], float (int), int [const restrict 3]);")
    fn = tu.decls[0]
    assert isinstance(fn, ast.FunctionDecl)
    assert [p.name for p in fn.params] == [""] * 5
    assert [str(p.ctype) for p in fn.params] == [
        "const char *", "int *", "int [2] *", "float (int) *", "int * const"]
    assert fn.params[4].ctype.restrict  # type: ignore[attr-defined]


def test_unnamed_parameter_in_a_definition_is_a_c2x_warning(queue) -> None:  # type: ignore[no-untyped-def]
    src = "int f(global int *, float) { return 7; }\nkernel void k(global int *o) { o[0] = f(o, 1.0f); }"
    assert build_log(src).splitlines()[0] == (
        "<kernel>:1:19: warning: omitting the parameter name in a function definition is a C2x extension")
    assert run(queue, src, 1) == [7]


def test_array_parameter_qualifiers(queue) -> None:  # type: ignore[no-untyped-def]
    src = """int get(const int a[static 3], int i) { return a[i]; }
    void put(global int o[restrict const 2], int v) { o[1] = v; }
    kernel void k(global int *o) { int a[3] = {1, 2, 3}; put(o, get(a, 2)); }"""
    assert run(queue, src, 2) == [0, 3]


def test_misplaced_array_qualifiers_and_function_pointers() -> None:
    src = """kernel void k(global int *o) { int e[const 3]; int s[static 2]; }
void g2(int (*p)[const 3]);
void g3(int a[3][static 3]);
typedef int (*F)(int);
void h(float (*)(int), int g(int));
int x = (int)(int (*)(int))0;"""
    assert diagnostics(src) == [
        "1:37: error: type qualifier used in array declarator outside of function prototype",
        "1:53: error: 'static' used in array declarator outside of function prototype",
        "2:17: error: type qualifier used in non-outermost array type derivation",
        "3:17: error: 'static' used in non-outermost array type derivation",
        "4:14: error: pointers to functions are not allowed",
        "5:15: error: pointers to functions are not allowed",
        "6:5: error: program scope variable must reside in constant address space",
        "6:20: error: pointers to functions are not allowed",
    ]


# -- __builtin_expect, __builtin_assume, __builtin_unreachable ----------------------------


def test_expect_assume_and_unreachable_run(queue) -> None:  # type: ignore[no-untyped-def]
    src = """#define likely(x) __builtin_expect(!!(x), 1)
    int pick(int x) {
        switch (x) { case 0: return 10; case 1: return 20; default: __builtin_unreachable(); }
    }
    kernel void k(global int *o) {
        int n = 0;
        __builtin_assume(n == 0);
        if (likely(o[0] == 0)) o[1] = 3;
        o[2] = __builtin_expect(o[1] + 4, 7);
        o[3] = pick(1) + n;
        o[4] = __builtin_expect_with_probability(5, 5, 0.9);
    }"""
    assert build_log(src) == ""  # pick's switch does not fall off the end
    assert run(queue, src, 5) == [0, 3, 7, 20, 5]


def test_assume_does_not_evaluate_its_argument(queue) -> None:  # type: ignore[no-untyped-def]
    src = "kernel void k(global int *o) {\n  int n = 0;\n  __builtin_assume(n++ == 0);\n  o[0] = n;\n}"
    assert build_log(src).splitlines()[0] == (
        "<kernel>:3:20: warning: the argument to '__builtin_assume' has side effects that will be discarded")
    assert run(queue, src, 1) == [0]


def test_unreachable_lowers_to_unreachable() -> None:
    src = "int f(int x) { if (x) return 1; __builtin_unreachable(); }"
    assert "unreachable" in print_module(compile_to_ir(src).module)


def test_gnu_builtin_misuse() -> None:
    src = """kernel void k(global int *o) {
  __builtin_unreachable(1);
  o[0] = __builtin_expect(o[0]);
}"""
    assert diagnostics(src) == [
        "2:25: error: too many arguments to function call, expected 0, have 1",
        "3:31: error: too few arguments to function call, expected 2, have 1",
    ]


# -- __typeof__ --------------------------------------------------------------------------


def test_typeof_in_macros_and_declarations(queue) -> None:  # type: ignore[no-untyped-def]
    src = """#define MAX(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
    #define SWAP(a, b) do { typeof(a) _t = (a); (a) = (b); (b) = _t; } while (0)
    typedef struct { int x; float y; } S;
    kernel void k(global int *o) {
        int a = 3, b = 9;
        SWAP(a, b);
        o[0] = a * 10 + b;
        float f = MAX(1.5f, 2.5f);
        o[1] = (int)(f * 2);
        __typeof__(o[0]) *p = o;
        __typeof(p) q = p + 2;
        *q = sizeof(__typeof__(f)) + sizeof(typeof(double));
        S s = {1, 2.0f};
        typeof(s) t = s;
        t.x = 7;
        o[3] = t.x + s.x;
        int arr[5];
        o[4] = sizeof(__typeof__(arr)) / sizeof(arr[0]);
        const int ci = 4;
        typeof(ci + 1) m = 1;
        m = 6;
        o[5] = m + (__typeof__(ci))2;
        typedef __typeof__(a + 1L) LT;
        o[6] = sizeof(LT);
        __typeof__(int *) ip = &a;
        o[7] = *ip;
    }"""
    assert run(queue, src, 8) == [93, 5, 12, 8, 5, 8, 8, 9]


def test_typeof_keeps_qualifiers() -> None:
    src = "void f(global int *g) { const int c = 1; __typeof__(c) x = 2; x = 3; }"
    assert diagnostics(src) == [
        "1:65: error: cannot assign to variable 'x' with const-qualified type 'const int'",
        "1:56: note: variable 'x' declared const here",
    ]


def test_typeof_spelt_typeof_is_an_identifier_when_declared_so(queue) -> None:  # type: ignore[no-untyped-def]
    src = "kernel void k(global int *o) { int typeof = 4; o[0] = typeof * 2; }"
    assert run(queue, src, 1) == [8]


def test_typeof_misuse() -> None:
    src = """kernel void k(global int *o) {
  __typeof__(o[0]) a = 1;
  __typeof__(nothere) b = 2;
  int __typeof__(o) c;
  __typeof__ d;
}"""
    assert diagnostics(src) == [
        "2:20: error: function scope variable cannot be declared in global address space",
        "3:14: error: use of undeclared identifier 'nothere'",
        "4:7: error: cannot combine with previous 'int' declaration specifier",
        "5:14: error: expected '(' after '__typeof__'",
    ]


def test_typeof_round_trips_through_to_source() -> None:
    assert_roundtrip("void f(int x) { __typeof__(x + 1) y = x; __typeof__(float) z; const __typeof(y) *p; }")


# -- _Static_assert ----------------------------------------------------------------------


def test_static_asserts_that_hold(queue) -> None:  # type: ignore[no-untyped-def]
    src = """_Static_assert(sizeof(int) == 4, "int");
    typedef struct { float4 v; int n; _Static_assert(sizeof(float4) == 16, "in a struct"); } S;
    kernel void k(global int *o) {
        int x = 3;
        _Static_assert(sizeof(x) == 4 && sizeof(S) == 32, "in a block");
        o[0] = x;
    }"""
    assert build_log(src) == ""
    assert run(queue, src, 1) == [3]


def test_static_assert_diagnostics() -> None:
    src = """_Static_assert(sizeof(int) == 8, "int is 4");
_Static_assert(0, "zero");
struct S { int a; _Static_assert(-1 > 0, "in struct"); };
kernel void k(global int *o) { int x = 3; _Static_assert(x, "not const"); }
_Static_assert(1, 2);"""
    assert diagnostics(src) == [
        "1:1: error: static_assert failed due to requirement 'sizeof(int) == 8' \"int is 4\"",
        "2:1: error: static_assert failed \"zero\"",
        "3:19: error: static_assert failed due to requirement '-1 > 0' \"in struct\"",
        "4:58: error: static_assert expression is not an integral constant expression",
        "5:19: error: expected string literal for diagnostic message in static_assert",
    ]


def test_static_assert_is_no_loop_body() -> None:
    # a declaration, not a statement: clang's "expected expression", at the _Static_assert
    src = """kernel void k(global int *o) {
    for (int i = 0; i < 2; i++) _Static_assert(1, "as a loop body");
    o[0] = 1;
}"""
    assert diagnostics(src) == ["2:33: error: expected expression"]


def test_static_assert_without_message_is_a_c2x_warning() -> None:
    assert build_log("_Static_assert(1);").splitlines()[0] == (
        "<kernel>:1:17: warning: '_Static_assert' with no message is a C2x extension")


def test_static_assert_round_trips_through_to_source() -> None:
    assert_roundtrip('_Static_assert(1 + 1 == 2, "two"); void f(void) { _Static_assert(1, ""); }')


# -- case ranges --------------------------------------------------------------------------


def test_case_ranges_narrow_and_wide(queue) -> None:  # type: ignore[no-untyped-def]
    src = """int classify(int c) {
        switch (c) {
            case 'a' ... 'z': return 1;
            case 'A' ... 'Z': return 2;
            case '0' ... '9': case '_': return 3;
            case 1000 ... 100000: return 4;
            case -100000 ... -1000: return 5;
            default: return 0;
        }
    }
    kernel void k(global int *o) {
        int in[12] = {'q', 'Q', '5', '_', ' ', 1000, 99999, 100001, -5000, -999, 5, 'z'};
        for (int i = 0; i < 12; i++) o[i] = classify(in[i]);
    }"""
    assert run(queue, src, 12) == [1, 2, 3, 3, 0, 4, 4, 0, 5, 0, 0, 1]


def test_wide_case_range_is_one_unsigned_comparison() -> None:
    src = "int f(int c) { switch (c) { case 10 ... 1000: return 1; case 3: return 2; } return 0; }"
    text = print_module(compile_to_ir(src).module)
    assert "icmp ule" in text and text.count("sw.range") >= 1


def test_case_range_diagnostics() -> None:
    src = """kernel void k(global int *o) {
  switch (o[0]) { case 5 ... 1: break; case 1 ... 5: break; case 3: break; case 4 ... 10: break; }
  switch (o[0]) { case 1 ... o[1]: break; }
}"""
    assert diagnostics(src) == [
        "2:24: warning: empty case range specified",
        "2:45: error: duplicate case value '3'",
        "2:66: note: previous case defined here",
        "2:81: error: duplicate case value '5'",
        "2:45: note: previous case defined here",
        "3:30: error: expression is not an integer constant expression",
    ]


def test_case_range_round_trips_through_to_source() -> None:
    assert_roundtrip("void f(int x) { switch (x) { case 1 ... 3: x = 2; case 7: break; } }")


# -- __builtin_offsetof and the C library builtins ----------------------------------------


def test_offsetof_and_c_library_builtins(queue) -> None:  # type: ignore[no-untyped-def]
    """Values as clang-14 -O2 folds them (its `long long` is 128 bits: clzll(1) is 127)."""
    src = """typedef struct { int a; float b; char c[3]; double d; union { short s; float4 v; }; } S;
    kernel void k(global int *o) {
        float zero = o[9];
        int sized[__builtin_offsetof(S, c[1])];
        o[0] = __builtin_offsetof(S, d) + __builtin_offsetof(S, c[2]) * 100 + __builtin_offsetof(S, v) * 10000;
        o[1] = __builtin_clz(1u) + __builtin_ctz(8u) * 100 + __builtin_popcount(7u) * 10000;
        o[2] = __builtin_bswap32(0x01020304);
        o[3] = (int)(__builtin_fabsf(-1.5f) * 2 + __builtin_sqrtf(4.0f) + __builtin_pow(2.0, 3.0));
        o[4] = __builtin_isnan(zero / zero) + __builtin_isinf(1.0f / zero) * 10 + __builtin_isfinite(2.0) * 100;
        o[5] = __builtin_clzll(1ul) + __builtin_ffs(8) * 1000 + __builtin_ffs(0) + __builtin_ffsll(1L << 40) * 10000;
        o[6] = __builtin_bswap16((ushort)0x1234) + (int)(__builtin_bswap64(0x0102030405060708ul) >> 56) * 100000;
        o[7] = __builtin_popcountll(~0ul) + (int)__builtin_fmaf(2.0f, 3.0f, 1.0f) * 100 + sizeof(sized);
    }"""
    assert run(queue, src, 8) == [321016, 30331, 0x04030201, 13, 111, 414127, 813330, 800]


def test_offsetof_misuse() -> None:
    src = """typedef struct { int a; } S;
struct T;
kernel void k(global int *o) {
  o[0] = __builtin_offsetof(S, nope);
  o[1] = __builtin_offsetof(int, a);
  o[2] = __builtin_offsetof(struct T, a);
}"""
    assert diagnostics(src) == [
        "4:10: error: no member named 'nope' in 'struct (anonymous)'",
        "5:10: error: offsetof requires struct, union, or class type, 'int' invalid",
        "6:10: error: offsetof of incomplete type 'struct T'",
    ]
