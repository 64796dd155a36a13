"""The CI slice of the client libraries (tools/clients.py `Library.ci`: reikna's
cluda and transformation tests, pyFAI's and silx's quick OpenCL tests; 292 tests)
under `oclpy run -m pytest`, on oclpy's cpu. reikna's tests draw their inputs from
numpy.random, seeded (2) before each test (`Library.seed_numpy`), so the slice's inputs
are the same on every run.

Installing reikna, pyFAI and silx is not cheap (h5py, matplotlib, fabio, ...),
so the README's test set-up does not: this test runs where their venv exists
(OCLPY_CLIENTS_VENV, default /tmp/oclpy-clients-venv, as `python -m tools.clients`
makes it; reikna's tests come from its sdist in OCLPY_CLIENTS_WORK, default
/tmp/oclpy-clients) and is skipped with that reason elsewhere."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools import clients  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("OCLPY_CLIENTS_VENV", "/tmp/oclpy-clients-venv"))
WORK = Path(os.environ.get("OCLPY_CLIENTS_WORK", "/tmp/oclpy-clients"))
SLICE = [lib for lib in clients.LIBRARIES if lib.ci]
# the slice's passing tests on oclpy's cpu (reikna 0.9.0, pyFAI 2026.9.0, silx 3.1.3): 292 in all
PASSING = {"reikna": 274, "pyFAI": 3, "silx": 15}


def test_the_slice_names_three_libraries_and_their_files():
    assert sorted(lib.name for lib in SLICE) == ["pyFAI", "reikna", "silx"]
    assert all(clients.test_files(lib, Path("."), full=False, ci=True) == list(lib.ci) for lib in SLICE)


@pytest.mark.parametrize("lib", SLICE, ids=[lib.name for lib in SLICE])
def test_client_slice_passes_on_oclpy(lib, tmp_path):
    python = VENV / "bin" / "python"
    if not (VENV / ".oclpy-clients-installed").exists():
        pytest.skip(f"reikna, pyFAI and silx are not installed (no venv at {VENV}; "
                    f"`python -m tools.clients` makes one, OCLPY_CLIENTS_VENV names another)")
    try:
        folder = clients.tests_folder(python, lib, WORK)
    except clients.Unavailable as exc:
        pytest.skip(f"{lib.name}'s tests are not at hand: {exc}")
    log = tmp_path / f"{lib.name}.log"
    timeout = 180.0 if clients.has_pytest_timeout(python) else None
    # at this machine's usual load reikna's part takes about 100 s; 1,500 s leaves room for a loaded one
    outcome = clients.run_suite(python, lib, folder, "oclpy", ROOT, 1500.0, timeout, False, log, ci=True)
    assert not outcome.crashed and not outcome.timed_out, log.read_text()[-2000:]
    assert outcome.counts["failed"] == 0, outcome.failures
    assert outcome.counts["passed"] >= PASSING[lib.name], log.read_text()[-2000:]
