"""Lowering: the IR the frontend builds for OpenCL C, checked on the printed form."""

import re

import pytest

from oclpy.frontend.driver import compile_to_ir
from oclpy.ir import types as ir
from oclpy.ir.printer import print_function, print_module
from oclpy.ir.values import ConstAggregate, ConstFloat, ConstInt, Module
from oclpy.ir.verifier import module_problems


def module_of(src: str, options: str = "") -> Module:
    m = compile_to_ir(src, options).module
    assert module_problems(m) == [], print_module(m)
    return m


def ir_of(src: str, fn: str = "k", options: str = "") -> str:
    m = module_of(src, options)
    f = m.get_function(fn)
    assert f is not None
    return print_function(f)


def assert_in_order(text: str, *patterns: str) -> None:
    """Each regex matches a line of `text`, in order (like FileCheck's CHECK lines)."""
    lines = text.splitlines()
    i = 0
    for pat in patterns:
        while i < len(lines) and not re.search(pat, lines[i]):
            i += 1
        assert i < len(lines), f"no line matching {pat!r} (in order) in:\n{text}"
        i += 1


def test_kernel_signature_and_arg_info() -> None:
    m = module_of("__kernel void k(__global const float * restrict a, __local int *l, "
                  "__constant float4 *c, uint n, float2 v) {}")
    k = m.get_function("k")
    assert k is not None and k.is_kernel and k.type.ret == ir.VOID
    assert [str(a.type) for a in k.args] == ["ptr<global>", "ptr<local>", "ptr<constant>", "i32",
                                             "<2 x float>"]
    a = k.args[0].attrs
    assert a["type_name"] == "float*" and a["address_qualifier"] == "global"
    assert a["access_qualifier"] == "none" and a["type_qualifiers"] == {"const", "restrict"}
    assert k.args[1].attrs["address_qualifier"] == "local"
    assert k.args[2].attrs["type_name"] == "float4*"
    assert k.args[3].attrs == {"type_name": "uint", "address_qualifier": "private",
                               "access_qualifier": "none", "type_qualifiers": set(), "name": "n"}


def test_reqd_work_group_size_attribute() -> None:
    m = module_of("__kernel __attribute__((reqd_work_group_size(8, 4, 1))) void k() {}")
    assert m.get_function("k").attrs["reqd_work_group_size"] == (8, 4, 1)  # type: ignore[union-attr]


def test_parameters_and_locals_are_allocas_in_entry() -> None:
    text = ir_of("__kernel void k(__global int *p, int n) { int x = n; if (n) { int y = 2; p[0] = y; } }")
    entry = text.split("\n\n")[0]
    for name in ("p.addr", "n.addr", "x", "y"):
        assert re.search(rf"%{re.escape(name)} = alloca", entry), text
    assert_in_order(text, r"store ptr<global> %p, ptr<private> %p.addr", r"store i32 %n, ptr<private> %n.addr")


def test_work_item_functions_are_intrinsics() -> None:
    m = module_of("__kernel void k(__global uint *p) { p[get_global_id(0)] = get_work_dim(); "
                  "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); }")
    gid = m.get_function("ocl.get_global_id")
    assert gid is not None and str(gid.type) == "i64 (i32)" and gid.attrs["intrinsic"] == "get_global_id"
    assert str(m.get_function("ocl.get_work_dim").type) == "i32 ()"  # type: ignore[union-attr]
    assert str(m.get_function("ocl.barrier").type) == "void (i32)"  # type: ignore[union-attr]
    assert "call void @ocl.barrier(i32 %" in print_function(m.get_function("k"))  # type: ignore[arg-type]


def test_kernel_local_array_is_global_var() -> None:
    m = module_of("__kernel void k(__global float *p) { __local float tile[64]; tile[1] = p[0]; p[1] = tile[1]; }")
    gv = m.get_global("k.tile")
    assert gv is not None and gv.space is ir.AddressSpace.LOCAL and gv.initializer is None
    assert str(gv.value_type) == "[64 x float]"
    assert "getelementptr float, ptr<local> @k.tile, i64 1" in print_function(m.get_function("k"))  # type: ignore[arg-type]


def test_program_scope_constants() -> None:
    m = module_of("__constant float W[3] = {0.25f, 0.5f, 0.25f};\n__constant int N = 3 * 4;\n"
                  "__constant float4 V = (float4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
                  "__kernel void k(__global float *p) { p[0] = W[1] * N + V.y; }")
    w, n, v = m.get_global("W"), m.get_global("N"), m.get_global("V")
    assert w is not None and w.space is ir.AddressSpace.CONSTANT and w.constant
    assert isinstance(w.initializer, ConstAggregate)
    assert [e.value for e in w.initializer.elements] == [0.25, 0.5, 0.25]  # type: ignore[attr-defined]
    assert isinstance(n.initializer, ConstInt) and n.initializer.value == 12  # type: ignore[union-attr]
    assert [e.value for e in v.initializer.elements] == [1.0, 2.0, 3.0, 4.0]  # type: ignore[union-attr]


def test_helper_function_is_a_real_call() -> None:
    text = ir_of("float sq(float x) { return x * x; }\n__kernel void k(__global float *p) { p[0] = sq(p[1]); }")
    assert re.search(r"call float @sq\(float %\d+\)", text), text


@pytest.mark.parametrize("decls, expr, pattern", [
    ("int a, int b", "a / b", r"sdiv i32"),
    ("uint a, uint b", "a / b", r"udiv i32"),
    ("int a, int b", "a % b", r"srem i32"),
    ("uint a, uint b", "a % b", r"urem i32"),
    ("int a, int b", "a >> b", r"ashr i32"),
    ("uint a, uint b", "a >> b", r"lshr i32"),
    ("int a, uint b", "a < b", r"icmp ult i32"),
    ("int a, int b", "a < b", r"icmp slt i32"),
    ("float a, float b", "a != b", r"fcmp une float"),
    ("float a, float b", "a <= b", r"fcmp ole float"),
    ("float a, int b", "a + b", r"sitofp i32 %\d+ to float"),
    ("float a, uint b", "a + b", r"uitofp i32 %\d+ to float"),
    ("char a", "a + 1", r"sext i8 %\d+ to i32"),
    ("uchar a", "a + 1", r"zext i8 %\d+ to i32"),
    ("float a", "a * 2.0", r"fpext float %\d+ to double"),
    ("float a", "-a", r"fneg float"),
    ("int a", "~a", r"xor i32 %\d+, -1"),
    ("long a", "(int)a", r"trunc i64 %\d+ to i32"),
    ("double a", "(uint)a", r"fptoui double %\d+ to i32"),
])
def test_operators(decls: str, expr: str, pattern: str) -> None:
    text = ir_of(f"void k({decls}) {{ {expr}; }}")
    assert re.search(pattern, text), text


def test_shift_count_is_masked() -> None:
    assert_in_order(ir_of("void k(int a, int b) { a << b; }"), r"and i32 %\d+, 31", r"shl i32")
    assert_in_order(ir_of("void k(long a, int b) { a >> b; }"), r"and i64 %\d+, 63", r"ashr i64")
    assert_in_order(ir_of("void k(uchar4 a, uchar4 b) { a << b; }"), r"and <4 x i8> .*7", r"shl <4 x i8>")


def test_integer_division_guards_zero_and_overflow() -> None:
    text = ir_of("void k(int a, int b) { a / b; }")
    assert_in_order(text, r"icmp eq i32 %\d+, 0", r"icmp eq i32 %\d+, -1", r"icmp eq i32 %\d+, -2147483648",
                    r"select i1 %\d+, i32 1, i32", r"sdiv i32")
    unsigned = ir_of("void k(uint a, uint b) { a % b; }")
    assert "-1" not in unsigned and "urem i32" in unsigned
    constant = ir_of("void k(int a) { a / 7; }")
    assert "select" not in constant and "sdiv i32 %0, 7" in constant
    ir_of("void k(int a) { a / 0; a % 0; }")  # constant zero: compiles, no crash


def test_short_circuit_uses_branches() -> None:
    text = ir_of("void k(__global int *p, int a) { if (a > 0 && p[a] > 1) p[0] = 1; }")
    assert_in_order(text, r"icmp sgt i32", r"condbr i1 %\d+, label %land.rhs, label %land.end",
                    r"^land.rhs:", r"load i32, ptr<global>", r"^land.end:", r"phi i1 \[ false, %entry \]")


def test_conditional_operator_phi() -> None:
    text = ir_of("void k(int c, float a, float b) { float x = c ? a : b; }")
    assert_in_order(text, r"condbr", r"^cond.true:", r"^cond.false:", r"^cond.end:", r"phi float")


def test_pointer_arithmetic_and_difference() -> None:
    text = ir_of("void k(__global float4 *p, __global float4 *q, int n) { p + n; p - n; p - q; p++; }")
    assert_in_order(text, r"getelementptr <4 x float>, ptr<global> %\d+, i64 %\d+",
                    r"sub i64 0, %\d+", r"getelementptr <4 x float>",
                    r"ptrtoint ptr<global>", r"sdiv i64 %\d+, 16",
                    r"getelementptr <4 x float>, ptr<global> %\d+, i64 1")


def test_increment_forms() -> None:
    text = ir_of("void k(int i, float f) { int a = i++; int b = ++i; f--; }")
    assert_in_order(text, r"%(\d+) = load i32, ptr<private> %i.addr", r"add i32 %\d+, 1",
                    r"store i32 %\d+, ptr<private> %i.addr", r"store i32 %\d+, ptr<private> %a",
                    r"add i32 %\d+, 1", r"fadd float %\d+, -1.0")


def test_compound_assignment_converts_both_ways() -> None:
    text = ir_of("void k(int a, float x) { a += x; }")
    assert_in_order(text, r"sitofp i32", r"fadd float", r"fptosi float %\d+ to i32", r"store i32")


def test_loops_and_switch_blocks() -> None:
    text = ir_of("void k(__global int *p, int n) {\n"
                 "  for (int i = 0; i < n; i++) { if (i == 2) continue; if (i == 5) break; p[i] = i; }\n"
                 "  while (n) n--;\n  do { n++; } while (n < 10);\n"
                 "  switch (n) { case 1: p[0] = 1; case 2: p[1] = 2; break; default: p[2] = 0; }\n}")
    for label in ("for.cond", "for.body", "for.inc", "for.end", "while.cond", "do.body", "do.cond",
                  "sw.case", "sw.default", "sw.end"):
        assert re.search(rf"^{label}\d*:", text, re.M), label
    assert re.search(r"switch i32 %\d+, label %sw.default \[\s*i32 1, label %sw.case\s*i32 2, label %sw.case1", text)
    # fallthrough: case 1 branches straight into case 2's block
    assert_in_order(text, r"^sw.case:", r"store i32 1", r"br label %sw.case1")


def test_goto_and_labels() -> None:
    text = ir_of("void k(__global int *p) { int i = 0; again: i++; if (i < 3) goto again; p[0] = i; }")
    assert_in_order(text, r"br label %label.again", r"^label.again:", r"condbr", r"br label %label.again")


def test_no_unreachable_blocks_after_return() -> None:
    text = ir_of("int k(int a) { return a; a = 2; return 3; }")
    assert "dead" not in text and text.count("ret i32") == 1


def test_bool_lives_as_i8_in_memory() -> None:
    text = ir_of("void k(int a) { bool b = a; if (b) a = 2; }")
    assert_in_order(text, r"%b = alloca i8", r"icmp ne i32", r"zext i1 %\d+ to i8", r"store i8",
                    r"load i8", r"icmp ne i8 %\d+, 0")


def test_vector_literal_and_splat() -> None:
    text = ir_of("void k(float a, float2 b) { float4 v = (float4)(a, b, 1.0f); float4 w = (float4)(a); }")
    assert_in_order(text, r"extractelement <2 x float>", r"insertelement <4 x float> undef, float %\d+, i32 0",
                    r"insertelement <4 x float> %\d+, float %\d+, i32 1",
                    r"insertelement <4 x float> %\d+, float 1.0, i32 3",
                    r"shufflevector <1 x float> %\d+, <1 x float> undef, \[0, 0, 0, 0\]")


def test_swizzle_rvalue_and_lvalue() -> None:
    text = ir_of("void k(float4 v, float2 w) { w = v.zx; v.yw = w; v.s3 = 1.0f; }")
    assert_in_order(text, r"shufflevector <4 x float> %\d+, <4 x float> %\d+, \[2, 0\]",
                    r"extractelement <2 x float> %\d+, i32 0", r"insertelement <4 x float> %\d+, float %\d+, i32 1",
                    r"insertelement <4 x float> %\d+, float %\d+, i32 3", r"store <4 x float>",
                    r"insertelement <4 x float> %\d+, float 1.0, i32 3")


def test_vector_comparison_is_minus_one() -> None:
    text = ir_of("void k(float4 a, float4 b) { int4 m = a < b; }")
    assert_in_order(text, r"fcmp olt <4 x float>", r"sext <4 x i1> %\d+ to <4 x i32>")


def test_vector_select_operator() -> None:
    text = ir_of("void k(int4 c, float4 a, float4 b) { float4 r = c ? a : b; }")
    assert_in_order(text, r"icmp slt <4 x i32> %\d+, ", r"select <4 x i1> %\d+, <4 x float>")


def test_struct_member_and_packed_alignment() -> None:
    text = ir_of("struct P { char c; int i; } __attribute__((packed));\n"
                 "void k(__global struct P *p) { p->i = 1; }")
    assert "getelementptr <{i8, i32}>, ptr<global> %0, i32 0, i32 1" in text
    assert "store i32 1, ptr<global> %1, align 1" in text


def test_by_value_struct_kernel_argument() -> None:
    m = module_of("typedef struct { float a; int b; } S;\n__kernel void k(S s, __global int *o) { o[0] = s.b; }")
    k = m.get_function("k")
    assert k is not None and str(k.args[0].type) == "{float, i32}"


def test_local_array_initializer() -> None:
    text = ir_of("void k() { int a[4] = {1, 2}; }")
    assert_in_order(text, r"store \[4 x i32\] zeroinitializer", r"getelementptr \[4 x i32\], ptr<private> %a, i32 0, i64 0",
                    r"store i32 1", r"store i32 2")


def test_float_literals_and_infinity() -> None:
    m = module_of("__kernel void k(__global float *p) { p[0] = INFINITY; p[1] = 0.5f; }")
    text = print_function(m.get_function("k"))  # type: ignore[arg-type]
    assert "store float 0x7FF0000000000000" in text
    assert "store float 0.5" in text


def test_address_of_local_is_private_pointer() -> None:
    text = ir_of("void k() { int a = 1; int *p = &a; *p = 2; }")
    assert_in_order(text, r"store ptr<private> %a, ptr<private> %p", r"load ptr<private>, ptr<private> %p",
                    r"store i32 2, ptr<private>")


def test_member_of_struct_and_union_values() -> None:
    text = ir_of("typedef union { int i; float f; } U;\nU mk(float f) { U u; u.f = f; return u; }\n"
                 "typedef struct { int a; U u; } S;\nS ms(void) { S s; s.a = 1; return s; }\n"
                 "__kernel void k(__global int *o) { o[0] = mk(1.0f).i + ms().u.i; }")
    assert_in_order(text, r"call \{i32\} @mk", r"store \{i32\} %\d+, ptr<private> %tmp", r"load i32, ptr<private> %tmp",
                    r"call \{i32, \{i32\}\} @ms", r"getelementptr \{i32, \{i32\}\}, ptr<private> %tmp.1, i32 0, i32 1")


def test_kernel_scope_constant_variable() -> None:
    m = module_of("__kernel void k(__global int *o) { __constant int tab[3] = {1, 2, 3}; o[0] = tab[o[1]]; }")
    gv = m.get_global("k.tab")
    assert gv is not None and gv.space is ir.AddressSpace.CONSTANT and gv.constant
    assert [e.value for e in gv.initializer.elements] == [1, 2, 3]  # type: ignore[union-attr]


def test_true_and_false() -> None:
    text = ir_of("void k(__global int *o) { bool b = true; o[0] = b + false; }")
    assert "store i8 1, ptr<private> %b" in text


def test_cl20_unqualified_pointers_are_generic() -> None:
    src = ("float first(float *p) { return p[0]; }\n"
           "__kernel void k(__global float *g) { float x = 1.0f; float *p = &x; "
           "g[0] = first(g) + first(p); __global float *back = (__global float *)p; }")
    m = module_of(src, "-cl-std=CL2.0")
    first = m.get_function("first")
    assert first is not None and str(first.args[0].type) == "ptr<generic>"
    text = print_function(m.get_function("k"))  # type: ignore[arg-type]
    assert_in_order(text, r"addrspacecast ptr<private> %x to ptr<generic>",
                    r"addrspacecast ptr<global> %\d+ to ptr<generic>", r"call float @first\(ptr<generic>",
                    r"addrspacecast ptr<generic> %\d+ to ptr<global>")


def test_constants_are_folded_in_conversions() -> None:
    text = ir_of("void k(__global float *p) { p[0] = 1; p[1] = (float)2.5; }")
    assert "store float 1.0" in text and "store float 2.5" in text and "sitofp" not in text


def test_aligned_attribute_on_variables() -> None:
    m = module_of("__kernel void k() { __attribute__((aligned(32))) float a[4]; "
                  "__local float c[4] __attribute__((aligned(128))); }")
    assert m.get_global("k.c").align == 128  # type: ignore[union-attr]
    assert "%a = alloca [4 x float], align 32" in print_function(m.get_function("k"))  # type: ignore[arg-type]


def test_char_array_from_string_literal() -> None:
    m = module_of('__constant char MSG[] = "hi";\n__kernel void k(__global char *o) { char s[4] = "ab"; o[0] = s[1] + MSG[0]; }')
    assert [e.value for e in m.get_global("MSG").initializer.elements] == [104, 105, 0]  # type: ignore[union-attr]
    text = print_function(m.get_function("k"))  # type: ignore[arg-type]
    assert_in_order(text, r"store \[4 x i8\] zeroinitializer", r"store i8 97", r"store i8 98", r"store i8 0")


def test_subscripted_swizzle_maps_the_index() -> None:
    text = ir_of("void k(int4 v, int i) { v.wzyx[i] = 7; }")
    assert_in_order(text, r"extractelement <4 x i64> <i64 3, i64 2, i64 1, i64 0>, i64 %\d+",
                    r"getelementptr <4 x i32>, ptr<private> %v.addr, i64 0, i64 %\d+", r"store i32 7")


def test_null_pointer_constants() -> None:
    text = ir_of("void k(__global int *q) { __global int *p = (void *)0; p = 0; if (q != 0) p = q; }")
    assert text.count("store ptr<global> null, ptr<private> %p") == 2
    assert "icmp ne ptr<global> %" in text and "addrspacecast" not in text
