"""Sema: the types of expressions and the implicit conversions it inserts."""

import pytest

from oclpy.frontend.c import ast

from .sema_helpers import body_exprs, casts, check, expr_type


@pytest.mark.parametrize("decls, expr, want", [
    # integer promotions and the usual arithmetic conversions
    ("char a, char b", "a + b", "int"),
    ("uchar a, short b", "a * b", "int"),
    ("int a, uint b", "a + b", "uint"),
    ("int a, long b", "a + b", "long"),
    ("uint a, long b", "a - b", "long"),
    ("ulong a, long b", "a + b", "ulong"),
    ("int a, float b", "a + b", "float"),
    ("float a", "a * 2.0", "double"),
    ("float a", "a * 2.0f", "float"),
    ("bool a", "-a", "int"),
    ("uchar a", "~a", "int"),
    ("short a", "a << 2L", "int"),
    ("ulong a", "a >> 1", "ulong"),
    # relational and logical operators
    ("float a, float b", "a < b", "int"),
    ("float a, int b", "a && b", "int"),
    ("float4 a, float4 b", "a == b", "int4"),
    ("double2 a", "a > 0.0", "long2"),
    ("uchar8 a, uchar8 b", "a != b", "char8"),
    ("float4 a", "!a", "int4"),
    # vectors
    ("float4 a, float b", "a * b", "float4"),
    ("int4 a", "a + 1", "int4"),
    ("float4 a", "a.xy", "float2"),
    ("float4 a", "a.s3", "float"),
    ("float8 a", "a.lo", "float4"),
    ("float8 a", "a.odd", "float4"),
    ("float3 a", "a.hi", "float2"),
    ("int16 a", "a.sfEDc", "int4"),
    ("float4 a", "a[2]", "float"),
    ("float a", "(float4)(a)", "float4"),
    ("float2 a, float b", "(float4)(a, b, 1.0f)", "float4"),
    # pointers and arrays
    ("__global float *p", "p + 1", "__global float *"),
    ("__global float *p, __global float *q", "p - q", "long"),
    ("__global float *p", "*p", "float"),  # an rvalue after lvalue-to-rvalue
    ("__global float *p", "p[3]", "float"),
    ("__local int *p", "&p[1]", "__local int *"),
    ("__global float *p", "p == 0", "int"),
    ("int a", "&a", "__private int *"),
    # literals
    ("", "1", "int"), ("", "1u", "uint"), ("", "1l", "long"), ("", "1ul", "ulong"),
    ("", "0xFFFFFFFF", "uint"), ("", "4294967295", "long"), ("", "1.5f", "float"),
    ("", "1.5", "double"), ("", "'a'", "int"),
    # sizeof & co.
    ("float4 v", "sizeof(v)", "ulong"), ("", "vec_step(float3)", "uint"),
    # conditional and comma
    ("int c, int a, float b", "c ? a : b", "float"),
    ("int a, float b", "(a, b)", "float"),
    ("int4 c, float4 a, float4 b", "c ? a : b", "float4"),
])
def test_expression_types(decls: str, expr: str, want: str) -> None:
    assert expr_type(decls, expr) == want


def test_single_precision_constant_option() -> None:
    assert expr_type("float a", "a * 2.0", "-cl-single-precision-constant") == "float"


def test_work_item_builtin_returns_size_t() -> None:
    assert expr_type("", "get_global_id(0)") == "ulong"
    assert expr_type("", "get_work_dim()") == "uint"


def test_conversions_inserted_for_mixed_arithmetic() -> None:
    e = body_exprs("void f(int a, float b) { a + b; }")[0]
    assert isinstance(e, ast.Binary)
    assert casts(e.lhs) == ["int-to-float:float", "lvalue-to-rvalue:int"]
    assert casts(e.rhs) == ["lvalue-to-rvalue:float"]


def test_scalar_operand_is_splatted_to_vector() -> None:
    e = body_exprs("void f(float4 v, int s) { v * s; }")[0]
    assert isinstance(e, ast.Binary)
    assert casts(e.rhs) == ["splat:float4", "int-to-float:float", "lvalue-to-rvalue:int"]


def test_assignment_converts_to_target_type() -> None:
    e = body_exprs("void f(int a, double d) { a = d; }")[0]
    assert isinstance(e, ast.Assign) and str(e.ctype) == "int"
    assert casts(e.value) == ["float-to-int:int", "lvalue-to-rvalue:double"]


def test_compound_assignment_computes_in_common_type() -> None:
    e = body_exprs("void f(int a, float x) { a += x; }")[0]
    assert isinstance(e, ast.Assign)
    assert str(e.compute_type) == "float"  # type: ignore[attr-defined]
    assert str(e.ctype) == "int"


def test_conditions_become_bool() -> None:
    tu, diags = check("void f(float x) { if (x) ; while (x < 1.0f) ; }")
    fn = tu.decls[0]
    assert isinstance(fn, ast.FunctionDecl) and fn.body is not None
    if_stmt, while_stmt = fn.body.items
    assert isinstance(if_stmt, ast.If) and isinstance(while_stmt, ast.While)
    assert casts(if_stmt.cond)[0] == "to-bool:bool"
    assert casts(while_stmt.cond)[0] == "to-bool:bool"


def test_array_decays_to_pointer_in_its_space() -> None:
    e = body_exprs("__kernel void k() { __local float t[4]; t + 1; }")[0]
    assert str(e.ctype) == "__local float *"


def test_identifiers_resolve_to_declarations() -> None:
    tu, _ = check("__constant int K = 3;\nvoid f(int a) { a + K; }")
    fn = tu.decls[-1]
    assert isinstance(fn, ast.FunctionDecl) and fn.body is not None
    stmt = fn.body.items[0]
    assert isinstance(stmt, ast.ExprStmt) and isinstance(stmt.expr, ast.Binary)
    idents = [n for n in (stmt.expr.lhs, stmt.expr.rhs)]
    decls = [getattr(i.operand, "decl", None) for i in idents]  # type: ignore[attr-defined]
    assert isinstance(decls[0], ast.ParamDecl) and isinstance(decls[1], ast.VarDecl)


def test_enum_constant_is_int() -> None:
    e = body_exprs("enum E { A, B = 5 };\nvoid f() { B + 1; }")[0]
    assert str(e.ctype) == "int"


def test_swizzle_records_indices() -> None:
    e = body_exprs("void f(float4 v) { v.wzyx; }")[0]
    while isinstance(e, ast.ImplicitCast):
        e = e.operand
    assert isinstance(e, ast.Member) and e.swizzle == (3, 2, 1, 0)


def test_builtin_overload_resolution_prefers_exact() -> None:
    e = body_exprs("void f(float4 a, float b) { fmax(a, b); max(a, a); min(1u, 2u); }")
    assert [str(x.ctype) for x in e] == ["float4", "float4", "uint"]
    assert isinstance(e[0], ast.Call) and e[0].builtin.params[1].__str__() == "float"


def test_struct_member_types() -> None:
    src = "typedef struct { int a; float4 v; } S;\nvoid f(__global S *p, S s) { p->v; s.a; p->v.x; }"
    assert [str(e.ctype) for e in body_exprs(src)] == ["float4", "int", "float"]


def test_conversion_builtins() -> None:
    e = body_exprs("void f(float4 v, int i) { convert_int4_sat_rte(v); as_uint(1.0f); convert_float(i); }")
    assert [str(x.ctype) for x in e] == ["int4", "uint", "float"]
