"""The AST dump: exact tree shape, scalar fields, declared and sema-filled types, references."""

import re
import textwrap
from pathlib import Path

import pytest

from oclpy.diagnostics import DiagnosticEngine, SourceLocation
from oclpy.frontend.c import ast
from oclpy.frontend.c import c_types as ct
from oclpy.frontend.c.ast_printer import dump, to_source
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.preprocess import preprocess


def parse_ok(source):
    diags = DiagnosticEngine()
    tu = parse(source, "k.cl", diags)
    assert not diags.diagnostics, diags.render()
    return tu


def test_kernel_dump():
    tu = parse_ok(textwrap.dedent("""\
        enum { N = 4 };
        __kernel __attribute__((reqd_work_group_size(N, 1, 1)))
        void k(__global float *a, int n) {
            __local float t[N];
            float4 v = (float4)(1.0f, (float)n);
            if (n > 0) a[0] = -v.x; else return;
            for (int i = 0; i < n; i++) t[i] = sizeof(int) + "s\\n"[0];
            switch (n) { case 1: break; default: goto end; }
        end:
            a[1] = n ? 1u : 2.5h;
        }
        """))
    assert dump(tu) == textwrap.dedent("""\
        TranslationUnit <k.cl:1:1>
        |-EnumConstant <k.cl:1:8> N value=4
        |-TagDecl <k.cl:1:1> 'enum '
        `-FunctionDecl <k.cl:3:6> k kernel 'void (__global float *, int)' attrs(reqd_work_group_size=(4, 1, 1))
          |-ParamDecl <k.cl:3:24> a '__global float *'
          |-ParamDecl <k.cl:3:31> n 'int'
          `-Compound <k.cl:3:34>
            |-DeclStmt <k.cl:4:5>
            | `-VarDecl <k.cl:4:19> t '__local float [4]'
            |-DeclStmt <k.cl:5:5>
            | `-VarDecl <k.cl:5:12> v 'float4'
            |   `-VectorLiteral <k.cl:5:16> to 'float4'
            |     |-FloatLiteral <k.cl:5:25> value=1.0 suffix=f
            |     `-Cast <k.cl:5:31> to 'float'
            |       `-Identifier <k.cl:5:38> n
            |-If <k.cl:6:5>
            | |-Binary <k.cl:6:11> '>'
            | | |-Identifier <k.cl:6:9> n
            | | `-IntLiteral <k.cl:6:13> value=0
            | |-ExprStmt <k.cl:6:16>
            | | `-Assign <k.cl:6:21> '='
            | |   |-Index <k.cl:6:17>
            | |   | |-Identifier <k.cl:6:16> a
            | |   | `-IntLiteral <k.cl:6:18> value=0
            | |   `-Unary <k.cl:6:23> '-'
            | |     `-Member <k.cl:6:26> x
            | |       `-Identifier <k.cl:6:24> v
            | `-Return <k.cl:6:34>
            |-For <k.cl:7:5>
            | |-DeclStmt <k.cl:7:10>
            | | `-VarDecl <k.cl:7:14> i 'int'
            | |   `-IntLiteral <k.cl:7:18> value=0
            | |-Binary <k.cl:7:23> '<'
            | | |-Identifier <k.cl:7:21> i
            | | `-Identifier <k.cl:7:25> n
            | |-Unary <k.cl:7:29> '++post'
            | | `-Identifier <k.cl:7:28> i
            | `-ExprStmt <k.cl:7:33>
            |   `-Assign <k.cl:7:38> '='
            |     |-Index <k.cl:7:34>
            |     | |-Identifier <k.cl:7:33> t
            |     | `-Identifier <k.cl:7:35> i
            |     `-Binary <k.cl:7:52> '+'
            |       |-SizeOf <k.cl:7:40> sizeof 'int'
            |       `-Index <k.cl:7:59>
            |         |-StringLiteral <k.cl:7:54> "s\\n"
            |         `-IntLiteral <k.cl:7:60> value=0
            |-Switch <k.cl:8:5>
            | |-Identifier <k.cl:8:13> n
            | `-Compound <k.cl:8:16>
            |   |-Case <k.cl:8:18>
            |   | |-IntLiteral <k.cl:8:23> value=1
            |   | `-Break <k.cl:8:26>
            |   `-Default <k.cl:8:33>
            |     `-Goto <k.cl:8:42> end
            `-Label <k.cl:9:1> end
              `-ExprStmt <k.cl:10:5>
                `-Assign <k.cl:10:10> '='
                  |-Index <k.cl:10:6>
                  | |-Identifier <k.cl:10:5> a
                  | `-IntLiteral <k.cl:10:7> value=1
                  `-Conditional <k.cl:10:14>
                    |-Identifier <k.cl:10:12> n
                    |-IntLiteral <k.cl:10:16> value=1 suffix=u
                    `-FloatLiteral <k.cl:10:21> value=2.5 suffix=h
        """)


def test_sema_fields_are_shown():
    loc = SourceLocation("k.cl", 2, 3)
    var = ast.VarDecl(SourceLocation("k.cl", 1, 5), "x", ct.FLOAT)
    ref = ast.Identifier(loc, "x", var, ctype=ct.FLOAT, is_lvalue=True)
    cast = ast.ImplicitCast(loc, "lvalue-to-rvalue", ref, ctype=ct.FLOAT)
    assert dump(cast) == (
        "ImplicitCast <k.cl:2:3> lvalue-to-rvalue 'float'\n"
        "`-Identifier <k.cl:2:3> x lvalue -> VarDecl 'x' 'float'\n")


def test_struct_member_arrow_and_hex_literal():
    tu = parse_ok("struct S { int v; };\nvoid f(struct S *p) { p->v = 0x1F; }")
    text = dump(tu)
    assert "Member <k.cl:2:26> v ->\n" in text
    assert "IntLiteral <k.cl:2:30> value=31 radix=16\n" in text
    assert "TagDecl <k.cl:1:1> S 'struct S'\n" in text


def test_every_node_kind_prints():
    source = ("typedef int T; struct A { int a[2]; } g = { .a = {1, 2} };\n"
              "int h(int x) { T y = x; while (y) { y--; continue; } do y++; while (y < 3); "
              "return vec_step(int4) + (y, 1) + ~y + !y; }")
    text = dump(parse_ok(source))
    for kind in ("TypedefDecl", "VarDecl", "InitList", "FunctionDecl", "While", "Continue", "DoWhile",
                 "Return", "SizeOf <k.cl:2:84> vec_step 'int4'", "Binary <k.cl:2:103> ','",
                 "designators=[['a']]"):
        assert kind in text, kind


# -- to_source: parse -> print -> parse gives the same tree -----------------------

KERNELS = sorted((Path(__file__).parent / "kernels").glob("*.cl"))

ROUNDTRIP_SOURCES = [
    "typedef struct { float x; int a[3]; } P;\nP g = { .a[1] = 2, .x = 1.5f, 7 };",
    "enum E { A, B = 7 };\ntypedef enum E E2;\nenum { LONE = 3 };\nint arr[B] = { [2] = 1, 2 };",
    "struct S; struct S { struct S *next; char tag; } __attribute__((aligned(8)));\nunion U { int i; float f; };",
    "int *ptrs[4]; int (*pa)[4]; const char *const names[2] = {\"a\\n\\\"b\", \"\\x01?\"};",
    "static __constant float k[2][2] = {{1, 2}, {3, 4}};\nextern int e; static int s, *ps, as[3];",
    "__kernel __attribute__((reqd_work_group_size(8, 8, 1), vec_type_hint(float4))) "
    "void k(__global const float *restrict a, __local int *l, __read_only image2d_t img, unsigned n, ...) {}",
    "inline long f(long x) { return x ? -x : ~x; }\nvoid g(void);\nint h(int a[], int m[][3]);",
    "void st() { int i, j = 0x1F, k = 017; for (i = 0, j = 1; i < 3; i++, --j) { if (i) continue; else break; } "
    "for (int q = 0, r = 1;;) ; while (j) j >>= 1; do { j++; } while (j < 3); "
    "switch (i) { case 1: case 2: i = 3; break; default: goto end; } end: return; }",
    "void ex(float4 v, __global int *p) { float2 w = (float2)(v.xy).yx + (float2)(1.0f, 2.5e-3f); "
    "int s = sizeof(int) + sizeof p + vec_step(float3) + __alignof__(double) + (int)3.0 * (p[0]++ - ++p[1]); "
    "uchar c = 'a'; ulong big = 18446744073709551615UL; half h = 0.5h; *p = (s, c) && !s || s & 1 ^ 2 | 3; "
    "p[1] = s << 2 >= 1 ? s : s != 2; w.x /= 2; s %= 3; s <<= 1; s &= 1; s |= 2; s ^= 4; s -= 1; s *= 2; }",
    "void cl(float2 h) { float4 a = (float4){h, 1.0f}; float4 b = (float4){2.0f}; float c = (float2){1, 2}.y; }",
]


def _no_locations(text):
    return re.sub(r" <[^>]*>", "", text)


def assert_roundtrip(source, filename="k.cl"):
    tu = parse_ok(source)
    printed = to_source(tu)
    diags = DiagnosticEngine({"printed.cl": printed})
    again = parse(printed, "printed.cl", diags)
    assert not diags.diagnostics, diags.render() + printed
    assert _no_locations(dump(again)) == _no_locations(dump(tu)), printed


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.name)
def test_roundtrip_kernels(kernel):
    diags = DiagnosticEngine()
    assert_roundtrip(preprocess(kernel.read_text(), kernel.name, parse_build_options(""), diags))


@pytest.mark.parametrize("source", ROUNDTRIP_SOURCES)
def test_roundtrip_constructs(source):
    assert_roundtrip(source)


def test_to_source_of_expression_and_statement():
    f = parse_ok("void f() { x = a + b * -c; }").decls[0]
    stmt = f.body.items[0]
    assert to_source(stmt) == "(x = (a + (b * (- c))));"
    assert to_source(stmt.expr.value) == "(a + (b * (- c)))"
    assert to_source(f) == "void f(void) { (x = (a + (b * (- c)))); }"


def test_dump_of_a_very_deep_tree():
    tu = parse_ok("int x[" + " + ".join(["1"] * 5000) + "];\nint y = " + " + ".join(["x[0]"] * 3000) + ";")
    text = dump(tu)
    assert "VarDecl <k.cl:1:5> x global 'int [5000]'" in text  # the size was folded
    assert text.count("IntLiteral") == 3000 and text.count("Binary") == 2999
