"""Runs the FileCheck tests of simt instruction selection in tests/targets/simt_isel/*.oir.

Each file starts with `; RUN: simt-isel` (optionally `--passes=<pipeline>`, run
first), then cases separated by lines `; -----`. Each case is IR text with
`; CHECK...` lines: the runner parses it, runs the pipeline, selects it for
simt (`isel.select_module`), prints the machine code and
matches it with the `filecheck` package. The printed code must also parse
back to the same text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oclpy.ir.parser import parse_module
from oclpy.passes.manager import run_pipeline
from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.isel import select_module
from tests.test_filecheck import filecheck

ROOT = Path(__file__).parent / "simt_isel"
RUN_LINE = re.compile(r";\s*RUN:\s*simt-isel(?:\s+--passes=(\S*))?\s*$")
SEPARATOR = re.compile(r"^;\s*-----\s*$", re.MULTILINE)


def collect() -> list:
    params = []
    for path in sorted(ROOT.glob("*.oir")):
        first, _, rest = path.read_text().partition("\n")
        match = RUN_LINE.fullmatch(first.strip())
        assert match, f"{path}: first line must be '; RUN: simt-isel [--passes=...]'"
        for k, case in enumerate(c for c in SEPARATOR.split(rest) if c.strip()):
            params.append(pytest.param(match.group(1) or "", case, id=f"{path.name}:{k}"))
    return params


def select_text(text: str, pipeline: str) -> str:
    module = parse_module(text)
    if pipeline:
        run_pipeline(module, pipeline, verify_each=True)
    machine = select_module(module)
    return format_module(machine)


@pytest.mark.parametrize("pipeline,case", collect())
def test_simt_isel_filecheck(pipeline: str, case: str, tmp_path: Path) -> None:
    assert "CHECK" in case, "a FileCheck case without CHECK lines tests nothing"
    output = select_text(case, pipeline)
    print(output)
    assert format_module(parse_asm(output, "<selected>")) == output
    assert filecheck(case, output, tmp_path) == 0
