"""`oclpy build k.spv`: a file with the SPIR-V magic number is read as SPIR-V."""

from __future__ import annotations

from oclpy.cli import main
from tests.frontend.spirv.spirv_helpers import from_llvm, kernel_module

SIN = from_llvm("""
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func float @_Z3sinf(float)
define spir_kernel void @wave(ptr addrspace(1) %p) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %q = getelementptr float, ptr addrspace(1) %p, i64 %g
  %x = load float, ptr addrspace(1) %q
  %y = call spir_func float @_Z3sinf(float %x)
  store float %y, ptr addrspace(1) %q
  ret void
}
""")


def test_build_spirv_emit_ir(tmp_path, capsys):
    path = tmp_path / "k.spv"
    path.write_bytes(SIN)
    assert main(["build", str(path), "--emit", "ir", "-O2"]) == 0
    out = capsys.readouterr().out
    assert "kernel void @wave(" in out
    assert "%0 = call i64 @ocl.get_global_id(i32 0)" in out
    assert "call float @ocl.sin.f32(float" in out
    assert "get_global_id(i32 1)" not in out  # unused lanes of the built-in vector are gone


def test_build_spirv_for_the_device_and_to_llvm_and_ptx(tmp_path, capsys):
    path = tmp_path / "k.spv"
    path.write_bytes(SIN)
    assert main(["build", str(path)]) == 0
    assert f"{path}: built for cpu" in capsys.readouterr().err
    assert main(["build", str(path), "--emit", "llvm"]) == 0
    assert "define" in capsys.readouterr().out
    assert main(["build", str(path), "--emit", "ptx"]) == 0
    assert ".entry wave" in capsys.readouterr().out


def test_build_bad_spirv_reports_the_word(tmp_path, capsys):
    path = tmp_path / "bad.spv"
    path.write_bytes(kernel_module([("IAdd", [2, 20, 5, 99]), ("Return", [])]))
    assert main(["build", str(path), "--emit", "ir"]) == 1
    assert capsys.readouterr().err == f"{path}: error: SPIR-V word 48 (OpIAdd): %99 is used but never defined\n"
    assert main(["build", str(path), "--emit", "ast"]) == 1
    assert "a SPIR-V module has no OpenCL C AST" in capsys.readouterr().err
