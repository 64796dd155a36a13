"""Integer constant expressions: C's types and wrap-around, enum constants, sizeof, non-constants."""

import pytest

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c import ast
from oclpy.frontend.c import c_types as ct
from oclpy.frontend.c.consteval import eval_int_const, eval_int_const_typed, type_align, type_size
from oclpy.frontend.size_rules import CPU_SIZE_RULES
from oclpy.frontend.c.c_parser import parse

K = ct.ScalarKind


def const_expr(text, decls=""):
    """Parse `text` as the value of an enumerator-free expression statement and return the Expr."""
    diags = DiagnosticEngine()
    tu = parse(f"{decls}\nvoid f() {{ x = {text}; }}", "k.cl", diags)
    assert not diags.diagnostics, diags.render()
    return tu.decls[-1].body.items[0].expr.value


@pytest.mark.parametrize("text,value", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("-7 / 2", -3), ("-7 % 2", -1), ("7 % -2", 1), ("1 << 4", 16),
    ("-16 >> 2", -4), ("~0", -1), ("!5", 0), ("!0", 1), ("3 > 2", 1), ("3 <= 2", 0), ("1 == 1", 1),
    ("6 & 3", 2), ("6 | 3", 7), ("6 ^ 3", 5), ("1 && 0", 0), ("0 || 7", 1), ("1 ? 10 : 20", 10),
    ("0 ? 10 : 20", 20), ("+4", 4), ("'A'", 65), ("0x10", 16), ("010", 8),
    ("2147483647 + 1", -2147483648), ("0xFFFFFFFF + 1", 0), ("4294967295 + 1", 4294967296),
    ("0xFFFFFFFFu + 1u", 0), ("-1 < 0u", 0), ("-1 < 0L", 1), ("-1L < 0u", 1), ("(uint)-1", 4294967295),
    ("(char)300", 44), ("(uchar)-1", 255), ("(bool)7", 1), ("(short)65535", -1), ("(int)3.9f", 3),
    ("(ulong)-1 >> 63", 1), ("0 && (1 / 0)", 0), ("1 || (1 / 0)", 1),
    ("sizeof(int)", 4), ("sizeof(float3)", 16), ("sizeof(double2)", 16), ("sizeof(char *)", 8),
    ("sizeof(int[3][2])", 24), ("__alignof__(float4)", 16), ("vec_step(float3)", 4), ("vec_step(int)", 1),
])
def test_values(text, value):
    assert eval_int_const(const_expr(text), CPU_SIZE_RULES) == value


@pytest.mark.parametrize("text,kind", [
    ("1", K.INT), ("2147483648", K.LONG), ("0x80000000", K.UINT), ("1u", K.UINT), ("1l", K.LONG),
    ("0xFFFFFFFFFFFFFFFF", K.ULONG), ("1ul", K.ULONG), ("1 + 1u", K.UINT), ("1u + 1L", K.LONG),
    ("(char)1 + (char)1", K.INT), ("1 < 2u", K.INT), ("sizeof(int)", K.ULONG), ("1u << 3", K.UINT),
])
def test_types(text, kind):
    assert eval_int_const_typed(const_expr(text), CPU_SIZE_RULES)[1] is kind


# OpenCL C 6.3(j): a shift count is taken modulo the promoted left operand's width
# (clang's CodeGenOpenCL/shifts.cl: `((int)1) << 40` and `<< (-24)` are 256, `<< (-16)` 65536).
@pytest.mark.parametrize("text,value", [
    ("((int)1) << 40", 256), ("((int)1) << (-24)", 256), ("((int)1) << (-16)", 65536), ("1 << 32", 1),
    ("1L << 64", 1), ("(char)1 << 33", 2), ("-16 >> 34", -4), ("0x80000000u >> 63", 1), ("1UL << 31", 2147483648),
])
def test_shift_counts_wrap(text, value):
    assert eval_int_const(const_expr(text), CPU_SIZE_RULES) == value


@pytest.mark.parametrize("text", ["y", "1.5", "y + 1", "1 / 0", "1 % 0", "f(1)", "(float)1",
                                  "sizeof y", "(1, 2)", "a[0]"])
def test_not_constant(text):
    assert eval_int_const(const_expr(text), CPU_SIZE_RULES) is None


def test_division_by_zero_warns():
    diags = DiagnosticEngine()
    assert eval_int_const(const_expr("1 / 0"), CPU_SIZE_RULES, diags) is None
    assert [(d.severity, d.message, d.loc.col) for d in diags.diagnostics] == [
        ("warning", "division by zero is undefined", 18)]


def test_enum_constants():
    expr = const_expr("B * 2", decls="enum E { A = 3, B };")
    assert eval_int_const(expr, CPU_SIZE_RULES) == 8


def test_struct_layout():
    diags = DiagnosticEngine()
    tu = parse("struct S { char c; int i; char d; };\n"
               "struct __attribute__((packed)) P { char c; int i; };\n"
               "struct B { unsigned a : 3; unsigned b : 30; char c; };\n"
               "union U { char c[5]; int i; };\n"
               "struct A { char c; } __attribute__((aligned(16)));\n"
               "struct V { char c; float4 v; };\n"
               "struct Fwd;", "k.cl", diags)
    s, p, b, u, a, v, fwd = (d.ctype for d in tu.decls)
    assert (type_size(s, CPU_SIZE_RULES), type_align(s, CPU_SIZE_RULES)) == (12, 4)
    assert (type_size(p, CPU_SIZE_RULES), type_align(p, CPU_SIZE_RULES)) == (5, 1)
    assert (type_size(b, CPU_SIZE_RULES), type_align(b, CPU_SIZE_RULES)) == (12, 4)
    assert (type_size(u, CPU_SIZE_RULES), type_align(u, CPU_SIZE_RULES)) == (8, 4)
    assert (type_size(a, CPU_SIZE_RULES), type_align(a, CPU_SIZE_RULES)) == (16, 16)
    assert (type_size(v, CPU_SIZE_RULES), type_align(v, CPU_SIZE_RULES)) == (32, 16)
    assert type_size(fwd, CPU_SIZE_RULES) is None
    assert type_size(ct.Array(ct.INT, None), CPU_SIZE_RULES) is None


def test_deep_expression_is_not_constant_rather_than_crashing():
    expr: ast.Expr = ast.IntLiteral(ast.SourceLocation("k", 1, 1), 1)
    for _ in range(100000):
        expr = ast.Unary(expr.loc, "-", expr)
    assert eval_int_const(expr, CPU_SIZE_RULES) is None
