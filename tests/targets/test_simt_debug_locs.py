"""Debug locations from OpenCL C through the simt pipeline, and their text form.

FileCheck cases in tests/targets/simt_locs/*.cl: each case (cases separated
by `// -----`) starts with `// RUN: simt-locs -O<level>`, is compiled as
`k.cl` for simt and printed with its debug locations (line numbers count
from the case's first line). Unit tests pin what carries the locations: IR
instructions from the frontend, instruction selection, register allocation
with spills, the machine code's text (round trip, the build cache) and the
simulator's pc -> location table.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from oclpy.compiler.toolchain import compile_program, frontend_for, optimize
from oclpy.diagnostics import SourceLocation
from oclpy.targets.simt.asm_parser import AsmParseError, parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.device_config import SimtMachine
from oclpy.targets.simt.simt_program import program_from_record, program_record
from oclpy.targets.simt.simt_target import compile_simt
from oclpy.targets.simt.simulator import SimConfig, load_program
from oclpy.targets.target import Target
from tests.test_filecheck import filecheck

ROOT = Path(__file__).parent / "simt_locs"
RUN_LINE = re.compile(r"//\s*RUN:\s*simt-locs\s+-O([012])\s*$")
SEPARATOR = re.compile(r"^//\s*-----\s*$", re.MULTILINE)


def collect() -> list:
    params = []
    for path in sorted(ROOT.glob("*.cl")):
        for k, case in enumerate(SEPARATOR.split(path.read_text())):
            case = case.lstrip("\n")
            match = RUN_LINE.fullmatch(case.partition("\n")[0].strip())
            assert match, f"{path} case {k}: first line must be '// RUN: simt-locs -O<level>'"
            params.append(pytest.param(int(match.group(1)), case, id=f"{path.name}:{k}"))
    return params


def simt(level: int) -> Target:
    return replace(SimtMachine().target(), opt_level=level)


@pytest.mark.parametrize("level,case", collect())
def test_simt_locs_filecheck(level: int, case: str, tmp_path: Path) -> None:
    program = compile_program(case, f"-O{level}" if level else "", simt(level), "k.cl").program
    output = format_module(program.module, locs=True)
    print(output)
    assert format_module(parse_asm(output, "<printed>"), locs=True) == output
    assert filecheck(case.replace("//", ";"), output, tmp_path) == 0


SOURCE = """__kernel void k(__global int *out, __global const int *a, int n) {
    int i = get_global_id(0);
    if (i < n)
        out[i] = a[i] / n;
}
"""


def test_ir_instructions_carry_the_frontends_locations() -> None:
    module = frontend_for(SOURCE, "", "k.cl").module
    optimize(module, 2, "simt")
    located = {(i.op, str(i.loc)) for fn in module.functions for b in fn.blocks for i in b.instrs}
    assert ("load", "k.cl:4:19") in located  # a[i]: the subscript
    assert ("store", "k.cl:4:16") in located  # out[i] = ...: the assignment
    assert ("sdiv", "k.cl:4:23") in located
    assert ("icmp", "k.cl:3:11") in located  # i < n


def test_spill_code_has_no_location_and_the_spilled_instruction_keeps_its_own() -> None:
    module = frontend_for(SOURCE, "", "k.cl").module
    optimize(module, 2, "simt")
    program = compile_simt(module, SimtMachine(sgprs=48, vgprs=24), filename="k.cl")
    instrs = [i for fn in program.module.functions for i in fn.instrs()]
    assert [str(i.loc) for i in instrs if i.op == "global_store_b32"] == ["k.cl:4:16"]
    assert all(i.loc is None for i in instrs if i.op == "s_endpgm")


def test_cached_record_keeps_locations() -> None:
    program = compile_program(SOURCE, "", simt(2), "k.cl").program
    record, text = program_record(program)
    back = program_from_record(record, text)
    before = [i.loc for fn in program.module.functions for i in fn.instrs()]
    after = [i.loc for fn in back.module.functions for i in fn.instrs()]
    assert after == before and any(before)


def test_simulator_maps_each_pc_to_its_location() -> None:
    program = compile_program(SOURCE, "", simt(2), "k.cl").program
    decoded = load_program(program.module, SimConfig())
    assert len(decoded.locs) == len(decoded.code)
    stores = [pc for pc, d in enumerate(decoded.code) if d.instr.op == "global_store_b32"]
    assert [decoded.locs[pc] for pc in stores] == [SourceLocation("k.cl", 4, 16)]


def test_location_text_round_trips_quotes_in_file_names() -> None:
    text = 'kernel @k {\nentry:\n  s_endpgm loc "a \\"b\\".cl":3:7\n}\n'
    module = parse_asm(text)
    assert module.functions[0].blocks[0].instrs[0].loc == SourceLocation('a "b".cl', 3, 7)
    assert format_module(module, locs=True) == text
    assert "loc" not in format_module(module)


def test_malformed_location_is_a_parse_error() -> None:
    with pytest.raises(AsmParseError) as err:
        parse_asm('kernel @k {\nentry:\n  s_endpgm loc "k.cl":x:7\n}\n')
    assert err.value.message == "expected a line number, found 'x'"
    assert (err.value.loc.line, err.value.loc.col) == (3, 23)


def test_oclpy_build_emit_isa_locs_prints_locations(tmp_path, capsys) -> None:
    from oclpy.cli.commands import main
    path = tmp_path / "k.cl"
    path.write_text(SOURCE)
    assert main(["build", str(path), "--emit", "isa", "--locs"]) == 0
    out = capsys.readouterr().out
    assert re.search(r'global_store_b32 v\[\d+:\d+\], v\d+, 0 loc "' + re.escape(str(path)) + '":4:16', out)
    assert main(["build", str(path), "--emit", "isa"]) == 0
    assert " loc " not in capsys.readouterr().out
