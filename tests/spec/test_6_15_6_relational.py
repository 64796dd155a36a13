"""OpenCL C 6.15.6 relational functions: comparisons and classification of
float and double (1/0 for scalars, -1/0 for vectors), any/all on signed
integers, bitselect and select on every type and width."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .elementwise import DTYPES, INT_TYPES, WIDTHS, Op, evaluate, unsigned
from .values import N, int_values

PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"

CMP = {
    "isequal": np.equal, "isnotequal": np.not_equal, "isgreater": np.greater,
    "isgreaterequal": np.greater_equal, "isless": np.less, "islessequal": np.less_equal,
    "islessgreater": lambda a, b: (a < b) | (a > b),
    "isordered": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "isunordered": lambda a, b: np.isnan(a) | np.isnan(b),
}
CLASS = {
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
    "isnormal": lambda a: np.isfinite(a) & (np.abs(a) >= np.finfo(a.dtype).tiny),
    "signbit": np.signbit,
}


def _float_inputs(t: str) -> tuple[np.ndarray, np.ndarray]:
    dt = DTYPES[t]
    special = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, np.finfo(dt).tiny, np.finfo(dt).tiny / 4,
               -np.finfo(dt).tiny / 2, np.finfo(dt).max, 2.5]
    rng = np.random.default_rng(17)
    a = rng.choice(np.array(special, dt), N)
    b = rng.choice(np.array(special, dt), N)
    a[::3] = b[::3]  # some equal pairs
    return a, b


_cache: dict = {}


def _float_results(run_kernel, t: str):
    if t not in _cache:
        ops = [Op(k, f"{k}(a, b)", "R") for k in CMP] + [Op(k, f"{k}(a)", "R") for k in CLASS]
        a, b = _float_inputs(t)
        _cache[t] = evaluate(run_kernel, t, ops, a, b, b, pre=PRE)
    return _cache[t]


def _truth(mask: np.ndarray, n: int) -> list[int]:
    return [(-1 if n > 1 else 1) if m else 0 for m in mask.tolist()]


@pytest.mark.parametrize("t", ["float", "double"])
@pytest.mark.parametrize("key", list(CMP) + list(CLASS))
def test_float_relational(run_kernel, t: str, key: str) -> None:
    res, envs = _float_results(run_kernel, t)
    for n in WIDTHS:
        env = envs[n]
        with np.errstate(invalid="ignore"):
            mask = CMP[key](env.a, env.b) if key in CMP else CLASS[key](env.a)
        got = res[(key, n)].tolist()
        want = _truth(mask, n)
        bad = [(x, y, g, w) for x, y, g, w in zip(env.a.tolist(), env.b.tolist(), got, want) if g != w]
        assert not bad, f"{key}({t}{n}): (a, b, got, want) {bad[:4]}"


SIGNED = ("char", "short", "int", "long")


@pytest.mark.parametrize("t", SIGNED)
def test_any_all(run_kernel, t: str) -> None:
    ops = [Op("any", "any(a)", "int"), Op("all", "all(a)", "int")]
    a = int_values(t, 2)
    a[64:] = np.where(np.arange(64) % 3 == 0, -1, 5)  # runs of all-negative and mixed lanes
    a[96:112] = -3
    res, envs = evaluate(run_kernel, t, ops, a, a, a)
    for n in WIDTHS:
        neg = (envs[n].a < 0).reshape(-1, n)
        assert res[("any", n)][::n].tolist() == neg.any(axis=1).astype(int).tolist(), f"any({t}{n})"
        assert res[("all", n)][::n].tolist() == neg.all(axis=1).astype(int).tolist(), f"all({t}{n})"


ALL_TYPES = INT_TYPES + ("float", "double")


def _bits_of(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


@pytest.mark.parametrize("t", ALL_TYPES)
def test_bitselect_and_select(run_kernel, t: str) -> None:
    ops = [Op("bitselect", "bitselect(a, b, c)"), Op("select_s", "select(a, b, as_$L(c))"),
           Op("select_u", "select(a, b, as_$U(c))")]
    size = np.dtype(DTYPES[t]).itemsize
    it = {1: "char", 2: "short", 4: "int", 8: "long"}[size]
    raw = [int_values(it, s).view(DTYPES[t]) for s in (1, 2, 3)]
    a, b, c = (r.copy() for r in raw)
    res, envs = evaluate(run_kernel, t, ops, a, b, c, pre=PRE)
    for n in WIDTHS:
        env = envs[n]
        ab, bb, cb = _bits_of(env.a), _bits_of(env.b), _bits_of(env.c)
        assert _bits_of(res[("bitselect", n)]).tolist() == ((ab & ~cb) | (bb & cb)).tolist(), f"bitselect {t}{n}"
        ci = env.c.view(np.dtype(f"i{size}"))
        take_b = (ci < 0) if n > 1 else (ci != 0)  # vectors test the MSB, scalars test != 0
        want = _bits_of(np.where(take_b, env.b, env.a).astype(DTYPES[t]))
        for key in ("select_s", "select_u"):
            assert _bits_of(res[(key, n)]).tolist() == want.tolist(), f"{key} {t}{n}"
