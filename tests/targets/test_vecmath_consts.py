"""The constants of the vectorisable math library against mpmath: 2/pi, the
Payne-Hanek reduction table, and each polynomial over its interval."""

from __future__ import annotations

from typing import Callable

import mpmath as mp
import pytest

from oclpy.targets.llvm.vecmath import coefficients as k

mp.mp.dps = 60
SQRT = mp.sqrt


def test_two_over_pi_from_machins_formula() -> None:
    n, d = k.two_over_pi()
    with mp.workdps(250):
        assert abs(mp.mpf(n) / mp.mpf(2) ** d - 2 / mp.pi) < mp.mpf(2) ** -(d - 24)


@pytest.mark.parametrize("e", [1, 2, 60, 126, 127, 150, 151, 180, 220, 254, 255])
def test_reduction_table_entry(e: int) -> None:
    """C[e] = 2^(e - 150) * 2/pi mod 4 to 2^-105 relative; hi and mid have 29 bits."""
    hi, mid, lo = k.REDUCTION[e]
    with mp.workdps(250):
        want = mp.fmod(mp.mpf(2) ** (e - 150) * 2 / mp.pi, 4)
        assert abs((mp.mpf(hi) + mp.mpf(mid) + mp.mpf(lo)) - want) <= want * mp.mpf(2) ** -105
    for part in (hi, mid):
        mant = mp.mpf(part) / mp.mpf(2) ** (mp.floor(mp.log(abs(part), 2)) - 28)
        assert mant == int(mant), "hi and mid must hold 29 significant bits (m * part exact)"


def _sinc(z):  # type: ignore[no-untyped-def]
    return mp.sin(SQRT(z)) / SQRT(z) if z else mp.mpf(1)


def _erfc_scaled(x):  # type: ignore[no-untyped-def]
    return mp.erfc(x) * mp.exp(x * x) * (1 + x)


POLYS: dict[str, tuple[tuple[float, ...], Callable, tuple[float, float], float]] = {
    "EXP2M1": (k.EXP2M1, lambda f: (mp.power(2, f) - 1) / f if f else mp.log(2), (-0.5, 0.5), 1e-16),
    "SIN": (k.SIN, _sinc, (0, (mp.pi / 4) ** 2), 5e-17),
    "COS": (k.COS, lambda z: mp.cos(SQRT(z)), (0, (mp.pi / 4) ** 2), 3e-16),
    "ATANH": (k.ATANH, lambda z: mp.atanh(SQRT(z)) / SQRT(z) if z else mp.mpf(1),
              (0, (3 - 2 * SQRT(2)) ** 2), 5e-16),
    "ATAN": (k.ATAN, lambda z: mp.atan(SQRT(z)) / SQRT(z) if z else mp.mpf(1),
             (0, mp.tan(mp.pi / 8) ** 2), 2e-15),
    "ERF": (k.ERF, lambda z: mp.erf(SQRT(z)) / SQRT(z) if z else 2 / SQRT(mp.pi), (0, 0.25), 1e-15),
    "ERFC": (k.ERFC, lambda t: _erfc_scaled(k.ERFC_SHIFT * (1 + t) / (1 - t)),
             ((0.5 - k.ERFC_SHIFT) / (0.5 + k.ERFC_SHIFT),
              (k.ERFC_ZERO - k.ERFC_SHIFT) / (k.ERFC_ZERO + k.ERFC_SHIFT)), 1e-12),
}


@pytest.mark.parametrize("name", list(POLYS))
def test_polynomial_accuracy(name: str) -> None:
    coeffs, fn, (lo, hi), bound = POLYS[name]
    worst = mp.mpf(0)
    for i in range(201):
        z = mp.mpf(lo) + (mp.mpf(hi) - mp.mpf(lo)) * i / 200
        got = sum(mp.mpf(c) * z ** j for j, c in enumerate(coeffs))
        worst = max(worst, abs(got - fn(z)) / abs(fn(z)))
    assert worst < bound, f"{name}: relative error {mp.nstr(worst, 3)}"
