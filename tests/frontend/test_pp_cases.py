"""The preprocessor cases (tests/frontend/preprocessor_cases/*.cl) against the
token streams and diagnostics that `clang -E -x cl` gives for them, written in
here so that they run without clang (test_pp_clang.py runs clang itself).

Token streams are compared, not white space: both sides are cut into
pp-tokens with line markers dropped. The expected text is clang-14's output
(line markers and blank lines removed); the C99 examples agree with the text
of C99 6.10.3.5.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.preprocess import preprocess
from oclpy.frontend.c.preprocessor.tokens import lex

CASES = Path(__file__).resolve().parent / "preprocessor_cases"
_MARKER = re.compile(r"^#[ \t]*(?:line[ \t]+)?[0-9]+[ \t]+\"[^\n]*$", re.M)  # `# N "file" flags`, `#line N "file"`


def token_texts(text: str) -> list[str]:
    """The pp-tokens of preprocessed text, line markers dropped."""
    return [t.text for t in lex(_MARKER.sub("", text), "-").tokens if t.kind != "eof"]


def run_case(name: str) -> tuple[str, DiagnosticEngine]:
    path = CASES / name
    diags = DiagnosticEngine()
    return preprocess(path.read_text(), str(path), parse_build_options(""), diags), diags


EXPECTED = {
    "c99_example3.cl": """\
        f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
        f(2 * (2 +(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
        int i[] = { 1, 23, 4, 5, };
        char c[2][6] = { "hello", "" };
""",
    "c99_example4.cl": """\
        printf("x" "1" "= %d, x" "2" "= %s", x1, x2);
        fputs("strncmp(\\"abc\\\\0d\\", \\"abc\\", '\\\\4') == 0" ": @\\n", s);
        "vers2.h"
        "hello";
        "hello" ", world"
""",
    "c99_example4_include.cl": """\
        int in_vers2;
        int after_include = 2;
""",
    "c99_example5.cl": """\
        int j[] = { 123, 45, 67, 89,
        10, 11, 12, };
""",
    "c99_example6.cl": """\
        (1-1) ( 3 )
""",
    "c99_example6_invalid.cl": """\
        (1 - 1) ( 3 )
""",
    "c99_example7.cl": """\
        fprintf(stderr, "Flag");
        fprintf(stderr, "X = %d\\n", x);
        puts("The first, second, and third items.");
        ((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));
""",
    "c99_rescan_example.cl": """\
        2*9*g
        AA BB
        self + 1
        F ( 1)
        [[1]]
        42
        bar baz
        obj obj(1)
""",
    "comments_in_directives.cl": """\
        int n_is_4;
        int n_defined;
        int m_is_6;
        o[0] = 4; o[1] = 5 + 1; o[2] = 6 + 7; o[3] = 9; o[4] = 8;
        int in_vers2;
        int a = 1 + 2;
""",
    "conditionals.cl": """\
        int a1;
        int b4;
        int b6;
        int c1;
        int c3;
        int d1;
        int e1;
""",
    "defined_from_macro.cl": """\
        int d_is_true;
        int y_not_defined;
""",
    "diagnostics.cl": """\
        int done;
""",
    "function_like_no_paren.cl": """\
        int f = 3;
        int a = f;
        int b = (2 + 1);
        int c = (3 + 1);
        int d = (4 + 1) + f;
        int (*p)(int) = &f;
        h H H
        (5 + 1)
""",
    "if_arithmetic.cl": """\
        ok_1
        ok_2
        ok_3
        ok_4
        ok_5
        ok_6
        ok_7
        ok_8
        ok_9
        ok_10
        ok_11
        ok_12
        ok_13
        ok_14
        ok_15
        ok_16
        ok_17
        ok_18
""",
    "include_macro.cl": """\
        int in_vers2;
        int in_vers2;
        int after = 2 + 0;
""",
    "line_directive.cl": """\
        int a = 2;
        int b = 777;
        int c = 778;
        int d = 10; const char *e = "foo.cl";
        int f = 42;
        int g = 100; const char *h = "bar.cl";
        int line_in_if;
""",
    "line_in_macro_args.cl": """\
        7 6
        8 1 8
        11
        14 0
        x 18 y 1 18 2
        v(a,21 1,b)
        25 1 xy
        1 30
""",
    "paste.cl": """\
        a b xy 12 1.5e+3 L'a' L"s"
        -> <<= ++ && ##
        x__LINE__ x7
        123 c a
        char p[] = "x ## y";
        a ## b
        ab
        int var_1_end, var_two_end, var__end;
        zz
""",
    "pragmas.cl": """\
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        #pragma
        #pragma unroll
        #pragma unroll 4
        #pragma OPENCL FP_CONTRACT ON
        #pragma STDC FP_CONTRACT OFF
        int a;
        #pragma unroll 8
        int b;
        #pragma OPENCL EXTENSION cl_khr_fp16 : enable
        #pragma unroll
        for (int i = 0; i < 4; i++) a++;
        #pragma unroll 2
        b++;
        #pragma wide string "quoted" \\ backslash
""",
    "splices.cl": """\
        int integer = 1+ 2;
        const char *s = "ab";
        int after_comment;
        int after_block;
        int w = 3 + 4;
        int x = 19;
""",
    "stringize.cl": """\
        "a \\"b\\\\\\"c\\\\\\\\\\" 'd' '\\\\'' \\ e"
        "" "a b" "leading and trailing"
        "\\"\\\\n\\"" "'\\"'" "L\\"wide\\"" "x y"
        "a+b" "a + b" "(a , b)" "#" "##" "x ## y"
        "10" "\\"1\\"" "str(1)"
        "ONE" "1"
""",
    "text_and_tokens.cl": """\
        int a = 0x1p-3f + 1.5e+10 + .5 + 1e3 + 0777 + 0xABCu + 12ULL;
        char c = 'x', d = '\\'', *s = "a\\"b\\\\c", *w = L"wide";
        a+++++b; a->b; a<<=1; a>>=2; a...b; x ## y; # not a directive
        <: :> <% %> %: %:%:
        <: %:%:
        @ ` $dollar \\ unknown
""",
    "undef.cl": """\
        int a1 = 1;
        int a2 = A;
        int a3 = 2;
        int f = F(3);
        int a_defined;
        int a_undefined;
""",
    "va_args.cl": """\
        h() h(,) h(a , b) h((a, b), c)
        f(1, ) f(1, ) f(1, 2, 3) f(, 2)
        g(1) g(1,9) g(1,) g() g(1, 2, 3)
        g2(0,) g2(0,,) g2(0,a)
        g4(1) g4(1,) g4(1,2)
        o(1 end) o(1 - 12 - end) o(1 end) o( end) o(1 end)
        "" "x y"
        1 2 3
""",
}

EXPECTED_DIAGNOSTICS = {
    "c99_example6_invalid.cl": [
        "4:9: warning: 'OBJ_LIKE' macro redefined",
        "5:9: warning: 'OBJ_LIKE' macro redefined",
        "6:9: warning: 'FUNC_LIKE' macro redefined",
        "7:9: warning: 'FUNC_LIKE' macro redefined",
    ],
    "conditionals.cl": [
        "51:10: warning: extra tokens at end of #ifdef directive",
    ],
    "defined_from_macro.cl": [
        "5:5: warning: macro expansion producing 'defined' has undefined behavior",
    ],
    "diagnostics.cl": [
        "2:2: warning: a user warning   with   spaces",
        "3:10: warning: extra tokens at end of #ifdef directive",
        "6:7: warning: extra tokens at end of #else directive",
        "7:8: warning: extra tokens at end of #endif directive",
        "8:10: warning: extra tokens at end of #undef directive",
        "10:9: warning: 'R' macro redefined",
        "11:9: warning: redefining builtin macro",
        "12:8: warning: undefining builtin macro",
        "13:22: warning: multi-character character constant",
        "15:16: warning: extra tokens at end of #line directive",
    ],
    "splices.cl": [
        "14:11: warning: escaped newline between */ characters at block comment end",
        "16:24: warning: backslash and newline separated by space",
    ],
}


def test_every_case_has_an_expectation():
    assert sorted(p.name for p in CASES.glob("*.cl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_case_token_stream(name):
    out, _ = run_case(name)
    assert token_texts(out) == token_texts(EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_case_diagnostics(name):
    _, diags = run_case(name)
    got = [f"{d.loc.line}:{d.loc.col}: {d.severity}: {d.message}" for d in diags.diagnostics]
    assert got == EXPECTED_DIAGNOSTICS.get(name, [])
    assert all(d.loc.file.endswith(name) for d in diags.diagnostics)
