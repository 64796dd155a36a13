"""The vectorisable float math library (vecmath*.py) on the cpu device.

Every float builtin vecmath covers runs in three shapes of kernel:
- `loop`: `o[i] = f(a[i])` in work-groups of 60, whose work-item loop LLVM's
  loop vectoriser widens (full vectors, then a remainder: both are checked;
  `test_work_item_loops_vectorise` checks that they do);
- `vec4`: the explicit vector form, `vstore4(f(vload4(i, a)), ...)`;
- `scalar`: a float2 store, which keeps the loop scalar.
The inputs are the special values (signed zeros, infinities, NaN, denormals,
huge arguments, the overflow and underflow thresholds) followed by random
floats spread over the whole range (random bit patterns) and over the
function's interesting interval. The error is measured in float ulps against
numpy's float64 result, and must stay within OpenCL's bound (OpenCL C 3.0,
section 7.4) and, for our own bodies, within one ulp (they are computed in
double and rounded once).
"""

from __future__ import annotations

import math
import re
from typing import Callable

import numpy as np
import pytest
from llvmlite import ir as ll

from tools.cpu_harness import compile_text, run
from oclpy.compiler import compile_program
from oclpy.targets.llvm.cpu.cpu_target import CpuProgram
from oclpy.targets.llvm.vecmath.library import C_LIBRARY, VF_WIDTHS, covers
from oclpy.targets.llvm.vecmath.library import call as vecmath_call

F32 = np.float32
N_RANDOM = 1 << 17
FLT_MAX = float(np.finfo(F32).max)
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, -3e-39, 1.17549435e-38,
           1.0, -1.0, 0.5, -0.5, 2.0, 1e30, -1e30, 3.4028235e38, -3.4028235e38, 1e10, 16777216.0,
           8388609.0, 88.72283, 88.72284, -87.33654, -103.97208, -103.97209, 128.0, -149.0,
           -150.0, 38.53184, -45.15, 0.7853982, 1.5707964, 3.1415927, 6.2831855, 1e-8,
           -1e-20, 0.99999994, 1.0000001, 105414350.0, 0.49999997, 2.5, -7.5]


def _random(lo: float, hi: float, n: int = N_RANDOM, seed: int = 5) -> np.ndarray:
    """Half random bit patterns of finite floats in [lo, hi], half uniform in [lo, hi]."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 32, 4 * n, dtype=np.uint64).astype(np.uint32).view(F32)
    bits = bits[np.isfinite(bits) & (bits >= lo) & (bits <= hi)][:n // 2]
    uniform = rng.uniform(lo, hi, n - len(bits)).astype(F32)
    return np.concatenate([bits, uniform])


def _inputs(lo: float, hi: float, seed: int) -> np.ndarray:
    return np.concatenate([np.array(SPECIAL, F32), _random(lo, hi, seed=seed)]).astype(F32)


def _special(fn: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """A scalar math function of Python's over an array (erf and erfc: not in numpy)."""
    return np.array([fn(v) for v in x.tolist()], np.float64)


def _powr_ref(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r = np.power(x, y)
    bad = (x < 0) | ((x == 0) & (y == 0)) | (np.isinf(x) & (y == 0)) | ((x == 1) & np.isinf(y))
    return np.where(bad, np.nan, r)


def _rootn_ref(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        r = np.abs(x) ** (1.0 / n)
        r = np.where(n % 2 == 1, np.copysign(r, x), np.where(x < 0, np.nan, r))
        return np.where(n == 0, np.nan, r)


# name: (numpy float64 reference, domain of the first operand, second operand, ulp bound)
# the second operand: None (unary), a (lo, hi) float domain, or "int" (pown/rootn)
UNARY: dict[str, tuple[Callable[..., np.ndarray], tuple[float, float], object, float]] = {
    "exp": (np.exp, (-110, 90), None, 3), "exp2": (np.exp2, (-160, 130), None, 3),
    "exp10": (lambda x: 10.0 ** x, (-48, 39), None, 3), "expm1": (np.expm1, (-20, 90), None, 3),
    "log": (np.log, (0, FLT_MAX), None, 3), "log2": (np.log2, (0, FLT_MAX), None, 3),
    "log10": (np.log10, (0, FLT_MAX), None, 3), "log1p": (np.log1p, (-1, FLT_MAX), None, 2),
    "sin": (np.sin, (-FLT_MAX, FLT_MAX), None, 4), "cos": (np.cos, (-FLT_MAX, FLT_MAX), None, 4),
    "tan": (np.tan, (-FLT_MAX, FLT_MAX), None, 5),
    "asin": (np.arcsin, (-1, 1), None, 4), "acos": (np.arccos, (-1, 1), None, 4),
    "atan": (np.arctan, (-FLT_MAX, FLT_MAX), None, 5),
    "asinpi": (lambda x: np.arcsin(x) / np.pi, (-1, 1), None, 5),
    "acospi": (lambda x: np.arccos(x) / np.pi, (-1, 1), None, 5),
    "atanpi": (lambda x: np.arctan(x) / np.pi, (-FLT_MAX, FLT_MAX), None, 5),
    "sinh": (np.sinh, (-95, 95), None, 4), "cosh": (np.cosh, (-95, 95), None, 4),
    "tanh": (np.tanh, (-20, 20), None, 5), "asinh": (np.arcsinh, (-FLT_MAX, FLT_MAX), None, 4),
    "acosh": (np.arccosh, (1, FLT_MAX), None, 4), "atanh": (np.arctanh, (-1, 1), None, 5),
    "cbrt": (np.cbrt, (-FLT_MAX, FLT_MAX), None, 2),
    "pow": (np.power, (0, 100), (-30, 30), 16), "powr": (_powr_ref, (0, 100), (-30, 30), 16),
    "atan2": (np.arctan2, (-1e6, 1e6), (-1e6, 1e6), 6),
    "atan2pi": (lambda y, x: np.arctan2(y, x) / np.pi, (-1e6, 1e6), (-1e6, 1e6), 6),
    "hypot": (np.hypot, (-1e30, 1e30), (-1e30, 1e30), 4),
    "erf": (lambda x: _special(math.erf, x), (-12, 12), None, 16),
    "erfc": (lambda x: _special(math.erfc, x), (-12, 12), None, 16),
    "pown": (lambda x, n: np.power(x, n.astype(np.float64)), (-20, 20), "int", 16),
    "rootn": (_rootn_ref, (-1e6, 1e6), "int", 16),
}

SHAPES = ("loop", "vec4", "scalar")


def _signature(name: str) -> tuple[str, str, str]:
    """(kernel parameters, scalar call, float4 call) of builtin `name`."""
    second = UNARY[name][2]
    if second is None:
        return "", f"{name}(a[i])", f"{name}(vload4(i, a))"
    t, t4 = ("int", "int4") if second == "int" else ("float", "float4")
    return (f"__global const {t} *b, ", f"{name}(a[i], b[i])",
            f"{name}(vload4(i, a), vload4(i, b))")


def _source(shape: str) -> str:
    kernels = []
    for name in UNARY:
        params, call, call4 = _signature(name)
        head = f"__kernel void k_{name}(__global const float *a, {params}"
        if shape == "loop":
            kernels.append(f"{head}__global float *o) {{ size_t i = get_global_id(0); o[i] = {call}; }}")
        elif shape == "vec4":
            kernels.append(f"{head}__global float *o) {{ size_t i = get_global_id(0); "
                           f"vstore4({call4}, i, o); }}")
        else:
            kernels.append(f"{head}__global float2 *o) {{ size_t i = get_global_id(0); "
                           f"o[i] = (float2)({call}, 0.0f); }}")
    return "\n".join(kernels)


_programs: dict[str, CpuProgram] = {}


def _program(shape: str) -> CpuProgram:
    """The program of one shape, built once (through the whole compiler, as the runtime does)."""
    if shape not in _programs:
        _programs[shape] = compile_program(_source(shape)).program
    return _programs[shape]


def _operands(name: str) -> list[np.ndarray]:
    _, domain, second, _ = UNARY[name]
    seed = sum(map(ord, name))
    a = _inputs(*domain, seed=seed)
    if second is None:
        return [a]
    if second == "int":
        return [a, np.random.default_rng(seed).integers(-12, 13, len(a)).astype(np.int32)]
    b = np.random.default_rng(seed + 1).permutation(_inputs(*second, seed=seed + 1))
    return [a, b]


LOCAL = 60  # not a multiple of any vector width: every group ends in a remainder


def _run(shape: str, name: str, args: list[np.ndarray]) -> np.ndarray:
    n = len(args[0]) // (4 * LOCAL) * (4 * LOCAL)
    width = 2 if shape == "scalar" else 1
    out = np.zeros(n * width, F32)
    ins = [np.ascontiguousarray(a[:n]) for a in args]
    run(_program(shape).kernels[f"k_{name}"], [*ins, out], (n // 4 if shape == "vec4" else n,), (LOCAL,))
    return out[::width]


def ulps(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in float ulps at ref (0 where both are NaN or the same infinity,
    or where ref is beyond FLT_MAX and got is that infinity; inf for a wrong NaN)."""
    ref = ref.astype(np.float64)
    got = got.astype(np.float64)
    _, e = np.frexp(np.abs(np.where(np.isfinite(ref), ref, 1.0)))
    ulp = np.ldexp(1.0, np.maximum(e - 1, -126) - 23)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - ref) / ulp
        saturated = np.isinf(got) & (np.abs(ref) >= FLT_MAX) & (np.sign(got) == np.sign(ref))
    same = (np.isnan(got) & np.isnan(ref)) | (got == ref) | saturated
    return np.where(same, 0.0, np.where(np.isnan(err), np.inf, err))


def _reference(name: str, args: list[np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return UNARY[name][0](*[a.astype(np.float64) if a.dtype == F32 else a for a in args])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_ulp_bound_over_a_large_sample(record_property, name: str, shape: str) -> None:
    args = _operands(name)
    got = _run(shape, name, args)
    want = _reference(name, [a[:len(got)] for a in args])
    err = ulps(got, want)
    worst = int(np.argmax(err))
    record_property("max_ulp", float(err[worst]))
    operands = [a[worst] for a in args]
    bound = UNARY[name][3]
    assert err[worst] <= bound, \
        f"{name} {shape}: {err[worst]} ulp at {operands} -> {got[worst]}, want {want[worst]}"


@pytest.mark.parametrize("name", list(UNARY))
def test_our_bodies_are_within_one_ulp(name: str) -> None:
    """Computed in double and rounded once: within one ulp, whatever the spec allows
    (the explicit vector form is always our body, never the C library's)."""
    args = _operands(name)
    got = _run("vec4", name, args)
    err = ulps(got, _reference(name, [a[:len(got)] for a in args]))
    assert err.max() <= 1.0, f"{name}: {err.max()} ulp"


def test_vector_lanes_and_remainder_agree_with_scalar_body() -> None:
    """A builtin without a C library scalar (tan): the vectorised loop, its scalar
    remainder and the float4 form are one body."""
    assert "tan" not in C_LIBRARY
    a = _inputs(-1e6, 1e6, seed=1)[:1200].astype(F32)
    loop = _run("loop", "tan", [a])
    vec4 = _run("vec4", "tan", [a])
    n = min(len(loop), len(vec4))
    np.testing.assert_array_equal(loop[:n], vec4[:n])


def _functions(ir: str) -> dict[str, str]:
    """The optimized LLVM IR's function bodies by name."""
    out = {}
    for chunk in ir.split("\ndefine ")[1:]:
        name = chunk[chunk.index("@") + 1:chunk.index("(")].strip('"')
        out[name] = chunk
    return out


@pytest.fixture(scope="module")
def loop_ir() -> dict[str, str]:
    return _functions(_program("loop").optimized_llvm_ir)


@pytest.mark.parametrize("name", list(UNARY))
def test_work_item_loops_vectorise(loop_ir: dict[str, str], name: str) -> None:
    """Each builtin's work-item loop is widened: our body inlined on vectors of
    doubles, or (C library scalars) a call to our vector variant."""
    body = loop_ir[f"k_{name}.launch"]
    # the width is LLVM's pick for the host: 8 or 16 on AMD Zen 4, 4 on Intel Emerald Rapids
    widened = re.search(r"<(2|4|8|16) x double>", body) or re.search(rf"oclpy\.{name}\.v(2|4|8|16)f32", body)
    assert widened, f"{name}: the work-item loop was not vectorised"


def test_c_library_scalars_carry_our_vector_variants() -> None:
    ir = _program("loop").llvm_ir
    for base, cname in C_LIBRARY.items():
        variants = ",".join(f"_ZGV_LLVM_N{n}{'vv' if base == 'pow' else 'v'}_{cname}(oclpy.{base}.v{n}f32)"
                            for n in VF_WIDTHS)
        assert f'"vector-function-abi-variant"="{variants}"' in ir
        assert f'@"oclpy.{base}.v16f32"' in ir.split('@"llvm.compiler.used"')[1].splitlines()[0]


VECTOR_CALLS = """
declare <4 x float> @ocl.sin.v4f32(<4 x float>)
declare <3 x float> @ocl.exp.v3f32(<3 x float>)
kernel void @k(ptr<global> %a, ptr<global> %b) {
entry:
  %x = load <4 x float>, ptr<global> %a
  %s = call <4 x float> @ocl.sin.v4f32(<4 x float> %x)
  store <4 x float> %s, ptr<global> %a
  %y = load <3 x float>, ptr<global> %b
  %e = call <3 x float> @ocl.exp.v3f32(<3 x float> %y)
  store <3 x float> %e, ptr<global> %b
  ret void
}
"""


def test_explicit_vector_calls_use_one_vector_body() -> None:
    """A vector call that reaches the target (the cpu pipeline's scalarize-vectors
    splits them first) is one call of the vector body."""
    ir = compile_text(VECTOR_CALLS).llvm_ir
    assert 'call <4 x float> @"oclpy.sin.v4f32"(<4 x float>' in ir
    assert 'call <3 x float> @"oclpy.exp.v3f32"(<3 x float>' in ir
    assert "llvm.sin" not in ir and '@"sinf"' not in ir


def test_uncovered_builtins_keep_their_lowering() -> None:
    assert covers("sin", ll.FloatType()) and covers("pown", ll.HalfType())
    assert covers("sin", ll.DoubleType()) and not covers("tgamma", ll.DoubleType())
    assert not covers("lgamma", ll.FloatType())
    ir = compile_program("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                       "__kernel void k(__global double *d, __global float *f) {"
                       " d[0] = tgamma(d[0]); f[0] = lgamma(f[0]); }").program.llvm_ir
    assert '@"tgamma"' in ir and '@"lgammaf"' in ir and "oclpy." not in ir


HALF = """
declare i64 @ocl.get_global_id(i32)
declare half @ocl.tan.f16(half)
declare <4 x half> @ocl.exp.v4f16(<4 x half>)
kernel void @h(ptr<global> %a, ptr<global> %o, ptr<global> %a4, ptr<global> %o4) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %p = getelementptr half, ptr<global> %a, i64 %i
  %x = load half, ptr<global> %p
  %t = call half @ocl.tan.f16(half %x)
  %q = getelementptr half, ptr<global> %o, i64 %i
  store half %t, ptr<global> %q
  %p4 = getelementptr <4 x half>, ptr<global> %a4, i64 %i
  %x4 = load <4 x half>, ptr<global> %p4
  %e4 = call <4 x half> @ocl.exp.v4f16(<4 x half> %x4)
  %q4 = getelementptr <4 x half>, ptr<global> %o4, i64 %i
  store <4 x half> %e4, ptr<global> %q4
  ret void
}
"""


def test_half_scalars_and_vectors_round_through_float() -> None:
    """x86 has no double -> half conversion (LLVM would call __truncdfhf2, which
    the JIT cannot resolve): the half bodies round through float."""
    prog = compile_text(HALF)
    assert "fptrunc <4 x float>" in prog.llvm_ir and "to half" in prog.llvm_ir
    a = np.linspace(-3, 3, 240).astype(np.float16)
    a4 = np.linspace(-10, 10, 960).astype(np.float16)
    o, o4 = np.zeros_like(a), np.zeros_like(a4)
    run(prog.kernels["h"], [a, o, a4, o4], (240,), (LOCAL,))
    for got, want in ((o, np.tan(a.astype(np.float64))), (o4, np.exp(a4.astype(np.float64)))):
        np.testing.assert_array_equal(got, want.astype(np.float16))


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_arguments_nearest_multiples_of_pi_over_2(name: str) -> None:
    """The floats nearest k pi/2 (k up to 2^22, and k pi/2 scaled up to 2^127) lose
    the most bits in the argument reduction: still within the bound."""
    k = np.arange(1, 1 << 22, 97, dtype=np.float64)
    near = (k * (np.pi / 2)).astype(F32)
    huge = (np.float64(np.pi / 2) * np.exp2(np.arange(24, 128, dtype=np.float64))).astype(F32)
    x = np.concatenate([near, np.nextafter(near, F32(np.inf)), huge, -huge])
    got = _run("loop", name, [x.astype(F32)])
    x = x[:len(got)]
    err = ulps(got, _reference(name, [x]))
    assert err.max() <= UNARY[name][3], f"{name}: {err.max()} ulp at {x[np.argmax(err)]!r}"


def test_a_program_defining_expf_keeps_its_own() -> None:
    """A function of the program named like the C library's (`float expf(float)`,
    internal) is not the C library's: exp() then calls our body, and that
    function gets no readnone and no vector variants."""
    module = ll.Module()
    f32 = ll.FloatType()
    own = ll.Function(module, ll.FunctionType(f32, [f32]), "expf")
    own.linkage = "internal"
    caller = ll.Function(module, ll.FunctionType(f32, [f32]), "k")
    builder = ll.IRBuilder(caller.append_basic_block())
    result = vecmath_call(builder, "exp", f32, [caller.args[0]])
    assert result.callee.name == "oclpy.exp.f32"
    assert "readnone" not in own.attributes and len(own.attributes) == 0
    other = ll.Module()
    caller = ll.Function(other, ll.FunctionType(f32, [f32]), "k")
    result = vecmath_call(ll.IRBuilder(caller.append_basic_block()), "exp", f32, [caller.args[0]])
    assert result.callee.name == "expf" and "readnone" in result.callee.attributes
