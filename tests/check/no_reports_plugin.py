"""A pytest plugin: run a test suite under the checker and fail it on any report.

    OCLPY_CHECK=1 OCLPY_DEVICE=simt python -m pytest tests/e2e -p tests.check.no_reports_plugin

Each report is attributed to the test that was running when it was found;
at the end every report is listed with its test, and the session fails when
there is one (the e2e kernels are meant to be clean: no false positives).
"""

from __future__ import annotations

import pytest

from oclpy.runtime import checking
from oclpy.targets.simt.check.check_render import render_report
from oclpy.targets.simt.check.check_report import Report

FOUND: list[tuple[str, Report]] = []
CURRENT = ["(no test)"]


def pytest_configure(config: pytest.Config) -> None:
    checking.enable(summary_at_exit=False)
    checking.SESSION.printing = False
    checking.on_report(lambda report: FOUND.append((CURRENT[0], report)))


def pytest_runtest_setup(item: pytest.Item) -> None:
    CURRENT[0] = item.nodeid


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not FOUND:
        print("\nno check reports")
        return
    print(f"\n{len(FOUND)} check report(s):")
    for test, report in FOUND:
        print(f"--- {test}\n{render_report(report, checking.SESSION.sources)}")
    session.exitstatus = 1
