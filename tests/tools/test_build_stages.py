"""tools/build_stages.py: oclpy's own build of a kernel stage by stage, and its IR."""

from __future__ import annotations

import pstats
import re

from oclpy import compiler
from oclpy.ir.printer import print_module
from oclpy.passes.manager import run_pipeline
from oclpy.targets.llvm.cpu import cpu_target
from tools import build_stages

SOURCE = """float twice(float x) { return 2.0f * x; }
kernel void k(global float4 *o, float4 a) { o[get_global_id(0)] = a * twice(a.x); }
"""


def test_a_kernel_file_is_timed_stage_by_stage_and_its_ir_is_the_pipelines(tmp_path, capsys) -> None:
    path = tmp_path / "k.cl"
    path.write_text(SOURCE)
    assert build_stages.main([str(path), "--ir", str(tmp_path / "ir"), "--profile", str(tmp_path / "prof")]) == 0
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(rf"{re.escape(str(path))}: ok, build [0-9.]+ s CPU \(preprocess [0-9.]+, parse [0-9.]+, "
                        r"sema [0-9.]+, lower [0-9.]+, passes [0-9.]+: [a-z0-9-]+ [0-9.]+(, [a-z0-9-]+ [0-9.]+){3}\)", line)
    module = compiler.frontend_for(SOURCE, "").module
    run_pipeline(module, compiler.pipeline_for(2) + "," + cpu_target.PIPELINE)
    (ir,) = (tmp_path / "ir").iterdir()
    assert ir.read_text() == print_module(module)
    (prof,) = (tmp_path / "prof").iterdir()
    assert pstats.Stats(str(prof)).total_calls > 0


def test_a_kernel_that_does_not_compile_is_an_error_line(tmp_path, capsys) -> None:
    path = tmp_path / "bad.cl"
    path.write_text("kernel void k(global int *o) { o[0] = nope(1); }\n")
    assert build_stages.main([str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"{path}: error, build ")
