"""OpenCL C lexer: preprocessed text -> tokens with original source locations.

One master regular expression recognises every token class (pycparser style);
punctuators are matched longest first. Lines starting with `#` are directives
left by the preprocessor: `#line N "file"` and `# N "file"` set the location of
the next line, `#pragma` lines are skipped (a loop hint at file scope is clang's
error there: it must precede a loop). Comments are skipped here too (the
preprocessor removes them, but the lexer also reads unpreprocessed text in
tests). A character that starts no token is reported and skipped.

Identifiers may hold universal character names and UTF-8 letters
(`identifier_chars.py`); a token's text is the identifier's name, UCNs decoded.
Their errors are the preprocessor's, which reads the text first: here what is
no identifier (`\\u0061`, a stray `“` from a macro's replacement) becomes a
token of kind "unknown", which the parser rejects as clang's does.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional, Union

from ...diagnostics import DiagnosticEngine, SourceLocation
from .identifier_chars import IDENTIFIER, UCN, scan, ucn_value

KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Bool _Complex _Imaginary
    __kernel kernel __global global __local local __constant constant __private private
    __generic generic __read_only read_only __write_only write_only __read_write read_write
    __attribute__ __attribute __restrict __restrict__ __inline __inline__ __const
    vec_step __alignof__ __alignof _Alignof __typeof__ __typeof _Static_assert
""".split())

PUNCTUATORS = sorted("""
    ... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ## [ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #
""".split(), key=len, reverse=True)

_MASTER = re.compile("|".join([
    r"(?P<newline>\n)",
    r"(?P<ws>[ \t\r\f\v]+)",
    r"(?P<comment>//[^\n]*|/\*(?:.|\n)*?\*/)",
    r"(?P<badcomment>/\*)",
    r"(?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)",
    r"(?P<char>L?'(?:[^'\\\n]|\\.)*')",
    r"(?P<string>L?\"(?:[^\"\\\n]|\\.)*\")",
    r"(?P<id>" + IDENTIFIER + ")",
    r"(?P<punct>" + "|".join(re.escape(p) for p in PUNCTUATORS) + ")",
    r"(?P<unterminated>['\"])",
]))

_INT_RE = re.compile(r"(?P<digits>0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(?P<suffix>(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?)")
_FLOAT_RE = re.compile(
    r"(?P<body>(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
    r"|0[xX](?:[0-9a-fA-F]*\.[0-9a-fA-F]+|[0-9a-fA-F]+\.?)[pP][+-]?[0-9]+)(?P<suffix>[fFhHlL]?)")
ULONG_MAX = 2**64 - 1
_MAX_DIGITS = {8: 22, 10: 20, 16: 16}  # digits of ULONG_MAX in each base
# the loop hints, which clang takes only before a statement
_LOOP_PRAGMA = re.compile(r"#\s*pragma\s+(?:unroll|nounroll|unroll_and_jam|nounroll_and_jam|clang\s+loop)\b")
_LINE_DIRECTIVE = re.compile(r"#\s*(?:line\s+)?([0-9]+)(?:\s+\"((?:[^\"\\]|\\.)*)\")?")

_SIMPLE_ESCAPES = {"n": 10, "t": 9, "r": 13, "\\": 92, "'": 39, '"': 34, "?": 63, "a": 7, "b": 8,
                   "f": 12, "v": 11, "e": 27, "E": 27}  # \e and \E: GNU ESC, as clang
_ESCAPE_RE = re.compile(r"\\(x[0-9a-fA-F]+|[0-7]{1,3}|u\{[0-9a-fA-F]+\}|N\{[^}\n]*\}|u[0-9a-fA-F]{0,4}|U[0-9a-fA-F]{0,8}|.)",
                        re.S)

TokenValue = Union[int, float, bytes, None]


@dataclass
class Token:
    kind: str  # "id", "kw", "int", "float", "char", "string", "punct", "unknown", "eof"
    text: str
    loc: SourceLocation
    value: TokenValue = None
    suffix: str = ""  # lower-case literal suffix: "u", "ul", "ll", "f", "h", ...

    @property
    def end(self) -> SourceLocation:
        """The location just after the token (where clang reports a missing ';')."""
        return SourceLocation(self.loc.file, self.loc.line, self.loc.col + len(self.text))

    def __repr__(self) -> str:
        return f"Token({self.kind}, {self.text!r}, {self.loc})"


def decode_escapes(body: str, start: SourceLocation, diags: Optional[DiagnosticEngine]) -> bytes:
    """Decode the escape sequences of a char or string literal body into bytes; `start` is
    where the body begins (an escape's diagnostic points at its backslash, as clang's)."""
    out = bytearray()
    pos = 0
    for m in _ESCAPE_RE.finditer(body):
        out += body[pos:m.start()].encode("utf-8")
        pos = m.end()
        esc = m.group(1)
        loc = SourceLocation(start.file, start.line, start.col + m.start()) if diags is not None else start
        if esc == "x":
            if diags is not None:
                diags.error(loc, "\\x used with no following hex digits")
        elif esc[0] == "x":
            value = int(esc[1:], 16)
            if value > 0xFF and diags is not None:
                diags.error(loc, "hex escape sequence out of range")
            out.append(value & 0xFF)
        elif esc[0] in "01234567":
            out.append(int(esc, 8) & 0xFF)
        elif esc[0] in "uU" or esc[:2] == "N{":
            out += _ucn_bytes(m, loc, diags)
        elif esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
        else:
            if diags is not None:
                diags.warning(loc, f"unknown escape sequence '\\{esc}'")
            out += esc.encode("utf-8")
    out += body[pos:].encode("utf-8")
    return bytes(out)


def _ucn_bytes(escape: re.Match[str], loc: SourceLocation, diags: Optional[DiagnosticEngine]) -> bytes:
    """The UTF-8 of a literal's universal character name (C99 6.4.3; `escape` matched
    `\\u00e9`, or clang's `\\u{e9}` or `\\N{NAME}`), with clang's errors: too few digits, an
    unknown name, a surrogate or past U+10FFFF, a basic or control character other than
    `$`, `@` and `` ` ``."""
    esc = escape.group(1)
    whole = UCN.match(escape.group())
    message, cp = None, None if whole is None else ucn_value(whole)
    if whole is not None and cp is None:
        message = f"'{whole.group(4)}' is not a valid Unicode character name"
        loc = SourceLocation(loc.file, loc.line, loc.col + 3)
    elif cp is None:
        message = "incomplete universal character name" if len(esc) > 1 else \
            f"\\{esc[0]} used with no following hex digits"
    else:
        if 0xD800 <= cp <= 0xDFFF or cp > 0x10FFFF:
            message = "invalid universal character"
        elif cp < 0xA0 and cp not in (0x24, 0x40, 0x60):
            message = ("universal character name refers to a control character" if cp < 0x20 or cp >= 0x7F
                       else f"character '{chr(cp)}' cannot be specified by a universal character name")
    if message is not None or cp is None:
        if diags is not None and message is not None:
            diags.error(loc, message)
        return b""
    return chr(cp).encode("utf-8")


class Lexer:
    """Turns preprocessed text into a list of tokens ending with an "eof" token."""

    def __init__(self, text: str, filename: str, diags: DiagnosticEngine) -> None:
        self.text = text
        self.file = filename
        self.diags = diags
        self.line = 1
        self.line_start = 0  # offset of the first character of the current line
        self.tokens: list[Token] = []

    def loc(self, pos: int) -> SourceLocation:
        return SourceLocation(self.file, self.line, pos - self.line_start + 1)

    def tokenize(self) -> list[Token]:
        pos, text = 0, self.text
        while pos < len(text):
            if text[pos] == "#" and not text[self.line_start:pos].strip():
                pos = self._directive(pos)
                continue
            m = _MASTER.match(text, pos)
            if m is None:
                self.diags.error(self.loc(pos), f"invalid character '{text[pos]}' in source")
                pos += 1
                continue
            kind = m.lastgroup
            if kind == "ws":  # a third of the matches: nothing to make
                pos = m.end()
                continue
            if kind == "id" or kind == "punct":  # most tokens: made here, as _ident and _punct do
                value = m.group()
                if kind == "id" and (not value.isascii() or "\\" in value):
                    pos = self._unicode(pos)
                    continue
                loc = SourceLocation(self.file, self.line, pos - self.line_start + 1)
                self.tokens.append(Token(("kw" if value in KEYWORDS else "id") if kind == "id" else "punct",
                                         value, loc))
                pos = m.end()
                continue
            if kind == "badcomment":
                self.diags.error(self.loc(pos), "unterminated /* comment")
                break
            self._token(m)
            pos = m.end()
        self.tokens.append(Token("eof", "", self.loc(len(text))))  # clang's end-of-file location
        return self.tokens

    def _unicode(self, pos: int) -> int:
        """The identifier, or the token that is none, of UCNs and UTF-8 characters at `pos`."""
        found = scan(self.text, pos)
        if found.kind != "space":
            kind = "id" if found.kind == "id" else "unknown"
            self.tokens.append(Token(kind, found.name if kind == "id" else self.text[pos:found.end], self.loc(pos)))
        return found.end

    def _newlines(self, start: int, end: int) -> None:
        """Account for the newlines in text[start:end]."""
        count = self.text.count("\n", start, end)
        if count:
            self.line += count
            self.line_start = self.text.rindex("\n", start, end) + 1

    def _directive(self, pos: int) -> int:
        """Handle a `#...` line: line markers move locations, anything else is skipped."""
        eol = self.text.find("\n", pos)
        eol = len(self.text) if eol < 0 else eol
        m = _LINE_DIRECTIVE.match(self.text, pos, eol)
        if m is not None:
            if m.group(2) is not None:
                self.file = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
            digits = m.group(1).lstrip("0")
            if len(digits) > 10 or int(digits or "0") > 0xFFFFFFFF:  # clang's limit: unsigned
                self.diags.error(self.loc(m.start(1)), "#line directive requires a positive integer argument")
            else:
                self.line = int(digits or "0") - 1
        elif _LOOP_PRAGMA.match(self.text, pos, eol) and self._at_file_scope():
            self.diags.error(self.loc(pos), "expected identifier or '('")  # clang's: a loop hint needs a loop
        return eol  # the newline itself is counted by the main loop

    def _at_file_scope(self) -> bool:
        """Whether the tokens so far close every brace they open."""
        depth = 0
        for tok in self.tokens:
            if tok.kind == "punct" and tok.text in ("{", "}", "<%", "%>"):
                depth += 1 if tok.text in ("{", "<%") else -1
        return depth <= 0

    def _token(self, m: re.Match[str]) -> None:
        kind = m.lastgroup or ""
        start, value = m.start(), m.group()
        if kind == "newline":
            self.line += 1
            self.line_start = m.end()
        elif kind == "comment":
            self._newlines(start, m.end())
        elif kind == "unterminated":
            self.diags.error(self.loc(start), f"missing terminating {value} character")
        elif kind in _TOKEN_BUILDERS:
            self.tokens.append(_TOKEN_BUILDERS[kind](self, value, self.loc(start)))

    def _number(self, text: str, loc: SourceLocation) -> Token:
        m = _INT_RE.fullmatch(text)
        if m is not None:
            digits = m.group("digits")
            base = 16 if digits[:2] in ("0x", "0X") else 8 if digits.startswith("0") else 10
            suffix = m.group("suffix").lower()
            suffix = ("u" if "u" in suffix else "") + suffix.replace("u", "")  # canonical: "lu" -> "ul"
            return Token("int", text, loc, self._int_value(digits, base, loc), suffix)
        m = _FLOAT_RE.fullmatch(text)
        if m is not None:
            return Token("float", text, loc, self._float_value(m.group("body"), loc), m.group("suffix").lower())
        self._bad_number(text, loc)
        return Token("int", text, loc, 0, "")

    def _int_value(self, digits: str, base: int, loc: SourceLocation) -> int:
        """The literal's value; clang's error (and 1, which no use of it trips over again)
        when no integer type of OpenCL C holds it.

        Clang gives OpenCL C a 128-bit `long long` and only warns up to 2**128;
        oclpy has no integer type wider than `ulong`, so any literal over
        2**64 - 1 is this error. The digits are counted before converting, so
        a literal of thousands of digits costs nothing (and never reaches
        Python's limit on int() of long decimal strings).
        """
        body = (digits[2:] if base == 16 else digits).lstrip("0")
        if len(body) <= _MAX_DIGITS[base]:
            value = int(body or "0", base)
            if value <= ULONG_MAX:
                return value
        self.diags.error(loc, "integer literal is too large to be represented in any integer type")
        return 1

    def _float_value(self, body: str, loc: SourceLocation) -> float:
        try:
            value = float.fromhex(body) if body[:2] in ("0x", "0X") else float(body)
        except OverflowError:
            value = math.inf
        if math.isinf(value):
            self.diags.warning(loc, "magnitude of floating-point constant too large for type 'double'")
        return value

    def _bad_number(self, text: str, loc: SourceLocation) -> None:
        m = re.match(r"0[xX][0-9a-fA-F]*|[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]*)?", text)
        head = m.group() if m else ""
        if re.fullmatch(r"0[0-9]+", text):
            bad = next(c for c in text if c in "89")
            self.diags.error(loc, f"invalid digit '{bad}' in octal constant")
            return
        is_float = any(c in head for c in ".eE") and not head[:2].lower() == "0x"
        what = "floating constant" if is_float else "integer constant"
        self.diags.error(loc, f"invalid suffix '{text[len(head):]}' on {what}")

    def _char(self, text: str, loc: SourceLocation) -> Token:
        quote = text.index("'") + 1
        data = decode_escapes(text[quote:-1], SourceLocation(loc.file, loc.line, loc.col + quote), self.diags)
        body = text[quote:-1]
        if not data:
            self.diags.error(loc, "empty character constant")
            return Token("char", text, loc, 0)
        if len(data) > 1 and re.search(r"\\[uU]", body):
            self.diags.error(loc, "character too large for enclosing character literal type")
        elif len(data) > 1:
            self.diags.warning(loc, "multi-character character constant")
        value = data[0] - 256 if data[0] >= 128 else data[0]  # char is signed
        return Token("char", text, loc, value)

    def _string(self, text: str, loc: SourceLocation) -> Token:
        quote = text.index('"') + 1
        body = SourceLocation(loc.file, loc.line, loc.col + quote)
        return Token("string", text, loc, decode_escapes(text[quote:-1], body, self.diags))

    def _ident(self, text: str, loc: SourceLocation) -> Token:
        return Token("kw" if text in KEYWORDS else "id", text, loc)

    def _punct(self, text: str, loc: SourceLocation) -> Token:
        return Token("punct", text, loc)


_TOKEN_BUILDERS = {
    "number": Lexer._number,
    "char": Lexer._char,
    "string": Lexer._string,
    "id": Lexer._ident,
    "punct": Lexer._punct,
}


def tokenize(text: str, filename: str, diags: DiagnosticEngine) -> list[Token]:
    """Lex preprocessed `text`; locations start in `filename` until a line marker says otherwise."""
    return Lexer(text, filename, diags).tokenize()
