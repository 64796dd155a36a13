"""sin, cos and tan of huge arguments on simt: Payne and Hanek's reduction
(`math_reduction.py`) against mpmath at 60 digits, over the whole float and double
ranges, at the doubles closest to a multiple of pi/2, and on both sides of 2^19 where
the Cody-Waite reduction hands over; the table of 2/pi's bits recomputed."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from oclpy.targets.simt.math_reduction import TWO_OVER_PI
from tests.targets.test_simt_math import run

FUNCTIONS = {"sin": (mp.sin, 4), "cos": (mp.cos, 4), "tan": (mp.tan, 5)}
DTYPES = {"float": np.float32, "double": np.float64}
# doubles within about 2^-61 of a multiple of pi/2 (Muller's worst cases for the reduction)
HARD = [6381956970095103 * 2.0 ** 797, 5261692873635770 * 2.0 ** 499]


def ulps(got: np.ndarray, x: np.ndarray, f, dt: type) -> np.ndarray:  # type: ignore[no-untyped-def]
    with mp.workdps(60):
        out = []
        for g, v in zip(got.astype(np.float64), x.astype(np.float64)):
            r = f(mp.mpf(float(v)))
            spacing = float(np.spacing(np.abs(dt(float(r)))))
            out.append(float(abs(mp.mpf(float(g)) - r) / mp.mpf(spacing)))
        return np.array(out)


@pytest.mark.parametrize("ty", ["float", "double"])
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_huge_arguments_within_the_spec_bound(name: str, ty: str) -> None:
    dt = DTYPES[ty]
    top = float(np.finfo(dt).max)
    rng = np.random.default_rng(17)
    x = np.exp(rng.uniform(np.log(2.0 ** 18), np.log(top), 122)) * rng.choice([-1, 1], 122)
    x = np.concatenate([x, [2.0 ** 19, -2.0 ** 19, np.nextafter(2.0 ** 19, 0), 823549.6, top, -top]]).astype(dt)
    f, bound = FUNCTIONS[name]
    err = ulps(run(name, ty, x), x, f, dt)
    assert err.max() <= bound, f"{name}({ty}): {err.max():.2f} ulp at {x[err.argmax()]!r}"


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_the_closest_doubles_to_multiples_of_half_pi(name: str) -> None:
    """The fraction left after the reduction is about 2^-61: the 190 bits kept leave over 100."""
    x = np.array(HARD + [-v for v in HARD] + [1e22, 1e300], np.float64)
    x = np.concatenate([x, np.full(-len(x) % 8, 1e200)])
    f, _ = FUNCTIONS[name]
    assert ulps(run(name, "double", x), x, f, np.float64).max() <= 1.5


@pytest.mark.parametrize("ty", ["float", "double"])
def test_infinities_and_nan_give_nan(ty: str) -> None:
    dt = DTYPES[ty]
    x = np.array([np.inf, -np.inf, np.nan, 1e30], dt)
    for name in FUNCTIONS:
        got = run(name, ty, x)
        assert np.isnan(got[:3]).all() and np.isfinite(got[3]), name


def test_the_table_is_two_over_pi() -> None:
    with mp.workdps(500):
        bits = 64 * (len(TWO_OVER_PI) - 1)
        want = int(mp.floor(2 / mp.pi * mp.mpf(2) ** bits))
    got = 0
    for word in TWO_OVER_PI:
        got = (got << 64) | word
    assert TWO_OVER_PI[0] == 0 and got == want
