"""Sema diagnostics: each message, in clang's words, at its exact line and column."""

import pytest

from .sema_helpers import build_errors, check, messages

CASES = [
    ("undeclared",
     "__kernel void k(__global int *p) {\n  p[0] = x;\n}",
     ["2:10: use of undeclared identifier 'x'"]),
    ("incompatible assignment",
     "void f(int4 a, float4 b) {\n  a = b;\n}",
     ["2:5: assigning to 'int4' from incompatible type 'float4'"]),
    ("incompatible vector operands",
     "void f(int4 a, float4 b) {\n  a + b;\n}",
     ["2:5: invalid operands to binary expression ('int4' and 'float4')"]),
    ("float remainder",
     "void f(float a) { a % a; }",
     ["1:21: invalid operands to binary expression ('float' and 'float')"]),
    ("too few arguments",
     "int g(int a, int b) { return a; }\nvoid f() { g(1); }",
     ["2:15: too few arguments to function call, expected 2, have 1"]),
    ("too many arguments",
     "int g(int a) { return a; }\nvoid f() { g(1, 2, 3); }",
     ["2:17: too many arguments to function call, expected 1, have 3"]),
    ("no matching builtin",
     "void f(__global float *p) { sqrt(p); }",
     ["1:29: no matching function for call to 'sqrt'"]),
    ("const assignment",
     "void f() {\n  const int c = 1;\n  c = 2;\n}",
     ["3:5: cannot assign to variable 'c' with const-qualified type 'const int'"]),
    ("const increment",
     "void f() { const int c = 1; c++; }",
     ["1:30: cannot assign to variable 'c' with const-qualified type 'const int'"]),
    ("constant space store",
     "void f(__constant float *p) { p[0] = 1.0f; }",
     ["1:36: read-only variable is not assignable"]),
    ("address space assignment",
     "void f(__global float *g, __local float *l) {\n  l = g;\n}",
     ["2:5: assigning '__global float *' to '__local float *' changes address space of pointer"]),
    ("address space initialization",
     "void f(__global float *g) { __local float *l = g; }",
     ["1:48: initializing '__local float *' with an expression of type '__global float *' "
      "changes address space of pointer"]),
    ("address space argument",
     "void g(__local float *l) {}\nvoid f(__global float *p) { g(p); }",
     ["2:31: passing '__global float *' to parameter of type '__local float *' changes address "
      "space of pointer"]),
    ("address space cast",
     "void f(__global float *g) { (__local float *)g; }",
     ["1:29: casting '__global float *' to type '__local float *' changes address space of pointer"]),
    ("kernel return type",
     "__kernel int k() { return 0; }",
     ["1:14: kernel must have void return type"]),
    ("kernel private pointer",
     "__kernel void k(float *p) {}",
     ["1:24: kernel parameter cannot be declared as a pointer to the __private address space"]),
    ("local outside kernel",
     "void f() {\n  __local int x;\n}",
     ["2:15: non-kernel function variable cannot be declared in local address space"]),
    ("local with initializer",
     "__kernel void k() { __local int x = 1; }",
     ["1:33: '__local' variable cannot have an initializer"]),
    ("invalid swizzle name",
     "void f(float4 v) { v.xq; }",
     ["1:22: illegal vector component name 'q'"]),
    ("swizzle out of range",
     "void f(float2 v) { v.z; }",
     ["1:22: vector component access exceeds type 'float2'"]),
    ("duplicate swizzle store",
     "void f(float4 v) { v.xx = (float2)(1.0f); }",
     ["1:25: vector is not assignable (contains duplicate components)"]),
    ("vector literal size",
     "void f() { (float4)(1.0f, 2.0f); }",
     ["1:12: too few elements in vector initialization (expected 4 elements, have 2)"]),
    ("vector cast",
     "void f(int4 v) { (float4)v; }",
     ["1:18: invalid conversion between vector type 'int4' and 'float4'"]),
    ("break outside loop",
     "void f() {\n  break;\n}",
     ["2:3: 'break' statement not in loop or switch statement"]),
    ("continue outside loop",
     "void f(int n) { switch (n) { case 0: continue; } }",
     ["1:38: 'continue' statement not in loop statement"]),
    ("duplicate case",
     "void f(int n) {\n  switch (n) {\n  case 1: break;\n  case 0+1: break;\n  }\n}",
     ["4:8: duplicate case value '1'"]),
    ("recursion",
     "int f(int n) { return n ? f(n - 1) : 0; }",
     ["1:27: recursive call to 'f' (f -> f): recursion is not supported in OpenCL"]),
    ("mutual recursion",
     "int g(int n);\nint f(int n) { return g(n); }\nint g(int n) { return f(n); }",
     ["3:23: recursive call to 'f' (f -> g -> f): recursion is not supported in OpenCL"]),
    ("implicit declaration",
     "void f() { foo(1); }",
     ["1:12: implicit declaration of function 'foo' is invalid in OpenCL"]),
    ("program scope non-constant",
     "float g = 1.0f;",
     ["1:7: program scope variable must reside in constant address space"]),
    ("constant without initializer",
     "__constant float g;",
     ["1:18: variable in constant address space must be initialized"]),
    ("not constant initializer",
     "float h(void) { return 1.0f; }\n__constant float g = h();",
     ["2:22: initializer element is not a compile-time constant"]),
    ("deref non-pointer",
     "void f(int a) { *a; }",
     ["1:17: indirection requires pointer operand ('int' invalid)"]),
    ("subscript non-array",
     "void f(int a) { a[0]; }",
     ["1:17: subscripted value is not an array, pointer, or vector"]),
    ("no member",
     "struct S { int a; };\nvoid f(struct S s) { s.b; }",
     ["2:24: no member named 'b' in 'struct S'"]),
    ("void return value",
     "void f() { return 1; }",
     ["1:19: void function 'f' should not return a value"]),
    ("missing return value",
     "int f() { return; }",
     ["1:11: non-void function 'f' should return a value"]),
    ("redefinition",
     "void f() { int a; float a; }",
     ["1:25: redefinition of 'a'"]),
    ("undeclared label",
     "void f() { goto out; }",
     ["1:12: use of undeclared label 'out'"]),
    ("returning incompatible",
     "int f(float4 v) { return v; }",
     ["1:26: returning 'float4' from a function with incompatible result type 'int'"]),
    ("int to pointer",
     "void f(__global int *p, int a) { p = a; }",
     ["1:36: incompatible integer to pointer conversion assigning to '__global int *' from 'int'"]),
]


@pytest.mark.parametrize("name, src, want", CASES, ids=[c[0] for c in CASES])
def test_error(name: str, src: str, want: list[str]) -> None:
    assert messages(src) == want


def test_several_errors_in_one_build() -> None:
    src = "void f(int4 a, float4 b) {\n  a = b;\n  x = 1;\n  a + b;\n}"
    assert messages(src) == [
        "2:5: assigning to 'int4' from incompatible type 'float4'",
        "3:3: use of undeclared identifier 'x'",
        "4:5: invalid operands to binary expression ('int4' and 'float4')",
    ]


def test_error_expression_does_not_cascade() -> None:
    src = "void f(float4 v) { float x = (y + 1) * v.x + sqrt(z); }"
    assert messages(src) == ["1:31: use of undeclared identifier 'y'",
                             "1:51: use of undeclared identifier 'z'"]


def test_no_matching_function_lists_candidates() -> None:
    _, diags = check("void f(int2 a) { dot(a, a); }")
    (err,) = diags.diagnostics
    assert err.message == "no matching function for call to 'dot'"
    assert err.notes[0].message == ("candidate function not viable: no known conversion from 'int2' "
                                    "to 'float' for 1st argument (float dot(float, float))")
    assert all(n.severity == "note" for n in err.notes)


def test_duplicate_case_note_points_at_previous() -> None:
    _, diags = check("void f(int n) { switch (n) { case 2: case 2: ; } }")
    (err,) = diags.diagnostics
    assert [(n.loc.col, n.message) for n in err.notes] == [(35, "previous case defined here")]


@pytest.mark.parametrize("src, want", [
    ("int f(int a) { if (a) return 1; }",
     ["1:33: non-void function does not return a value in all control paths"]),
    ("int f(void) { }", ["1:15: non-void function does not return a value"]),
    ("int f(int a) { if (a) return 1; else return 2; }", []),
    ("int f(int a) { while (1) { } }", []),
    ("int f(int a) { for (;;) { if (a) break; } }",
     ["1:43: non-void function does not return a value"]),
    ("int f(int a) { switch (a) { case 0: return 1; default: return 2; } }", []),
    ("void f(int a) { a / 0; }", ["1:21: division by zero is undefined"]),
    ("void f(__global float *g, __global int *i) { g = i; }",
     ["1:48: incompatible pointer types assigning to '__global float *' from '__global int *'"]),
    ("void f() { int a[2] = {1, 2, 3}; }", ["1:30: excess elements in array initializer"]),
    ("struct S { int a; };\nvoid f() { struct S s = {1, 2}; }", ["2:29: excess elements in struct initializer"]),
])
def test_warnings(src: str, want: list[str]) -> None:
    assert messages(src, severity="warning") == want
    assert messages(src) == []


def test_cl20_generic_kernel_pointer_parameter() -> None:
    assert messages("__kernel void k(float *p) {}", "-cl-std=CL2.0") == [
        "1:24: kernel parameter cannot be declared as a pointer to the __generic address space"]
    assert messages("void f(__global float *g, __local float *l) { float *p = g; p = l; }", "-cl-std=CL2.0") == []


MORE_CASES = [
    ('not assignable',
     'void f(__global int *p) { p++ = 0; }',
     ['1:31: expression is not assignable']),
    ('address of rvalue',
     'void f() { &3; }',
     ["1:12: cannot take the address of an rvalue of type 'int'"]),
    ('address of vector element',
     'void f(float4 v) { &v.x; }',
     ['1:20: address of vector element requested']),
    ('called object',
     'void f(__global int *p) { p(); }',
     ["1:27: called object type '__global int *' is not a function or function pointer"]),
    ('member of non-struct',
     'void f(int x) { x.y; }',
     ["1:19: member reference base type 'int' is not a structure or union"]),
    ('arrow on non-pointer',
     'struct S { int a; };\nvoid f(struct S s) { s->a; }',
     ["2:25: member reference type 'struct S' is not a pointer"]),
    ('incomplete struct',
     'struct S;\nvoid f() { struct S s; }',
     ["2:21: variable has incomplete type 'struct S'"]),
    ('array without size',
     'void f() { int b[]; }',
     ['1:16: definition of variable with array type needs an explicit size or an initializer']),
    ('switch on float',
     'void f(float x) { switch (x) { } }',
     ["1:27: statement requires expression of integer type ('float' invalid)"]),
    ('case outside switch',
     'void f() { case 1: ; }',
     ["1:12: 'case' statement not in switch statement"]),
    ('non-constant case',
     'void f(int n) { switch (n) { case n: ; } }',
     ['1:35: expression is not an integer constant expression']),
    ('global in function',
     'void f() { __global int y; }',
     ['1:25: function scope variable cannot be declared in global address space']),
    ('constant in helper',
     'void f() { __constant int y = 1; }',
     ['1:27: function scope variable cannot be declared in constant address space']),
    ('label redefinition',
     'void f() { L: ; L: ; }',
     ["1:17: redefinition of label 'L'"]),
    ('too many vector elements',
     'void f() { (float2)(1.0f, 2.0f, 3.0f); }',
     ['1:12: too many elements in vector initialization (expected 2 elements, have 3)']),
    ('swizzle length',
     'void f(float8 v) { v.s01234; }',
     ['1:22: vector component access has invalid length 5']),
    ('bool kernel param',
     '__kernel void k(bool b) {}',
     ["1:22: 'bool' cannot be used as the type of a kernel parameter"]),
    ('void kernel param (the OpenCL C mutator: an internal error before)',
     '__kernel void k(void b) { }',
     ["1:22: argument may not have 'void' type"]),
    ('void function param',
     'void f(const void b);',
     ["1:19: argument may not have 'void' type"]),
    ('pointer to pointer kernel param',
     '__kernel void k(__global int **p) {}',
     ['1:32: kernel parameter cannot be declared as a pointer to a pointer']),
    ('pointer spaces compare',
     'void f(__global int *g, __local int *l) { g == l; }',
     ["1:45: comparison between ('__global int *' and '__local int *') which are pointers to non-overlapping address spaces"]),
    ('condition not scalar',
     'struct S { int a; };\nvoid f(struct S s) { if (s) ; }',
     ["2:26: statement requires expression of scalar type ('struct S' invalid)"]),
    ('bit-field',
     'struct S { int a : 3; };\nvoid f(__global struct S *p) {}',
     ["1:16: bit-fields are not supported in OpenCL (field 'a')"]),
    ('vector condition mismatch',
     'void f(int2 c, float4 a) { c ? a : a; }',
     ["1:30: vector condition type 'int2' and result type 'float4' do not have elements of the same size"]),
    ('mixed vector sizes in literal',
     'void f(int2 a) { (float4)(a, a); }',
     ["1:27: cannot convert vector of type 'int2' to element type 'float'"]),
    ('shift of float',
     'void f(float a) { a << 1; }',
     ["1:21: invalid operands to binary expression ('float' and 'int')"]),
    ('pointer plus pointer',
     'void f(__global int *p) { p + p; }',
     ["1:29: invalid operands to binary expression ('__global int *' and '__global int *')"]),
    ('subscript not integer',
     'void f(__global int *p) { p[1.0f]; }',
     ['1:29: array subscript is not an integer']),
    ('deref void pointer',
     'void f(__global void *p) { *p; }',
     ["1:28: indirection requires pointer operand ('__global void *' invalid)"]),
]


@pytest.mark.parametrize("name, src, want", MORE_CASES, ids=[c[0] for c in MORE_CASES])
def test_more_errors(name: str, src: str, want: list[str]) -> None:
    assert messages(src) == want


def test_initializer_item_is_checked_once() -> None:
    src = "struct I { int a; };\nstruct O { struct I i; };\nvoid f() { struct O o = { bad }; }"
    assert messages(src) == ["3:27: use of undeclared identifier 'bad'"]


def test_static_local_variable() -> None:
    assert messages("void f() { static int n = 0; }") == [
        "1:23: variables in function scope cannot be declared static"]


def test_string_too_long_for_array() -> None:
    assert messages('void f() { char s[2] = "abc"; }') == [
        "1:24: initializer-string for char array is too long"]


def test_function_used_as_value() -> None:
    assert messages("int g(int x) { return x; }\nvoid f() { g; }") == [
        "2:12: function pointers are not supported in OpenCL"]


def test_void_pointer_null_constant_converts_to_any_space() -> None:
    assert messages("void f() { __global int *p = (void *)0; __local float *l = 0; p = (__global int *)0; }") == []


def test_an_unnamed_void_parameter_beside_others_is_an_error() -> None:
    """clang: 'void' stands alone in a parameter list (the OpenCL C mutator found `(int, void)`
    and `(void b)` reaching the layout as an internal error)."""
    assert [m.split(": ", 1)[1] for m in messages("void f(int a, void) { }")] == [
        "'void' must be the first and only parameter if specified"]
    assert messages("void f(void) { }\n__kernel void k() { f(); }") == []


def test_an_empty_union_takes_no_initialiser() -> None:
    """clang warns and drops the excess element (the OpenCL C mutator's fast tier found
    `{ 7 }` for an empty union an internal error: the list asked it for a first member)."""
    for src, col in (("union U { };\nconstant union U g = { 7 };", 24),
                     ("union U { };\nvoid f() { union U x = { 7 }; }", 26)):
        assert messages(src) == []
        assert messages(src, severity="warning") == [f"2:{col}: excess elements in union initializer"]


def test_a_scalar_compound_literal_with_excess_elements_is_its_first_value() -> None:
    """clang warns and keeps the first element (the fast tier found `(double){5.0f, 6.0f}.y`
    an internal error: the compound literal's check took every braced list for an aggregate's)."""
    src = "void f(global float *o) { o[0] = (float){ 5.0f, 6.0f }; o[1] = (double){ 5.0f, 6.0f }.y; }"
    assert messages(src, severity="warning") == ["1:49: excess elements in scalar initializer",
                                                 "1:80: excess elements in scalar initializer"]
    assert messages(src) == ["1:87: member reference base type 'double' is not a structure or union"]
    assert messages("void f(global float *o) { o[0] = (float){ {2.0f} }; }") == []


def test_a_redeclaration_with_another_result_type_is_conflicting_types() -> None:
    """clang: the same parameters with another result type (or qualifier) conflict (the OpenCL C
    mutator found `int f(); size_t f() {...}` called as int, an internal error in the IR builder)."""
    src = "int f();\nint g() { return f() + 1; }\nsize_t f() { return 3; }\nconst int f();"
    assert messages(src) == ["3:8: conflicting types for 'f'", "4:11: conflicting types for 'f'"]
    assert check(src)[1].render().count("1:5: note: previous declaration is here") == 2
    assert messages("int f();\nint f() { return 3; }\nint g() { return f(); }") == []


def test_incomplete_parameters_results_and_array_elements_are_clang_errors() -> None:
    """clang's errors where the OpenCL C mutator reached the layout as an internal error: a defined
    function's parameter or result of an undefined struct, an array of void or of one (reported at
    the innermost '['); a declaration without a body may name them."""
    assert messages("__kernel void k(struct S) { }") == ["1:25: variable has incomplete type '__private struct S'"]
    assert messages("kernel void k(global long *arg, struct S n) { }") == [
        "1:42: variable has incomplete type '__private struct S'"]
    assert messages("struct S put(global int *o) { o[1] = 1; }") == [
        "1:10: incomplete result type 'struct S' in function definition"]
    assert messages("kernel void k() { void a[2]; __local void l[16]; }\nvoid g() { struct S b[2][3]; }") == [
        "1:25: array has incomplete element type 'void'",
        "1:44: array has incomplete element type '__local void'",
        "2:25: array has incomplete element type 'struct S'"]
    assert messages("constant void z[2][3] = {0};") == ["1:19: array has incomplete element type '__constant void'"]
    assert messages("struct S f(struct S s);\nvoid g(struct S *p);\nvoid h(void *p) { }") == []


def test_a_call_with_an_incomplete_result_is_a_clang_error() -> None:
    """clang: a function declared to return an undefined struct may not be called."""
    src = "struct S g();\nkernel void k() { g(); }"
    assert messages(src) == ["2:19: calling 'g' with incomplete return type 'struct S'"]
    assert "1:10: note: 'g' declared here" in check(src)[1].render()


def test_a_declared_function_with_an_incomplete_result_and_no_call_builds() -> None:
    """The 100,000-case fuzz run's `struct S g ( ) ; kernel void k ( ) { }`: clang accepts it; no
    call can pass sema, so no IR declaration is made (it was a layout error inside the lowering)."""
    from oclpy.frontend.driver import compile_to_ir
    module = compile_to_ir("struct S g ( ) ;\nvoid h(struct S s);\nkernel void k ( ) { }").module
    assert [f.name for f in module.functions] == ["k"]


def test_a_typedef_of_a_struct_redefined_as_a_pointer_is_clangs_error() -> None:
    """Fuzz case: the redefinition check read the new type's struct definition off a pointer."""
    src = "typedef struct { } my_struct_t ;\ntypedef global float * my_struct_t ;\nkernel void k ( ) { }"
    assert build_errors(src) == [("2:24", "typedef redefinition with different types "
                                          "('__global float *' vs 'struct (anonymous)')")]


def test_a_kernel_and_a_variable_of_one_name_are_clangs_redefinition() -> None:
    """Fuzz case: `__constant char MSG[]` and `kernel void MSG` reached LLVM's duplicate-name error."""
    assert build_errors('__constant char MSG[] = "hi";\n__kernel void MSG(__global char *o) { }') == [
        ("2:15", "redefinition of 'MSG' as different kind of symbol")]
    assert build_errors("kernel void MSG(global int *o) { }\nconstant int MSG = 3;") == [
        ("2:14", "redefinition of 'MSG' as different kind of symbol")]
    assert messages("void f(void);\nkernel void k(global int *o) { int f = 2; o[0] = f; }") == []


def test_case_values_are_compared_in_the_switch_condition_type() -> None:
    """The 100,000-case fuzz run's `switch (i) { case 0: ... case 4294967296: }` on an int reached
    the IR builder as two equal cases (an internal error): clang converts each case value to the
    condition's promoted type, warns when the condition's own type cannot hold it, and finds
    duplicates among converted values, whichever way a value is written."""
    def both(body: str, cond: str = "int i") -> tuple[list[str], list[str]]:
        src = f"void f({cond}) {{ switch ({cond.split()[-1]}) {{ {body} ; }} }}"
        return messages(src), messages(src, severity="warning")

    assert both("case 0: case 4294967296:") == (
        ["1:43: duplicate case value '0'"],
        ["1:43: overflow converting case value to switch condition type (4294967296 to 0)"])
    assert both("case -1: case 4294967295u:", "uint u") == (["1:45: duplicate case value '4294967295'"], [])
    assert both("case -1: case 0xffffffffffffffff:", "ulong u") == (
        ["1:46: duplicate case value '18446744073709551615'"], [])
    assert both("case (char)300: case 44: case 'a': case 97:") == (
        ["1:51: duplicate case value '44'", "1:70: duplicate case value '97'"], [])
    assert both("case 256: case 0:", "char c") == (
        [], ["1:36: overflow converting case value to switch condition type (256 to 0)"])
    assert both("case 4294967296: case 0:", "long l") == ([], [])
    assert both("case 4294967296 ... 4294967298: case 1:")[0] == ["1:35: duplicate case value '1'"]
    assert both("case 2147483647 ... 2147483648:")[1] == [
        "1:50: overflow converting case value to switch condition type (2147483648 to -2147483648)",
        "1:35: empty case range specified"]
    enum = "enum E { A = 4294967297 };\nvoid f(int i) { switch (i) { case 1: case A: ; } }"
    assert messages(enum) == ["2:43: duplicate case value '1'"]


def test_case_values_converted_to_the_condition_type_build() -> None:
    from oclpy.frontend.driver import compile_to_ir
    src = ("kernel void k(global int *o, long l, uint u) { int r = 0;\n"
           "  switch (l) { case 4294967296: r = 1; break; case 0: r = 2; }\n"
           "  switch (u) { case -1: r += 10; break; case 0 ... 3: r += 20; } o[0] = r; }")
    assert [f.name for f in compile_to_ir(src).module.functions] == ["k"]


def test_steps_over_and_values_of_an_undefined_struct_are_clang_errors() -> None:
    """The 100,000-case fuzz run's `atomic_add(&bins[l], ...)` on a `global struct S *` with `struct S`
    never defined reached the layout (an internal error): clang's errors wherever a size or a value
    of the struct is needed: a subscript, pointer arithmetic (`+`, `-`, `++`, `+=`), a load, an
    assignment; an array of unknown bound has no size either. `&*p`, comparisons and passing the
    pointer need none."""
    k = "kernel void k(global struct S *b, global struct S *c, global int *o) { "
    assert messages(k + "atomic_add(&b[1], 1); }") == [
        "1:85: subscript of pointer to incomplete type '__global struct S'"]
    assert messages(k + "b + 1; c++; b - c; b += 2; }") == [
        f"1:{col}: arithmetic on a pointer to an incomplete type '__global struct S'" for col in (74, 80, 86, 93)]
    assert messages(k + "*b; (void)*c; o[0] = 1 ? *b : *c; }") == [
        f"1:{col}: incomplete type 'struct S' where a complete type is required" for col in (72, 82, 97, 102)]
    assert messages(k + "*b = *c; }") == ["1:77: incomplete type 'struct S' where a complete type is required",
                                          "1:75: incomplete type '__global struct S' is not assignable"]
    assert messages(k + "o[0] = b == c; global struct S *p = &*b; }") == []
    assert messages("kernel void k(global int (*b)[]) { b[1]; }") == [
        "1:37: subscript of pointer to incomplete type '__global int []'"]
    assert messages("kernel void k(global union U *u) { return *u; }") == [
        "1:43: incomplete type 'union U' where a complete type is required"]


def test_a_subscript_of_a_void_pointer_steps_a_byte() -> None:
    """GNU C (clang accepts it): `p[i]` on a `void *` is a void lvalue: its address is `p + i`
    bytes, a statement of it loads nothing, and it cannot be assigned (it was a layout error)."""
    from oclpy.frontend.driver import compile_to_ir
    src = "kernel void k(global void *b, global int *o) { b[1]; o[0] = (int)((global char *)&b[3] - (global char *)b); }"
    assert [f.name for f in compile_to_ir(src).module.functions] == ["k"]
    assert messages("kernel void k(global void *b) { b[1] = 0; }") == [
        "1:38: incomplete type '__global void' is not assignable"]
