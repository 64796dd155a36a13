"""Math builtins on the cpu target against numpy, within OpenCL's ULP bounds.

One module per precision holds one kernel per builtin (`out[i] = f(a[i], b[i])`),
compiled once; each builtin is a test case with its own input domain and bound
(OpenCL 3.0 full profile, section 7.4 "Relative Error as ULPs").
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pytest

from tools.cpu_harness import compile_text, run
from oclpy.targets.llvm.cpu.cpu_target import CpuProgram

N = 512
rng = np.random.default_rng(1234)

Ref = Callable[..., np.ndarray]


def _v(f: Callable[..., float]) -> Ref:
    return np.vectorize(f, otypes=[np.float64])


PI_LD = np.arctan(np.longdouble(1)) * 4  # pi to long double precision (64-bit mantissa)


def _pi_reduced(x: np.ndarray) -> np.ndarray:
    """x - 2*rint(x/2) in [-1, 1]: exact in float64, same sinpi and cospi as x."""
    x = x.astype(np.float64)
    return x - 2 * np.rint(x / 2)


def _sinpi_ref(x: np.ndarray) -> np.ndarray:
    r = _pi_reduced(x)
    a = np.abs(r)
    s = np.where(a > 0.5, 1 - a, a)  # exact; sin(pi*s) = |sinpi(x)|
    return (np.sign(r) * np.sin(PI_LD * s.astype(np.longdouble))).astype(np.float64)


def _cospi_ref(x: np.ndarray) -> np.ndarray:
    t = 0.5 - np.abs(_pi_reduced(x))  # exact; cos(pi*r) = sin(pi*(1/2 - |r|))
    return np.sin(PI_LD * t.astype(np.longdouble)).astype(np.float64)


def _rootn(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    r = np.abs(x) ** (1.0 / n)
    return np.where(x < 0, np.where(n % 2 == 1, -r, np.nan), r)


# name: (reference in float64, domain of a, domain of b or "int" or None, ULP bound float, double)
CASES: dict[str, tuple[Ref, tuple[float, float], object, float, float]] = {
    "sqrt": (np.sqrt, (0, 100), None, 3, 0),
    "rsqrt": (lambda x: 1 / np.sqrt(x), (0.01, 100), None, 2, 2),
    "cbrt": (np.cbrt, (-100, 100), None, 2, 2),
    "sin": (np.sin, (-10, 10), None, 4, 4),
    "cos": (np.cos, (-10, 10), None, 4, 4),
    "tan": (np.tan, (-1.5, 1.5), None, 5, 5),
    "asin": (np.arcsin, (-1, 1), None, 4, 4),
    "acos": (np.arccos, (-1, 1), None, 4, 4),
    "atan": (np.arctan, (-10, 10), None, 5, 5),
    "atan2": (np.arctan2, (-10, 10), (-10, 10), 6, 6),
    "sinh": (np.sinh, (-5, 5), None, 4, 4),
    "cosh": (np.cosh, (-5, 5), None, 4, 4),
    "tanh": (np.tanh, (-5, 5), None, 5, 5),
    "asinh": (np.arcsinh, (-10, 10), None, 4, 4),
    "acosh": (np.arccosh, (1, 10), None, 4, 4),
    "atanh": (np.arctanh, (-0.99, 0.99), None, 5, 5),
    "exp": (np.exp, (-10, 10), None, 3, 3),
    "exp2": (np.exp2, (-10, 10), None, 3, 3),
    "exp10": (lambda x: 10.0 ** x, (-5, 5), None, 3, 3),
    "expm1": (np.expm1, (-1, 1), None, 3, 3),
    "log": (np.log, (0.01, 100), None, 3, 3),
    "log2": (np.log2, (0.01, 100), None, 3, 3),
    "log10": (np.log10, (0.01, 100), None, 3, 3),
    "log1p": (np.log1p, (-0.5, 10), None, 2, 2),
    "pow": (np.power, (0.1, 10), (-3, 3), 16, 16),
    "powr": (np.power, (0.1, 10), (-3, 3), 16, 16),
    "pown": (lambda x, n: x ** n.astype(np.float64), (-3, 3), "int", 16, 16),
    "rootn": (_rootn, (-50, 50), "int", 16, 16),
    "ldexp": (lambda x, n: np.ldexp(x, n), (-10, 10), "int", 0, 0),
    "fabs": (np.abs, (-10, 10), None, 0, 0),
    "floor": (np.floor, (-10, 10), None, 0, 0),
    "ceil": (np.ceil, (-10, 10), None, 0, 0),
    "trunc": (np.trunc, (-10, 10), None, 0, 0),
    "round": (lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x), (-10, 10), None, 0, 0),
    "rint": (np.rint, (-10, 10), None, 0, 0),
    "fmin": (np.fmin, (-10, 10), (-10, 10), 0, 0),
    "fmax": (np.fmax, (-10, 10), (-10, 10), 0, 0),
    "copysign": (np.copysign, (-10, 10), (-10, 10), 0, 0),
    "fmod": (np.fmod, (-10, 10), (0.5, 3), 0, 0),
    "remainder": (_v(math.remainder), (-10, 10), (0.5, 3), 0, 0),
    "hypot": (np.hypot, (-10, 10), (-10, 10), 4, 4),
    "fdim": (lambda x, y: np.maximum(x - y, 0), (-10, 10), (-10, 10), 0, 0),
    "erf": (_v(math.erf), (-3, 3), None, 16, 16),
    "erfc": (_v(math.erfc), (-3, 3), None, 16, 16),
    "tgamma": (_v(math.gamma), (0.5, 5), None, 16, 16),
    "lgamma": (_v(math.lgamma), (2.5, 10), None, 16, 16),  # away from its zeros at 1, 2
    "logb": (lambda x: np.floor(np.log2(np.abs(x))), (0.01, 100), None, 0, 0),
    "sinpi": (_sinpi_ref, (-4, 4), None, 4, 4),
    "cospi": (_cospi_ref, (-4, 4), None, 4, 4),
    "tanpi": (lambda x: _sinpi_ref(x) / _cospi_ref(x), (-0.45, 0.45), None, 6, 6),
    "asinpi": (lambda x: np.arcsin(x) / np.pi, (-1, 1), None, 5, 5),
    "acospi": (lambda x: np.arccos(x) / np.pi, (-1, 1), None, 5, 5),
    "atanpi": (lambda x: np.arctan(x) / np.pi, (-10, 10), None, 5, 5),
    "atan2pi": (lambda y, x: np.arctan2(y, x) / np.pi, (-10, 10), (-10, 10), 6, 6),
    "nextafter": (np.nextafter, (-10, 10), (-10, 10), 0, 0),
}

NATIVE_REFS = {"nextafter"}  # references computed in the tested precision itself
TYPES = {"f32": ("float", np.float32), "f64": ("double", np.float64)}


def _kernel(name: str, ty: str, sfx: str, second: object) -> str:
    b_ty = "i32" if second == "int" else ty
    params = f"{ty}" + ("" if second is None else f", {b_ty}")
    args = f"{ty} %x" + ("" if second is None else f", {b_ty} %y")
    load_b = "" if second is None else f"""
  %pb = getelementptr {b_ty}, ptr<global> %b, i64 %i
  %y = load {b_ty}, ptr<global> %pb"""
    return f"""
declare {ty} @ocl.{name}.{sfx}({params})
kernel void @k_{name}(ptr<global> %a, ptr<global> %b, ptr<global> %out) {{
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %pa = getelementptr {ty}, ptr<global> %a, i64 %i
  %x = load {ty}, ptr<global> %pa{load_b}
  %r = call {ty} @ocl.{name}.{sfx}({args})
  %po = getelementptr {ty}, ptr<global> %out, i64 %i
  store {ty} %r, ptr<global> %po
  ret void
}}
"""


_programs: dict[str, CpuProgram] = {}


def program(sfx: str) -> CpuProgram:
    if sfx not in _programs:
        ty = TYPES[sfx][0]
        text = "declare i64 @ocl.get_global_id(i32)\n" + "".join(
            _kernel(name, ty, sfx, case[2]) for name, case in CASES.items())
        _programs[sfx] = compile_text(text)
    return _programs[sfx]


def ulp_error(got: np.ndarray, ref: np.ndarray, dtype: type) -> np.ndarray:
    """|got - ref| in units of the spacing of `dtype` at the reference value."""
    ref_t = ref.astype(dtype)
    spacing = np.spacing(np.abs(ref_t)).astype(np.float64)
    both_nan = np.isnan(got) & np.isnan(ref)
    same = (got == ref_t) | both_nan
    err = np.abs(got.astype(np.float64) - ref) / spacing
    return np.where(same, 0.0, err)


def _inputs(domain: tuple[float, float], dtype: type) -> np.ndarray:
    return rng.uniform(*domain, N).astype(dtype)


@pytest.mark.parametrize("sfx", ["f32", "f64"])
@pytest.mark.parametrize("name", list(CASES))
def test_math_builtin_within_ulp_bound(name: str, sfx: str) -> None:
    ref_fn, dom_a, dom_b, bound32, bound64 = CASES[name]
    dtype = TYPES[sfx][1]
    a = _inputs(dom_a, dtype)
    if dom_b == "int":
        b = rng.integers(1, 6, N).astype(np.int32)
    elif dom_b is None:
        b = np.zeros(N, dtype)
    else:
        b = _inputs(dom_b, dtype)  # type: ignore[arg-type]
    out = np.zeros(N, dtype)
    run(program(sfx).kernels[f"k_{name}"], [a, b, out], (N,), (64,))
    wide = np.float64 if name not in NATIVE_REFS else dtype
    args = [a.astype(wide)] + ([] if dom_b is None else [b if dom_b == "int" else b.astype(wide)])
    ref = ref_fn(*args)
    bound = bound32 if sfx == "f32" else bound64
    # the float64 reference itself is only good to ~1 ulp of double
    slack = 0.5 if sfx == "f32" else 2.0
    err = ulp_error(out, np.asarray(ref, np.float64), dtype)
    worst = int(np.argmax(err))
    assert err[worst] <= bound + slack, (
        f"{name}.{sfx}({a[worst]!r}, {b[worst]!r}) = {out[worst]!r}, expected {ref[worst]!r}: "
        f"{err[worst]:.2f} ulp > {bound}")


SPECIAL = """
declare i64 @ocl.get_global_id(i32)
declare float @ocl.sinpi.f32(float)
declare float @ocl.cospi.f32(float)
declare float @ocl.rootn.f32(float, i32)
declare float @ocl.powr.f32(float, float)
declare float @ocl.fmin.f32(float, float)
kernel void @special(ptr<global> %out) {
entry:
  %s0 = call float @ocl.sinpi.f32(float 3.0)
  %s1 = call float @ocl.sinpi.f32(float -2.0)
  %s2 = call float @ocl.cospi.f32(float 0.5)
  %s3 = call float @ocl.rootn.f32(float -8.0, i32 3)
  %s4 = call float @ocl.rootn.f32(float -8.0, i32 2)
  %s5 = call float @ocl.rootn.f32(float 8.0, i32 0)
  %s6 = call float @ocl.powr.f32(float -2.0, float 2.0)
  %s7 = call float @ocl.fmin.f32(float 0x7FF8000000000000, float 1.0)
  %s8 = call float @ocl.sinpi.f32(float 0x7FF0000000000000)
  %p0 = getelementptr float, ptr<global> %out, i64 0
  store float %s0, ptr<global> %p0
  %p1 = getelementptr float, ptr<global> %out, i64 1
  store float %s1, ptr<global> %p1
  %p2 = getelementptr float, ptr<global> %out, i64 2
  store float %s2, ptr<global> %p2
  %p3 = getelementptr float, ptr<global> %out, i64 3
  store float %s3, ptr<global> %p3
  %p4 = getelementptr float, ptr<global> %out, i64 4
  store float %s4, ptr<global> %p4
  %p5 = getelementptr float, ptr<global> %out, i64 5
  store float %s5, ptr<global> %p5
  %p6 = getelementptr float, ptr<global> %out, i64 6
  store float %s6, ptr<global> %p6
  %p7 = getelementptr float, ptr<global> %out, i64 7
  store float %s7, ptr<global> %p7
  %p8 = getelementptr float, ptr<global> %out, i64 8
  store float %s8, ptr<global> %p8
  ret void
}
"""


def test_special_values() -> None:
    out = np.full(9, 123.0, np.float32)
    run(compile_text(SPECIAL).kernels["special"], [out], (1,), (1,))
    assert out[0] == 0 and not np.signbit(out[0])  # sinpi(+n) = +0
    assert out[1] == 0 and np.signbit(out[1])  # sinpi(-n) = -0
    assert out[2] == 0
    assert out[3] == -2.0
    assert np.isnan(out[4]) and np.isnan(out[5]) and np.isnan(out[6])
    assert out[7] == 1.0  # fmin ignores a NaN operand
    assert np.isnan(out[8])


VECTOR = """
declare i64 @ocl.get_global_id(i32)
declare <4 x float> @ocl.sin.v4f32(<4 x float>)
declare <3 x float> @ocl.pown.v3f32(<3 x float>, <3 x i32>)
declare <2 x double> @ocl.sinpi.v2f64(<2 x double>)
kernel void @vec(ptr<global> %a, ptr<global> %o4, ptr<global> %o3, ptr<global> %o2) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %p = getelementptr <4 x float>, ptr<global> %a, i64 %i
  %v = load <4 x float>, ptr<global> %p
  %s = call <4 x float> @ocl.sin.v4f32(<4 x float> %v)
  %q4 = getelementptr <4 x float>, ptr<global> %o4, i64 %i
  store <4 x float> %s, ptr<global> %q4
  %v3 = shufflevector <4 x float> %v, <4 x float> %v, [0, 1, 2]
  %n3 = call <3 x float> @ocl.pown.v3f32(<3 x float> %v3, <3 x i32> <i32 1, i32 2, i32 3>)
  %q3 = getelementptr <3 x float>, ptr<global> %o3, i64 %i
  store <3 x float> %n3, ptr<global> %q3
  %d0 = extractelement <4 x float> %v, i32 0
  %d1 = extractelement <4 x float> %v, i32 3
  %e0 = fpext float %d0 to double
  %e1 = fpext float %d1 to double
  %w0 = insertelement <2 x double> zeroinitializer, double %e0, i32 0
  %w1 = insertelement <2 x double> %w0, double %e1, i32 1
  %sp = call <2 x double> @ocl.sinpi.v2f64(<2 x double> %w1)
  %q2 = getelementptr <2 x double>, ptr<global> %o2, i64 %i
  store <2 x double> %sp, ptr<global> %q2
  ret void
}
"""


def test_vector_forms_are_element_wise() -> None:
    n = 64
    a = rng.uniform(-3, 3, (n, 4)).astype(np.float32)
    o4, o3, o2 = np.zeros((n, 4), np.float32), np.zeros((n, 4), np.float32), np.zeros((n, 2))
    run(compile_text(VECTOR).kernels["vec"], [a, o4, o3, o2], (n,), (16,))
    assert ulp_error(o4, np.sin(a.astype(np.float64)), np.float32).max() <= 4
    a64 = a.astype(np.float64)
    ref3 = np.stack([a64[:, 0], a64[:, 1] ** 2, a64[:, 2] ** 3], axis=1)
    assert ulp_error(o3[:, :3], ref3, np.float32).max() <= 16
    ref2 = _sinpi_ref(a64[:, [0, 3]])
    assert ulp_error(o2, ref2, np.float64).max() <= 6


def test_every_math_intrinsic_and_query_has_a_cpu_lowering() -> None:
    from oclpy.ir.intrinsics import MATH_FUNCTIONS, WORK_ITEM_QUERIES
    from oclpy.targets.llvm.cpu.workitem import is_query
    from oclpy.targets.llvm.cpu.mathlib import is_math

    assert [m for m in MATH_FUNCTIONS if not is_math(m)] == []
    assert [q for q in WORK_ITEM_QUERIES if not is_query(q)] == []
    assert set(CASES) == set(MATH_FUNCTIONS) - {"fma"}


FMA = """
declare i64 @ocl.get_global_id(i32)
declare <2 x float> @ocl.fma.v2f32(<2 x float>, <2 x float>, <2 x float>)
kernel void @f(ptr<global> %a, ptr<global> %b, ptr<global> %c) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %pa = getelementptr <2 x float>, ptr<global> %a, i64 %i
  %pb = getelementptr <2 x float>, ptr<global> %b, i64 %i
  %pc = getelementptr <2 x float>, ptr<global> %c, i64 %i
  %x = load <2 x float>, ptr<global> %pa
  %y = load <2 x float>, ptr<global> %pb
  %z = load <2 x float>, ptr<global> %pc
  %r = call <2 x float> @ocl.fma.v2f32(<2 x float> %x, <2 x float> %y, <2 x float> %z)
  store <2 x float> %r, ptr<global> %pa
  ret void
}
"""


def test_fma_is_fused() -> None:
    a, b = rng.uniform(-2, 2, (64, 2)).astype(np.float32), rng.uniform(-2, 2, (64, 2)).astype(np.float32)
    c = (-(a.astype(np.float64) * b)).astype(np.float32)  # a*b + c: only the product's rounding error
    ref = a.astype(np.float64) * b + c  # exact in double: the product has 48 bits
    run(compile_text(FMA).kernels["f"], [a, b, c], (64,), (8,))
    assert ulp_error(a, ref, np.float32).max() <= 0.5
    assert np.any(a != 0)  # an unfused a*b+c would give exactly 0 for many of these
