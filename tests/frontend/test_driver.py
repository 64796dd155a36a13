"""Driver tests: source -> IR module, errors -> CompileError with the rendered log."""

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend import driver
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.verifier import module_problems


def test_kernel_compiles_to_verified_module() -> None:
    src = "__kernel void k(__global float *p) { p[get_global_id(0)] *= 2.0f; }"
    result = compile_to_ir(src)
    assert result.log == ""
    k = result.module.get_function("k")
    assert k is not None and k.is_kernel
    assert module_problems(result.module) == []


def test_error_raises_compile_error_with_clang_log() -> None:
    src = "__kernel void k(__global float *p) {\n  p[0] = x;\n}\n"
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    assert info.value.log == (
        "<kernel>:2:10: error: use of undeclared identifier 'x'\n"
        "  p[0] = x;\n"
        "         ^\n"
        "1 error generated.\n")


def test_warning_goes_to_log() -> None:
    src = "int f(int a) { if (a) return 1; }\n__kernel void k(__global int *p) { p[0] = f(1); }\n"
    result = compile_to_ir(src)
    assert "warning: non-void function does not return a value in all control paths" in result.log
    assert "1 warning generated." in result.log


def test_werror_turns_warning_into_error() -> None:
    src = "int f(int a) { if (a) return 1; }\n__kernel void k(__global int *p) { p[0] = f(1); }\n"
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, "-Werror")
    assert "error: non-void function does not return a value" in info.value.log


def test_internal_error_is_reported_not_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object) -> None:
        raise RuntimeError("kaboom")
    monkeypatch.setattr("oclpy.frontend.c.lower.unit.lower", boom)
    with pytest.raises(CompileError) as info:
        compile_to_ir("__kernel void k(void) {}")
    assert "error: internal compiler error: RuntimeError: kaboom" in info.value.log


def test_invalid_build_option() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("__kernel void k(void) {}", "-bogus")
    assert "unknown build option '-bogus'" in info.value.log


def test_filename_used_in_log() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("__kernel int k(void) { return 0; }", filename="a.cl")
    assert info.value.log.startswith("a.cl:1:")
