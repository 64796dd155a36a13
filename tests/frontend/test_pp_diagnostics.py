"""Every diagnostic of the preprocessor: clang's message, line and column (and
notes), checked against clang-14 (-E -x cl). The #if expression errors are in
test_pp_if.py."""

from __future__ import annotations

import os
import random
import sys
from types import SimpleNamespace

import pytest

from .pp_helpers import messages, pp, tokens


@pytest.mark.parametrize("source,expected", [
    # directives
    ("#frobnicate\n", ["1:2: error: invalid preprocessing directive"]),
    ('# "x"\n', ["1:3: error: invalid preprocessing directive"]),
    ("#error stop   here  \"x\" /* c */ // d\n", ['1:2: error: stop   here  "x" /* c */ // d']),
    ("\n#warning careful\n", ["2:2: warning: careful"]),
    ("#warning  split \\\n line\n", ["1:2: warning: split  line"]),
    ("#error\n", ["1:2: error: "]),
    ("#if 1\nint x;\n", ["1:2: error: unterminated conditional directive"]),
    ("#if 0\n#if 1\n#endif\n", ["1:2: error: unterminated conditional directive"]),
    ("#endif\n", ["1:2: error: #endif without #if"]),
    ("#else\n", ["1:2: error: #else without #if"]),
    ("#elif 1\n", ["1:2: error: #elif without #if"]),
    ("#if 1\n#else\n#else\n#endif\n", ["3:2: error: #else after #else"]),
    ("#if 1\n#else\n#elif 1\n#endif\n", ["3:2: error: #elif after #else"]),
    ("#if 0\n#elif\n#endif\n", ["2:6: error: expected value in expression"]),
    ("#ifdef X garbage\n#endif\n", ["1:10: warning: extra tokens at end of #ifdef directive"]),
    ("#ifndef X garbage\n#endif\n", ["1:11: warning: extra tokens at end of #ifndef directive"]),
    ("#if 1\n#else junk\n#endif\n", ["2:7: warning: extra tokens at end of #else directive"]),
    ("#if 1\n#endif junk\n", ["2:8: warning: extra tokens at end of #endif directive"]),
    ("#endif junk\n", ["1:8: warning: extra tokens at end of #endif directive", "1:2: error: #endif without #if"]),
    ("#ifdef\n#endif\n", ["1:7: error: macro name missing"]),
    ("#ifndef\n#endif\n", ["1:8: error: macro name missing"]),
    ("#ifdef 3\n#endif\n", ["1:8: error: macro name must be an identifier"]),
    # #define and #undef
    ("#define\n", ["1:8: error: macro name missing"]),
    ("#define 3 x\n", ["1:9: error: macro name must be an identifier"]),
    ("#define defined\n", ["1:9: error: 'defined' cannot be used as a macro name"]),
    ("#undef\n", ["1:7: error: macro name missing"]),
    ("#undef defined\n", ["1:8: error: 'defined' cannot be used as a macro name"]),
    ("#undef X Y\n", ["1:10: warning: extra tokens at end of #undef directive"]),
    ("#define X 1\n#define X 2\n", ["2:9: warning: 'X' macro redefined", "  1:9: note: previous definition is here"]),
    ("#define X 1\n#define X  1 // same\n", []),
    ("#define F(a) a\n#define F(b) b\n",
     ["2:9: warning: 'F' macro redefined", "  1:9: note: previous definition is here"]),
    ("#define M_PI 3\n", ["1:9: warning: 'M_PI' macro redefined", "  1:9: note: previous definition is here"]),
    ("#define __LINE__ 1\n", ["1:9: warning: redefining builtin macro"]),
    ("#undef __FILE__\n", ["1:8: warning: undefining builtin macro"]),
    ("#define F(a\n", ["1:12: error: expected comma in macro parameter list"]),
    ("#define F(a b) a\n", ["1:13: error: expected comma in macro parameter list"]),
    ("#define F(a,\n", ["1:13: error: missing ')' in macro parameter list"]),
    ("#define F(a,) 1\n", ["1:13: error: expected identifier in macro parameter list"]),
    ("#define F(a,a) a\n", ["1:13: error: duplicate macro parameter name 'a'"]),
    ("#define F(1) a\n", ["1:11: error: invalid token in macro parameter list"]),
    ("#define F(... x) 1\n", ["1:15: error: missing ')' in macro parameter list"]),
    ("#define F(a... b) 1\n", ["1:16: error: missing ')' in macro parameter list"]),
    ("#define F(a) #b\n", ["1:15: error: '#' is not followed by a macro parameter"]),
    ("#define F(a) #\n", ["1:15: error: '#' is not followed by a macro parameter"]),
    ("#define F(a) ## a\n", ["1:14: error: '##' cannot appear at start of macro expansion"]),
    ("#define F(a) a ##\n", ["1:16: error: '##' cannot appear at end of macro expansion"]),
    ("#define X ## y\n", ["1:11: error: '##' cannot appear at start of macro expansion"]),
    ("#define F(...) __VA_OPT__\n", ["1:26: error: missing '(' following __VA_OPT__"]),
    ("#define F(...) __VA_OPT__(\n", ["1:27: error: missing ')' after identifier"]),
    ("#define F(...) __VA_OPT__(__VA_OPT__())\n",
     ["1:27: error: __VA_OPT__ cannot be nested within its own replacement tokens"]),
    ("#define F(x) __VA_OPT__(x)\n",
     ["1:14: warning: __VA_OPT__ can only appear in the expansion of a variadic macro"]),
    ("#define X 'unterminated\n", ["1:11: warning: missing terminating ' character"]),
    # macro calls
    ("#define F(a) a\nF(1, 2)\n", ["2:6: error: too many arguments provided to function-like macro invocation",
                                   "  1:9: note: macro 'F' defined here"]),
    ("#define F(a) a\nF(1,,2)\n", ["2:4: error: too many arguments provided to function-like macro invocation",
                                   "  1:9: note: macro 'F' defined here"]),
    ("#define E() 1\nE(,)\n", ["2:2: error: too many arguments provided to function-like macro invocation",
                               "  1:9: note: macro 'E' defined here"]),
    ("#define F(a, b) a\nF(1)\n", ["2:4: error: too few arguments provided to function-like macro invocation",
                                   "  1:9: note: macro 'F' defined here"]),
    ("#define F(a) a\nF(1\n", ["2:1: error: unterminated function-like macro invocation",
                               "  1:9: note: macro 'F' defined here"]),
    ("#define P(a,b) a##b\nP(+,-)\n", ["2:1: error: pasting formed '+-', an invalid preprocessing token",
                                       "  1:17: note: expanded from macro 'P'"]),
    ("#define P(a,b) a##b\nP(/,/)\n", ["2:1: error: pasting formed '//', an invalid preprocessing token",
                                       "  1:17: note: expanded from macro 'P'"]),
    ("#define G(a) a ## ## ## b\nG(x)\n", ["2:1: error: pasting formed 'x##', an invalid preprocessing token",
                                          "  1:16: note: expanded from macro 'G'",
                                          "2:1: error: pasting formed '##b', an invalid preprocessing token",
                                          "  1:22: note: expanded from macro 'G'"]),
    ("#define S(x) #x\nS(\\)\n", ["2:3: warning: invalid string literal, ignoring final '\\'"]),
    ("_Pragma(1) a\n", ["1:1: error: _Pragma takes a parenthesized string literal"]),
    ('_Pragma("x" "y")\n', ["1:1: error: _Pragma takes a parenthesized string literal"]),
    ("_Pragma x\n", ["1:1: error: _Pragma takes a parenthesized string literal"]),
    # #line
    ("#line abc\n", ["1:7: error: #line directive requires a positive integer argument"]),
    ("#line\n", ["1:6: error: #line directive requires a positive integer argument"]),
    ("#line 4294967296\n", ["1:7: error: #line directive requires a positive integer argument"]),
    ("#line 0x10\n", ["1:8: error: #line directive requires a simple digit sequence"]),
    ("#line 10 foo\n", ["1:10: error: invalid filename for #line directive"]),
    ('#line 10 "a" 3\n', ["1:14: warning: extra tokens at end of #line directive"]),
    # #include
    ("#include\n", ['1:9: error: expected "FILENAME" or <FILENAME>']),
    ("#include foo\n", ['1:10: error: expected "FILENAME" or <FILENAME>']),
    ("#include <foo\n", ["1:14: error: expected '>'"]),
    ('#include ""\n', ["1:10: error: empty filename"]),
    ('int a;\n  #include "nothere.h"\nint b;\n', ["2:12: fatal error: 'nothere.h' file not found"]),
    ("#include <nothere.h>\n", ["1:10: fatal error: 'nothere.h' file not found"]),
    ("#pragma once\n", ["1:9: warning: #pragma once in main file"]),
    # the text
    ("int a; /* never closed\nint b;\n", ["1:8: error: unterminated /* comment"]),
    ("#define X 1 \\  \n+ 2\n", ["1:14: warning: backslash and newline separated by space"]),
    ("/* a *\\\n/ int x;\n", ["1:7: warning: escaped newline between */ characters at block comment end"]),
])
def test_message_and_location(source, expected, capsys):
    _, diags = pp(source)
    assert messages(diags) == expected
    assert all(d.loc.file == "k.cl" for d in diags.diagnostics)
    assert capsys.readouterr() == ("", "")


def test_fatal_error_stops_preprocessing():
    out, diags = pp('int a;\n#include "nothere.h"\n#error not reached\nint b;\n')
    assert tokens(out) == "int a ;" and len(diags.diagnostics) == 1


def test_a_macro_expansion_bomb_is_a_fatal_error(monkeypatch):
    """Issue 13: `#define A<k> (A<k-1> + A<k-1>)` up to A40 expands to 2**40 tokens;
    past MAX_EXPANDED_TOKENS replacement tokens preprocessing stops with a fatal error."""
    from oclpy.frontend.c.preprocessor import expand

    monkeypatch.setattr(expand, "MAX_EXPANDED_TOKENS", 20000)
    defs = "".join(f"#define A{k} (A{k - 1} + A{k - 1})\n" for k in range(1, 41))
    out, diags = pp(f"#define A0 x\n{defs}int a = A10;\nint b = A40;\n#error not reached\n")
    assert messages(diags) == ["43:9: fatal error: macro expansion produced more than 20000 tokens; stopping"]
    assert tokens(out).startswith("int a = ( ( (") and "int b" in tokens(out)


def test_expansions_under_the_limit_are_whole():
    defs = "".join(f"#define A{k} (A{k - 1} + A{k - 1})\n" for k in range(1, 15))
    out, diags = pp(f"#define A0 x\n{defs}int a = A14;\n")
    assert not diags.diagnostics and tokens(out).count("x") == 1 << 14


def test_include_next_in_main_file(tmp_path):
    (tmp_path / "h.h").write_text("int h;\n")
    out, diags = pp('#include_next "h.h"\n', filename=str(tmp_path / "k.cl"))
    assert messages(diags) == ["1:2: warning: #include_next in primary source file; will search from start of "
                               "include path"]
    assert tokens(out) == "int h ;"


def test_include_nested_too_deeply(tmp_path):
    (tmp_path / "self.h").write_text('#include "self.h"\n')
    _, diags = pp('#include "self.h"\n', filename=str(tmp_path / "k.cl"))
    assert [(d.loc.line, d.loc.col, d.message) for d in diags.diagnostics] == [
        (1, 10, "#include nested depth 201 exceeds maximum of 200")]
    assert diags.diagnostics[0].loc.file.endswith("self.h")


def test_unreadable_header(tmp_path, monkeypatch):
    from oclpy.frontend.c.preprocessor import include_line

    def refuse(path):
        raise PermissionError(13, "Permission denied", path)
    (tmp_path / "locked.h").write_text("int x;\n")
    monkeypatch.setattr(include_line, "read_source", refuse)
    _, diags = pp('#include "locked.h"\n', filename=str(tmp_path / "k.cl"))
    assert messages(diags) == ["1:10: fatal error: 'locked.h': Permission denied"]


def test_errors_in_headers_name_the_header(tmp_path):
    (tmp_path / "h.h").write_text("\n#if\n#endif\n#define F(\n")
    _, diags = pp('#include "h.h"\n', filename=str(tmp_path / "k.cl"))
    assert [(os.path.basename(d.loc.file), d.loc.line, d.loc.col) for d in diags.diagnostics] == [
        ("h.h", 2, 4), ("h.h", 4, 11)]


def test_conditional_left_open_in_a_header_is_closed_there(tmp_path):
    (tmp_path / "h.h").write_text("#if 1\nint h;\n")
    out, diags = pp('#include "h.h"\n#endif\nint k;\n', filename=str(tmp_path / "k.cl"))
    assert [(os.path.basename(d.loc.file), d.message) for d in diags.diagnostics] == [
        ("h.h", "unterminated conditional directive"), ("k.cl", "#endif without #if")]
    assert tokens(out) == "int h ; int k ;"


def test_skipped_groups_report_nothing():
    source = "#if 0\n#frobnicate\n#error no\n#define F(\n#include <nothere.h>\n#if 1/0\n#endif\ndon't\n#endif\n"
    out, diags = pp(source)
    assert messages(diags) == [] and tokens(out) == ""


_PIECES = ["#define", "#undef", "#if", "#ifdef", "#elif", "#else", "#endif", "#include", "#line", "#pragma",
           "#error", "F", "G", "(", ")", ",", "...", "__VA_ARGS__", "__VA_OPT__", "#", "##", "defined", "1", "0",
           "/", "'", '"', "\\", "\n", "\n", "\n", "_Pragma", "__LINE__", "<", ">", "/*", "*/", "//", "x", "?", ":"]


@pytest.mark.parametrize("seed", range(40))
def test_random_directive_soup_never_raises(seed, capsys):
    rng = random.Random(seed)
    source = "#define F(x, ...) x ## __VA_ARGS__ # x\n#define G F(\n" + " ".join(
        rng.choice(_PIECES) for _ in range(rng.randint(1, 120)))
    _, diags = pp(source)  # an exception fails the test
    assert not any("internal error" in d.message for d in diags.diagnostics), diags.render()
    assert capsys.readouterr() == ("", "")


def test_deeply_nested_calls(monkeypatch):
    from oclpy.frontend.c import preprocess
    out, diags = pp("#define F(x) x\n" + "F(" * 500 + "1" + ")" * 500 + "\n")
    assert tokens(out) == "1" and messages(diags) == []
    limit = sys.getrecursionlimit()
    monkeypatch.setattr(preprocess, "_RECURSION_LIMIT", 1000)  # deep enough for 150 levels, not 500
    monkeypatch.setattr(preprocess, "sys", SimpleNamespace(getrecursionlimit=lambda: 1000,
                                                           setrecursionlimit=sys.setrecursionlimit))
    try:
        _, diags = pp("#define F(x) x\n" + "F(" * 500 + "1" + ")" * 500 + "\n")
    finally:
        sys.setrecursionlimit(limit)
    assert messages(diags) == ["3:1: error: macro calls nested too deeply"]


def test_has_include(tmp_path):
    (tmp_path / "h.h").write_text("int h;\n")
    source = ('#define H "h.h"\n#if __has_include("h.h") && __has_include(<h.h>) && __has_include(H)'
              ' && !__has_include("no.h")\nyes\n#endif\n#if defined __has_include && defined(__has_include_next)\n'
              "defined\n#endif\n")
    out, diags = pp(source, f"-I {tmp_path}", filename=str(tmp_path / "k.cl"))
    assert messages(diags) == [] and tokens(out) == "yes defined"


@pytest.mark.parametrize("source,expected", [
    ("#if __has_include\n#endif\n", ["1:18: error: missing '(' after '__has_include'"]),
    ("#if __has_include(\n#endif\n", ['1:19: error: expected "FILENAME" or <FILENAME>']),
    ('#if __has_include("x"\n#endif\n', ["1:22: error: missing ')' after '__has_include'",
                                          "  1:18: note: to match this '('"]),
    ("#if __has_include(x)\n#endif\n", ['1:19: error: expected "FILENAME" or <FILENAME>']),
    ('__has_include("k.cl")\n', ["1:1: error: '__has_include' must be used within a preprocessing directive"]),
    ("#define __has_include 1\n", ["1:9: warning: redefining builtin macro"]),
])
def test_has_include_errors(source, expected):
    assert messages(pp(source)[1]) == expected
