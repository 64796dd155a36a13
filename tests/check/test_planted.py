"""Each planted bug gives exactly its expected report; each fixed kernel gives none."""

from __future__ import annotations

import pytest

from planted import CASES, Case
from run_case import run_case, summary_of


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_planted_bug_is_reported_exactly(case: Case) -> None:
    assert [summary_of(r) for r in run_case(case)] == list(case.expected)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixed_kernel_has_no_report(case: Case) -> None:
    assert [summary_of(r) for r in run_case(case, fixed=True)] == []


def test_every_check_family_has_a_planted_bug() -> None:
    from oclpy.targets.simt.check.check_session import CHECKS
    assert {c.check for c in CASES} == set(CHECKS)
