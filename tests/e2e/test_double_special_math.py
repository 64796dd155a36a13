"""cbrt, asinh, acosh, atanh, erf, erfc, sinpi, cospi and tanpi on double through
the whole stack (program build, buffers, launch), one kernel calling all nine,
checked against mpmath within the spec's ulp bounds (OpenCL C 3.0 section 7.4)
and against NumPy where it has the function."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np

mp.mp.dps = 40

# name: (mpmath reference, ulp bound)
BOUNDS = {
    "cbrt": (lambda x: mp.sign(x) * mp.cbrt(abs(x)), 2), "asinh": (mp.asinh, 4),
    "acosh": (mp.acosh, 4), "atanh": (mp.atanh, 4), "erf": (mp.erf, 16), "erfc": (mp.erfc, 16),
    "sinpi": (mp.sinpi, 4), "cospi": (mp.cospi, 4),
    "tanpi": (lambda x: mp.sinpi(x) / mp.cospi(x), 6),
}
NUMPY = {"cbrt": np.cbrt, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
SOURCE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" \
         "__kernel void special(__global const double *x, __global double *out) {\n" \
         "    size_t i = get_global_id(0);\n    double v = x[i];\n" + "".join(
             f"    out[{j} * get_global_size(0) + i] = {name}(v);\n" for j, name in enumerate(BOUNDS)) + "}"


def _arguments() -> np.ndarray:
    rng = np.random.default_rng(7)
    n = 384
    parts = [rng.uniform(-3, 3, n), 1 + np.exp(rng.uniform(-30, 0, n)), rng.uniform(-1, 1, n),
             rng.integers(-40, 40, n) / 2 + rng.uniform(-1e-3, 1e-3, n), rng.uniform(-6, 27, n)]
    return np.concatenate(parts)


def _ulps(got: float, want: object) -> float:
    if isinstance(want, mp.mpc) or mp.isnan(want):
        return 0.0 if math.isnan(got) else math.inf
    if mp.isinf(want):
        return 0.0 if got == want else math.inf
    return float(abs(mp.mpf(got) - want) / math.ulp(max(abs(float(want)), 2.0 ** -1022)))


def _reference(fn, x: float) -> object:  # type: ignore[no-untyped-def]
    try:
        return fn(mp.mpf(x))
    except (ValueError, ZeroDivisionError):
        return mp.nan


def test_double_special_functions_in_one_kernel(run_kernel) -> None:  # type: ignore[no-untyped-def]
    x = _arguments()
    out = np.zeros(len(BOUNDS) * len(x))
    *_, out = run_kernel(SOURCE, "special", (len(x),), (64,), x, out)
    results = out.reshape(len(BOUNDS), len(x))
    for (name, (fn, bound)), got in zip(BOUNDS.items(), results):
        errors = [_ulps(g, _reference(fn, v)) for v, g in zip(x.tolist(), got.tolist())]
        worst = int(np.argmax(errors))
        assert errors[worst] <= bound, f"{name}: {errors[worst]} ulp at {x[worst]!r} -> {got[worst]!r}"
        if name in NUMPY:
            with np.errstate(invalid="ignore", divide="ignore"):
                np.testing.assert_allclose(got, NUMPY[name](x), rtol=1e-15, atol=0, err_msg=name)


def test_double_special_values_through_the_runtime(run_kernel) -> None:  # type: ignore[no-untyped-def]
    x = np.resize(np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 0.5, 2.0, -2.5]), 64)
    out = np.zeros(len(BOUNDS) * len(x))
    *_, out = run_kernel(SOURCE, "special", (len(x),), (64,), x, out)
    r = dict(zip(BOUNDS, out.reshape(len(BOUNDS), len(x))[:, :10].tolist()))
    nan = math.nan
    want = {
        "cbrt": [0.0, -0.0, math.inf, -math.inf, nan, 1.0, -1.0, None, None, None],
        "asinh": [0.0, -0.0, math.inf, -math.inf, nan, None, None, None, None, None],
        "acosh": [nan, nan, math.inf, nan, nan, 0.0, nan, nan, None, nan],
        "atanh": [0.0, -0.0, nan, nan, nan, math.inf, -math.inf, None, nan, nan],
        "erf": [0.0, -0.0, 1.0, -1.0, nan, None, None, None, None, None],
        "erfc": [1.0, 1.0, 0.0, 2.0, nan, None, None, None, None, None],
        "sinpi": [0.0, -0.0, nan, nan, nan, 0.0, -0.0, 1.0, 0.0, -1.0],
        "cospi": [1.0, 1.0, nan, nan, nan, -1.0, -1.0, 0.0, 1.0, 0.0],
        "tanpi": [0.0, -0.0, nan, nan, nan, -0.0, 0.0, math.inf, 0.0, -math.inf],
    }
    for name, values in want.items():
        for xv, g, w in zip(x.tolist(), r[name], values):
            if w is None:
                continue
            same = math.isnan(g) if math.isnan(w) else (g == w and math.copysign(1, g) == math.copysign(1, w))
            assert same, f"{name}({xv!r}) = {g!r}, want {w!r}"
