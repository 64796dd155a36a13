"""`#if` expressions (C99 6.10.1): intmax_t/uintmax_t arithmetic on 64 bits, the
usual arithmetic conversions, short-circuit evaluation, and clang's messages.

The expected values are C's (clang -x c agrees on every one; clang -x cl gives
OpenCL C a 128-bit intmax_t, which only shows where 64 bits overflow)."""

from __future__ import annotations

import pytest

from .pp_helpers import messages, pp, tokens


def truth(condition: str, prefix: str = "") -> tuple[bool, list[str]]:
    out, diags = pp(f"{prefix}#if {condition}\nyes\n#else\nno\n#endif\n")
    return tokens(out) == "yes", messages(diags)


@pytest.mark.parametrize("expr,value", [
    ("-7 % 2", "-1"), ("-7 / 2", "-3"), ("7 % -2", "1"), ("-7 % -2", "-1"), ("7 / -2", "-3"),
    ("(-9223372036854775807 - 1) % -1", "0"), ("1 + 2 * 3", "7"), ("(1 + 2) * 3", "9"), ("10 - 2 - 3", "5"),
    ("2 * 3 % 4", "2"), ("100 / 10 / 5", "2"), ("1 << 10", "1024"), ("-16 >> 2", "-4"), ("1 << 2 + 1", "8"),
    ("0xffffffffffffffffu >> 63", "1"), ("(-1 >> 63)", "-1"), ("~0", "-1"), ("~0u", "18446744073709551615u"),
    ("-(-3)", "3"), ("+4", "4"), ("!5", "0"), ("!0", "1"), ("3 & 5", "1"), ("3 | 5", "7"), ("3 ^ 5", "6"),
    ("1 < 2", "1"), ("2 <= 1", "0"), ("1 != 1", "0"), ("(1 < 2) + (2 < 1)", "1"), ("1 ? 2 : 3", "2"),
    ("0 ? 2 : 3", "3"), ("1 ? 0 ? 4 : 5 : 6", "5"), ("(1, 2)", "2"), ("0x10", "16"), ("010", "8"), ("0b101", "5"),
    ("0XaBc", "2748"), ("1u", "1"), ("1lu", "1"), ("1LLU", "1"), ("1ull", "1"), ("1L", "1"), ("1ll", "1"),
    ("'a'", "97"), ("'\\n'", "10"), ("'\\0'", "0"), ("'\\x41'", "65"), ("'\\101'", "65"), ("'\\''", "39"),
    ("'\\377'", "-1"), ("'\\xff'", "-1"), ("'ab'", "24930"), ("'abcd'", "0x61626364"), ("L'a'", "97"),
    ("undefined_identifier", "0"), ("true", "0"), ("undefined_identifier + 3", "3"),
    ("9223372036854775807", "0x7fffffffffffffff"), ("18446744073709551615u", "-1"), ("0u - 1", "-1"),
    ("-1 < 0u", "0"), ("(0 ? 1u : -1) > 0", "1"), ("(1 ? -1 : 0u) > 0", "1"), ("(1 ? -1 : 0) < 0", "1"),
    ("1 << 63 >> 63", "-1"), ("1u << 63 >> 63", "1"), ("(1 || 0) + (0 && 1)", "1"), ("-1 / 2u > 0", "1"),
])
def test_value(expr, value):
    holds, _ = truth(f"({expr}) == {value}")
    assert holds


@pytest.mark.parametrize("condition", [
    "0 && 1 / 0", "0 && 1 % 0", "0 && (1 / 0)", "!(1 || 1 / 0)", "0 ? 1 / 0 : 0", "1 ? 0 : 1 / 0",
    "0 && 9223372036854775807 + 1", "0 && 99999999999999999999",
])
def test_unevaluated_operands_report_nothing(condition):
    holds, diags = truth(condition)
    assert not holds and diags == []


@pytest.mark.parametrize("condition,expected", [
    ("1 / 0", ["1:7: error: division by zero in preprocessor expression"]),
    ("1 % 0", ["1:7: error: remainder by zero in preprocessor expression"]),
    ("1 && 1 / (2 - 2)", ["1:12: error: division by zero in preprocessor expression"]),
    ("", ["1:5: error: expected value in expression"]),  # the end of "#if "
    ("1 +", ["1:8: error: expected value in expression"]),
    ("()", ["1:6: error: expected value in expression"]),
    ("(1", ["1:7: error: expected ')' in preprocessor expression", "  1:5: note: to match this '('"]),
    ("1 2", ["1:7: error: token is not a valid binary operator in a preprocessor subexpression"]),
    ("1 = 1", ["1:7: error: token is not a valid binary operator in a preprocessor subexpression"]),
    ("1.0", ["1:5: error: floating point literal in preprocessor expression"]),
    ("1e3", ["1:5: error: floating point literal in preprocessor expression"]),
    ('"s"', ["1:5: error: invalid token at start of a preprocessor expression"]),
    ("* 2", ["1:5: error: invalid token at start of a preprocessor expression"]),
    ("1 ? 2", ["1:10: error: expected ':'", "  1:7: note: to match this '?'"]),
    ("x(1)", ["1:5: error: function-like macro 'x' is not defined"]),
    ("0x", ["1:6: error: invalid suffix 'x' on integer constant"]),
    ("1abc", ["1:6: error: invalid digit 'a' in decimal constant"]),
    ("1_a", ["1:6: error: invalid suffix '_a' on integer constant"]),
    ("0x1g", ["1:8: error: invalid suffix 'g' on integer constant"]),
    ("0b102", ["1:9: error: invalid digit '2' in binary constant"]),
    ("1e", ["1:6: error: exponent has no digits"]),
    ("08", ["1:6: error: invalid digit '8' in octal constant"]),
    ("1z", ["1:5: error: 'size_t' suffix for literals is a C++2b feature"]),
    ("''", ["1:5: warning: empty character constant",
            "1:5: error: invalid token at start of a preprocessor expression"]),
    ("99999999999999999999 && 0", ["1:5: error: integer literal is too large to be represented in any integer type"]),
    ("defined", ["1:12: error: macro name missing"]),
    ("defined(X", ["1:14: error: missing ')' after 'defined'", "  1:12: note: to match this '('"]),
    ("defined 3", ["1:13: error: macro name must be an identifier"]),
])
def test_errors_skip_the_group(condition, expected):
    holds, diags = truth(condition)
    assert not holds and diags == expected


@pytest.mark.parametrize("condition,expected", [
    ("1 , 2", ["1:7: error: expected end of line in preprocessor expression"]),
    ("1 )", ["1:7: error: expected end of line in preprocessor expression"]),
])
def test_extra_tokens_after_the_expression(condition, expected):
    _, diags = truth(condition)
    assert diags == expected


@pytest.mark.parametrize("condition,holds,expected", [
    ("-1 > 0u", True,
     ["1:8: warning: left side of operator converted from negative value to unsigned: -1 to 18446744073709551615"]),
    ("0u < -2", True,
     ["1:8: warning: right side of operator converted from negative value to unsigned: -2 to 18446744073709551614"]),
    ("0x7fffffffffffffff + 1 < 0", True, ["1:24: warning: integer overflow in preprocessor expression"]),
    ("(-9223372036854775807 - 1) / -1 < 0", True, ["1:32: warning: integer overflow in preprocessor expression"]),
    ("-(-9223372036854775807 - 1) < 0", True, ["1:5: warning: integer overflow in preprocessor expression"]),
    ("4294967296 * 4294967296 == 0", True, ["1:16: warning: integer overflow in preprocessor expression"]),
    ("1 << 64", False, ["1:7: warning: integer overflow in preprocessor expression"]),
    ("1 << 63 < 0", True, ["1:7: warning: integer overflow in preprocessor expression"]),
    ("(1 >> 64) == 0", True, ["1:8: warning: integer overflow in preprocessor expression"]),
    ("18446744073709551615 > 0", True, ["1:5: warning: integer literal is too large to be represented in a "
                                        "signed integer type, interpreting as unsigned"]),
    ("0xffffffffffffffff > 0", True, []),
    ("'ab' == 24930", True, ["1:5: warning: multi-character character constant"]),
    ("'abcde' != 0", True, ["1:5: warning: character constant too long for its type",
                        "1:5: warning: multi-character character constant"]),
])
def test_warnings(condition, holds, expected):
    assert truth(condition) == (holds, expected)


def test_defined_both_forms_and_from_macros():
    assert truth("defined X && defined(X) && defined ( X )", "#define X\n") == (True, [])
    assert truth("D", "#define X\n#define D defined(X)\n") == (
        True, ["3:5: warning: macro expansion producing 'defined' has undefined behavior"])
    assert truth("!IS(Y)", "#define IS(m) defined m\n") == (True, [])  # -pedantic in clang


def test_defined_does_not_expand_its_operand():
    assert truth("defined F && defined(F)", "#define F(x) x\n") == (True, [])


def test_macros_in_if_expand_first():
    defines = "#define TWICE(x) ((x) * 2)\n#define ZERO 0\n#define EMPTY\n"
    assert truth("TWICE(2) == 4 && ZERO == 0 && EMPTY 1", defines)[0]


def test_elif_after_a_taken_group_is_not_evaluated():
    out, diags = pp("#if 1\na\n#elif 1 / 0\nb\n#elif (((\nc\n#else\nd\n#endif\n")
    assert tokens(out) == "a" and messages(diags) == []


def test_elif_chain_takes_the_first_true_group():
    source = "#if 0\na\n#elif 1 - 1\nb\n#elif 2 > 1\nc\n#elif 1\nd\n#else\ne\n#endif\n"
    assert tokens(pp(source)[0]) == "c"
