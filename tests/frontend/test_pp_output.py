"""The preprocessed text as the C lexer reads it: every token of the source keeps
its file, line and column (line markers and padding), replacement tokens never
merge with their neighbours, and nothing a macro makes looks like a directive."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c.lexer import tokenize
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.preprocessor.tokens import lex

from .pp_helpers import pp, tokens


def c_tokens(source: str, filename: str = "k.cl") -> list[tuple[str, str]]:
    """(text, "line:col") of the C tokens of `source` after preprocessing."""
    out, diags = pp(source, filename=filename)
    assert [d.severity for d in diags.diagnostics if d.severity != "warning"] == [], diags.render()
    lexer_diags = DiagnosticEngine()
    toks = tokenize(out, filename, lexer_diags)
    assert not lexer_diags.diagnostics, lexer_diags.render()
    return [(t.text, f"{t.loc.line}:{t.loc.col}") for t in toks if t.kind != "eof"]


def test_output_starts_with_a_line_marker():
    assert pp("int x;\n")[0].startswith('#line 1 "k.cl"\n')


@pytest.mark.parametrize("source", [
    "#define LONG (1 + 2 + 3 + 4)\nint x = LONG; int y;\n",
    "#define SHORT 1\nint x = SHORT_NOT; int x = SHORT   ; int y;\n",
    "#define F(a, b) ((a) * (b) + (a))\nint x = F(1, 2) ; int y;\n",
    "#define E\nint E x E = E 1; int y;\n",
    "#define F(x) x\nint x = F(\n  1\n  ) + 2; int y;\n",
    "int /* a\n comment */ x; int y;\n",
    "int a \\\n = 1; int y;\n",
])
def test_source_tokens_keep_line_and_column(source):
    toks = dict(c_tokens(source))
    lines = source.split("\n")
    for name in ("y", ";"):
        if name in toks:
            line, col = map(int, toks[name].split(":"))
            assert lines[line - 1][col - 1:col - 1 + len(name)] == name


def test_diagnostic_after_a_wide_expansion_points_into_the_source():
    out, diags = pp("#define LONG (1 + 2 + 3 + 4)\nint x = LONG; int y = @;\n")
    parse_diags = DiagnosticEngine()
    parse(out, "k.cl", parse_diags)
    assert [str(d.loc) for d in parse_diags.diagnostics][:1] == ["k.cl:2:23"]


def test_replacements_start_at_the_macro_name():
    assert c_tokens("#define V 42\n   int x = V;\n")[3] == ("42", "2:12")


def test_argument_tokens_keep_their_place():
    toks = c_tokens("#define CHECK(x) if (x) return\nvoid f(int a) { CHECK(a + b); }\n")
    assert ("a", "2:23") in toks and ("b", "2:27") in toks


@pytest.mark.parametrize("source,expected", [
    ("#define M -1\nint x = -M;\n", ["int", "x", "=", "-", "-", "1", ";"]),
    ("#define F(x) long_prefix-x\nF(-1)\n", ["long_prefix", "-", "-", "1"]),
    ("#define F(x) long_prefix+x\nF(+)\n", ["long_prefix", "+", "+"]),
    ("#define F(x) long_prefix<x\nF(<=)\n", ["long_prefix", "<", "<="]),
    ("#define F(x) long_prefix/x\nF(/)\n", ["long_prefix", "/", "/"]),
    ("#define F(x) long_prefix.x\nF(5)\n", ["long_prefix", ".", "5"]),
    ("#define F(x) long_prefix x\nF(y)\n", ["long_prefix", "y"]),
    ("#define F(x) long_prefix L x\nF(\"s\")\n", ["long_prefix", "L", '"s"']),
    ("#define F(x, y) x y\nF(a,b)F(1,2)\n", ["a", "b", "1", "2"]),
])
def test_replacement_tokens_never_merge(source, expected):
    assert [t for t, _ in c_tokens(source)] == expected


def test_pp_numbers_never_merge():
    assert tokens(pp("#define F(x) 1e x\nF(+2) F(.5)\n")[0]) == "1e + 2 1e .5"


def test_hash_made_by_a_macro_is_no_directive():
    out, _ = pp("#define H #\n#define P(a, b) a b\nH x\nP(#, y)\n")
    toks = tokenize(out, "k.cl", DiagnosticEngine())
    assert [t.text for t in toks if t.kind != "eof"] == ["#", "x", "#", "y"]


def test_hash_after_a_line_splice_is_no_directive():
    out, _ = pp("int a \\\n# b\n;\n")
    assert [t.text for t in tokenize(out, "k.cl", DiagnosticEngine())][:4] == ["int", "a", "#", "b"]


def test_far_jumps_use_markers_and_near_ones_newlines():
    out, _ = pp("a\n" + "\n" * 3 + "b\n" + "\n" * 30 + "c\n")
    assert out == '#line 1 "k.cl"\na\n\n\n\nb\n#line 36 "k.cl"\nc\n'


def test_markers_name_headers(tmp_path):
    (tmp_path / "h.h").write_text("int in_h;\n")
    toks = c_tokens('int a;\n#include "h.h"\nint b;\n', filename=str(tmp_path / "k.cl"))
    assert toks[4] == ("in_h", "1:5") and toks[7] == ("b", "3:5")
    out, _ = pp('#include "h.h"\n', filename=str(tmp_path / "k.cl"))
    assert f'#line 1 "{tmp_path / "h.h"}"' in out


def test_pragma_operator_mid_line_keeps_what_follows_in_place():
    toks = c_tokens('int a; _Pragma("OPENCL FP_CONTRACT ON") int b;\n')
    assert toks[-2:] == [("b", "1:45"), (";", "1:46")]


def test_multi_line_invocation_then_text():
    toks = c_tokens("#define F(a, b) a + b\nint x = F(1,\n        2); int y;\n")
    assert toks[-3:] == [("int", "3:13"), ("y", "3:17"), (";", "3:18")]


@pytest.mark.parametrize("source", [
    "int a \\\n  = 1, \\\n\\\n b = 2; int c;\n",            # splices in a row, one on an empty line
    "int a = 1 \\  \n + 2;\n int b \\\n;\n",               # spaces after the backslash
    "#define M(x) \\\n  (x \\\n   + 1)\nint z = M(2); int w;\n",  # a directive over three lines
    "/* a \\\n comment */ int q \\\n; int r;\n",
])
def test_tokens_after_line_splices_keep_their_physical_place(source):
    lines = source.split("\n")
    for tok in lex(source, "k.cl").tokens:
        if tok.kind != "eof":
            assert lines[tok.line - 1][tok.col - 1:].startswith(tok.text), (tok, lines[tok.line - 1])
