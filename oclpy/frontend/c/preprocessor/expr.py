"""`#if` expressions (C99 6.10.1): integer constant expressions in intmax_t/uintmax_t.

intmax_t is clang's for OpenCL C: 128 bits (`__INTMAX_WIDTH__`), since clang
gives OpenCL C's reserved `long long` 128 bits. So `#if` agrees with clang
where 64 bits would overflow: `0xffffffffffffffff + 1 == 0` is false and
`1 << 63` positive, as with clang -x cl (clang -x c, with a 64-bit intmax_t,
says otherwise).

`evaluate(tokens, eol, diags)` takes the tokens of a `#if` line after macro
replacement, with each `defined X` already replaced by 1 or 0, and returns the
truth of the expression, or None after reporting an error (the group is then
skipped, as clang does). Arithmetic is C's on 128 bits: the usual arithmetic
conversions make both operands unsigned when either is; signed overflow
wraps and warns; `/` and `%` truncate toward zero; `&&`, `||` and `?:` do
not evaluate the operand they skip, so a division by zero there is fine
(clang's `ValueLive`). Identifiers left after expansion are 0, but for `true`
(a keyword of OpenCL C: clang -x cl makes it 1). Messages are
clang's words; the precedence numbers are those of clang's PPExpressions.cpp.
"""

from __future__ import annotations

import re
from typing import Optional

from ....diagnostics import DiagnosticEngine, SourceLocation
from ..lexer import decode_escapes
from .macros import PPError, loc_of
from .tokens import PPToken

BITS = 128
MASK = (1 << BITS) - 1
SIGN = 1 << (BITS - 1)

PRECEDENCE = {
    "*": 14, "/": 14, "%": 14, "+": 13, "-": 13, "<<": 12, ">>": 12,
    "<": 11, "<=": 11, ">": 11, ">=": 11, "==": 10, "!=": 10, "&": 9, "^": 8, "|": 7,
    "&&": 6, "||": 5, "?": 4, ",": 3,
}
_NO_CONVERSION = {"<<", ">>", "&&", "||", ","}  # operators without the usual arithmetic conversions
_INT = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")

Value = tuple[int, bool]  # (value, unsigned): value in [-2**127, 2**127) or [0, 2**128)


def _wrap_signed(v: int) -> int:
    v &= MASK
    return v - (1 << BITS) if v & SIGN else v


class _Evaluator:
    def __init__(self, tokens: list[PPToken], eol: SourceLocation, diags: DiagnosticEngine) -> None:
        self.toks = tokens
        self.pos = 0
        self.eol = eol
        self.diags = diags

    def peek(self) -> Optional[PPToken]:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def where(self, tok: Optional[PPToken]) -> SourceLocation:
        return loc_of(tok) if tok is not None else self.eol

    def expression(self, min_prec: int, live: bool) -> Value:
        """A value then binary operators of precedence >= min_prec (precedence climbing)."""
        lhs = self.unary(live)
        while True:
            tok = self.peek()
            if tok is None or tok.text in (")", ":"):
                return lhs
            prec = PRECEDENCE.get(tok.text) if tok.kind == "punct" else None
            if prec is None:
                if tok.text == "(" and tok.kind == "punct" and self.pos and self.toks[self.pos - 1].kind == "id":
                    name = self.toks[self.pos - 1]
                    raise PPError(f"function-like macro '{name.text}' is not defined", loc_of(name))
                raise PPError("token is not a valid binary operator in a preprocessor subexpression", loc_of(tok))
            if prec < min_prec:
                return lhs
            self.pos += 1
            if tok.text == "?":
                lhs = self.conditional(lhs, tok, live)
                continue
            rhs_live = live and (tok.text != "&&" or lhs[0] != 0) and (tok.text != "||" or lhs[0] == 0)
            rhs = self.expression(prec + 1, rhs_live)
            lhs = self.binary(tok, lhs, rhs, live)

    def conditional(self, cond: Value, question: PPToken, live: bool) -> Value:
        middle = self.expression(1, live and cond[0] != 0)
        colon = self.peek()
        if colon is None or colon.text != ":":
            raise PPError("expected ':'", self.where(colon), ("to match this '?'", loc_of(question)))
        self.pos += 1
        last = self.expression(PRECEDENCE["?"], live and cond[0] == 0)
        unsigned = middle[1] or last[1]
        value = middle[0] if cond[0] != 0 else last[0]
        return (value & MASK if unsigned else value), unsigned

    def unary(self, live: bool) -> Value:
        tok = self.peek()
        if tok is None:
            raise PPError("expected value in expression", self.eol)
        self.pos += 1
        kind, text = tok.kind, tok.text
        if kind == "number":
            return self.number(tok, live)
        if kind == "char":
            return self.char(tok)
        if kind == "id":  # `true` is a keyword of OpenCL C, 1 here as in C++ (clang -x cl)
            return int(text == "true"), False
        if text == "(":
            value = self.expression(1, live)
            close = self.peek()
            if close is None or close.text != ")":
                raise PPError("expected ')' in preprocessor expression", self.where(close),
                              ("to match this '('", loc_of(tok)))
            self.pos += 1
            return value
        if text in ("+", "-", "~", "!"):
            return self.unary_op(tok, self.unary(live), live)
        if text == ")":
            raise PPError("expected value in expression", loc_of(tok))
        raise PPError("invalid token at start of a preprocessor expression", loc_of(tok))

    def unary_op(self, op: PPToken, operand: Value, live: bool) -> Value:
        v, unsigned = operand
        if op.text == "!":
            return int(v == 0), False
        if op.text == "+":
            return operand
        if op.text == "~":
            return (~v & MASK, True) if unsigned else (~v, False)
        if unsigned:
            return -v & MASK, True
        if v == -SIGN and live:
            self.diags.warning(loc_of(op), "integer overflow in preprocessor expression")
        return _wrap_signed(-v), False

    def number(self, tok: PPToken, live: bool) -> Value:
        text = tok.text
        m = _INT.fullmatch(text)
        if m is None:
            message, offset = _bad_number(text)
            raise PPError(message, SourceLocation(tok.file, tok.line, tok.col + offset))
        digits, suffix = m.group(1), (m.group(2) or "").lower()
        base = {"0x": 16, "0b": 2}.get(digits[:2].lower(), 8 if digits.startswith("0") else 10)
        value = int(digits[2:] if base in (2, 16) else digits, base)
        unsigned = "u" in suffix
        if value > MASK:
            if live:
                self.diags.error(loc_of(tok), "integer literal is too large to be represented in any integer type")
            return value & MASK, True
        if not unsigned and value >= SIGN:
            if live and base == 10:
                self.diags.warning(loc_of(tok), "integer literal is too large to be represented in a signed "
                                                "integer type, interpreting as unsigned")
            unsigned = True
        return value, unsigned

    def char(self, tok: PPToken) -> Value:
        quote = tok.text.index("'") + 1
        data = decode_escapes(tok.text[quote:-1], SourceLocation(tok.file, tok.line, tok.col + quote), self.diags)
        if not data:
            self.diags.warning(loc_of(tok), "empty character constant")
            raise PPError("invalid token at start of a preprocessor expression", loc_of(tok))
        if tok.text.startswith("L"):  # wchar_t: the first character's code point
            return ord(data.decode("utf-8", "replace")[0]), False
        if len(data) == 1:
            return (data[0] - 256 if data[0] >= 128 else data[0]), False
        if len(data) != 4:  # four characters: clang's -Wfour-char-constants, off by default
            self.diags.warning(loc_of(tok), "multi-character character constant")
        if len(data) > 4:
            self.diags.warning(loc_of(tok), "character constant too long for its type")
        value = 0
        for byte in data[-4:]:
            value = (value << 8) | byte
        return (value - (1 << 32) if value & 0x80000000 else value), False

    def binary(self, op: PPToken, lhs: Value, rhs: Value, live: bool) -> Value:
        text = op.text
        (a, a_u), (b, b_u) = lhs, rhs
        unsigned = a_u or b_u
        if text not in _NO_CONVERSION and unsigned:
            if live:
                for side, (v, u) in (("left", lhs), ("right", rhs)):
                    if not u and v < 0:
                        self.diags.warning(loc_of(op), f"{side} side of operator converted from negative value to "
                                                       f"unsigned: {v} to {v & MASK}")
            a, b = a & MASK, b & MASK
        if text in ("&&", "||"):
            return int((a != 0 and b != 0) if text == "&&" else (a != 0 or b != 0)), False
        if text == ",":
            return rhs
        if text in ("<", "<=", ">", ">=", "==", "!="):
            return int(_COMPARE[text](a, b)), False
        if text in ("<<", ">>"):
            return self.shift(op, lhs, rhs, live)
        if text in ("/", "%") and b == 0:
            if not live:
                return 0, unsigned
            what = "division" if text == "/" else "remainder"
            raise PPError(f"{what} by zero in preprocessor expression", loc_of(op))
        exact = _ARITH[text](a, b)
        if unsigned:
            return exact & MASK, True
        result = _wrap_signed(exact)
        if result != exact and live:
            self.diags.warning(loc_of(op), "integer overflow in preprocessor expression")
        return result, False

    def shift(self, op: PPToken, lhs: Value, rhs: Value, live: bool) -> Value:
        (a, unsigned), amount = lhs, rhs[0] & MASK
        overflow = amount >= BITS
        if op.text == "<<":
            result = 0 if overflow else (a << amount)
            if not overflow:
                overflow = (result & MASK) >> amount != (a & MASK) if unsigned else _wrap_signed(result) >> amount != a
            result = result & MASK if unsigned else _wrap_signed(result)
        else:
            amount = min(amount, BITS - 1)
            result = a >> amount
        if overflow and live:
            self.diags.warning(loc_of(op), "integer overflow in preprocessor expression")
        return result, unsigned


def _truncating_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_ARITH = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _truncating_div, "%": lambda a, b: a - b * _truncating_div(a, b),
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
}
_COMPARE = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


def _bad_number(text: str) -> tuple[str, int]:
    """clang's message for a pp-number that is no integer constant, and the offset it points at
    (the scan of clang's NumericLiteralParser)."""
    n, lower = len(text), text.lower()
    if lower.startswith(("0x", "0b")):
        digits = "0123456789abcdefABCDEF" if lower[1] == "x" else "01"
        i = 2
        while i < n and text[i] in digits:
            i += 1
        if lower[1] == "x" and (i < n and text[i] in ".pP"):
            return "floating point literal in preprocessor expression", 0
        if lower[1] == "b" and i < n and text[i].isdigit():
            return f"invalid digit '{text[i]}' in binary constant", i
        i = i if i > 2 else 1
        return f"invalid suffix '{text[i:]}' on integer constant", i
    i = 0
    while i < n and text[i].isdigit():
        i += 1
    if i < n and text[i] in "eE":
        if any(c.isdigit() for c in text[i + 1:i + 3]):
            return "floating point literal in preprocessor expression", 0
        return "exponent has no digits", i
    if text[0] == "." or (i < n and text[i] == "."):
        return "floating point literal in preprocessor expression", 0
    octal = text[0] == "0"
    bad = next((j for j in range(i) if octal and text[j] in "89"), None)
    if bad is None and i < n and text[i] in "abcdfABCDF":
        bad = i
    if bad is not None:
        return f"invalid digit '{text[bad]}' in {'octal' if octal else 'decimal'} constant", bad
    if lower[i:] in ("z", "uz", "zu"):
        return "'size_t' suffix for literals is a C++2b feature", 0
    return f"invalid suffix '{text[i:]}' on integer constant", i


def evaluate(tokens: list[PPToken], eol: SourceLocation, diags: DiagnosticEngine) -> Optional[bool]:
    """The truth of a `#if`/`#elif` expression, or None after an error was reported."""
    ev = _Evaluator(tokens, eol, diags)
    try:
        value = ev.expression(PRECEDENCE["?"], True)
        extra = ev.peek()
        if extra is not None:
            diags.error(loc_of(extra), "expected end of line in preprocessor expression")
    except PPError as err:
        diag = diags.error(err.loc, err.message)
        if err.note is not None:
            diags.note(diag, err.note[1], err.note[0])
        return None
    return value[0] != 0
