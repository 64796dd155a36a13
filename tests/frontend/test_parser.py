"""Parser: realistic kernels, every construct, the types declarators build, and each syntax error
with its exact line and column."""

from pathlib import Path

import pytest

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c import ast
from oclpy.frontend.c import c_types as ct
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.preprocess import preprocess
from oclpy.ir.types import AddressSpace

KERNELS = Path(__file__).parent / "kernels"
GLOBAL, LOCAL, CONSTANT = AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.CONSTANT


def parse_src(source, filename="k.cl", preprocessed=False):
    diags = DiagnosticEngine()
    text = source if preprocessed else preprocess(source, filename, parse_build_options(""), diags)
    return parse(text, filename, diags), diags


def parse_ok(source):
    tu, diags = parse_src(source)
    assert not diags.diagnostics, diags.render()
    return tu


def parse_kernel_file(name):
    return parse_ok((KERNELS / name).read_text())


def func(tu, name):
    return next(d for d in tu.decls if isinstance(d, ast.FunctionDecl) and d.name == name)


def body_items(source):
    """The items of the body of the last function in `source`."""
    tu = parse_ok(source)
    return [d for d in tu.decls if isinstance(d, ast.FunctionDecl)][-1].body.items


def expr_of(text, decls=""):
    """Parse `text` as the initializer of a local variable and return it."""
    items = body_items(f"{decls}\nvoid f() {{ int r = {text}; }}")
    return items[-1].decls[0].init


def walk(node):
    yield node
    for value in vars(node).values():
        children = value if isinstance(value, list) else [value]
        for child in children:
            if isinstance(child, ast.Node):
                yield from walk(child)


def errors(source):
    _, diags = parse_src(source)
    return [f"{d.loc.line}:{d.loc.col}: {d.severity}: {d.message}" for d in diags.diagnostics]


# -- realistic kernels --------------------------------------------------------

def test_vector_add():
    tu = parse_kernel_file("vector_add.cl")
    f = func(tu, "vector_add")
    assert f.is_kernel and f.body is not None
    assert [p.name for p in f.params] == ["a", "b", "out", "n"]
    a, b, out, n = (p.ctype for p in f.params)
    assert a == ct.Pointer(ct.Scalar(ct.ScalarKind.FLOAT, const=True, space=GLOBAL))
    assert out == ct.Pointer(ct.Scalar(ct.ScalarKind.FLOAT, space=GLOBAL), restrict=True)
    assert n == ct.Scalar(ct.ScalarKind.UINT, const=True)
    assert f.ctype == ct.FunctionType(ct.VOID, (a, b, out, n))
    decl, if_stmt = f.body.items
    assert decl.decls[0].ctype == ct.ULONG and isinstance(decl.decls[0].init, ast.Call)
    assert isinstance(if_stmt, ast.If) and isinstance(if_stmt.then.expr, ast.Assign)
    assert (f.loc.line, f.loc.col) == (1, 15)


def test_reduction_with_local_memory_and_barriers():
    f = func(parse_kernel_file("reduction.cl"), "reduce_sum")
    assert f.attributes == {"reqd_work_group_size": (64, 1, 1)}
    assert f.params[2].ctype == ct.Pointer(ct.Scalar(ct.ScalarKind.FLOAT, space=LOCAL))
    cache = f.body.items[1].decls[0]
    assert cache.name == "cache" and cache.ctype == ct.Array(ct.Scalar(ct.ScalarKind.FLOAT, space=LOCAL), 64,
                                                             space=LOCAL)
    loop = f.body.items[5]
    assert isinstance(loop, ast.For) and isinstance(loop.init, ast.DeclStmt)
    assert isinstance(loop.step, ast.Assign) and loop.step.op == ">>="
    calls = [n.callee.name for n in walk(f.body) if isinstance(n, ast.Call)]
    assert calls.count("barrier") == 2


def test_tiled_matmul():
    tu = parse_kernel_file("matmul.cl")
    assert isinstance(tu.decls[0], ast.TypedefDecl) and tu.decls[0].ctype == ct.FLOAT
    f = func(tu, "matmul")
    assert f.attributes["reqd_work_group_size"] == (16, 16, 1)
    assert f.params[0].ctype == ct.Pointer(ct.Scalar(ct.ScalarKind.FLOAT, const=True, space=GLOBAL))
    bs = f.body.items[1].decls[0]
    assert bs.ctype.count == 16 and bs.ctype.elem.count == 17 and bs.ctype.space is LOCAL
    inner = f.body.items[5].body.items[3]
    assert isinstance(inner, ast.For) and isinstance(inner.body.expr.value, ast.Call)


def test_stencil():
    tu = parse_kernel_file("stencil.cl")
    weights = tu.decls[0]
    assert weights.is_global_scope and weights.ctype.space is CONSTANT
    assert weights.ctype.count == 3 and len(weights.init.items) == 3
    assert func(tu, "clampf").is_inline
    blur = func(tu, "blur")
    literal = blur.body.items[-1].expr.value
    assert isinstance(literal, ast.VectorLiteral) and literal.to == ct.Vector(ct.ScalarKind.FLOAT, 4)
    assert [type(c).__name__ for c in literal.components] == ["Member", "Call"]
    splat = blur.body.items[1].decls[0].init
    assert isinstance(splat, ast.VectorLiteral) and len(splat.components) == 1


def test_structs_unions_enums():
    tu = parse_kernel_file("structs.cl")
    particle = tu.decls[0]
    assert isinstance(particle, ast.TypedefDecl) and isinstance(particle.ctype, ct.Struct)
    definition = particle.ctype.definition
    assert definition.tag == "Particle"
    assert [(f.name, f.bit_width) for f in definition.fields] == [
        ("pos", None), ("vel", None), ("next", None), ("flags", 4), ("alive", 1)]
    assert definition.fields[2].type.pointee.definition is definition
    header = next(d for d in tu.decls if isinstance(d, ast.TagDecl) and d.name == "Header")
    assert header.ctype.definition.packed
    bits = next(d for d in tu.decls if isinstance(d, ast.TagDecl) and d.name == "Bits")
    assert bits.ctype.definition.is_union
    constants = [(d.name, d.value) for d in tu.decls if isinstance(d, ast.EnumConstant)]
    assert constants == [("KIND_A", 0), ("KIND_B", 10), ("KIND_C", 11)]
    step = func(tu, "step")
    assert step.params[0].ctype.pointee.definition is definition
    members = [(n.name, n.arrow) for n in walk(step.body) if isinstance(n, ast.Member)]
    assert ("xyz", False) in members and ("pos", True) in members
    kind_c = [n for n in walk(step.body) if isinstance(n, ast.Identifier) and n.name == "KIND_C"]
    assert isinstance(kind_c[0].decl, ast.EnumConstant)


def test_switch_goto_loops():
    tu = parse_kernel_file("control.cl")
    f = func(tu, "classify")
    kinds = [type(n).__name__ for n in walk(f.body)]
    for kind in ("Switch", "Case", "Default", "Break", "DoWhile", "Goto", "While", "Continue", "Label", "Return"):
        assert kind in kinds
    switch = f.body.items[1]
    cases = [n for n in walk(switch) if isinstance(n, ast.Case)]
    assert [c.value.value for c in cases] == [0, 1, 2]
    label = f.body.items[-1]
    assert isinstance(label, ast.Label) and label.name == "out" and isinstance(label.body, ast.Return)


def test_locations_follow_includes_and_line_markers():
    tu, diags = parse_src('#line 40 "orig.cl"\nint x;\n', preprocessed=True)
    assert str(tu.decls[0].loc) == "orig.cl:40:5"


# -- declarations and types ---------------------------------------------------

@pytest.mark.parametrize("decl,expected", [
    ("int x;", ct.INT), ("unsigned x;", ct.UINT), ("unsigned int x;", ct.UINT), ("long long x;", ct.LONG),
    ("unsigned long long x;", ct.ULONG), ("unsigned char x;", ct.UCHAR), ("signed char x;", ct.CHAR),
    ("short int x;", ct.SHORT), ("unsigned short x;", ct.USHORT), ("long int x;", ct.LONG),
    ("long unsigned x;", ct.ULONG), ("uchar x;", ct.UCHAR), ("half x;", ct.HALF), ("bool x;", ct.BOOL),
    ("_Bool x;", ct.BOOL), ("size_t x;", ct.ULONG), ("double x;", ct.DOUBLE),
    ("float4 x;", ct.Vector(ct.ScalarKind.FLOAT, 4)), ("uchar16 x;", ct.Vector(ct.ScalarKind.UCHAR, 16)),
    ("const int x = 1;", ct.Scalar(ct.ScalarKind.INT, const=True)),
    ("int const volatile x;", ct.Scalar(ct.ScalarKind.INT, const=True, volatile=True)),
    ("int *x;", ct.Pointer(ct.INT)), ("int **x;", ct.Pointer(ct.Pointer(ct.INT))),
    ("int *const x = 0;", ct.Pointer(ct.INT, const=True)),
    ("__global int *__private x;", ct.Pointer(ct.Scalar(ct.ScalarKind.INT, space=GLOBAL),
                                              space=AddressSpace.PRIVATE)),
    ("int x[3][4];", ct.Array(ct.Array(ct.INT, 4), 3)), ("int x[] = {1, 2, 3};", ct.Array(ct.INT, 3)),
    ("char s[] = \"abc\";", ct.Array(ct.CHAR, 4)), ("int x[] = {[4] = 1, 2};", ct.Array(ct.INT, 6)),
    ("int *x[2];", ct.Array(ct.Pointer(ct.INT), 2)), ("int (*x)[2];", ct.Pointer(ct.Array(ct.INT, 2))),
    ("int x[2 * 3 + (1 << 2)];", ct.Array(ct.INT, 10)), ("int x[sizeof(float4)];", ct.Array(ct.INT, 16)),
])
def test_declarator_types(decl, expected):
    (var,) = parse_ok(decl).decls
    assert var.ctype == expected and var.is_global_scope


def test_function_declarators():
    tu = parse_ok("void f(void);\nint g(int a, float *b, ...);\nvoid h(int a[], int m[][4]);\nvoid k(int, float);")
    f, g, h, k = tu.decls
    assert f.ctype == ct.FunctionType(ct.VOID, ()) and f.params == [] and f.body is None
    assert g.ctype.variadic and [p.name for p in g.params] == ["a", "b"]
    assert [p.ctype for p in h.params] == [ct.Pointer(ct.INT), ct.Pointer(ct.Array(ct.INT, 4))]
    assert [p.name for p in k.params] == ["", ""] and k.ctype.params == (ct.INT, ct.FLOAT)


def test_storage_and_function_specifiers():
    tu = parse_ok("static int s; extern float e; static inline int f(int x) { return x; }\n"
                  "__kernel void k1(void) {} kernel void k2() {}")
    s, e, f, k1, k2 = tu.decls
    assert (s.storage, e.storage, f.storage) == ("static", "extern", "static")
    assert f.is_inline and not f.is_kernel and k1.is_kernel and k2.is_kernel


def test_typedef_scopes_and_shadowing():
    items = body_items("typedef int T;\nvoid f() { T a = (T)1; { int T = 2; a = T * 3; } T b; }")
    cast = items[0].decls[0].init
    assert isinstance(cast, ast.Cast) and cast.to == ct.INT
    inner = items[1].items[1].expr.value
    assert isinstance(inner, ast.Binary) and inner.lhs.name == "T"
    assert items[2].decls[0].ctype == ct.INT


def test_local_typedef_does_not_leak():
    _, diags = parse_src("void f() { typedef int L; L x; }\nvoid g() { L y; }")
    assert [d.message for d in diags.diagnostics] == ["unknown type name 'L'"]


def test_attributes():
    tu = parse_ok(
        "__kernel __attribute__((work_group_size_hint(8, 4, 1), vec_type_hint(float4)))\n"
        "void k(__global float *p) __attribute__((noinline)) {}\n"
        "__attribute__((always_inline)) int h(int x) { return x; }\n"
        "int aligned_var __attribute__((aligned(16)));\n"
        "struct S { char c; } __attribute__((aligned(8)));\n"
        "__attribute__((aligned)) int default_align;")
    k, h, var, s, default_align = tu.decls
    assert k.attributes == {"work_group_size_hint": (8, 4, 1), "vec_type_hint": ct.Vector(ct.ScalarKind.FLOAT, 4),
                            "noinline": True}
    assert h.attributes == {"always_inline": True}
    assert var.attributes == {"aligned": 16}
    assert s.ctype.definition.align == 8
    assert default_align.attributes == {"aligned": 16}


def test_anonymous_struct_and_forward_declaration():
    tu = parse_ok("struct Fwd;\nstruct Fwd *p;\nstruct Fwd { int v; };\nstruct { int a, b; } pair;")
    fwd, p, definition, pair = tu.decls
    assert p.ctype.pointee.definition is definition.ctype.definition
    assert definition.ctype.definition.fields[0].name == "v"
    assert pair.ctype.definition.tag == "" and [f.name for f in pair.ctype.definition.fields] == ["a", "b"]


def test_enum_constants_in_constant_expressions():
    tu = parse_ok("enum { A = 2, B = A * 3, C };\nint arr[C];")
    assert [d.value for d in tu.decls if isinstance(d, ast.EnumConstant)] == [2, 6, 7]
    assert tu.decls[-1].ctype == ct.Array(ct.INT, 7)


def test_designated_initializers():
    items = body_items("struct P { float x, y; int a[3]; };\n"
                       "void f() { struct P p = { .y = 1, .a[1] = 2, .x = 3 }; int q[4] = { [2] = 5, 6 }; }")
    p_init, q_init = items[0].decls[0].init, items[1].decls[0].init
    assert p_init.designators == [["y"], ["a", 1], ["x"]]
    assert q_init.designators == [[2], None]
    nested = body_items("void f() { int m[2][2] = {{1, 2}, {3, 4}}; }")[0].decls[0].init
    assert isinstance(nested.items[0], ast.InitList) and nested.designators == [None, None]


def test_for_declaration_scope_and_empty_clauses():
    loop = body_items("void f() { for (;;) break; for (int i = 0, j = 1; i < j; i++, j--) ; }")
    assert loop[0].init is None and loop[0].cond is None and loop[0].step is None
    assert [d.name for d in loop[1].init.decls] == ["i", "j"]
    assert isinstance(loop[1].step, ast.Binary) and loop[1].step.op == ","


# -- expressions --------------------------------------------------------------

def shape(e):
    """A compact rendering of an expression tree for precedence tests."""
    if isinstance(e, ast.Binary):
        return f"({shape(e.lhs)} {e.op} {shape(e.rhs)})"
    if isinstance(e, ast.Assign):
        return f"({shape(e.target)} {e.op} {shape(e.value)})"
    if isinstance(e, ast.Unary):
        return f"({e.op} {shape(e.operand)})"
    if isinstance(e, ast.Conditional):
        return f"({shape(e.cond)} ? {shape(e.then)} : {shape(e.else_)})"
    if isinstance(e, ast.Cast):
        return f"(cast {e.to} {shape(e.operand)})"
    if isinstance(e, ast.Index):
        return f"{shape(e.base)}[{shape(e.index)}]"
    if isinstance(e, ast.Member):
        return f"{shape(e.base)}{'->' if e.arrow else '.'}{e.name}"
    if isinstance(e, ast.Call):
        return f"{shape(e.callee)}({', '.join(shape(a) for a in e.args)})"
    if isinstance(e, ast.VectorLiteral):
        return f"<{e.to}>({', '.join(shape(c) for c in e.components)})"
    if isinstance(e, ast.SizeOf):
        inner = str(e.operand) if isinstance(e.operand, ct.CType) else shape(e.operand)
        return f"{e.kind}[{inner}]"
    if isinstance(e, (ast.IntLiteral, ast.FloatLiteral)):
        return str(e.value)
    if isinstance(e, ast.StringLiteral):
        return repr(e.value)
    return e.name


@pytest.mark.parametrize("text,expected", [
    ("a + b * c", "(a + (b * c))"), ("a - b - c", "((a - b) - c)"), ("a << 1 + 2", "(a << (1 + 2))"),
    ("a < b == c > d", "((a < b) == (c > d))"), ("a & b ^ c | d", "((a & b) ^ c) | d".join(["(", ")"])),
    ("a || b && c", "(a || (b && c))"), ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
    ("a = b += c", "(a = (b += c))"), ("-a * !b", "((- a) * (! b))"), ("*p++", "(* (++post p))"),
    ("++*p", "(++pre (* p))"), ("&a[1]", "(& a[1])"), ("p->q.r[2](x, y)", "p->q.r[2](x, y)"),
    ("(float)a / b", "((cast float a) / b)"), ("(float)(a) / b", "((cast float a) / b)"),
    ("(a) * b", "(a * b)"), ("(int)(float)x", "(cast int (cast float x))"), ("(uint *)p", "(cast uint * p)"),
    ("(float4)(1, 2, a, b.x)", "<float4>(1, 2, a, b.x)"), ("(float4)(x)", "<float4>(x)"),
    ("(float2)(v).xy", "<float2>(v).xy"), ("((float4)(1, 2, 3, 4)).w", "<float4>(1, 2, 3, 4).w"),
    ("sizeof(int) + sizeof x", "(sizeof[int] + sizeof[x])"), ("sizeof(x)", "sizeof[x]"),
    ("vec_step(float3)", "vec_step[float3]"), ("__alignof__(float4)", "alignof[float4]"),
    ("_Alignof(int)", "alignof[int]"), ("(a, b)", "(a , b)"), ("a-- - --b", "((--post a) - (--pre b))"),
    ("~a >> 2 % 3", "((~ a) >> (2 % 3))"), ('"ab" "cd"', "b'abcd'"), ("x.s01 + y.hi", "(x.s01 + y.hi)"),
    ("a <= b != c >= d", "((a <= b) != (c >= d))"), ("a ^= b |= c", "(a ^= (b |= c))"),
])
def test_expression_shapes(text, expected):
    assert shape(expr_of(text)) == expected


def test_literals():
    e = expr_of("0x10u + 010 + 'a' + 1.5f + 2.0 + 0.5h + 7UL")
    literals = [n for n in walk(e) if isinstance(n, (ast.IntLiteral, ast.FloatLiteral))]
    assert [(type(n).__name__, n.value, n.suffix) for n in literals] == [
        ("IntLiteral", 16, "u"), ("IntLiteral", 8, ""), ("IntLiteral", 97, ""), ("FloatLiteral", 1.5, "f"),
        ("FloatLiteral", 2.0, ""), ("FloatLiteral", 0.5, "h"), ("IntLiteral", 7, "ul")]
    assert [n.radix for n in literals if isinstance(n, ast.IntLiteral)] == [16, 8, 10, 10]


def test_expression_locations():
    e = expr_of("a +\n  b[1]")
    assert (e.loc.line, e.loc.col) == (2, 22)  # the operator
    assert (e.rhs.loc.line, e.rhs.loc.col) == (3, 4)  # the "["


def test_statement_attribute_is_accepted():
    loop = body_items("void f() { __attribute__((opencl_unroll_hint(4))) for (;;) break; }")[0]
    assert isinstance(loop, ast.For)


# -- errors: message, line and column, then recovery ----------------------------

@pytest.mark.parametrize("source,expected", [
    ("void f() {\n  int a = 1\n  a = 2;\n}", ["2:12: error: expected ';' at end of declaration"]),
    ("void f(int a) {\n  a = 1\n  a = 2;\n}", ["2:8: error: expected ';' after expression"]),
    ("kernel void f(global flot *a) {}", ["1:22: error: unknown type name 'flot'"]),
    ("void f() {\n  flot x = 1;\n}", ["2:3: error: unknown type name 'flot'"]),
    ("void f() { int y = ; }", ["1:20: error: expected expression"]),
    ("void f() { g(1, 2; }", ["1:18: error: expected ')'"]),
    ("void f() { int x = (1 + 2; }", ["1:26: error: expected ')'"]),
    ("void f() { if x) {} }", ["1:15: error: expected '(' after 'if'"]),
    ("void f() { while 1) {} }", ["1:18: error: expected '(' after 'while'"]),
    ("void f() { switch 1) {} }", ["1:19: error: expected '(' after 'switch'"]),
    ("void f() { for i) {} }", ["1:16: error: expected '(' after 'for'"]),
    ("int f() { return 1 }", ["1:19: error: expected ';' after return statement"]),
    ("void f() { while (1) { break } }", ["1:29: error: expected ';' after break statement"]),
    ("void f() { while (1) { continue } }", ["1:32: error: expected ';' after continue statement"]),
    ("void f() { goto x }", ["1:18: error: expected ';' after goto statement"]),
    ("void f() { goto ; }", ["1:17: error: expected identifier"]),
    ("void f() {\n  int x = 1;\n", ["3:1: error: expected '}'"]),  # at the end of the file
    ("int x\nint y;", ["1:6: error: expected ';' after top level declarator"]),
    ("void f() { for (int i = 0; i < 3 i++) {} }", ["1:33: error: expected ';' in 'for' statement specifier"]),
    ("void f() { do {} (1); }", ["1:18: error: expected 'while' in do/while loop"]),
    ("void f() { do {} while (1) }", ["1:27: error: expected ';' after do/while statement"]),
    ("void f() { switch (1) { case 1 break; } }", ["1:31: error: expected ':' after 'case'"]),
    ("void f() { switch (1) { default break; } }", ["1:32: error: expected ':' after 'default'"]),
    ("void f() { a.; }", ["1:14: error: expected identifier"]),
    ("void f() { a[1; }", ["1:15: error: expected ']'"]),
    ("void f() { int x = a ? b; }", ["1:25: error: expected ':'"]),
    ("}\nint x;", ["1:1: error: extraneous closing brace ('}')"]),
    ("struct S { int a b; } ;", ["1:17: error: expected ';' at end of declaration list"]),
    ("int 3x;", ["1:5: error: invalid suffix 'x' on integer constant", "1:5: error: expected identifier or '('"]),
    ("int a[n];", ["1:7: error: use of undeclared identifier 'n'"]),  # as clang
    ("int a[-1];", ["1:7: error: array has negative size"]),
    ("struct S { int a : w; };", ["1:20: error: use of undeclared identifier 'w'"]),  # as clang
    ("enum E { A = x };", ["1:14: error: use of undeclared identifier 'x'"]),
    ("void f(int y) { enum E { A = y }; }", ["1:30: error: enumerator value is not an integer constant expression"]),
    ("unsigned float x;", ["1:1: error: 'unsigned float' is invalid"]),
    ("long char c;", ["1:1: error: 'long char' is invalid"]),
    ("int float x;", ["1:1: error: cannot combine with previous 'int' declaration specifier"]),
    ("float4 int x;", ["1:8: error: cannot combine with previous 'float4' declaration specifier"]),
    ("static extern int x;", ["1:8: error: cannot combine with previous 'static' declaration specifier"]),
    ("_Complex float z;", ["1:1: error: '_Complex' types are not supported in OpenCL C"]),
    ("global local int *p;", ["1:8: error: multiple address spaces specified for type"]),
    ("const x;", ["1:1: error: type specifier missing, defaults to 'int'"]),
    ("int;", ["1:1: warning: declaration does not declare anything"]),
    ("struct { int a; };", ["1:1: warning: declaration does not declare anything"]),
    ("struct S { int; };", ["1:12: warning: declaration does not declare anything"]),
    ("struct S { int a; float a; };", ["1:19: error: duplicate member 'a'"]),
    ("struct S { int a; union { int a; float f; }; };", ["1:19: error: duplicate member 'a'"]),
    ("union U { struct { int x; }; struct { int y, x; }; };", ["1:30: error: duplicate member 'x'"]),
    ("struct;", ["1:7: error: declaration of anonymous struct must be a definition"]),
    ("struct S { int a; };\nstruct S { int b; };", ["2:8: error: redefinition of 'S'"]),
    ("struct S;\nunion S *u;", ["2:7: error: use of 'S' with tag type that does not match previous declaration"]),
    ("typedef int T = 3;", ["1:15: error: illegal initializer (only variables can be initialized)"]),
    ("void f() { void g() {} }", ["1:21: error: function definition is not allowed here"]),
    ("__attribute__((frobnicate)) void f() {}", ["1:16: warning: unknown attribute 'frobnicate' ignored"]),
    ("kernel __attribute__((reqd_work_group_size(1, 2))) void f() {}",
     ["1:23: error: 'reqd_work_group_size' attribute requires exactly 3 arguments"]),
    ("kernel __attribute__((reqd_work_group_size(0, 1, 1))) void f() {}",
     ["1:23: error: 'reqd_work_group_size' attribute must be greater than 0"]),
    ("kernel __attribute__((reqd_work_group_size(n, 1, 1))) void f() {}",
     ["1:44: error: 'reqd_work_group_size' attribute requires an integer constant"]),
    ("int x __attribute__((aligned(3)));", ["1:22: error: requested alignment is not a power of 2"]),
    ("int x __attribute__((aligned(1, 2)));", ["1:22: error: 'aligned' attribute takes at most 1 argument"]),
    ("kernel __attribute__((vec_type_hint(bool))) void f() {}",
     ["1:23: error: invalid attribute argument 'bool' - expecting a vector or vectorizable scalar type"]),
    ("int x __attribute__(packed);", ["1:21: error: expected '(' after 'attribute'"]),
    ("void f() { L: }", ["1:15: error: label at end of compound statement: expected statement"]),
    ("void f() { if (1) }", ["1:19: error: expected statement"]),
    ("void f() { int q[2] = { [1 = 2 }; }", ["1:28: error: expected ']'"]),
    ("void f() { struct { int a; } s = { .a 1 }; }", ["1:39: error: expected '=' or another designator"]),
    ("void f() { struct { int a; } s = { . 1 }; }",
     ["1:38: error: expected a field designator, such as '.field = 4'"]),
    ("void f(int a, ) {}", ["1:15: error: expected parameter declarator"]),
    ("enum { A, B", ["2:1: error: expected '}'"]),
    ("struct S { int a; }\nint x;", ["1:20: error: expected ';' after struct"]),
    ("enum E { A }\nstatic int x;", ["1:13: error: expected ';' after enum"]),
    ("enum;", ["1:5: error: expected identifier or '{'"]),
    ("void f() { x = (float4)(); }", ["1:25: error: expected expression"]),
    ("void f() { int x = sizeof(int; }", ["1:30: error: expected ')'"]),
])
def test_error_messages(source, expected):
    assert errors(source) == expected


def test_notes_point_at_the_opening_bracket():
    _, diags = parse_src("void f() { g(1, 2; }")
    (diag,) = diags.diagnostics
    assert [(n.message, str(n.loc)) for n in diag.notes] == [("to match this '('", "k.cl:1:13")]


def test_rendered_error_with_caret():
    _, diags = parse_src("kernel void f(global float *a) {\n    a[0] = 1\n}\n")
    assert diags.render() == (
        "k.cl:2:13: error: expected ';' after expression\n"
        "    a[0] = 1\n"
        "            ^\n"
        "1 error generated.\n")


def test_several_errors_in_one_build():
    source = ("kernel void a(global float *p) {\n  p[0] = 1\n  p[1] = ;\n  flot z;\n}\n"
              "kernel void b(global int *q) {\n  if q) q[0] = 1;\n  q[1] = 2;\n}\n"
              "int ok;\n")
    tu, diags = parse_src(source)
    assert [f"{d.loc.line}:{d.loc.col}" for d in diags.diagnostics] == ["2:11", "3:10", "4:3", "7:6"]
    assert [d.name for d in tu.decls] == ["a", "b", "ok"]
    assert len(func(tu, "b").body.items) == 1  # the bad `if` was skipped, `q[1] = 2;` kept


def test_too_many_errors_stops_without_raising():
    tu, diags = parse_src("int x = ;\n" * 40 + "int last;")
    assert diags.error_count == diags.error_limit
    assert "too many errors emitted" in diags.render()


def test_deep_nesting_is_an_error_not_a_crash():
    tu, diags = parse_src("int x = " + "(" * 400 + "1" + ")" * 400 + ";")
    assert diags.diagnostics[0].message == "bracket nesting level exceeded maximum of 256"
    tu, diags = parse_src("int x = " + "(" * 200 + "1" + ")" * 200 + ";")
    assert not diags.diagnostics


def test_long_flat_expressions_parse():
    tu = parse_ok("int x[" + " + ".join(["1"] * 3000) + "];")
    assert tu.decls[0].ctype == ct.Array(ct.INT, 3000)


def test_missing_semicolon_after_struct_keeps_both_declarations():
    tu, diags = parse_src("typedef int T;\nstruct Q { int b; }\nT z;")
    assert [(d.message, d.loc.line, d.loc.col) for d in diags.diagnostics] == [("expected ';' after struct", 2, 20)]
    assert [type(d).__name__ for d in tu.decls] == ["TypedefDecl", "TagDecl", "VarDecl"]


def test_access_qualifiers_on_parameters():
    f = parse_ok("void f(__read_only image2d_t a, write_only image1d_t b, read_write image3d_t c, int d);").decls[0]
    assert [p.access for p in f.params] == ["read_only", "write_only", "read_write", None]


def test_typedef_redefinition_with_another_type_is_clangs_error():
    # clang's CodeGenOpenCL/bool_cast.cl redefines int4 as a vector of unsigned int
    src = ("typedef float float4 __attribute__((ext_vector_type(4)));\n"  # the same type again: fine
           "typedef unsigned int int4 __attribute__((ext_vector_type(4)));\n"
           "typedef int myint;\ntypedef int myint;\ntypedef unsigned myint;\n"
           "typedef struct { int a; } T;\ntypedef struct { int a; } T;\n"
           "void f() { typedef float myint; }\n")
    assert errors(src) == [
        "2:22: error: typedef redefinition with different types ('uint4' vs 'int4')",
        "5:18: error: typedef redefinition with different types ('uint' vs 'int')",
        "7:27: error: typedef redefinition with different types ('struct (anonymous)' vs 'struct (anonymous)')",
    ]
