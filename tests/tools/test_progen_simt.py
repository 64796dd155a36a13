"""A slice of the generated-program differential (tools/progen/simt_vs_cpu.py): programs
whose helpers are kept as calls, on the cpu device and on simt with the default register
files and with the smallest the ABI allows (every program with more than a handful of live
values spills), compared bit for bit, as the tool does for its thousands of seeds."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.progen import generate  # noqa: E402
from tools.progen.simt_vs_cpu import MACHINES, SimtChecker, call_sites, helpers, main, merge, with_calls  # noqa: E402

# (seed, mode): programs with helper calls, each mode, quick on the simulator
SLICE = [(1, "barrier"), (2, "atomics"), (4, "float"), (6, "barrier"), (7, "atomics"), (10, "basic"),
         (13, "all"), (16, "barrier"), (18, "all"), (20, "basic"), (21, "barrier"), (26, "barrier"),
         (27, "atomics"), (32, "atomics"), (36, "barrier"), (1005, "basic"), (1012, "atomics"),
         (1014, "float"), (1018, "all"), (1019, "float")]


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    args = argparse.Namespace(out=str(tmp_path_factory.mktemp("progen-simt")), all_shapes=False, timeout=600.0,
                              calls=True, wide64=True, no_reduce=True, seed=SLICE[0][0], count=len(SLICE),
                              mode="cycle")
    c = SimtChecker(args)
    yield c
    c.close()


@pytest.mark.parametrize("seed,mode", SLICE)
def test_generated_program_with_calls_agrees_with_the_cpu(checker: SimtChecker, seed: int, mode: str) -> None:
    assert call_sites(with_calls(generate(seed, mode))) > 0
    line = checker.check(seed, mode)
    assert line == " ".join(f"{m} agree" for m in MACHINES), (line, checker.findings)


def test_helpers_and_call_sites_are_counted_apart() -> None:
    source = with_calls(generate(3, "all"))
    assert helpers(source) == 3 and call_sites(source) == 25


def test_the_summary_says_what_ran_and_merges(tmp_path: Path) -> None:
    """A run of no programs still writes its settings; two summaries merge into one."""
    out = tmp_path / "a.json"
    assert main(["--count", "0", "--seed", "5", "--json", str(out), "--out", str(tmp_path)]) == 0
    assert not out.exists()  # nothing ran: no summary
    run = {"tool": "x", "settings": {"wide64": True}, "seconds": 2.0, "build_errors": {"e": 1}, "findings": [],
           "seeds": {"3": {"mode": "all", "default": "agree", "tiny": "agree", "helpers": 3, "call_sites": 25}}}
    other = {**run, "seconds": 1.0, "build_errors": {"e": 2},
             "seeds": {"5": {"mode": "basic", "default": "agree", "tiny": "differ", "calls": 0}}}
    merged = merge([run, other])
    assert merged["programs"] == 2 and merged["programs_with_calls"] == 1 and merged["seconds"] == 3.0
    assert merged["counts"] == {"default": {"agree": 2}, "tiny": {"agree": 1, "differ": 1}}
    assert merged["build_errors"] == {"e": 3}
    assert merged["seeds"]["5"]["call_sites"] == 0 and "calls" not in merged["seeds"]["5"]  # recounted
    a, b = tmp_path / "r.json", tmp_path / "o.json"
    a.write_text(json.dumps(run))
    b.write_text(json.dumps(other))
    assert main(["--merge", str(a), str(b), "--json", str(tmp_path / "m.json")]) == 0
    assert json.loads((tmp_path / "m.json").read_text())["programs"] == 2
    again = merge([merged, {**run, "seeds": {"7": {"mode": "barrier", "default": "agree", "tiny": "agree",
                                                   "helpers": 1, "call_sites": 2}}}])  # a merged summary merges on
    assert again["programs"] == 3 and len(again["merged_from"]) == 3
