"""`oclpy opt` and the pass-watching options of `oclpy build`: the empty
pipeline prints the IR of `oclpy build --emit ir` back byte for byte;
--print-after-all, --verify-each, --time-passes; `build --stats`; errors."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from oclpy.cli.commands import main, split_build_args
from oclpy.passes.manager import pass_timing, run_pipeline
from oclpy.ir.parser import parse_module

KERNELS = sorted(p for p in (Path(__file__).parent.parent / "frontend" / "kernels").glob("*.cl")
                 if p.name != "structs.cl")

GENERIC_SRC = """
void add_to(float *p, float v) { *p += v; }
kernel void k(global float *a, local float *tmp, int n) {
    int i = get_global_id(0);
    float *q = a + i;
    tmp[get_local_id(0)] = *q;
    float *b = a + 1;
    float *p = n > 0 ? q : b;
    add_to(p, 1.0f);
    if (i < n) add_to(&tmp[0], 2.0f);
}
"""


def _build_ir(path: Path, level: str, capsys) -> str:
    assert main(["build", str(path), "--emit", "ir", level]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_empty_pipeline_prints_build_output_byte_for_byte(level, tmp_path, capsys):
    assert len(KERNELS) >= 20
    for kernel in KERNELS:
        text = _build_ir(kernel, level, capsys)
        oir = tmp_path / (kernel.stem + ".oir")
        oir.write_text(text)
        assert main(["opt", str(oir), "--passes="]) == 0
        assert capsys.readouterr().out == text, kernel.name


def test_opt_runs_a_pipeline_and_prints_after_each_pass(tmp_path, capsys):
    oir = tmp_path / "k.oir"
    built = _build_ir(KERNELS[0], "-O0", capsys)
    assert "alloca" in built  # locals start in memory at -O0 ...
    oir.write_text(built)
    assert main(["opt", str(oir), "--passes=mem2reg,simplify", "--print-after-all",
                 "--verify-each"]) == 0
    out = capsys.readouterr().out
    first = out.index("; *** IR after mem2reg ***")
    second = out.index("; *** IR after simplify ***")
    assert first < second
    after_mem2reg = out[first:second]
    assert "kernel void" in after_mem2reg and "alloca" not in after_mem2reg  # ... promoted


def test_opt_time_passes_reports_on_stderr(tmp_path, capsys):
    oir = tmp_path / "k.oir"
    oir.write_text(_build_ir(KERNELS[0], "-O0", capsys))
    assert main(["opt", str(oir), "--passes=O2", "--time-passes"]) == 0
    err = capsys.readouterr().err
    assert "pass execution timing report" in err
    assert "infer-address-spaces" in err and err.rstrip().endswith("total")


def test_build_time_passes_reports_on_stderr(tmp_path, capsys):
    src = tmp_path / "k.cl"
    src.write_text(GENERIC_SRC)
    assert main(["build", str(src), "--emit", "ir", "-cl-std=CL2.0", "--time-passes"]) == 0
    captured = capsys.readouterr()
    assert "pass execution timing report" in captured.err and "mem2reg" in captured.err
    assert "pass execution timing report" not in captured.out


def test_build_stats_table(tmp_path, capsys):
    src = tmp_path / "k.cl"
    src.write_text(GENERIC_SRC)
    rows = {}
    for level in ("-O0", "-O2"):
        assert main(["build", str(src), "-cl-std=CL2.0", level, "--stats"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].split() == ["kernel", "instrs", "generic", "mem", "named", "mem", "div",
                                    "branches", "allocas"]
        rows[level] = lines[1].split()
    name, instrs, generic, named, divergent, allocas = rows["-O0"]
    assert name == "k" and int(generic) > 0 and int(allocas) > 0
    name, instrs, generic, named, divergent, allocas = rows["-O2"]
    # The select of two global pointers is knowable; everything is named.
    assert (int(generic), int(allocas), int(divergent)) == (0, 0, 1)
    assert int(named) > 0


def test_stats_and_time_passes_are_ours_not_opencl_options():
    ours, cl = split_build_args(["k.cl", "--stats", "--time-passes", "-cl-std=CL2.0"])
    assert ours == ["k.cl", "--stats", "--time-passes"] and cl == ["-cl-std=CL2.0"]


@pytest.mark.parametrize("text, passes, message", [
    ("define void @f() {\nentry:\n  ret void\n}\n", "nope", "unknown pass 'nope'"),
    ("define void @f() {\nentry:\n  ret voidd\n}\n", "", "expected a type, found 'voidd'"),
    ("define void @f() {\nentry:\n  ret i32 1\n}\n", "", "returns i32, but @f returns void"),
])
def test_opt_errors(text, passes, message, tmp_path, capsys):
    oir = tmp_path / "bad.oir"
    oir.write_text(text)
    assert main(["opt", str(oir), f"--passes={passes}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("oclpy opt: error: ") and message in err


def test_opt_missing_file(tmp_path, capsys):
    assert main(["opt", str(tmp_path / "none.oir"), "--passes="]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_pass_timing_applies_only_inside_the_block():
    module = parse_module("define i32 @f() {\nentry:\n  %x = add i32 1, 2\n  ret i32 %x\n}\n")
    stream = io.StringIO()
    with pass_timing(stream):
        run_pipeline(module, "simplify")
    run_pipeline(module, "simplify")
    assert stream.getvalue().count("pass execution timing report") == 1
    assert "simplify" in stream.getvalue()


def test_opt_print_after_one_pass(tmp_path, capsys):
    oir = tmp_path / "k.oir"
    oir.write_text(_build_ir(KERNELS[0], "-O0", capsys))
    assert main(["opt", str(oir), "--passes=O2", "--print-after=infer-address-spaces"]) == 0
    out = capsys.readouterr().out
    assert out.count("; *** IR after ") == 1 and "; *** IR after infer-address-spaces ***" in out
    assert main(["opt", str(oir), "--passes=O2", "--print-after=nope"]) == 1
    assert "print-after: unknown pass 'nope'" in capsys.readouterr().err
