"""Lexer: token classes, literal values and suffixes, escapes, locations, line markers, bad input."""

import pytest

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c.lexer import tokenize


def lex(text, filename="k.cl"):
    diags = DiagnosticEngine({filename: text})
    return tokenize(text, filename, diags), diags


def kinds(text):
    return [(t.kind, t.text) for t in lex(text)[0][:-1]]


@pytest.mark.parametrize("text,value,suffix", [
    ("42", 42, ""), ("0x1F", 31, ""), ("0X1fu", 31, "u"), ("017", 15, ""), ("0", 0, ""),
    ("18446744073709551615", 2**64 - 1, ""), ("0xFFFFFFFFFFFFFFFFul", 2**64 - 1, "ul"),
    ("01777777777777777777777", 2**64 - 1, ""), ("0x00000000000000000000001", 1, ""),
    ("10UL", 10, "ul"), ("10lu", 10, "ul"), ("5LLu", 5, "ull"), ("7ll", 7, "ll"), ("7ULL", 7, "ull"), ("3L", 3, "l"),
])
def test_integer_literals(text, value, suffix):
    (tok, _), diags = lex(text)
    assert (tok.kind, tok.value, tok.suffix) == ("int", value, suffix)
    assert not diags.diagnostics


@pytest.mark.parametrize("text,value,suffix", [
    ("1.5", 1.5, ""), ("1.5f", 1.5, "f"), (".5F", 0.5, "f"), ("1.", 1.0, ""), ("1e3", 1000.0, ""),
    ("2.5e-1h", 0.25, "h"), ("0x1p-2f", 0.25, "f"), ("0x1.8p1", 3.0, ""), ("1.0L", 1.0, "l"),
])
def test_float_literals(text, value, suffix):
    (tok, _), diags = lex(text)
    assert (tok.kind, tok.value, tok.suffix) == ("float", value, suffix)
    assert not diags.diagnostics


@pytest.mark.parametrize("text,value", [
    ("'a'", 97), (r"'\n'", 10), (r"'\0'", 0), (r"'\x41'", 65), (r"'\101'", 65), (r"'\''", 39), (r"'\\'", 92),
    (r"'\xff'", -1),
])
def test_char_literals(text, value):
    (tok, _), _ = lex(text)
    assert (tok.kind, tok.value) == ("char", value)


def test_string_literal_escapes():
    (tok, _), _ = lex(r'"a\tb\"c\x41\101"')
    assert tok.kind == "string" and tok.value == b'a\tb"cAA'


def test_keywords_and_identifiers():
    assert kinds("__kernel kernel global __local read_only vec_step _Alignof foo float4 uchar") == [
        ("kw", "__kernel"), ("kw", "kernel"), ("kw", "global"), ("kw", "__local"), ("kw", "read_only"),
        ("kw", "vec_step"), ("kw", "_Alignof"), ("id", "foo"), ("id", "float4"), ("id", "uchar")]


def test_punctuators_longest_match():
    assert [t for _, t in kinds("a<<=b>>c->d...e++ + ++f&&g||h!=i")] == [
        "a", "<<=", "b", ">>", "c", "->", "d", "...", "e", "++", "+", "++", "f", "&&", "g", "||", "h", "!=", "i"]


def test_locations_and_comments():
    toks, _ = lex("int a; /* two\nlines */ b\n  // c\n\tc")
    assert [(t.text, t.loc.line, t.loc.col) for t in toks[:-1]] == [
        ("int", 1, 1), ("a", 1, 5), (";", 1, 6), ("b", 2, 10), ("c", 4, 2)]


def test_line_markers():
    toks, _ = lex('#line 10 "main.cl"\nx\n# 3 "inc.h"\ny\n#pragma unroll\nz\n#line 7\nw')
    assert [(t.text, str(t.loc)) for t in toks[:-1]] == [
        ("x", "main.cl:10:1"), ("y", "inc.h:3:1"), ("z", "inc.h:5:1"), ("w", "inc.h:7:1")]


def test_eof_token_after_last_token():
    toks, _ = lex("ab")
    assert toks[-1].kind == "eof" and (toks[-1].loc.line, toks[-1].loc.col) == (1, 3)


def test_token_end():
    toks, _ = lex("  foo")
    assert str(toks[0].end) == "k.cl:1:6"


@pytest.mark.parametrize("text", ["18446744073709551616", "0x10000000000000000", "02000000000000000000000",
                                  "9" * 5000, "0x" + "f" * 5000, "0" + "7" * 5000, "1" * 5000 + "ul"])
def test_integer_literal_too_large(text):
    """clang's error (checked with clang-14 -x cl -fsyntax-only), never a truncated value or
    Python's limit on converting 4,300-digit strings."""
    (tok, _), diags = lex(text)
    assert diags.render().startswith(
        "k.cl:1:1: error: integer literal is too large to be represented in any integer type\n")
    assert (tok.kind, tok.value) == ("int", 1)  # a value no use trips over again


@pytest.mark.parametrize("number", ["4294967296", "9" * 5000])
def test_line_marker_out_of_range(number):
    _, diags = lex(f"#line {number}\nx")
    assert diags.render().startswith("k.cl:1:7: error: #line directive requires a positive integer argument\n")


@pytest.mark.parametrize("text,message", [
    ("a @ b", "k.cl:1:3: error: invalid character '@' in source"),
    ("12abc", "k.cl:1:1: error: invalid suffix 'abc' on integer constant"),
    ("1.5q", "k.cl:1:1: error: invalid suffix 'q' on floating constant"),
    ("09", "k.cl:1:1: error: invalid digit '9' in octal constant"),
    ("x = 'ab", "k.cl:1:5: error: missing terminating ' character"),
    ('s = "abc', 'k.cl:1:5: error: missing terminating " character'),
    ("a /* never closed", "k.cl:1:3: error: unterminated /* comment"),
    ("''", "k.cl:1:1: error: empty character constant"),
    (r"'\x1ff'", "k.cl:1:2: error: hex escape sequence out of range"),
    (r"'\x'", "k.cl:1:2: error: \\x used with no following hex digits"),
])
def test_errors(text, message):
    toks, diags = lex(text)
    assert diags.render().startswith(message + "\n")
    assert toks[-1].kind == "eof"


@pytest.mark.parametrize("text,message", [
    ("'ab'", "k.cl:1:1: warning: multi-character character constant"),
    (r'"\q"', "k.cl:1:2: warning: unknown escape sequence '\\q'"),
    ("0x1p99999", "k.cl:1:1: warning: magnitude of floating-point constant too large for type 'double'"),
    ("1e999", "k.cl:1:1: warning: magnitude of floating-point constant too large for type 'double'"),
])
def test_warnings(text, message):
    _, diags = lex(text)
    assert diags.render().startswith(message + "\n")


def test_lexing_continues_after_bad_character():
    toks, diags = lex("a ` b")
    assert [t.text for t in toks[:-1]] == ["a", "b"]
    assert diags.error_count == 1
