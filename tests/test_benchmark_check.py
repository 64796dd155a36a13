"""benchmarks.case.check: how a benchmark's output is compared with its NumPy reference."""

from __future__ import annotations

import numpy as np

from benchmarks.case import Arg, Case, check


def _case(**extra: object) -> Case:
    want = np.array([10, 20, 30, 40], np.uint8)
    return Case("c", "k", "", [Arg("out", "out", np.zeros(4, np.uint8))], (4,), None, "4",
                lambda v: {"out": want}, extra=dict(extra))


def test_integers_are_exact_by_default():
    assert check(_case(), {"out": np.array([10, 20, 30, 40], np.uint8)}) is None
    problem = check(_case(), {"out": np.array([10, 21, 30, 40], np.uint8)})
    assert problem == "out: 1 of 4 elements differ (first at 1: got np.uint8(21), want np.uint8(20))"


def test_int_atol_allows_neighbours_only():
    case = _case(int_atol=1)
    assert check(case, {"out": np.array([11, 19, 30, 40], np.uint8)}) is None  # no uint8 wrap-around
    assert "first at 2" in check(case, {"out": np.array([11, 19, 32, 40], np.uint8)})


def test_mismatch_fraction_allows_that_many_misses():
    case = _case(mismatch_fraction=0.25)
    assert check(case, {"out": np.array([0, 20, 30, 40], np.uint8)}) is None
    assert check(case, {"out": np.array([0, 0, 30, 40], np.uint8)}) is not None
