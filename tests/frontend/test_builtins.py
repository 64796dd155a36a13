"""The builtin table: expansion of generic types, overload resolution, lowering targets."""

import pytest

from oclpy.diagnostics import CompileError

from oclpy.frontend.c.builtins import table as bi
from oclpy.frontend.c import c_types as ct
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module

from .sema_helpers import body_exprs, messages


def sigs(name: str) -> set[str]:
    return {b.signature() for b in bi.overloads(name)}


def test_gentype_expansion() -> None:
    s = sigs("sqrt")
    assert {"float sqrt(float)", "float4 sqrt(float4)", "double16 sqrt(double16)", "half8 sqrt(half8)"} <= s
    assert len(s) == 18  # half, float and double, widths 1, 2, 3, 4, 8, 16


def test_scalar_second_argument_forms() -> None:
    assert "float4 fmax(float4, float)" in sigs("fmax")
    assert "int8 min(int8, int)" in sigs("min")
    assert "float4 clamp(float4, float, float)" in sigs("clamp")


def test_pattern_types() -> None:
    assert "uint abs(int)" in sigs("abs")
    assert "uchar4 abs_diff(char4, char4)" in sigs("abs_diff")
    assert "int4 isnan(float4)" in sigs("isnan")
    assert "long2 isless(double2, double2)" in sigs("isless")
    assert "int isnan(double)" in sigs("isnan")
    assert "short upsample(char, uchar)" in sigs("upsample")
    assert "float4 ldexp(float4, int4)" in sigs("ldexp")
    assert "float dot(float4, float4)" in sigs("dot")


def test_memory_and_atomic_signatures() -> None:
    assert "float4 vload4(ulong, __global const float *)" in sigs("vload4")
    assert "void vstore2(int2, ulong, __local int *)" in sigs("vstore2")
    assert not any("__constant" in s for s in sigs("vstore4"))
    assert "int atomic_add(__global volatile int *, int)" in sigs("atomic_add")
    assert "float atomic_xchg(__local volatile float *, float)" in sigs("atomic_xchg")
    assert "ulong atom_cmpxchg(__global volatile ulong *, ulong, ulong)" in sigs("atom_cmpxchg")


@pytest.mark.parametrize("name, want", [
    ("convert_int4", (ct.Vector(ct.ScalarKind.INT, 4), "convert")),
    ("convert_uchar_sat_rte", (ct.UCHAR, "convert")),
    ("convert_float2_rtz", (ct.Vector(ct.ScalarKind.FLOAT, 2), "convert")),
    ("as_float", (ct.FLOAT, "as")),
    ("as_ulong16", (ct.Vector(ct.ScalarKind.ULONG, 16), "as")),
    ("convert_half16_rtn", (ct.Vector(ct.ScalarKind.HALF, 16), "convert")),
    ("as_half", (ct.HALF, "as")), ("as_half2", (ct.Vector(ct.ScalarKind.HALF, 2), "as")),
    ("convert_bool", None), ("convert_int5", None), ("convert_int_rtq", None),
    ("convert_half_sat", None), ("convert_float4_sat_rte", None),  # _sat is for integer results
])
def test_conversion_names(name: str, want: object) -> None:
    assert bi.conversion_target(name) == want


def test_math_base_maps_native_and_half_forms() -> None:
    assert bi.math_base("native_sqrt") == "sqrt"
    assert bi.math_base("half_exp") == "exp"
    assert bi.math_base("mad") == "fma"


@pytest.mark.parametrize("decls, call, ret, params", [
    ("float4 a, float b", "fmax(a, b)", "float4", "float4, float"),
    ("float4 a", "fmax(a, a)", "float4", "float4, float4"),
    ("int x", "sqrt((float)x)", "float", "float"),
    ("uint a", "min(a, 0u)", "uint", "uint, uint"),
    ("float4 a", "clamp(a, 0, 1)", "float4", "float4, float, float"),  # a conversion beats a splat
    ("__global uint *p", "atomic_add(p, 1)", "uint", "__global volatile uint *, uint"),
    ("half h", "sqrt(h)", "half", "half"),  # cl_khr_fp16's overload (the helper enables it)
    ("half h, float f", "fmax(f, f)", "float", "float, float"),
    ("double d", "sin(d)", "double", "double"),
    ("__global float *p", "vload4(0, p)", "float4", "ulong, __global const float *"),
    ("__local int *p", "atomic_inc(p)", "int", "__local volatile int *"),
    ("short2 h, ushort2 l", "upsample(h, l)", "int2", "short2, ushort2"),
])
def test_overload_resolution(decls: str, call: str, ret: str, params: str) -> None:
    e = body_exprs(f"#pragma OPENCL EXTENSION cl_khr_fp16 : enable\nvoid f({decls}) {{ {call}; }}")[0]
    assert str(e.ctype) == ret
    assert ", ".join(str(p) for p in e.builtin.params) == params  # type: ignore[attr-defined]


@pytest.mark.parametrize("src, want", [
    ("void f(int2 a) { dot(a, a); }", "1:18: no matching function for call to 'dot'"),
    ("void f(__constant float *p) { vstore4((float4)(1.0f), 0, p); }",
     "1:31: no matching function for call to 'vstore4'"),
    ("void f(__local float *p) { atomic_add(p, 1); }", None),  # clang: the int one, with a warning
    ("void f(int x) { sqrt(x); }", "1:17: call to 'sqrt' is ambiguous"),
    ("void f(uint a) { min(a, 0); }", "1:18: call to 'min' is ambiguous"),
    ("void f(float4 v) { convert_int2(v); }", "1:20: no matching function for call to 'convert_int2'"),
    ("void f(float4 v) { as_int2(v); }", "1:20: invalid reinterpretation: sizes of 'int2' and 'float4' must match"),
    ("void f(int v) { as_char4(v); as_float(v); }", None),
    ("void f(__constant char *s) { printf(s); }", "1:37: format string argument to printf must be a string literal"),
    ("void f() { printf(\"%d\", 1); }", None),
    ("void f() { get_global_id(); }", "1:12: no matching function for call to 'get_global_id'"),
])
def test_builtin_errors(src: str, want: str | None) -> None:
    assert messages(src) == ([want] if want else [])


def test_candidate_note_for_wrong_arity() -> None:
    from .sema_helpers import check
    _, diags = check("void f() { get_global_id(); }")
    (err,) = diags.diagnostics
    assert err.notes[0].message == ("candidate function not viable: requires 1 argument, but 0 were "
                                    "provided (ulong get_global_id(uint))")


@pytest.mark.parametrize("call, intrinsic", [
    ("sqrt(x)", "@ocl.sqrt.f32"), ("native_sqrt(x)", "@ocl.sqrt.f32"), ("half_cos(v)", "@ocl.cos.v4f32"),
    ("pow(v, v)", "@ocl.pow.v4f32"), ("mad(x, x, x)", "@ocl.fma.f32"), ("fmin(v, x)", "@ocl.fmin.v4f32"),
    ("pown(x, 2)", "@ocl.pown.f32"), ("ldexp(v, 3)", "@ocl.ldexp.v4f32"), ("exp10(d)", "@ocl.exp10.f64"),
    ("length(v)", "@ocl.sqrt.f32"), ("normalize(v)", "@ocl.rsqrt.f32"), ("fabs(d)", "@ocl.fabs.f64"),
])
def test_math_builtins_become_overloaded_intrinsics(call: str, intrinsic: str) -> None:
    src = f"__kernel void k(__global float *p, float x, float4 v, double d) {{ {call}; }}"
    text = print_module(compile_to_ir(src).module)
    assert f"declare" in text and intrinsic in text


@pytest.mark.parametrize("call, op", [
    ("atomic_add(p, 1)", "atomicrmw add"), ("atomic_sub(p, 1)", "atomicrmw sub"),
    ("atomic_xchg(p, 1)", "atomicrmw xchg"), ("atomic_min(p, 1)", "atomicrmw min"),
    ("atomic_max(u, 1u)", "atomicrmw umax"), ("atomic_and(p, 1)", "atomicrmw and"),
    ("atomic_or(p, 1)", "atomicrmw or"), ("atomic_xor(p, 1)", "atomicrmw xor"),
    ("atomic_inc(p)", "atomicrmw add"), ("atomic_dec(u)", "atomicrmw sub"),
    ("atomic_cmpxchg(p, 0, 1)", "cmpxchg"), ("atom_add(l, 2l)", "atomicrmw add"),
    ("atomic_xchg(f, 1.0f)", "atomicrmw xchg"),
])
def test_atomics_lower_to_ir_atomics(call: str, op: str) -> None:
    src = (f"__kernel void k(__global int *p, __global uint *u, __global long *l, __global float *f) "
           f"{{ {call}; }}")
    text = print_module(compile_to_ir(src).module)
    assert op in text


def test_image_functions_check_their_arguments() -> None:
    with pytest.raises(CompileError) as info:  # the image library comes with the driver
        compile_to_ir("void f() { write_imagef(0, 0, 0); }")
    assert info.value.log.startswith("<kernel>:1:12: error: no matching function for call to 'write_imagef'\n")


def test_undefined_function_is_diagnosed() -> None:
    assert messages("int g(int);\n__kernel void k(__global int *p) { p[0] = g(1); }") == [
        "2:43: function 'g' is used but not defined in this program"]


def test_printf_lowers_to_variadic_intrinsic_with_constant_string() -> None:
    m = compile_to_ir('__kernel void k() { printf("%d %f\\n", 1, 2.0f); printf("%d %f\\n", 3, 4.0f); }').module
    text = print_module(m)
    assert "call i32 @ocl.printf(ptr<constant> @.str.0, i32 1, float 2.0)" in text
    assert "call i32 @ocl.printf(ptr<constant> @.str.0, i32 3, float 4.0)" in text  # one global per text
    gv = m.get_global(".str.0")
    assert gv is not None and str(gv.value_type) == "[7 x i8]"
    assert m.get_function("ocl.printf").attrs["variadic"] is True  # type: ignore[union-attr]


def test_a_scalar_argument_splats_to_a_vector_overload_as_in_clang() -> None:
    src = ("kernel void k(global float4 *o, float a) "
           "{ o[0] = mad(a, o[1], o[2]); o[1] = fmax(a, o[1]); o[2].x = fmax(a, a); }")
    calls = [line.split("= ", 1)[1] for line in print_module(compile_to_ir(src).module).splitlines()
             if " call " in line or "shufflevector" in line]
    assert [c.split("(")[0] for c in calls] == [
        "shufflevector <1 x float> %1, <1 x float> undef, [0, 0, 0, 0]", "call <4 x float> @ocl.fma.v4f32",
        "shufflevector <1 x float> %13, <1 x float> undef, [0, 0, 0, 0]", "call <4 x float> @ocl.fmax.v4f32",
        "call float @ocl.fmax.f32"]  # the scalar is splat; scalars still take the scalar overload
