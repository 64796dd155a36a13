"""OpenCL C 6.15.4 common functions on float and double at every width,
including the forms with scalar operands."""

from __future__ import annotations

import numpy as np
import pytest

from .elementwise import DTYPES, WIDTHS, Op, evaluate
from .harness import ulp_error
from .values import N

PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"


def _smooth(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


# key: (expression, reference on float64 operand arrays, bound in ulp, vector widths only)
CASES = {
    "clamp": ("clamp(a, fmin(b, c), fmax(b, c))", lambda a, b, c: np.clip(a, np.minimum(b, c), np.maximum(b, c)), 0, False),
    "clamp_s": ("clamp(a, fmin(sb, sc), fmax(sb, sc))", lambda a, b, c: np.clip(a, np.minimum(b, c), np.maximum(b, c)), 0, True),
    "degrees": ("degrees(a)", lambda a, b, c: a * (180 / np.pi), 2, False),
    "radians": ("radians(a)", lambda a, b, c: a * (np.pi / 180), 2, False),
    "max": ("max(a, b)", lambda a, b, c: np.maximum(a, b), 0, False),
    "max_s": ("max(a, sb)", lambda a, b, c: np.maximum(a, b), 0, True),
    "min": ("min(a, b)", lambda a, b, c: np.minimum(a, b), 0, False),
    "min_s": ("min(a, sb)", lambda a, b, c: np.minimum(a, b), 0, True),
    "mix": ("mix(a, b, c * ($E)0.01)", None, 0, False),
    "mix_s": ("mix(a, b, sc * ($E)0.01)", None, 0, True),
    "step": ("step(b, a)", lambda a, b, c: np.where(a < b, 0.0, 1.0), 0, False),
    "step_s": ("step(sb, a)", lambda a, b, c: np.where(a < b, 0.0, 1.0), 0, True),
    "smoothstep": ("smoothstep(b, b + 10, a)", None, 0, False),
    "smoothstep_s": ("smoothstep(sb, sb + 10, a)", None, 0, True),
    "sign": ("sign(a)", lambda a, b, c: np.sign(a), 0, False),
}


_cache: dict = {}


def _results(run_kernel, t: str):
    if t not in _cache:
        rng = np.random.default_rng(21)
        dt = DTYPES[t]
        a = rng.uniform(-50, 50, N).astype(dt)
        a[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-3]
        b, c = rng.uniform(-50, 50, N).astype(dt), rng.uniform(0, 100, N).astype(dt)
        ops = [Op(k, e, "T", WIDTHS[1:] if vec else WIDTHS) for k, (e, _, _, vec) in CASES.items()]
        _cache[t] = evaluate(run_kernel, t, ops, a, b, c, pre=PRE)
    return _cache[t]


def _reference(key: str, a, b, c, dt):
    t = dt.type
    if key.startswith("mix"):  # x + (y - x) * a, each step in the type (implementation-defined accuracy)
        w = (c * t(0.01)).astype(dt)
        return a.astype(np.float64) + (b.astype(np.float64) - a) * w, 1e-5
    if key.startswith("smoothstep"):
        e1 = (b + t(10)).astype(dt)
        return _smooth(b.astype(np.float64), e1.astype(np.float64), a.astype(np.float64)), 1e-5
    return CASES[key][1](a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)), None


@pytest.mark.parametrize("t", ["float", "double"])
@pytest.mark.parametrize("key", list(CASES))
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # NaN and inf inputs
def test_common_function(run_kernel, t: str, key: str) -> None:
    res, envs = _results(run_kernel, t)
    dt = np.dtype(DTYPES[t])
    _, _, bound, vec = CASES[key]
    for n in (WIDTHS[1:] if vec else WIDTHS):
        env = envs[n]
        b, c = (env.sb, env.sc) if vec else (env.b, env.c)
        if key == "mix_s":  # mix(gentype x, gentype y, scalar a)
            b = env.b
        want, abs_tol = _reference(key, env.a, b, c, dt)
        got = res[(key, n)]
        finite = np.isfinite(env.a)
        if key == "sign":  # sign(NaN) = 0, sign(±0) = ±0
            assert np.isnan(got[np.isnan(env.a)]).sum() == 0 and (got[np.isnan(env.a)] == 0).all()
            zero = env.a == 0
            assert (np.signbit(got[zero]) == np.signbit(env.a[zero])).all()
        if abs_tol is not None:
            err = np.abs(got[finite] - want[finite]) / np.maximum(1, np.abs(want[finite]))
            assert (err <= abs_tol).all(), f"{key}({t}{n}): max rel err {err.max()}"
        else:
            err = ulp_error(got[finite], want[finite], dt.type)
            assert err.max() <= max(bound, 0.5), f"{key}({t}{n}): {err.max()} ulp"
