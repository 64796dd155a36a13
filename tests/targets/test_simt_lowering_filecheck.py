"""FileCheck tests of the simt pipeline's last steps (frame lowering, then pseudo lowering):
tests/targets/simt_lowering/*.s, plus the error path of pseudo lowering.

Each file starts with `; RUN: lower sgprs=<n> vgprs=<n>` (the register files), then cases
separated by `; -----`: allocated machine code and `; CHECK...` lines. The runner parses a
case, runs `frame_lowering.lower_frames` and `pseudo_lowering.lower_pseudos`, prints the
result, which must parse back, and matches it with the `filecheck` package.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.frame_lowering import lower_frames
from oclpy.targets.simt.pseudo_lowering import PseudoLoweringError, lower_pseudos
from tests.targets.test_simt_regalloc_filecheck import filecheck

ROOT = Path(__file__).parent / "simt_lowering"
RUN_LINE = re.compile(r";\s*RUN:\s*lower\s+sgprs=(\d+)\s+vgprs=(\d+)\s*$")
SEPARATOR = re.compile(r"^;\s*-----\s*$", re.MULTILINE)


def collect() -> list:
    params = []
    for path in sorted(ROOT.glob("*.s")):
        first, _, rest = path.read_text().partition("\n")
        match = RUN_LINE.fullmatch(first.strip())
        assert match, f"{path}: first line must be '; RUN: lower sgprs=<n> vgprs=<n>'"
        files = {"s": int(match.group(1)), "v": int(match.group(2))}
        cases = [c for c in SEPARATOR.split(rest) if c.strip()]
        params += [pytest.param(files, case, id=f"{path.name}:{k}") for k, case in enumerate(cases)]
    return params


@pytest.mark.parametrize("files,case", collect())
def test_lowering_filecheck(files: dict[str, int], case: str, tmp_path: Path) -> None:
    assert "CHECK" in case, "a FileCheck case without CHECK lines tests nothing"
    module = parse_asm(case)
    lower_frames(module)
    lower_pseudos(module, files)
    output = format_module(module)
    print(output)
    assert format_module(parse_asm(output)) == output
    assert filecheck(case, output, tmp_path) == 0


def test_a_cycle_with_no_free_register_and_a_live_scc_is_an_error() -> None:
    module = parse_asm("""
kernel @k {
entry:
  s_cmp_eq_u32 s0, 0
  p_join s[40:47], s41, s40, s42, s43, s44, s45, s46, s47
  s_cbranch_scc1 entry
  s_endpgm
}""")
    with pytest.raises(PseudoLoweringError, match=r"cannot break the copy cycle through s40: no free register "
                                                  r"and scc is live"):
        lower_pseudos(module, {"s": 48, "v": 24})


def test_virtual_registers_keep_their_pseudos() -> None:
    module = parse_asm("kernel @k {\nentry:\n  p_copy %v1, v0\n  s_endpgm\n}")
    lower_pseudos(module)
    assert [i.op for i in module.functions[0].instrs()] == ["p_copy", "s_endpgm"]
