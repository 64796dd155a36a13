"""FileCheck tests of the simt register allocator: tests/targets/simt_regalloc/*.s.

Each file starts with `; RUN: regalloc sgprs=<n> vgprs=<n>` (the register
file sizes), then cases separated by lines `; -----`. A case is machine code
with virtual registers and `; CHECK...` comment lines: the runner parses it,
allocates every function with the checker on (`allocate_module(...,
check=True)`), prints the result and matches it against the CHECK lines with
the `filecheck` package.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from filecheck.matcher import Matcher
from filecheck.options import parse_argv_options

from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.regalloc import allocate_module

ROOT = Path(__file__).parent / "simt_regalloc"
RUN_LINE = re.compile(r";\s*RUN:\s*regalloc\s+sgprs=(\d+)\s+vgprs=(\d+)\s*$")
SEPARATOR = re.compile(r"^;\s*-----\s*$", re.MULTILINE)


def filecheck(check_text: str, output: str, tmp_path: Path) -> int:
    check_file, input_file = tmp_path / "check.s", tmp_path / "output.s"
    check_file.write_text(check_text)
    input_file.write_text(output)
    opts = parse_argv_options(["filecheck", str(check_file), "--input-file", str(input_file)])
    return Matcher.from_opts(opts).run()


def split_cases(path: Path) -> tuple[dict[str, int], list[str]]:
    first, _, rest = path.read_text().partition("\n")
    match = RUN_LINE.fullmatch(first.strip())
    if match is None:
        raise ValueError(f"{path}: first line must be '; RUN: regalloc sgprs=<n> vgprs=<n>'")
    files = {"s": int(match.group(1)), "v": int(match.group(2))}
    return files, [c for c in SEPARATOR.split(rest) if c.strip()]


def collect() -> list:
    params = []
    for path in sorted(ROOT.glob("*.s")):
        files, cases = split_cases(path)
        params += [pytest.param(files, case, id=f"{path.name}:{k}") for k, case in enumerate(cases)]
    return params


@pytest.mark.parametrize("files,case", collect())
def test_regalloc_filecheck(files: dict[str, int], case: str, tmp_path: Path) -> None:
    assert "CHECK" in case, "a FileCheck case without CHECK lines tests nothing"
    output = format_module(allocate_module(parse_asm(case), files, check=True))
    print(output)
    assert filecheck(case, output, tmp_path) == 0


def test_the_allocated_text_parses_back() -> None:
    for path in sorted(ROOT.glob("*.s")):
        files, cases = split_cases(path)
        for case in cases:
            text = format_module(allocate_module(parse_asm(case), files))
            assert format_module(parse_asm(text)) == text
