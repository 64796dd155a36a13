"""OpenCL.std through LLVM's SPIR-V backend, checked against NumPy: each row is
an OpenCL C builtin (its mangled name), and all rows of a table run in one
kernel, so the extended-instruction numbering and the signedness of each
integer instruction are checked end to end."""

from __future__ import annotations

import math

import numpy as np
import pytest

import oclpy as cl
from tests.frontend.spirv.spirv_helpers import from_llvm

N = 16
X = np.linspace(0.05, 0.95, N).astype(np.float32)   # inside every unary function's domain
Y = np.linspace(1.5, 0.2, N).astype(np.float32)
Z = np.linspace(-0.7, 0.8, N).astype(np.float32)
_vec = np.vectorize

# (OpenCL C name, arity, NumPy reference, relative tolerance)
FLOAT_ROWS = [
    ("acos", 1, np.arccos, 1e-6), ("acosh", 1, np.arccosh, 0),
    ("asin", 1, np.arcsin, 1e-6), ("asinh", 1, np.arcsinh, 1e-6), ("atan", 1, np.arctan, 1e-6),
    ("atanh", 1, np.arctanh, 1e-6), ("cbrt", 1, np.cbrt, 1e-6), ("ceil", 1, np.ceil, 0),
    ("cos", 1, np.cos, 1e-6), ("cosh", 1, np.cosh, 1e-6), ("cospi", 1, lambda x: np.cos(np.pi * x), 1e-5),
    ("erf", 1, _vec(math.erf), 1e-6), ("erfc", 1, _vec(math.erfc), 1e-5), ("exp", 1, np.exp, 1e-6),
    ("exp2", 1, np.exp2, 1e-6), ("exp10", 1, lambda x: 10.0 ** x, 1e-6), ("expm1", 1, np.expm1, 1e-6),
    ("fabs", 1, np.abs, 0), ("floor", 1, np.floor, 0), ("lgamma", 1, _vec(math.lgamma), 1e-5),
    ("log", 1, np.log, 1e-6), ("log2", 1, np.log2, 1e-6), ("log10", 1, np.log10, 1e-6),
    ("log1p", 1, np.log1p, 1e-6), ("logb", 1, lambda x: np.floor(np.log2(x)), 0),
    ("rint", 1, np.rint, 0), ("round", 1, lambda x: np.floor(x + 0.5), 0),
    ("rsqrt", 1, lambda x: 1 / np.sqrt(x), 1e-6), ("sin", 1, np.sin, 1e-6), ("sinh", 1, np.sinh, 1e-6),
    ("sinpi", 1, lambda x: np.sin(np.pi * x), 1e-5), ("sqrt", 1, np.sqrt, 1e-6), ("tan", 1, np.tan, 1e-6),
    ("tanh", 1, np.tanh, 1e-6), ("tgamma", 1, _vec(math.gamma), 1e-5), ("trunc", 1, np.trunc, 0),
    ("native_sin", 1, np.sin, 1e-4), ("half_exp", 1, np.exp, 1e-3), ("native_recip", 1, lambda x: 1 / x, 1e-4),
    ("degrees", 1, np.degrees, 1e-6), ("radians", 1, np.radians, 1e-6), ("sign", 1, np.sign, 0),
    ("atan2", 2, np.arctan2, 1e-6), ("copysign", 2, np.copysign, 0),
    ("fdim", 2, lambda x, y: np.maximum(x - y, 0), 1e-6), ("fmax", 2, np.fmax, 0), ("fmin", 2, np.fmin, 0),
    ("fmod", 2, np.fmod, 1e-6), ("hypot", 2, np.hypot, 1e-6), ("pow", 2, np.power, 1e-6),
    ("powr", 2, np.power, 1e-6), ("remainder", 2, lambda x, y: x - y * np.rint(x / y), 1e-5),
    ("nextafter", 2, np.nextafter, 0), ("maxmag", 2, lambda x, y: np.where(np.abs(x) > np.abs(y), x, y), 0),
    ("minmag", 2, lambda x, y: np.where(np.abs(x) < np.abs(y), x, y), 0),
    ("step", 2, lambda x, y: np.where(y < x, 0.0, 1.0), 0),
    ("max", 2, np.maximum, 0), ("min", 2, np.minimum, 0),
    ("native_divide", 2, lambda x, y: x / y, 1e-4),
    ("fma", 3, lambda x, y, z: x * y + z, 1e-6), ("mad", 3, lambda x, y, z: x * y + z, 1e-5),
    ("mix", 3, lambda x, y, z: x + (y - x) * z, 1e-5), ("clamp", 3, lambda x, y, z: np.minimum(np.maximum(x, y), z), 0),
]


def _mangle(name: str, params: str) -> str:
    return f"_Z{len(name)}{name}{params}"


def _kernel(rows: list[tuple[str, str, int]], ir_type: str, elem_bytes: int) -> str:
    """`kernel rows(T *x, T *y, T *z, T *out)`: out[k*N + i] = row_k(x[i], y[i], z[i])."""
    decls, body = set(), []
    for k, (mangled, ret, arity) in enumerate(rows):
        params = ", ".join([ir_type] * arity)
        decls.add(f"declare spir_func {ret} @{mangled}({params})")
        args = ", ".join(f"{ir_type} %{v}" for v in "xyz"[:arity])
        body.append(f"  %r{k} = call spir_func {ret} @{mangled}({args})\n"
                    f"  %o{k} = add i64 %g, {k * N}\n"
                    f"  %p{k} = getelementptr {ret}, ptr addrspace(1) %out, i64 %o{k}\n"
                    f"  store {ret} %r{k}, ptr addrspace(1) %p{k}\n")
    loads = "".join(f"  %a{v} = getelementptr {ir_type}, ptr addrspace(1) %{v}p, i64 %g\n"
                    f"  %{v} = load {ir_type}, ptr addrspace(1) %a{v}\n" for v in "xyz")
    return ("declare spir_func i64 @_Z13get_global_idj(i32)\n" + "\n".join(sorted(decls)) +
            "\ndefine spir_kernel void @rows(ptr addrspace(1) %xp, ptr addrspace(1) %yp, "
            "ptr addrspace(1) %zp, ptr addrspace(1) %out) {\n"
            "  %g = call spir_func i64 @_Z13get_global_idj(i32 0)\n" + loads + "".join(body) +
            "  ret void\n}\n")


def _run(ctx, queue, source: str, inputs, out_dtype, rows: int) -> np.ndarray:
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a) for a in inputs]
    out = np.zeros(rows * N, out_dtype)
    obuf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    cl.Program(ctx, from_llvm(source)).build().rows(queue, (N,), None, *bufs, obuf)
    cl.enqueue_copy(queue, out, obuf)
    return out.reshape(rows, N)


def test_float_builtins(ctx, queue):
    rows = [(_mangle(name, "f" * arity), "float", arity) for name, arity, _, _ in FLOAT_ROWS]
    got = _run(ctx, queue, _kernel(rows, "float", 4), (X, Y, Z), np.float32, len(rows))
    x, y, z = (a.astype(np.float64) for a in (X, Y, Z))
    for k, (name, arity, ref, rtol) in enumerate(FLOAT_ROWS):
        args = {1: (x,), 2: (x, y), 3: (x, y, z)}[arity]
        with np.errstate(invalid="ignore"):  # acosh below 1 is NaN, on both sides
            want = ref(*args)
        np.testing.assert_allclose(got[k], want.astype(np.float32), rtol=rtol or 0, atol=1e-6,
                                   err_msg=name)


# (mangled parameter code, NumPy dtype, IR type)
_INT_TYPES = {"i": (np.int32, "i32"), "j": (np.uint32, "i32")}
INT_ROWS = [
    ("min", 2, np.minimum), ("max", 2, np.maximum), ("abs_diff", 2, lambda a, b: np.abs(a.astype(np.int64) - b)),
    ("add_sat", 2, lambda a, b: _saturate(a.astype(np.int64) + b, a.dtype)),
    ("sub_sat", 2, lambda a, b: _saturate(a.astype(np.int64) - b, a.dtype)), ("hadd", 2, lambda a, b: (a.astype(np.int64) + b) >> 1),
    ("rhadd", 2, lambda a, b: (a.astype(np.int64) + b + 1) >> 1),
    ("mul_hi", 2, lambda a, b: (a.astype(np.int64) * b) >> 32),
    ("clamp", 3, lambda a, b, c: np.clip(a, b, c)), ("mad_hi", 3, lambda a, b, c: ((a.astype(np.int64) * b) >> 32) + c),
    ("mad24", 3, lambda a, b, c: a * b + c), ("mul24", 2, lambda a, b: a * b),
    ("clz", 1, lambda a: 32 - _vec(lambda v: int(v).bit_length())(a.astype(np.int64) & 0xFFFFFFFF)),
    ("popcount", 1, _vec(lambda v: bin(int(v) & 0xFFFFFFFF).count("1"))),
    ("abs", 1, lambda a: np.abs(a.astype(np.int64))),
    ("rotate", 2, lambda a, b: _rotate(a.astype(np.int64) & 0xFFFFFFFF, b.astype(np.int64) & 31)),
]


def _saturate(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(v, info.min, info.max)


def _rotate(a: np.ndarray, n: np.ndarray) -> np.ndarray:
    return ((a << n) | (a >> ((32 - n) & 31))) & 0xFFFFFFFF


@pytest.mark.parametrize("code", ["i", "j"])
def test_integer_builtins_by_signedness(ctx, queue, code):
    dtype, _ = _INT_TYPES[code]
    rng = np.random.default_rng(7)
    lo, hi = (-3000, 3000) if code == "i" else (0, 6000)
    a, b = rng.integers(lo, hi, N).astype(dtype), rng.integers(lo, hi, N).astype(dtype)
    c = np.sort(np.stack([b, rng.integers(lo, hi, N).astype(dtype)]), axis=0)
    b_lo, c_hi = c[0], c[1]
    rows = INT_ROWS
    mangled = [(_mangle(n, code * ar), "i32", ar) for n, ar, _ in rows]
    got = _run(ctx, queue, _kernel(mangled, "i32", 4), (a, b_lo, c_hi), dtype, len(rows))
    for k, (name, arity, ref) in enumerate(rows):
        args = {1: (a,), 2: (a, b_lo), 3: (a, b_lo, c_hi)}[arity]
        want = np.asarray(ref(*args)).astype(np.int64).astype(dtype)
        np.testing.assert_array_equal(got[k], want, err_msg=f"{name} ({code})")
