"""Corpus gaps of issue 12 that clang accepts (or rejects), each reduced from the
corpus kernels that showed it (tools/corpus/FINDINGS.md names them) and, where it
builds, run on the first device: INFINITY and HUGE_VALF in constant initializers,
address constants, `__func__`, const variables that fold (F3); scalar arguments
widened to vector overloads (F2); programs' own prototypes of builtins (F5); the null
event (F6); OpenCL C 2.0 builtins gated by -cl-std (F10); undefined kernel
prototypes and as_type with 3-element vectors (internal errors)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module
from tests.frontend.sema_helpers import build_errors

cl = pytest.importorskip("oclpy")


def run(queue, src: str, n: int, dtype=np.float32) -> list:  # type: ignore[no-untyped-def]
    """Run kernel `k(global T *o)` on one work-item; return `o` (n zeros before)."""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    out = np.zeros(n, dtype)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (1,), None, buf)
    cl.enqueue_copy(q, out, buf)
    return out.tolist()


def errors(src: str, std: str = "CL1.2") -> list[tuple[str, str]]:
    return build_errors(src, std)


def test_infinity_and_huge_val_are_constants(queue) -> None:  # type: ignore[no-untyped-def]
    src = """constant float values[] = { 1.0f, INFINITY, -INFINITY, HUGE_VALF, MAXFLOAT };
    constant int n = sizeof(values) / sizeof(*values);
    kernel void k(global float *o) { for (int i = 0; i < n; i++) o[i] = values[i]; }"""
    assert run(queue, src, 5) == [1.0, math.inf, -math.inf, math.inf, np.finfo(np.float32).max]


def test_nan_is_not_a_constant_as_in_clang() -> None:
    # clang's NAN is as_float(INT_MAX), which no constant initializer takes
    src = "constant float v[] = { 0.0f, NAN };\nkernel void k(global float *o) { o[0] = v[1]; }"
    assert errors(src) == [("1:30", "initializer element is not a compile-time constant")]


def test_string_literal_is_constant_char_array_not_const() -> None:
    # clang types "ab" as `__constant char[3]`: passing it to `constant char *` discards nothing
    src = """void use(constant char *s, global int *o) { o[0] = s[0]; }
    kernel void k(global int *o) { constant char *p = "ab"; use("x", o); o[1] = p[1]; }"""
    assert compile_to_ir(src, "-Werror").log == ""
    assert errors('kernel void k(global int *o) { "ab"[0] = 1; }') == [("1:40", "read-only variable is not assignable")]


def test_scalar_arguments_widen_to_a_vector_overload(queue) -> None:  # type: ignore[no-untyped-def]
    # sgminer's rotate(uint4, 3u), mfakto's mad24, gegl's select(0.f, float4, int4), bullet3's max
    src = """kernel void k(global float *o) {
        uint4 v = (uint4)(0x80000001u, 2u, 3u, 4u), w = (uint4)(1u, 2u, 3u, 4u);
        float4 f = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
        int i = 1;
        vstore4(convert_float4(rotate(v, 1u)), 0, o);
        vstore4(convert_float4(mad24(w, w, 1u)), 1, o);
        vstore4(max(2.5f, f), 2, o);
        vstore4(select(0.f, f, (int4)(i) == (int4)(0, 1, 2, 3)), 3, o);
        vstore4(clamp(f, 2, 3), 4, o);
    }"""
    assert run(queue, src, 20) == [3, 4, 6, 8, 2, 5, 10, 17, 2.5, 2.5, 3, 4, 0, 2, 0, 0, 2, 2, 3, 3]


def test_scalar_arguments_keep_the_scalar_overload() -> None:
    # a splat costs more than a scalar conversion: mad24(short, short, int) stays scalar
    module = compile_to_ir("kernel void k(global int *o, short s) { o[0] = max(s, (short)1) + mad24(s, s, 1); }").module
    text = print_module(module)
    assert "ocl.mad24.i32" in text or "mul i32" in text
    assert " x i32>" not in text and " x i16>" not in text


def test_a_prototype_of_a_builtin_names_the_builtin(queue) -> None:  # type: ignore[no-untyped-def]
    # clang's printf.cl and builtin.cl, SPIRV-LLVM-Translator's barrier.cl: old code declares builtins
    src = """int printf(__constant const char *st, ...);
    void barrier(cl_mem_fence_flags flags);
    int __attribute__((overloadable)) min(int, int);
    kernel void k(global float *o) {
        local int l[1];
        l[0] = 5; barrier(CLK_LOCAL_MEM_FENCE);
        o[0] = min(l[0], 2) + min(1.5f, 0.5f);
    }"""
    assert run(queue, src, 1) == [2.5]


def test_a_prototype_unlike_any_builtin_is_a_function_to_define() -> None:
    # SPIRV-LLVM-Translator's InvalidAtomicBuiltins.cl: no float atomic_add in OpenCL C 1.2
    src = """float __attribute__((overloadable)) atomic_add(volatile __global float *p, float val);
    kernel void k(global float *o) { o[1] = atomic_add(o, 1.0f); }"""
    assert errors(src) == [("2:45", "function 'atomic_add' is used but not defined in this program")]


def test_a_definition_of_a_builtin_name_is_still_the_users() -> None:
    src = """int mad24(int a, int b, int c);
    kernel void k(global int *o) { o[0] = mad24(2, 3, 4); }
    int mad24(int a, int b, int c) { return a - b - c; }"""
    text = print_module(compile_to_ir(src).module)
    assert "call i32 @mad24(" in text


def test_the_null_event_starts_a_chain_of_copies(queue) -> None:  # type: ignore[no-untyped-def]
    # Oclgrind's async_copy tests, the OpenCL book's spmv, clang's event_t.cl
    src = """void wait_on(event_t e) { wait_group_events(1, &e); }
    kernel void k(global float *o) {
        local float s[4];
        float p[4] = {1.0f, 2.0f, 3.0f, 4.0f};
        event_t e = 0;
        for (int i = 0; i < 4; i++) o[i] = p[i];
        e = async_work_group_copy(s, o, 4, e);
        e = async_work_group_copy(s, o, 4, (event_t)0);
        wait_group_events(1, &e);
        wait_group_events(0, NULL);
        wait_on(0);
        o[4] = s[3];
    }"""
    assert run(queue, src, 5) == [1.0, 2.0, 3.0, 4.0, 4.0]


def test_an_event_from_anything_but_zero_is_an_error() -> None:
    src = """kernel void k(global int *d, int n) {
    event_t f = (event_t)1;
    event_t g = 1;
    event_t h = (event_t)n;
    int i = (int)f;
    }"""
    assert errors(src) == [("2:17", "cannot cast non-zero value '1' to 'event_t'"),
                           ("3:17", "initializing 'event_t' with an expression of incompatible type 'int'"),
                           ("4:17", "used type 'event_t' where arithmetic or pointer type is required"),
                           ("5:13", "operand of type 'event_t' where arithmetic or pointer type is required")]


ADDRESSES = """constant int a[4] = {1, 2, 3, 4};
constant int *constant first = &a[0];
constant int *constant whole = a;
constant int *constant none = 0;
constant int *constant null_macro = NULL;
constant char *constant text = "hello";
typedef struct { constant int *p; constant char *s; int n; } Entry;
constant Entry table[2] = { { a, "ab", 1 }, { 0, 0, 2 } };
"""


def test_address_constants_in_program_scope_initializers(queue) -> None:  # type: ignore[no-untyped-def]
    # clang's str_literals.cl, amdgpu-debug-info-*.cl: pointers to globals, string literals, null
    src = ADDRESSES + """kernel void k(global float *o) {
        o[0] = *first + whole[3];
        o[1] = (none == 0) + (null_macro == 0) * 2;
        o[2] = text[1];
        o[3] = table[0].p[2] + table[0].s[1] + table[1].n + (table[1].p == 0);
    }"""
    assert run(queue, src, 4) == [5.0, 3.0, float(ord("e")), 3 + ord("b") + 2 + 1]


def test_address_constants_name_their_globals_in_the_ir() -> None:
    text = print_module(compile_to_ir(ADDRESSES + "kernel void k(global int *o) { o[0] = *first; }").module)
    assert re.search(r"@first = addrspace\(constant\) constant ptr<constant> @a\b", text), text
    assert re.search(r"@none = addrspace\(constant\) constant ptr<constant> null\b", text), text
    assert re.search(r"@text = addrspace\(constant\) constant ptr<constant> @\.str\.\d+\b", text), text


def test_what_is_no_address_constant_is_an_error() -> None:
    # as clang: a global variable's value is no constant
    src = """constant int a[4] = {1, 2, 3, 4};
    global int g = 1;
    constant int *constant p = &a[g];
    global int *q = &g + g;
    kernel void k(global int *o) { o[0] = *p + *q; }"""
    assert [line for line, _ in errors(src, "CL2.0")] == ["3:32", "4:21"]
    assert {message for _, message in errors(src, "CL2.0")} == {"initializer element is not a compile-time constant"}


def test_func_names_the_function(queue) -> None:  # type: ignore[no-untyped-def]
    # clang's CodeGen str_literals.cl: `constant const char *f3 = __func__;`
    src = """kernel void k(global float *o) {
        constant const char *f = __func__;
        o[0] = f[0]; o[1] = sizeof(__func__); o[2] = __FUNCTION__[1];
    }"""
    assert run(queue, src, 3) == [float(ord("k")), 2.0, 0.0]
    assert errors("void g(void) { __func__[0] = 1; }\nkernel void k() { g(); }") == \
        [("1:28", "read-only variable is not assignable")]


def test_opencl_c_2_builtins_need_cl_std_2() -> None:
    # Oclgrind's non_uniform_work_groups.cl at CL1.2: clang declares them from CL2.0 on
    src = """kernel void k(global ulong *o) {
        o[get_global_linear_id()] = get_local_linear_id() + get_enqueued_local_size(0);
        work_group_barrier(CLK_GLOBAL_MEM_FENCE);
    }"""
    assert errors(src) == [
        ("2:11", "implicit declaration of function 'get_global_linear_id' is invalid in OpenCL"),
        ("2:37", "implicit declaration of function 'get_local_linear_id' is invalid in OpenCL"),
        ("2:61", "implicit declaration of function 'get_enqueued_local_size' is invalid in OpenCL"),
        ("3:9", "implicit declaration of function 'work_group_barrier' is invalid in OpenCL")]
    assert compile_to_ir(src, "-cl-std=CL2.0").log == ""


def test_a_kernel_declared_and_never_defined_is_no_kernel() -> None:
    # clang's SemaOpenCL/half.cl: simt looked for the declared kernel's code (an internal error)
    module = compile_to_ir("kernel void k2(global int *p);\nkernel void k(global int *o) { o[0] = 1; }").module
    assert [fn.name for fn in module.kernels()] == ["k"]
    assert errors("kernel void k2(global int *p);\nkernel void k(global int *o) { k2(o); }") == \
        [("2:32", "function 'k2' is used but not defined in this program")]


def test_const_variables_with_constant_initializers_fold(queue) -> None:  # type: ignore[no-untyped-def]
    # as clang: a `constant` (or const) scalar with a constant initializer is a constant
    src = """constant int c = 1;
    constant int d = c + 1;
    constant float e[2] = { c, d };
    constant int a[4] = {1, 2, 3, 4};
    constant int *constant p = &a[c - 1];
    kernel void k(global float *o) {
        const int m = 3;
        switch ((int)o[0]) { case m: o[1] = 1.0f; break; case d: o[1] = 2.0f; }
        o[0] = d + e[1] + *p;
    }"""
    assert run(queue, src, 2) == [5.0, 0.0]
    assert errors("kernel void k(global int *o, int i) {\n const int j = i;\n switch (i) { case j: o[0] = 1; } }") == \
        [("3:20", "expression is not an integer constant expression")]


def test_as_type_between_a_scalar_and_a_three_element_vector(queue) -> None:  # type: ignore[no-untyped-def]
    # PoCL's test_as_type.cl: char3 has char4's size (an internal error before)
    src = """kernel void k(global float *o) {
        char3 c = as_char3(0x04030201);
        int i = as_int((char3)(5, 6, 7));
        o[0] = c.x; o[1] = c.y; o[2] = c.z; o[3] = i & 0xffffff;
    }"""
    assert run(queue, src, 4) == [1.0, 2.0, 3.0, float(0x070605)]
