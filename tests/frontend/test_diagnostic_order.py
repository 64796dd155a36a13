"""Diagnostics after a syntax error come in translation order, as clang's do (an
included header's errors where the #include stands, not sorted by file name), and
a loop hint at file scope is clang's error at the pragma."""

from __future__ import annotations

import re

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir


def _errors(source: str, options: str = "") -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(source, options)
    return [m.group(1) for m in re.finditer(r"^(\S+:\d+:\d+): error", str(info.value), re.M)]


def test_a_headers_errors_stand_where_it_is_included(tmp_path):
    # the header's path sorts before "<kernel>", yet its error follows line 2's
    (tmp_path / "aaa.h").write_text("int header_error = ;\n")
    source = "kernel void k(global int *o) {\n  o[0] = undeclared;\n}\n#include \"aaa.h\"\nsyntax error here\n"
    errors = _errors(source, f"-I {tmp_path}")
    assert errors[0] == "<kernel>:2:10"
    assert errors[1].endswith("aaa.h:1:20")
    assert errors[2] == "<kernel>:5:1"


@pytest.mark.parametrize("pragma", ["#pragma unroll", "#pragma unroll 4", "#pragma nounroll",
                                    "#pragma clang loop unroll(full)"])
def test_a_loop_hint_at_file_scope_is_an_error_at_the_pragma(pragma):
    source = f"constant int a = 1;\n{pragma}\nkernel void k(global int *o) {{ o[0] = a; }}\n"
    with pytest.raises(CompileError) as info:
        compile_to_ir(source)
    assert "<kernel>:2:1: error: expected identifier or '('" in str(info.value)


def test_a_loop_hint_inside_a_function_builds():
    source = ("kernel void k(global int *o) {\n#pragma unroll 4\n  for (int i = 0; i < 4; i++) o[i] = i;\n"
              "  { \n#pragma nounroll\n    for (int i = 0; i < 4; i++) o[i] += i;\n  }\n}\n"
              "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n")
    assert compile_to_ir(source).module is not None
