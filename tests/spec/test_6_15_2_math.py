"""OpenCL C 6.15.2 math functions on float and double, every vector width,
against mpmath references within the spec's ULP bounds (section 7.4)."""

from __future__ import annotations

import numpy as np
import pytest

from .elementwise import DTYPES, WIDTHS, Op, evaluate
from .harness import ulp_error
from .mathref import MATH, REDUCED, mp, reference
from .values import N

FLOATS = ("float", "double")


def _inputs(t: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    dt = DTYPES[t]
    return (rng.uniform(-0.99, 0.99, N).astype(dt), rng.uniform(-20, 20, N).astype(dt),
            rng.uniform(1.0, 60.0, N).astype(dt))


# The cpu target lowers vector math lane by lane (mathlib.lower_math), so the
# scalar, 3-element and 16-element forms exercise every lowering path; widths
# 2, 4 and 8 resolve and run in test_every_width (the build time of all six
# widths of every function would dominate the suite).
MATH_WIDTHS = (1, 3, 16)


def _ops(t: str) -> list[Op]:
    ops = [Op(k, e, "T", MATH_WIDTHS) for k, (e, _, _, _) in MATH.items()]
    if t != "float":  # the native_ and half_ forms take float only (6.15.2.1, as clang's header)
        return ops
    for name, (arg, _) in REDUCED.items():
        ops += [Op(f"native_{name}", f"native_{name}({arg})", "T", (1, 4)),
                Op(f"half_{name}", f"half_{name}({arg})", "T", (1, 4))]
    ops += [Op(f"{p}{n}", f"{p}{n}({x})", "T", (1, 4)) for p in ("native_", "half_")
            for n, x in (("divide", "b, c"), ("powr", "c, a"))]
    return ops


_cache: dict[str, tuple] = {}


def _results(run_kernel, t: str):
    if t not in _cache:
        a, b, c = _inputs(t)
        res, _ = evaluate(run_kernel, t, _ops(t), a, b, c, pre="#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
        _cache[t] = (res, (a, b, c))
    return _cache[t]


def _int_operand(key: str, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple:
    dt = a.dtype.type
    if key == "ldexp":
        return b, np.trunc(a * dt(10))
    if key == "pown":
        return c, np.trunc(b)
    return b, np.trunc(c).astype(np.int64) | 1  # rootn


def _want(key: str, t: str, ins: tuple) -> np.ndarray:
    a, b, c = ins
    expr, fn, _, _ = MATH[key]
    if key == "nextafter":
        return np.nextafter(b, a).astype(np.longdouble)
    if key == "ldexp":
        x, n = _int_operand(key, a, b, c)
        return np.ldexp(x.astype(np.longdouble), n.astype(int))
    if key in ("pown", "rootn"):
        x, n = _int_operand(key, a, b, c)
        f = (lambda x, n: mp.power(x, int(n))) if key == "pown" else \
            (lambda x, n: (-mp.root(-x, int(n)) if x < 0 else mp.root(x, int(n))))
        return reference(f, x, n)
    names = "abc"
    operands = [ins[names.index(ch)] for ch in _operand_names(expr)]
    return reference(fn, *operands)


def _operand_names(expr: str) -> list[str]:
    inner = expr[expr.index("(") + 1:-1] if "(" in expr else expr
    return [p.strip()[0] for p in inner.replace("/", ",").split(",")]


def _max_ulp(res: dict, key: str, want: np.ndarray, t: str) -> float:
    worst = 0.0
    for (k, n), got in res.items():
        if k != key:
            continue
        err = ulp_error(got, want[:len(got)], DTYPES[t])
        worst = max(worst, float(err.max()))
    return worst


@pytest.mark.parametrize("t", FLOATS)
@pytest.mark.parametrize("key", list(MATH))
def test_math_function_ulp(run_kernel, record_property, t: str, key: str) -> None:
    res, ins = _results(run_kernel, t)
    bound = MATH[key][2 if t == "float" else 3]
    want = _want(key, t, ins)
    worst = _max_ulp(res, key, want, t)
    record_property("max_ulp", worst)
    assert worst <= max(bound, 0.5), f"{key}({t}): {worst:.2f} ulp > {bound}"


@pytest.mark.parametrize("name", list(REDUCED) + ["divide", "powr"])
@pytest.mark.parametrize("prefix", ["native_", "half_"])
def test_native_and_half_forms(run_kernel, record_property, name: str, prefix: str) -> None:
    """half_ forms: 8192 ulp (of float); native_ forms are implementation-defined:
    we require the same bound of them. Both take float only."""
    res, (a, b, c) = _results(run_kernel, "float")
    ins = {"a": a, "b": b, "c": c}
    if name == "divide":
        want = reference(lambda x, y: x / y, b, c)
    elif name == "powr":
        want = reference(mp.power, c, a)
    else:
        arg, fn = REDUCED[name]
        want = reference(fn, ins[arg])
    worst = _max_ulp(res, prefix + name, want, "float")
    record_property("max_ulp", worst)
    assert worst <= 8192, f"{prefix}{name}({t}): {worst:.1f} ulp"


@pytest.mark.parametrize("t", FLOATS)
def test_scalar_operand_forms(run_kernel, t: str) -> None:
    """fmin/fmax(gentype, scalar) and ldexp(gentype, int) at every vector width."""
    ops = [Op("fmin", "fmin(a, sb)", "T", WIDTHS[1:]), Op("fmax", "fmax(a, sb)", "T", WIDTHS[1:]),
           Op("ldexp", "ldexp(a, (int)sb)", "T", WIDTHS[1:])]
    a, b, _ = _inputs(t)
    a[:3] = np.nan
    res, envs = evaluate(run_kernel, t, ops, a, b, b, pre="#pragma OPENCL EXTENSION cl_khr_fp64 : enable")
    for n in WIDTHS[1:]:
        env = envs[n]
        assert np.array_equal(res[("fmin", n)], np.fmin(env.a, env.sb), equal_nan=True), f"fmin {t}{n}"
        assert np.array_equal(res[("fmax", n)], np.fmax(env.a, env.sb), equal_nan=True), f"fmax {t}{n}"
        want = np.ldexp(env.a, np.trunc(env.sb).astype(int))
        assert np.array_equal(res[("ldexp", n)], want, equal_nan=True), f"ldexp {t}{n}"
