"""OpenCL C 6.3 operators on every integer and floating type and vector width:
arithmetic with wrap-around, division and remainder truncating toward zero,
shifts by the count modulo the element width, bitwise and unary operators,
relational, equality and logical operators (1/0 for scalars, -1/0 for
vectors) and the ternary operator with a vector condition."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pytest

from .elementwise import DTYPES, INT_TYPES, WIDTHS, Op, bits, evaluate, wrap
from .harness import ulp_error
from .values import N, int_values


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


IntRef = Callable[[str, int, int], int]
ARITH: dict[str, tuple[str, IntRef]] = {
    "add": ("a + b", lambda t, a, b: a + b),
    "sub": ("a - b", lambda t, a, b: a - b),
    "mul": ("a * b", lambda t, a, b: a * b),
    "div": ("a / (($T)(b & ($T)7) + ($T)1)", lambda t, a, b: _tdiv(a, (b & 7) + 1)),
    "rem": ("a % (($T)(b & ($T)7) + ($T)1)", lambda t, a, b: a - _tdiv(a, (b & 7) + 1) * ((b & 7) + 1)),
    "shl": ("a << b", lambda t, a, b: a << (b & (bits(t) - 1))),
    "shr": ("a >> b", lambda t, a, b: a >> (b & (bits(t) - 1))),
    "and": ("a & b", lambda t, a, b: a & b),
    "or": ("a | b", lambda t, a, b: a | b),
    "xor": ("a ^ b", lambda t, a, b: a ^ b),
    "not": ("~a", lambda t, a, b: ~a),
    "neg": ("-a", lambda t, a, b: -a),
    "ternary": ("a > b ? a : b", lambda t, a, b: max(a, b)),
    "scalar_rhs": ("a + sb", lambda t, a, b: a + b),
}
TRUTH: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "lt": ("a < b", lambda a, b: a < b), "le": ("a <= b", lambda a, b: a <= b),
    "gt": ("a > b", lambda a, b: a > b), "ge": ("a >= b", lambda a, b: a >= b),
    "eq": ("a == b", lambda a, b: a == b), "ne": ("a != b", lambda a, b: a != b),
    "land": ("a && b", lambda a, b: bool(a) and bool(b)), "lor": ("a || b", lambda a, b: bool(a) or bool(b)),
    "lnot": ("!a", lambda a, b: not a),
}

_cache: dict = {}


def _int_results(run_kernel, t: str):
    if t not in _cache:
        ops = [Op(k, e, "T", WIDTHS[1:] if k == "scalar_rhs" else WIDTHS) for k, (e, _) in ARITH.items()]
        ops += [Op(k, e, "R") for k, (e, _) in TRUTH.items()]
        a, b = int_values(t, 1), int_values(t, 2)
        b[:16] = 0  # logical operators meet zero operands
        _cache[t] = evaluate(run_kernel, t, ops, a, b, b)
    return _cache[t]


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("key", list(ARITH))
def test_integer_operator(run_kernel, t: str, key: str) -> None:
    res, envs = _int_results(run_kernel, t)
    expr, ref = ARITH[key]
    for n in (WIDTHS[1:] if key == "scalar_rhs" else WIDTHS):
        env = envs[n]
        b = env.sb if key == "scalar_rhs" else env.b
        want = [wrap(ref(t, x, y), t) for x, y in zip(env.a.tolist(), b.tolist())]
        got = res[(key, n)].tolist()
        bad = [(x, y, g, w) for x, y, g, w in zip(env.a.tolist(), b.tolist(), got, want) if g != w]
        assert not bad, f"{expr} on {t}{n}: (a, b, got, want) {bad[:4]}"


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("key", list(TRUTH))
def test_integer_truth_operator(run_kernel, t: str, key: str) -> None:
    res, envs = _int_results(run_kernel, t)
    expr, ref = TRUTH[key]
    for n in WIDTHS:
        env = envs[n]
        true = -1 if n > 1 else 1
        want = [true if ref(x, y) else 0 for x, y in zip(env.a.tolist(), env.b.tolist())]
        assert res[(key, n)].tolist() == want, f"{expr} on {t}{n}"


FLOAT_ARITH = {"add": "a + b", "sub": "a - b", "mul": "a * b", "div": "a / b", "neg": "-a",
               "ternary": "a < b ? b : a"}
FLOAT_TRUTH = {"lt": "a < b", "ge": "a >= b", "eq": "a == b", "ne": "a != b", "land": "a && b", "lnot": "!a"}
PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable"


@pytest.mark.parametrize("t", ["float", "double"])
def test_float_operators(run_kernel, t: str) -> None:
    dt = DTYPES[t]
    rng = np.random.default_rng(9)
    a, b = rng.uniform(-1e3, 1e3, N).astype(dt), rng.uniform(-1e3, 1e3, N).astype(dt)
    a[:8] = [np.nan, 0.0, -0.0, np.inf, 1.0, 2.0, 0.0, -np.inf]
    b[:8] = [1.0, -0.0, 0.0, 1.0, np.nan, 2.0, 5.0, -np.inf]
    ops = [Op(k, e) for k, e in FLOAT_ARITH.items()] + [Op(k, e, "R") for k, e in FLOAT_TRUTH.items()]
    res, envs = evaluate(run_kernel, t, ops, a, b, b, pre=PRE)
    with np.errstate(all="ignore"):
        for n in WIDTHS:
            x, y = envs[n].a, envs[n].b
            want = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y, "neg": -x,
                    "ternary": np.where(x < y, y, x)}
            for k in FLOAT_ARITH:  # IEEE results, but float division may be 2.5 ulp off (7.4)
                g, w = res[(k, n)], want[k].astype(dt)
                same = (g == w) | (np.isnan(g) & np.isnan(w))
                if k == "div" and t == "float":
                    same |= ulp_error(g, x.astype(np.longdouble) / y, dt) <= 2.5
                assert same.all() and (np.signbit(g[g == 0]) == np.signbit(w[g == 0])).all(), f"{FLOAT_ARITH[k]} {t}{n}"
            truth = {"lt": x < y, "ge": x >= y, "eq": x == y, "ne": x != y,
                     "land": (x != 0) & (y != 0), "lnot": x == 0}
            for k, mask in truth.items():
                want_t = np.where(mask, -1 if n > 1 else 1, 0)
                assert res[(k, n)].tolist() == want_t.tolist(), f"{FLOAT_TRUTH[k]} {t}{n}"
