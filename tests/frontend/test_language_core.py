"""Language-core gaps closed in issue 3: deep expressions, opaque types
(event_t, images, samplers), async copies, CL2.0 enums, typedef names in
kernel-argument info, kernel attributes, recursion, switch and goto."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import module_problems


def build(src: str, options: str = ""):
    result = compile_to_ir(src, options)
    assert module_problems(result.module) == []
    return result


def errors(src: str, options: str = "") -> str:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, options)
    return info.value.log


def test_1500_term_expression_builds() -> None:
    src = "kernel void k(global int *a) { a[0] = " + " + ".join(["a[1]"] * 1500) + "; }"
    assert build(src).log == ""


def test_operand_chain_beyond_limit_is_a_diagnostic() -> None:
    src = "kernel void k(global int *a) { a[0] = " + " + ".join(["1"] * 10_001) + "; }"
    log = errors(src)
    assert "error: expression is too complex (more than 10000 operands)" in log
    assert "internal compiler error" not in log


def test_deep_unary_nesting_is_a_diagnostic() -> None:
    log = errors("kernel void k(global int *a) { a[0] = " + "-" * 3000 + "1; }")
    assert "bracket nesting level exceeded maximum of 256" in log


@pytest.mark.parametrize("name", ["image2d_t", "image3d_t", "image1d_t", "image2d_array_t", "image1d_array_t",
                                  "image1d_buffer_t", "sampler_t"])
def test_image_and_sampler_parameters_build(name: str) -> None:
    build(f"kernel void k({name} img, global float *o) {{ o[0] = 1; }}")


def test_image_local_variable_is_reported_at_its_name() -> None:
    log = errors("kernel void k(global float *o, image2d_t i) {\n  image2d_t j = i;\n  o[0] = 1;\n}")
    assert log.startswith("<kernel>:2:13: error: type 'image2d_t' can only be used as a function "
                          "parameter in OpenCL\n")


def test_cl_mem_fence_flags_and_event_t() -> None:
    src = """kernel void k(global float *a, local float *l) {
        cl_mem_fence_flags f = CLK_LOCAL_MEM_FENCE;
        event_t e = async_work_group_copy(l, a, 16, 0);
        e = async_work_group_strided_copy(a, l, 16, 2, e);
        wait_group_events(1, &e);
        prefetch(a, 16);
        barrier(f);
    }"""
    text = print_module(build(src).module)
    assert "ocl.barrier" in text and "async.body" in text


def test_async_copy_wrong_direction_lists_candidates() -> None:
    log = errors("kernel void k(global float *a, global float *b) { async_work_group_copy(a, b, 4, 0); }")
    assert "error: no matching function for call to 'async_work_group_copy'" in log
    assert "note: candidate function not viable" in log


def test_async_copy_nonzero_integer_event_is_rejected() -> None:
    log = errors("kernel void k(global float *a, local float *l) { async_work_group_copy(l, a, 4, 7); }")
    assert "no matching function for call to 'async_work_group_copy'" in log


def test_memory_order_and_scope_in_cl20() -> None:
    src = """kernel void k(global int *o) {
        memory_order m = memory_order_seq_cst; memory_scope s = memory_scope_work_group;
        o[0] = m + s;
    }"""
    build(src, "-cl-std=CL2.0")
    assert "memory_order_seq_cst" in errors(src)  # not predefined before 2.0


def test_reqd_work_group_size_reaches_function_attrs() -> None:
    src = "__attribute__((reqd_work_group_size(8, 4, 1))) kernel void k(global int *o) { o[0] = 1; }"
    k = build(src).module.get_function("k")
    assert k.attrs["reqd_work_group_size"] == (8, 4, 1)


def test_direct_and_mutual_recursion_are_diagnosed() -> None:
    log = errors("int f(int x) { return f(x); }\nkernel void k(global int *o) { o[0] = f(1); }")
    assert "<kernel>:1:23: error: recursive call to 'f' (f -> f): recursion is not supported in OpenCL" in log
    log = errors("int g(int);\nint f(int x) { return g(x); }\nint g(int x) { return f(x); }\n"
                 "kernel void k(global int *o) { o[0] = f(1); }")
    assert "recursion is not supported in OpenCL" in log and "f -> g -> f" in log


def test_kernel_arg_type_names_keep_typedef_names() -> None:
    src = """typedef struct { float x; } my_struct_t;
    typedef global float *fptr;
    kernel void k(global my_struct_t *s, global float4 *v, global const uint *u, fptr f, my_struct_t by_value) {
        s[0].x = v[0].x + u[0] + f[0] + by_value.x;
    }"""
    args = build(src).module.get_function("k").args
    assert [a.attrs["type_name"] for a in args] == ["my_struct_t*", "float4*", "uint*", "fptr", "my_struct_t"]
    assert args[2].attrs["type_qualifiers"] == {"const"}


def test_aligned_attribute_on_struct_fields_sets_the_layout() -> None:
    from oclpy.frontend.c.layout import struct_info
    from oclpy.ir.datalayout import CPU_LAYOUT
    from tests.frontend.sema_helpers import check
    tu, _ = check("typedef struct { char c; float x __attribute__((aligned(16)));"
                  " __attribute__((aligned(8))) char d; } S;")
    info = struct_info(tu.decls[-1].ctype.definition, CPU_LAYOUT)
    assert (info.offsets, info.size, info.align) == ({"c": 0, "x": 16, "d": 24}, 32, 16)


def test_missing_return_points_at_closing_brace() -> None:
    log = build("int f(int x) {\n  if (x) return 1;\n}\nkernel void k(global int *o) { o[0] = f(1); }").log
    assert log.startswith("<kernel>:3:1: warning: non-void function does not return a value "
                          "in all control paths\n}\n^\n")


def test_switch_fallthrough_and_goto_lower_and_verify() -> None:
    src = """kernel void k(global int *o) {
        int x = 0;
        switch (o[0]) { case 0: x++; case 1: x++; break; default: x = 5; }
        if (x) goto done;
        x = 3;
    done:
        o[0] = x;
    }"""
    build(src)


def test_huge_array_is_a_diagnostic() -> None:
    log = errors("__constant float t[18446744073709551615] = { 1.0f };\nkernel void k(global float *o) { o[0] = t[0]; }")
    assert log.startswith("<kernel>:1:20: error: array is too large (18446744073709551615 elements)\n")
    log = errors("__constant float t[5879935262397101833391] = { 1.0f };\nkernel void k(global float *o) { o[0] = t[0]; }")
    assert log == ("<kernel>:1:20: error: integer literal is too large to be represented in any integer type\n"
                   "__constant float t[5879935262397101833391] = { 1.0f };\n                   ^\n1 error generated.\n")


def test_sema_errors_after_a_syntax_error_are_reported() -> None:
    log = errors("kernel void k(global int *o) {\n  int x = 1\n  int z = 2;\n  o[0] = y;\n}")
    assert log == ("<kernel>:2:12: error: expected ';' at end of declaration\n  int x = 1\n           ^\n"
                   "<kernel>:4:10: error: use of undeclared identifier 'y'\n  o[0] = y;\n         ^\n"
                   "2 errors generated.\n")


def test_cl20_scoped_barrier_and_fence() -> None:
    text = print_module(build("""kernel void k(global int *o, local int *l) {
        l[get_local_id(0)] = o[0];
        work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
        work_group_barrier(CLK_GLOBAL_MEM_FENCE);
        o[1] = l[0];
    }""", "-cl-std=CL2.0").module)
    assert text.count("call void @ocl.barrier(i32 ") == 2 and "call void @ocl.mem_fence(i32 2)" in text


def test_long_else_if_chain_is_not_nesting() -> None:
    chain = "".join(f"if (x == {i}) o[1] = {i}; else " for i in range(1000))
    build("kernel void k(global int *o) { int x = o[0]; " + chain + "o[1] = -1; }")


def test_else_if_chain_beyond_limit_is_a_diagnostic() -> None:
    chain = "".join(f"if (x) ; else " for i in range(10_002))
    log = errors("kernel void k(global int *o) { int x = o[0]; " + chain + "; }")
    assert "error: too many chained 'else if' statements (more than 10000)" in log
    assert "internal compiler error" not in log


def test_compound_assignment_of_pointer_result_to_integer_is_an_error() -> None:
    # found by the frontend fuzzer: `i += p` was accepted and crashed lowering
    log = errors("kernel void k(global uchar *d) { uint i = 0; i += d; }")
    assert log.startswith("<kernel>:1:48: error: assigning to 'uint' from incompatible type '__global uchar *'\n")


def test_typical_image_kernel_builds() -> None:
    src = """__constant sampler_t sampler = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void blur(__read_only image2d_t src, __write_only image2d_t dst) {
    int2 pos = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, pos, read_imagef(src, sampler, pos) * 0.5f);
}"""
    module = build(src).module
    blur = next(f for f in module.functions if f.name == "blur")
    assert [a.attrs["access_qualifier"] for a in blur.args] == ["read_only", "write_only"]
    assert [a.attrs["type_name"] for a in blur.args] == ["image2d_t", "image2d_t"]
    text = print_module(module)
    assert "@sampler = addrspace(constant) constant i32 18" in text  # the CLK_* bits
    assert "__oclpy_texel" in text and "__oclpy_write" in text  # the image library, called
