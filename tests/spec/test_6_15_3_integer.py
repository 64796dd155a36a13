"""OpenCL C 6.15.3 integer functions on every integer type and vector width,
against exact Python-integer definitions from the spec."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from .elementwise import INT_TYPES, WIDTHS, Op, bits, evaluate, int_ref, is_signed, unsigned, wrap
from .values import int_values


def _range(t: str) -> tuple[int, int]:
    b = bits(t)
    return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if is_signed(t) else (0, (1 << b) - 1)


def _sat(v: int, t: str) -> int:
    lo, hi = _range(t)
    return min(max(v, lo), hi)


def _clz(v: int, t: str) -> int:
    return bits(t) - (v & ((1 << bits(t)) - 1)).bit_length()


def _ctz(v: int, t: str) -> int:
    u = v & ((1 << bits(t)) - 1)
    return bits(t) if u == 0 else (u & -u).bit_length() - 1


def _rotate(v: int, s: int, t: str) -> int:
    b = bits(t)
    u, s = v & ((1 << b) - 1), s & (b - 1)
    return (u << s | u >> (b - s)) if s else u


# key: (expression, result type, reference(t, a, b, c) -> int, widths)
Ref = Callable[[str, int, int, int], int]
CASES: dict[str, tuple[str, str, Ref]] = {
    "abs": ("abs(a)", "U", lambda t, a, b, c: abs(a)),
    "abs_diff": ("abs_diff(a, b)", "U", lambda t, a, b, c: abs(a - b)),
    "add_sat": ("add_sat(a, b)", "T", lambda t, a, b, c: _sat(a + b, t)),
    "sub_sat": ("sub_sat(a, b)", "T", lambda t, a, b, c: _sat(a - b, t)),
    "hadd": ("hadd(a, b)", "T", lambda t, a, b, c: (a + b) >> 1),
    "rhadd": ("rhadd(a, b)", "T", lambda t, a, b, c: (a + b + 1) >> 1),
    "mul_hi": ("mul_hi(a, b)", "T", lambda t, a, b, c: (a * b) >> bits(t)),
    "mad_hi": ("mad_hi(a, b, c)", "T", lambda t, a, b, c: ((a * b) >> bits(t)) + c),
    "mad_sat": ("mad_sat(a, b, c)", "T", lambda t, a, b, c: _sat(a * b + c, t)),
    "rotate": ("rotate(a, b)", "T", lambda t, a, b, c: _rotate(a, b, t)),
    "clz": ("clz(a)", "T", lambda t, a, b, c: _clz(a, t)),
    "ctz": ("ctz(a)", "T", lambda t, a, b, c: _ctz(a, t)),
    "popcount": ("popcount(a)", "T", lambda t, a, b, c: bin(a & ((1 << bits(t)) - 1)).count("1")),
    "max": ("max(a, b)", "T", lambda t, a, b, c: max(a, b)),
    "min": ("min(a, b)", "T", lambda t, a, b, c: min(a, b)),
    "clamp": ("clamp(a, min(b, c), max(b, c))", "T", lambda t, a, b, c: min(max(a, min(b, c)), max(b, c))),
}
# gentype with a scalar second (and third) operand: vector widths only
SCALAR_CASES: dict[str, tuple[str, str, Ref]] = {
    "max_s": ("max(a, sb)", "T", lambda t, a, b, c: max(a, b)),
    "min_s": ("min(a, sb)", "T", lambda t, a, b, c: min(a, b)),
    "clamp_s": ("clamp(a, min(sb, sc), max(sb, sc))", "T", lambda t, a, b, c: min(max(a, min(b, c)), max(b, c))),
}
INT32_CASES: dict[str, tuple[str, str, Ref]] = {
    "mul24": ("mul24(a >> 8, b >> 8)", "T", lambda t, a, b, c: (a >> 8) * (b >> 8)),
    "mad24": ("mad24(a >> 8, b >> 8, c)", "T", lambda t, a, b, c: (a >> 8) * (b >> 8) + c),
}
NARROW = ("char", "uchar", "short", "ushort", "int", "uint")
WIDER = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long", "uint": "ulong"}


def _ops(t: str) -> list[Op]:
    ops = [Op(k, e, o) for k, (e, o, _) in CASES.items()]
    ops += [Op(k, e, o, WIDTHS[1:]) for k, (e, o, _) in SCALAR_CASES.items()]
    if t in ("int", "uint"):
        ops += [Op(k, e, o) for k, (e, o, _) in INT32_CASES.items()]
    return ops


_cache: dict[str, tuple] = {}


@pytest.fixture()
def results(run_kernel, request):
    t = request.node.callspec.params["t"]
    if t not in _cache:
        vals = [int_values(t, s) for s in (1, 2, 3)]
        _cache[t] = evaluate(run_kernel, t, _ops(t), *vals)
    return _cache[t]


def _check(results, t: str, key: str, ref: Ref, out: str, scalar: bool = False) -> None:
    res, envs = results
    ot = unsigned(t) if out == "U" else t
    for n in (WIDTHS[1:] if scalar else WIDTHS):
        env = envs[n]
        b, c = (env.sb, env.sc) if scalar else (env.b, env.c)
        want = [wrap(v, ot) for v in int_ref(lambda x, y, z: ref(t, x, y, z), env.a, b, c)]
        got = res[(key, n)].tolist()
        bad = [(i, env.a[i], got[i], want[i]) for i in range(len(want)) if got[i] != want[i]]
        assert not bad, f"{key} on {t}{n if n > 1 else ''}: (index, a, got, want) {bad[:4]}"


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("key", list(CASES))
def test_integer_function(results, t: str, key: str) -> None:
    _, out, ref = CASES[key]
    _check(results, t, key, ref, out)


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("key", list(SCALAR_CASES))
def test_integer_function_scalar_operand(results, t: str, key: str) -> None:
    _, out, ref = SCALAR_CASES[key]
    _check(results, t, key, ref, out, scalar=True)


@pytest.mark.parametrize("t", ["int", "uint"])
@pytest.mark.parametrize("key", list(INT32_CASES))
def test_24bit_multiply(results, t: str, key: str) -> None:
    _, out, ref = INT32_CASES[key]
    _check(results, t, key, ref, out)


@pytest.mark.parametrize("t", NARROW)
def test_upsample(run_kernel, t: str) -> None:
    u, w = unsigned(t), WIDER[t]
    ops = [Op("up", f"upsample(a, as_$U(b))", w)]
    hi, lo = int_values(t, 4), int_values(t, 5)
    res, envs = evaluate(run_kernel, t, ops, hi, lo, lo)
    for n in WIDTHS:
        env = envs[n]
        want = [wrap((x << bits(t)) | (y & ((1 << bits(t)) - 1)), w) for x, y in zip(env.a.tolist(), env.b.tolist())]
        assert res[("up", n)].tolist() == want, f"upsample {t}{n}"


@pytest.mark.parametrize("t", ["char", "short", "int"])
def test_abs_and_abs_diff_return_unsigned(run_kernel, t: str) -> None:
    """abs(INT_MIN) is 2^31 as uint: widening the result must not sign-extend."""
    w = WIDER[t]
    ops = [Op("abs", f"convert_{w}$n(abs(a))", w), Op("abs_diff", f"convert_{w}$n(abs_diff(a, b))", w)]
    a, b = int_values(t, 1), int_values(t, 2)
    res, envs = evaluate(run_kernel, t, ops, a, b, b)
    for n in WIDTHS:
        env = envs[n]
        assert res[("abs", n)].tolist() == [abs(x) for x in env.a.tolist()], f"abs {t}{n}"
        assert res[("abs_diff", n)].tolist() == [abs(x - y) for x, y in zip(env.a.tolist(), env.b.tolist())]
