"""The simt target through the compiler's door: its Target value, its build cache record
(checked on the way back), and `oclpy build --device simt --emit isa --stats`."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from oclpy.cli.commands import main
from oclpy.compiler import Target, build, cache, door, simt_target, toolchain
from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.device_config import SimtMachine, machine_from_env, machine_of
from oclpy.targets.simt.simt_program import SimtProgram, program_from_record, program_record

SRC = """__attribute__((noinline)) float f(float a, float b) { return a * b + 1.0f; }
__constant int table[4] = {1, 2, 3, 4};
__attribute__((reqd_work_group_size(64, 1, 1))) kernel void k(global float *a, local float *t, int n) {
  int i = get_global_id(0);
  t[get_local_id(0)] = a[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) a[i] = f(a[i], t[(get_local_id(0) + 1) % 64]) + table[i & 3];
}
"""


def test_the_simt_target_carries_the_wave_width_and_the_register_files() -> None:
    target = simt_target(SimtMachine(16, 48, 24))
    assert target == Target("simt", "simt-w16", "sgprs=48,vgprs=24")
    assert machine_of(target) == SimtMachine(16, 48, 24)
    assert simt_target() == Target("simt", "simt-w32", "sgprs=128,vgprs=256")


@pytest.mark.parametrize("target,message", [
    (Target("simt", "gfx90a", "sgprs=128,vgprs=256"), "not a simt target: kind 'simt', arch 'gfx90a'"),
    (Target("simt", "simt-w32", "vgprs=256"), "expected simt-w<W> and sgprs=<S>,vgprs=<V>"),
    (Target("simt", "simt-w12", "sgprs=128,vgprs=256"), "wave width 12: must be 8, 16, 32 or 64"),
    (Target("simt", "simt-w32", "sgprs=40,vgprs=256"),
     "scalar register file of 40 registers: must be a multiple of 4 and at least 48"),
])
def test_a_target_no_simt_device_could_be_is_refused(target: Target, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        machine_of(target)


def test_the_environment_configures_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCLPY_SIMT_WAVE", "64")
    monkeypatch.setenv("OCLPY_SIMT_VGPRS", "32")
    assert machine_from_env() == SimtMachine(64, 128, 32)
    monkeypatch.setenv("OCLPY_SIMT_SGPRS", "lots")
    with pytest.raises(ValueError, match="OCLPY_SIMT_SGPRS='lots': expected a number"):
        machine_from_env()
    monkeypatch.setenv("OCLPY_SIMT_SGPRS", "50")
    with pytest.raises(ValueError, match="scalar register file of 50 registers"):
        machine_from_env()


def test_a_build_for_simt_is_allocated_machine_code_with_the_kernels_facts() -> None:
    result = build(SRC, "", simt_target(SimtMachine(32, 48, 24)))
    program = result.program
    assert isinstance(program, SimtProgram) and result.target.opt_level == 2
    kernel = program.kernels["k"]
    assert [a.kind for a in kernel.args] == ["global", "local", "scalar"]
    assert kernel.reqd_work_group_size == (64, 1, 1)
    assert program.constant_data == b"\x01\0\0\0\x02\0\0\0\x03\0\0\0\x04\0\0\0" and program.relocations == []
    body = [line for line in program.asm().splitlines() if "= slot" not in line]
    assert not any("%" in line for line in body)  # no virtual register, no unresolved slot
    assert {f.name for f in program.module.functions} == {"k", "f"}


def test_the_record_round_trips_and_is_checked_on_the_way_back() -> None:
    program = build(SRC, "", simt_target()).program
    data, blob = program_record(program)
    back = program_from_record(copy.deepcopy(data), blob)
    assert back.asm() == program.asm() and back.machine == program.machine
    assert back.kernels["k"] == program.kernels["k"] and back.constant_data == program.constant_data
    bad = [
        ({**data, "machine": {**data["machine"], "sgprs": 7}}, blob, "scalar register file of 7"),
        ({**data, "machine": {"wave_width": 32}}, blob, "machine"),
        (data, b"kernel @k {\nentry:\n  v_frob v0\n}", "the machine code does not parse"),
        (data, blob.replace(b"kernel @k", b"func @k"), "no kernel @k in the machine code"),
        ({**data, "constant_data": "zz"}, blob, "the constant data is not hexadecimal bytes"),
        ({**data, "relocations": [["constant", 0, "text", 0]]}, blob,
         r"a relocation is not \[block, offset, target, addend\]"),
        ({**data, "relocations": [["constant", 12, "constant", 0]]}, blob, "relocation offset"),
        ({**data, "relocations": {}}, blob, "relocations is not a list"),
        ({**data, "kernels": []}, blob, "kernels is not an object"),
    ]
    for record, text, message in bad:
        with pytest.raises(ValueError, match=message):
            program_from_record(record, text)


def test_the_disk_cache_serves_a_simt_program(root: Path, compiles: list[str]) -> None:
    first = build(SRC, "", simt_target())
    cache.clear_memory()
    second = build(SRC, "", simt_target())
    assert len(compiles) == 1 and second.program.asm() == first.program.asm()
    assert door.RECORDS["simt"][1] is program_from_record and "simt" in toolchain.BACKENDS


def test_emit_isa_prints_final_code_that_parses_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.cl"
    path.write_text(SRC)
    assert main(["build", str(path), "--device", "simt", "--emit", "isa"]) == 0
    text = capsys.readouterr().out
    assert "s_call_b64 s[30:31], @f" in text and "%v" not in text and "%s" not in text
    assert format_module(parse_asm(text)) + "\n" in (text, text + "\n")


def test_stats_on_simt_print_the_machine_resources(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "k.cl"
    path.write_text(SRC)
    monkeypatch.setenv("OCLPY_SIMT_VGPRS", "24")
    monkeypatch.setenv("OCLPY_SIMT_SGPRS", "48")
    assert main(["build", str(path), "--device", "simt", "--stats"]) == 0
    out = capsys.readouterr().out
    assert "simt: wave 32, 48 sgprs, 24 vgprs" in out
    header, row = [line.split() for line in out.splitlines()[-2:]]
    assert header[:3] == ["kernel", "sgprs", "vgprs"] and row[0] == "k"
    sgprs, vgprs, spills, scratch, local, waves = map(int, row[1:])
    assert sgprs <= 48 and vgprs <= 24 and local == 0 and 1 <= waves <= 16
    assert scratch >= 4 * spills


def test_emit_llvm_on_simt_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.cl"
    path.write_text(SRC)
    assert main(["build", str(path), "--device", "simt", "--emit", "llvm"]) == 1
    assert "--emit llvm: the simt device is not compiled through LLVM" in capsys.readouterr().err


def test_relocations_round_trip_through_the_record() -> None:
    src = ("constant int t[4] = {1, 2, 3, 4};\nconstant int *constant p = t - 1;\nconstant int *constant q = &t[3];\n"
           "kernel void k(global int *o) { o[0] = p[1] + *q; }")
    program = build(src, "", simt_target()).program
    assert [(r.block, r.target, r.addend) for r in program.relocations] == [("constant", "constant", -4),
                                                                            ("constant", "constant", 12)]
    data, blob = program_record(program)
    back = program_from_record(copy.deepcopy(data), blob)
    assert back.relocations == program.relocations and back.constant_data == program.constant_data
