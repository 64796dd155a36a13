"""Each diagnostic class of issue 3 through the whole driver, checked in
clang's form: `file:line:col: error: message`, the source line, the caret."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir


def log_of(src: str, options: str = "") -> str:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, options)
    return info.value.log


def first(src: str, options: str = "") -> tuple[str, str, str]:
    """(header, source line, caret line) of the first diagnostic."""
    header, line, caret = log_of(src, options).splitlines()[:3]
    return header, line, caret


CLASSES = [
    ("kernel void k(global float *o) { o[0] = nope; }",
     "<kernel>:1:41: error: use of undeclared identifier 'nope'", 40),
    ("kernel void k(global float *o) { float4 v = o; }",
     "<kernel>:1:45: error: initializing 'float4' with an expression of incompatible type '__global float *'", 44),
    ("kernel void k(global const float *o) { o[0] = 1.0f; }",
     "<kernel>:1:45: error: read-only variable is not assignable", 44),
    ("kernel void k(global float *o) { const int c = 1; c = 2; }",
     "<kernel>:1:53: error: cannot assign to variable 'c' with const-qualified type 'const int'", 52),
    ("kernel void k(global float4 *o) { o[0].xq = 1.0f; }",
     "<kernel>:1:40: error: illegal vector component name 'q'", 39),
    ("kernel void k(global float4 *o) { o[0].xx = (float2)(1.0f); }",
     "<kernel>:1:43: error: vector is not assignable (contains duplicate components)", 42),
    ("kernel int k(global float *o) { return 1; }",
     "<kernel>:1:12: error: kernel must have void return type", 11),
    ("void f(void) { local int x; }\nkernel void k(global float *o) { f(); }",
     "<kernel>:1:26: error: non-kernel function variable cannot be declared in local address space", 25),
    ("kernel void k(global float *o, local float *l) { o = l; }",
     "<kernel>:1:52: error: assigning '__local float *' to '__global float *' changes address space of pointer", 51),
    ("int f(int a) { if (a) return 1; }\nkernel void k(global int *o) { o[0] = f(1); }",
     "<kernel>:1:33: error: non-void function does not return a value in all control paths", 32),
]


@pytest.mark.parametrize("src, header, caret_col", CLASSES, ids=range(len(CLASSES)))
def test_diagnostic_class(src: str, header: str, caret_col: int) -> None:
    got_header, line, caret = first(src, "-Werror")
    assert got_header == header
    assert line == src.splitlines()[int(header.split(":")[1]) - 1]
    assert caret == " " * caret_col + "^"


def test_wrong_argument_count_to_builtin_lists_candidates() -> None:
    log = log_of("kernel void k(global float *o) { o[0] = clamp(o[0]); }")
    assert log.startswith("<kernel>:1:41: error: no matching function for call to 'clamp'\n")
    assert "note: candidate function not viable: requires 3 arguments, but 1 was provided " \
           "(float clamp(float, float, float))" in log
    assert "more candidates not shown" in log


def test_werror_and_w() -> None:
    src = "int f(int a) { if (a) return 1; }\nkernel void k(global int *o) { o[0] = f(1); }"
    assert "warning: non-void function" in compile_to_ir(src).log
    assert compile_to_ir(src, "-w").log == ""
    assert log_of(src, "-Werror").endswith("1 error generated.\n")


def test_many_errors_are_reported_up_to_the_limit() -> None:
    log = log_of("kernel void k(global float *o) {" + " x;" * 30 + "}")
    assert log.count("error: use of undeclared identifier 'x'") == 20
    assert log.endswith("fatal error: too many errors emitted, stopping now\n20 errors generated.\n")


def test_several_errors_in_one_build_with_recovery() -> None:
    log = log_of("kernel void k(global float *o) {\n  o[0] = a;\n  o[1] = b\n  o[2] = c;\n}")
    assert [l.split(": error: ")[1] for l in log.splitlines() if ": error: " in l] == [
        "use of undeclared identifier 'a'", "use of undeclared identifier 'b'", "expected ';' after expression",
        "use of undeclared identifier 'c'"]  # source order, as clang reports them
    assert log.endswith("4 errors generated.\n")


def test_assignment_to_const_notes_the_declaration() -> None:
    log = log_of("kernel void k(global float *o) {\n  const int c = 1;\n  c = 2;\n}")
    assert log == ("<kernel>:3:5: error: cannot assign to variable 'c' with const-qualified type 'const int'\n"
                   "  c = 2;\n    ^\n"
                   "<kernel>:2:13: note: variable 'c' declared const here\n  const int c = 1;\n            ^\n"
                   "1 error generated.\n")


# clang-14 -x cl -fsyntax-only on the same sources gives these headers and source lines
@pytest.mark.parametrize("src, header, line", [
    # a form feed is white space, not a line break (str.splitlines() broke lines there)
    ("kernel void a(global int *o) { o[0] = 1; }\n\f\nkernel void k(global int *o) {\n  o[0] = undeclared;\n}\n",
     "<kernel>:4:10: error: use of undeclared identifier 'undeclared'", "  o[0] = undeclared;"),
    # CRLF line ends: the source line without its carriage return
    ("kernel void k(global int *o) {\r\n  o[0] = undeclared;\r\n}\r\n",
     "<kernel>:2:10: error: use of undeclared identifier 'undeclared'", "  o[0] = undeclared;"),
    # the column counts bytes of UTF-8, as clang's does; the caret stands under the identifier
    ("kernel void k(global int *o) {\n  int \u00e9 = 1; o[0] = \u00e9 + undeclared;\n}\n",
     "<kernel>:2:27: error: use of undeclared identifier 'undeclared'", "  int \u00e9 = 1; o[0] = \u00e9 + undeclared;"),
])
def test_lines_and_columns_as_clang_counts_them(src: str, header: str, line: str) -> None:
    got_header, got_line, caret = first(src)
    assert (got_header, got_line) == (header, line)
    assert got_line[caret.index("^"):].startswith("undeclared")
