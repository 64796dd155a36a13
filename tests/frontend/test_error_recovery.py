"""After a syntax error, one mistake gives one diagnostic (issue 12), as clang
recovers: no "used but not defined" for a definition the parser could not read,
no flow warnings on a partial tree, variables with bad initializers stay
declared, brace initializers and declarations missing their ';' resume in the
right place. Each expected list is what clang-14 reports for the same source."""

from __future__ import annotations

import re

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir


def diagnostics(src: str, options: str = "") -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, options)
    return re.findall(r"^<kernel>:(\d+:\d+: (?:error|warning|note): .*)$", info.value.log, re.M)


def test_no_used_but_not_defined_when_the_definition_had_a_syntax_error() -> None:
    src = """int helper(int);
kernel void k(global int *o) { o[0] = helper(1); }
int helper(int x { return x; }"""
    assert diagnostics(src) == ["3:18: error: expected ')'", "3:11: note: to match this '('"]


def test_used_but_not_defined_still_reported_in_a_clean_program() -> None:
    src = "int helper(int);\nkernel void k(global int *o) { o[0] = helper(1); }"
    assert diagnostics(src) == ["2:39: error: function 'helper' is used but not defined in this program"]


def test_no_missing_return_warning_after_an_error() -> None:
    assert diagnostics("int helper(int x) { return x + ; }") == ["1:32: error: expected expression"]


def test_variable_with_a_bad_initializer_stays_declared() -> None:
    src = """constant int c = $;
kernel void k(global int *o) {
  int y = 3 +, z = 2;
  int a[2] = { 1, (2 + ) };
  o[0] = y + z + a[0] + c;
}"""
    assert diagnostics(src) == [
        "1:18: error: use of undeclared identifier '$'",
        "3:14: error: expected expression",
        "4:24: error: expected expression",
    ]


def test_error_in_a_brace_initializer_does_not_end_the_function() -> None:
    src = """int helper(int);
kernel void k(global int *o) {
  int a[2] = { 1, (int)(3 + ) };
  o[0] = helper(a[1]);
}
int helper(int x) { return x + 1; }"""
    assert diagnostics(src) == ["3:29: error: expected expression"]


def test_declaration_missing_its_semicolon_skips_the_rest_of_the_statement() -> None:
    src = """kernel void k(global int *o) {
  int y = o[0] $ 3;
  int q = 1
  q = 2;
  int r = 1
  int s = r;
  o[1] = q + s;
}"""
    assert diagnostics(src) == [
        "2:15: error: expected ';' at end of declaration",
        "3:12: error: expected ';' at end of declaration",
        "5:12: error: expected ';' at end of declaration",
    ]


def test_if_condition_missing_its_paren_keeps_the_statement() -> None:
    src = """kernel void k(global int *o) {
  if (o[0] > 0 {
    o[1] = 1;
  }
  else o[1] = 2;
}"""
    assert diagnostics(src) == ["2:16: error: expected ')'", "2:6: note: to match this '('"]


def test_missing_semicolon_before_a_struct_brace_is_a_warning() -> None:
    log = compile_to_ir("struct S { int a; float b };\nkernel void k(global struct S *s) { s->a = 1; }").log
    assert log.splitlines()[0] == "<kernel>:1:26: warning: expected ';' at end of declaration list"
