"""Runs the FileCheck tests in tests/filecheck/<pass>/*.oir.

Each file starts with `; RUN: opt --passes=<pipeline>`, then one or more
cases separated by lines `; -----`. Each case is IR text with `; CHECK...`
comment lines: the runner parses the case, runs the pipeline with the
verifier after each pass (`opt_text`), prints the result and matches it
against the case's CHECK lines with the `filecheck` package (a clone of
LLVM's FileCheck).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from filecheck.matcher import Matcher
from filecheck.options import parse_argv_options

from oclpy.passes.manager import opt_text

ROOT = Path(__file__).parent / "filecheck"
RUN_LINE = re.compile(r";\s*RUN:\s*opt\s+--passes=(\S*)\s*$")
SEPARATOR = re.compile(r"^;\s*-----\s*$", re.MULTILINE)


def split_cases(path: Path) -> tuple[str, list[str]]:
    """The pipeline of a test file and its cases."""
    text = path.read_text()
    first, _, rest = text.partition("\n")
    match = RUN_LINE.fullmatch(first.strip())
    if match is None:
        raise ValueError(f"{path}: first line must be '; RUN: opt --passes=<pipeline>'")
    return match.group(1), [c for c in SEPARATOR.split(rest) if c.strip()]


def collect() -> list:
    params = []
    for path in sorted(ROOT.rglob("*.oir")):
        pipeline, cases = split_cases(path)
        for k, case in enumerate(cases):
            name = f"{path.relative_to(ROOT)}:{k}"
            params.append(pytest.param(pipeline, case, id=name))
    return params


def filecheck(check_text: str, output: str, tmp_path: Path) -> int:
    check_file = tmp_path / "check.oir"
    input_file = tmp_path / "output.oir"
    check_file.write_text(check_text)
    input_file.write_text(output)
    opts = parse_argv_options(["filecheck", str(check_file), "--input-file", str(input_file)])
    return Matcher.from_opts(opts).run()


@pytest.mark.parametrize("pipeline,case", collect())
def test_filecheck(pipeline: str, case: str, tmp_path: Path) -> None:
    assert "CHECK" in case, "a FileCheck case without CHECK lines tests nothing"
    output = opt_text(case, pipeline, verify_each=True)
    print(output)
    assert filecheck(case, output, tmp_path) == 0


def test_every_pass_has_filecheck_tests() -> None:
    from oclpy.passes.manager import PASSES

    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and any(p.glob("*.oir"))}
    missing = sorted(set(PASSES) - folders)
    assert not missing, f"passes without FileCheck tests: {missing}"


def test_filecheck_runner_detects_a_mismatch(tmp_path: Path) -> None:
    assert filecheck("; CHECK: ret i32 7\n", "ret i32 8\n", tmp_path) != 0
    assert filecheck("; CHECK: ret i32 7\n", "ret i32 7\n", tmp_path) == 0


def test_bad_run_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.oir"
    bad.write_text("; RUN: something else\n")
    with pytest.raises(ValueError, match="first line must be"):
        split_cases(bad)
