"""Universal character names and UTF-8 letters in identifiers (C99 6.4.2.1, 6.4.3, Annex D),
in the preprocessor, the lexer and a kernel, against clang: the token streams are
`clang-14 -E -x cl`'s (it writes identifiers in UTF-8), the diagnostics clang 23.1's
(the clang-tidy wheel), line and column."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.diagnostics import DiagnosticEngine, SourceLocation
from oclpy.frontend.c.identifier_chars import allowed, allowed_first
from oclpy.frontend.c.lexer import decode_escapes, tokenize
from oclpy.frontend.c.preprocessor.tokens import lex_one
from tests.frontend.sema_helpers import build_errors

from .pp_helpers import expand, messages, pp, tokens

CONCAT = "#define CONCAT(a, b) PRIMITIVE_CONCAT(a, b)\n#define PRIMITIVE_CONCAT(a, b) a ## b\n" \
         "#define STRINGIZE(x) STRINGIZE_D(x)\n#define STRINGIZE_D(x) # x\n"


# -- the preprocessor -----------------------------------------------------------------------


def test_a_ucn_and_utf8_spell_one_identifier_written_in_utf8():
    assert expand("f\\u00e9 f\\U000000E9 fé x\\u00b5y") == "fé fé fé xµy"


def test_a_macro_named_by_a_ucn_is_the_utf8_name_too():
    assert expand("#define \\u00c1 1\n#define M\\u00e9(a) a\n\\u00c1 Á \\U000000c1 Mé(2)\n#ifdef Á\nyes\n#endif\n") \
        == "1 1 1 2 yes"


def test_stringizing_keeps_the_spelling():
    assert expand("#define S(x) #x\nS(x\\u00e9 é)\n") == '"x\\u00e9 é"'


def test_pasting_forms_identifiers_of_ucns():
    """Boost.Wave t_9_005, as clang."""
    src = CONCAT + "STRINGIZE(CONCAT(\\, u00ff))\nSTRINGIZE(CONCAT(\\u00ff, 56))\nCONCAT(\\, u00ff)\nCONCAT(\\u00ff, 56)\n"
    assert expand(src) == '"\\u00ff" "\\u00ff56" ÿ ÿ56'
    assert lex_one("\\u00e9x") == ("id", "éx")


def test_an_incomplete_ucn_is_a_backslash_then_an_identifier():
    out, diags = pp(CONCAT + "CONCAT(\\u00, ff)\n")
    assert tokens(out) == "\\ u00ff"
    assert messages(diags) == [
        "5:8: warning: incomplete universal character name; treating as '\\' followed by identifier"]


@pytest.mark.parametrize("source,stream,expected", [
    ("\\u0061b", "\\u0061 b", ["1:1: error: character 'a' cannot be specified by a universal character name"]),
    ("x\\u0024", "x \\u0024", ["1:2: error: character '$' cannot be specified by a universal character name"]),
    ("x\\u001f", "x \\u001f", ["1:2: error: universal character name refers to a control character"]),
    ("y\\ud800", "y \\ ud800", ["1:2: error: invalid universal character"]),
    ("\\u0061", "\\u0061", ["1:1: error: character 'a' cannot be specified by a universal character name"]),
    ("a\\u0301b", "a\u0301b", ["1:2: error: character <U+0301> not allowed in an identifier"]),
    ("a€b", "a€b", ["1:2: error: character <U+20AC> not allowed in an identifier"]),
    ("x\\U00110000", "x\\U00110000", ["1:2: error: character <U+110000> not allowed in an identifier"]),
    ("€x", "x", ["1:1: error: unexpected character <U+20AC>"]),
    ("\u0660x", "x", ["1:1: error: character <U+0660> not allowed at the start of an identifier"]),
    ("\\u0660x", "\\u0660 x", []),
    ("x\\u00a0y", "x y", ["1:2: warning: treating Unicode character as whitespace"]),
    ("\\u x", "\\ u x", ["1:1: warning: \\u used with no following hex digits; treating as '\\' followed by identifier"]),
])
def test_invalid_identifier_characters_as_clang(source, stream, expected):
    out, diags = pp(source + "\n")
    assert tokens(out) == stream
    assert messages(diags) == expected


def test_invalid_ucns_are_errors_in_directives_and_skipped_groups_too():
    """clang reports a UCN of a basic character wherever it is; a letter outside Annex D
    and a stray UTF-8 character only in text lines."""
    src = "#define \\u0061 weird\n#define M a€b “x”\n#if 0\n€ a€b \\u0062\n#endif\n"
    _, diags = pp(src)
    assert messages(diags) == [
        "1:9: error: character 'a' cannot be specified by a universal character name",
        "1:9: error: macro name must be an identifier",
        "4:7: error: character 'b' cannot be specified by a universal character name"]


def test_a_stray_character_from_a_macro_reaches_the_parser():
    assert build_errors("#define Q “\nkernel void k(global int *o) { o[0] = Q; }\n") == [
        ("2:39", "expected expression")]


def test_annex_d_tables():
    assert allowed(0xB5) and allowed(0x3042) and not allowed(0x20AC) and not allowed(0x0301)
    assert allowed(0x0660) and not allowed_first(0x0660) and allowed_first(0xAA)
    assert not allowed(0x1F600)


# -- the lexer ------------------------------------------------------------------------------


def test_lexer_names_identifiers_in_utf8():
    diags = DiagnosticEngine()
    toks = tokenize("f\\u00e9 fé \\u0660 \\u0061", "k.cl", diags)
    assert [(t.kind, t.text) for t in toks[:-1]] == [("id", "fé"), ("id", "fé"), ("unknown", "\\u0660"),
                                                     ("unknown", "\\u0061")]
    assert not diags.diagnostics


@pytest.mark.parametrize("body,value", [
    ("\\u00e9", "é".encode()), ("\\U0001F600", "😀".encode()), ("\\u0024\\u0040\\u0060", b"$@`"),
])
def test_ucns_in_string_literals_are_utf8(body, value):
    diags = DiagnosticEngine()
    assert decode_escapes(body, SourceLocation("k.cl", 1, 2), diags) == value
    assert not diags.diagnostics


def test_bad_ucns_in_literals_are_clangs_errors():
    src = "\n".join(f'constant char s{i}[] = "{body}";' for i, body in enumerate(
        ["\\u0061", "\\u", "\\u00", "\\ud800", "\\U00110000", "\\u0001"]))
    assert build_errors(src + "\nkernel void k(global int *o) { o[0] = '\\u00e9'; }\n") == [
        ("1:23", "character 'a' cannot be specified by a universal character name"),
        ("2:23", "\\u used with no following hex digits"),
        ("3:23", "incomplete universal character name"),
        ("4:23", "invalid universal character"),
        ("5:23", "invalid universal character"),
        ("6:23", "universal character name refers to a control character"),
        ("7:39", "character too large for enclosing character literal type")]


def test_the_parser_rejects_what_is_no_identifier_as_clang():
    """clang 23: "expected expression" at both; oclpy stops after the preprocessor's error."""
    assert build_errors("void f(int ab) {\n  int v = \\u0061b;\n}\n") == [
        ("2:11", "character 'a' cannot be specified by a universal character name")]
    assert build_errors("void f(void) {\n  int w = \\u0660;\n}\n") == [("2:11", "expected expression")]


# -- a kernel -------------------------------------------------------------------------------


def test_a_kernel_of_ucn_and_utf8_names_runs(queue):
    import oclpy as cl
    src = """#define \\u00c1 1
#define S(x) #x
int f\\u00e9(int x) { return x + \\u00c1 + Á; }
constant char s[] = S(\\u00e9) "\\u00e9";
kernel void k\\u00e9(global int *o) { o[0] = fé(2); o[1] = sizeof(s); o[2] = (uchar)s[2]; }
"""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    assert [k.function_name for k in prg.all_kernels()] == ["ké"]
    out = np.zeros(3, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    getattr(prg, "ké")(q, (1,), None, buf)
    cl.enqueue_copy(q, out, buf)
    assert out.tolist() == [4, 5, 0xC3]  # "\u00e9" "\u00e9": é twice, and the NUL


# -- clang's delimited and named escapes (C2y; accepted without a warning by default) --------


def test_delimited_and_named_ucns_spell_the_same_identifier():
    assert expand("f\\u{e9} f\\N{LATIN SMALL LETTER E WITH ACUTE} fé\n") == "fé fé fé"
    diags = DiagnosticEngine()
    body = "\\u{e9}\\N{LATIN SMALL LETTER E WITH ACUTE}"
    assert decode_escapes(body, SourceLocation("k.cl", 1, 2), diags) == "éé".encode()
    assert not diags.diagnostics


def test_an_unknown_character_name_is_clangs_error():
    out, diags = pp("h\\N{NOT A NAME}y\n")
    assert tokens(out) == "h \\ N { NOT A NAME } y"
    assert messages(diags) == ["1:5: error: 'NOT A NAME' is not a valid Unicode character name"]
    assert build_errors('constant char s[] = "\\N{NOT A NAME}";\n') == [
        ("1:25", "'NOT A NAME' is not a valid Unicode character name")]
