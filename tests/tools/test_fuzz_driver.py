"""tools/fuzz/driver: the loop both mutators share counts outcomes, keeps the first case of
each finding, and in a worker process turns a hang or a crash into a finding."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.fuzz import driver  # noqa: E402
from tools.fuzz.driver import FuzzReport, campaign, internal_detail, run_here, run_in_worker, saver  # noqa: E402


def build(case: str) -> tuple[str, str]:
    """A stand-in compiler: the case says what happens."""
    if case == "sleep":
        time.sleep(30)
    if case == "nap":
        time.sleep(1.5)
    if case == "spin":
        while True:
            pass
    if case == "die":
        os._exit(3)
    if case.startswith("bug"):
        try:
            raise KeyError(case)
        except KeyError as exc:
            return "internal", internal_detail(exc)
    return ("diagnostic", "") if case == "bad" else ("ok", "")


def test_outcomes_are_counted_and_the_first_case_of_each_finding_kept() -> None:
    report = run_here(["ok", "bad", "bug1", "bug1", "ok"], build)
    assert report.cases == 5 and report.outcomes == {"ok": 2, "diagnostic": 1, "internal": 2}
    [(kind, case)] = report.internal.items()
    assert kind.startswith("internal: KeyError at test_fuzz_driver.py:") and kind.endswith("'bug1'")
    assert case == "bug1"


def test_a_time_limit_stops_the_run() -> None:
    report = run_here(iter(lambda: "ok", None), build, time_limit=0.2)
    assert 0 < report.cases and report.seconds >= 0.2


def test_a_worker_that_hangs_or_dies_is_a_finding_and_is_replaced() -> None:
    report = run_in_worker(["ok", "spin", "ok", "die", "bad", "sleep"], build, timeout=1)
    assert report.outcomes == {"ok": 2, "hang": 2, "died": 1, "diagnostic": 1}
    assert report.internal == {"hang: no answer within 1 s of CPU": "spin", "died: exit status 3": "die"}


def test_the_time_limit_counts_cpu_seconds_not_waiting() -> None:
    """A case that waits (a loaded machine, at nice 19) past its CPU limit is not a
    hang; one that waits past WALL_FACTOR times it is."""
    assert driver.WALL_FACTOR * 1 > 1.5 + 1
    report = run_in_worker(["nap", "ok"], build, timeout=1)
    assert report.outcomes == {"ok": 2}
    report = run_in_worker(["sleep"], build, timeout=1)  # 30 s asleep: stopped at 4 s of wall clock
    assert report.outcomes == {"hang": 1}


def test_cpu_seconds_of_a_process() -> None:
    used = driver.cpu_seconds(os.getpid())
    assert used is not None and used > 0
    assert driver.cpu_seconds(2**22 + 12345) is None  # no such process


def test_reports_merge() -> None:
    a, b = run_here(["ok", "bug1"], build), run_here(["bad", "bug1"], build)
    a.merge(b)
    assert a.cases == 4 and a.outcomes == {"ok": 1, "diagnostic": 1, "internal": 2} and len(a.internal) == 1


def _save(path: Path, kind: str, case: str) -> None:
    path.with_suffix(".txt").write_text(f"{kind}\n{case}")


def _job(chunk: tuple) -> FuzzReport:
    cases, seed, limit, save, word = chunk
    return run_here([word, "bug9"] * cases, build, limit, saver(save, str(seed), _save))


def test_a_campaign_saves_each_finding_when_found_and_prints_the_counts(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    args = argparse.Namespace(cases=2, jobs=1, seed=0, minutes=None, save=tmp_path / "found")
    assert campaign(args, _job, ("bug2",)) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("found internal: KeyError at test_fuzz_driver.py:") and out[0].endswith("(case-0-0)")
    assert out[2] == "4 cases in 0 s: internal 4"
    assert out[3].endswith(" cases a CPU second") and " s of CPU: " in out[3]
    saved = sorted(p.name for p in (tmp_path / "found").iterdir())
    assert saved == ["case-0-0.txt", "case-0-1.txt"]
    assert (tmp_path / "found" / "case-0-1.txt").read_text().endswith("'bug9'\nbug9")
    args.save = None
    assert campaign(args, _job, ("ok",)) == 1  # bug9 still: found, nothing written


def test_a_worker_run_says_how_far_it_got(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(driver, "PROGRESS", 0.0)
    run_in_worker(["ok", "bad", "ok"], build, timeout=30)
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("2 cases in ") and lines[-1].endswith("s: diagnostic 1, ok 1")


def test_a_campaign_writes_its_summary_as_json(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    out = tmp_path / "results" / "fuzz.json"
    args = argparse.Namespace(cases=2, jobs=1, seed=3, minutes=None, save=None, json=out, backend=False, timeout=9.0)
    assert campaign(args, _job, ("bad",)) == 1
    data = json.loads(out.read_text())
    assert data["asked"] == {"cases": 2, "seed": 3, "jobs": 1, "minutes": None, "backend": False, "timeout": 9.0}
    assert data["cases"] == 4 and data["outcomes"] == {"diagnostic": 2, "internal": 2}
    assert data["cpu_seconds"] >= 0 and "cases_per_cpu_second" in data
    assert not data["stopped_by_time_limit"]
    [kind] = data["findings"]
    assert kind.startswith("internal: KeyError at test_fuzz_driver.py:") and kind.endswith("'bug9'")


def test_every_hang_and_death_is_saved_up_to_a_number(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(driver, "KEEP_EACH", 2)
    saved: list[tuple[str, str]] = []
    report = run_in_worker(["die", "bug1", "die", "bug1", "die"], build, timeout=30,
                           found=lambda kind, case: saved.append((kind, case)))
    assert report.outcomes == {"died": 3, "internal": 2}
    assert [case for _, case in saved] == ["die", "bug1", "die"]  # one internal kind, two deaths
