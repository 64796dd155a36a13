"""tests/check: the planted-bug suite runs with the checker on, its reports collected, not printed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from oclpy.runtime import checking

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def checked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OCLPY_CHECK", "1")
    monkeypatch.setattr(checking.SESSION, "printing", False)
    checking.clear()
    yield
    checking.clear()
