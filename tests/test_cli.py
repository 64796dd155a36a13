"""The `oclpy` command: build diagnostics with file name, caret and exit status;
emit kinds; devices; option splitting."""

from __future__ import annotations

import subprocess
import sys

import pytest

from oclpy.cli.commands import main, split_build_args


def test_split_build_args_keeps_opencl_options_in_order():
    ours, cl = split_build_args(["-D", "N=4", "k.cl", "--emit", "ir", "-I", "inc", "-cl-std=CL2.0",
                                 "-O1", "-Werror", "-DX=1"])
    assert ours == ["k.cl", "--emit", "ir", "-O1"]
    assert cl == ["-D", "N=4", "-I", "inc", "-cl-std=CL2.0", "-Werror", "-DX=1"]


def test_build_error_prints_diagnostic_and_exits_1(tmp_path, capsys):
    bad = tmp_path / "bad.cl"
    bad.write_text("__kernel void k(__global int *out)\n{\n    out[0] = x + 1;\n}\n")
    assert main(["build", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:3:14: error: use of undeclared identifier 'x'" in err
    assert "    out[0] = x + 1;\n             ^\n" in err


def test_build_emit_ir_prints_kernel(tmp_path, capsys):
    src = tmp_path / "k.cl"
    src.write_text("#define V 3\n__kernel void k(__global int *o) { o[0] = V; }\n")
    assert main(["build", str(src), "--emit", "ir", "-O0"]) == 0
    out = capsys.readouterr().out
    assert "kernel void @k(" in out
    assert "store i32 3" in out


def test_build_emit_llvm(tmp_path, capsys):
    src = tmp_path / "k.cl"
    src.write_text("__kernel void k(__global float *o) { o[get_global_id(0)] *= 2.0f; }\n")
    assert main(["build", str(src), "--emit", "llvm"]) == 0
    assert "fmul" in capsys.readouterr().out


def test_build_missing_file(capsys):
    assert main(["build", "/nonexistent/k.cl"]) == 1
    assert "cannot read '/nonexistent/k.cl'" in capsys.readouterr().err


def test_devices_lists_cpu(capsys):
    assert main(["devices"]) == 0
    assert "cpu" in capsys.readouterr().out.lower()


def test_console_script_runs_as_module():
    proc = subprocess.run([sys.executable, "-m", "oclpy.cli", "devices"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_build_without_emit_runs_the_target(tmp_path, capsys, monkeypatch):
    """No --emit still compiles to native code: a target-stage failure must surface."""
    import oclpy.compiler as compiler

    calls = []
    real = compiler.compile_program

    def spy(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile_program", spy)
    src = tmp_path / "k.cl"
    src.write_text("__kernel void k(__global int *o) { o[0] = 1; }\n")
    assert main(["build", str(src)]) == 0
    assert len(calls) == 1 and calls[0][2].kind == "cpu"
    assert "built for cpu" in capsys.readouterr().err


def test_build_emit_ast_knows_the_cl20_atomic_types(tmp_path, capsys):
    src = tmp_path / "k.cl"
    src.write_text("global atomic_int sync = ATOMIC_VAR_INIT(0);\n"
                   "kernel void k(global int *o) { o[0] = atomic_load(&sync); }\n")
    assert main(["build", str(src), "--emit", "ast", "-cl-std=CL2.0"]) == 0
    assert "sync global '__global atomic_int'" in capsys.readouterr().out
    assert main(["build", str(src), "--emit", "ast"]) == 1  # CL1.2: not a type
    assert "unknown type name 'atomic_int'" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["build", "opt"])
@pytest.mark.parametrize("kind", ["device", "fifo", "folder", "too large"])
def test_inputs_that_are_not_regular_files_or_too_large_are_refused(tmp_path, capsys, monkeypatch,
                                                                     command, kind):
    import os

    from oclpy.frontend import source_files

    path = {"device": "/dev/zero", "fifo": str(tmp_path / "fifo"), "folder": str(tmp_path),
            "too large": str(tmp_path / "big.cl")}[kind]
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would wait for a writer: never here
    if kind == "too large":
        (tmp_path / "big.cl").write_text("// a comment\n" * 100)
        monkeypatch.setattr(source_files, "MAX_SOURCE_BYTES", 1000)
    assert main([command, path]) == 1
    why = {"device": "not a regular file (a character device)", "fifo": "not a regular file (a FIFO)",
           "folder": "not a regular file (a folder)",
           "too large": "file too large (the limit is 1,000 bytes)"}[kind]
    assert capsys.readouterr().err == f"oclpy {command}: error: cannot read '{path}': {why}\n"
