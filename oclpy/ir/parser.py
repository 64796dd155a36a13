"""The IR parser: reads the text form that `ir/printer.py` writes back into a Module.

A hand-written lexer and recursive-descent parser in xDSL's style: each
`parse_optional_x` returns None (or False) when `x` is not next and consumes
nothing; each `parse_x` raises `IRParseError` with `file:line:col`, the
source line and a caret. Values and blocks may be used before they are
defined (phis, loops): a use creates a placeholder that the definition
replaces when the function ends; `@` symbols (functions, globals) work the
same way across the module.

The parser checks syntax, names and the types that the text states; whether
the result is well-formed IR (terminators, dominance, operand types of each
opcode) is the verifier's job (`ir/verifier.py`), so verifier tests can be
written as text. What follows an instruction's opcode is read by the syntax of
its row in the opcode table (`ir/ops.py`), one small function per directive
kind. The grammar is in `docs/ir.md`.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Any, Callable

from ..diagnostics import Diagnostic, DiagnosticEngine, SourceLocation
from .ops import OPS, ORDERINGS, SCOPES, Flag, Lit, OpInfo, TypeOf, TypeRuleError, Word
from .printer import intrinsic_base_from_name
from .types import (
    VOID, AddressSpace, ArrayType, FloatType, FunctionType, IntType, PtrType, StructType, Type,
    VectorType,
)
from .values import (
    Argument, Block, ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstOffset, ConstZero,
    Function, GlobalVar, Instr, Module, Undef, Value,
)


class IRParseError(Exception):
    """A syntax or name error in IR text; `str()` is the clang-style rendering."""

    def __init__(self, loc: SourceLocation, message: str, rendered: str) -> None:
        super().__init__(rendered)
        self.loc = loc
        self.message = message


# -- lexer -----------------------------------------------------------------------

_INT_TYPE = re.compile(r"i\d+\Z")
_NAME = r'(?:[-A-Za-z$._][-A-Za-z$._0-9]*|\d+|"[^"\n]*")'
_TOKEN_RE = re.compile(
    rf"""
    (?P<ws>[ \t\r\n]+|;[^\n]*)
  | (?P<label>{_NAME}:)
  | (?P<local>%{_NAME})
  | (?P<global>@{_NAME})
  | (?P<hex>0x[0-9A-Fa-f]+)
  | (?P<float>-?\d+\.\d*(?:[eE][+-]?\d+)?|-?\d+[eE][+-]?\d+)
  | (?P<int>-?\d+)
  | (?P<word>[A-Za-z_$][A-Za-z0-9_$.]*)
  | (?P<string>"[^"\n]*")
  | (?P<punct>\.\.\.|[()\[\]{{}}<>,=\#])
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # label, local, global, hex, float, int, word, string, punct, eof
    text: str
    line: int
    col: int


def unquote(text: str) -> str:
    """Undo `printer.quote_string` on the text between the quotes."""
    raw = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "\\" and re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 1:i + 3]):
            raw.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            raw += text[i].encode("utf-8")
            i += 1
    return raw.decode("utf-8", errors="replace")


class Lexer:
    def __init__(self, text: str, error: Callable[[int, int, str], IRParseError]) -> None:
        self.text = text
        self.error = error

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        pos, line, line_start = 0, 1, 0
        while pos < len(self.text):
            m = _TOKEN_RE.match(self.text, pos)
            if m is None:
                col = pos - line_start + 1
                if self.text[pos] == '"':
                    raise self.error(line, col, "unterminated string")
                raise self.error(line, col, f"unexpected character '{self.text[pos]}'")
            kind = m.lastgroup or ""
            if kind != "ws":
                out.append(Token(kind, m.group(), line, pos - line_start + 1))
            newlines = m.group().count("\n")
            if newlines:
                line += newlines
                line_start = pos + m.group().rindex("\n") + 1
            pos = m.end()
        out.append(Token("eof", "", line, pos - line_start + 1))
        return out


# -- placeholders for forward references -----------------------------------------


class _Forward(Value):
    """A local value used before its definition; its definition replaces it."""

    def __init__(self, type: Type, name: str) -> None:
        self.type = type
        self.name = name
        self._users = {}


class Parser:
    """Recursive descent over the token list. One instance parses one module."""

    def __init__(self, text: str, filename: str = "<ir>") -> None:
        self.filename = filename
        self.engine = DiagnosticEngine({filename: text})
        self.toks = Lexer(text, self._error_at).tokens()
        self.pos = 0
        self.module = Module()
        self.symbols: dict[str, Value] = {}  # defined @ names
        self.sym_forward: dict[str, tuple[Value, Token]] = {}
        self._reset_function()

    # -- errors and token helpers ---------------------------------------------
    def _error_at(self, line: int, col: int, message: str) -> IRParseError:
        loc = SourceLocation(self.filename, line, col)
        return IRParseError(loc, message, self.engine.render_one(Diagnostic("error", message, loc)))

    def error(self, message: str, tok: Token | None = None) -> IRParseError:
        tok = tok or self.peek()
        return self._error_at(tok.line, tok.col, message)

    def peek(self, ahead: int = 0) -> Token:
        return self.toks[min(self.pos + ahead, len(self.toks) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        self.pos = min(self.pos + 1, len(self.toks) - 1)
        return tok

    @staticmethod
    def _describe(tok: Token) -> str:
        return "end of input" if tok.kind == "eof" else f"'{tok.text}'"

    def parse_optional_punct(self, text: str) -> bool:
        if self.peek().kind == "punct" and self.peek().text == text:
            self.next()
            return True
        return False

    def parse_punct(self, text: str, context: str = "") -> None:
        if not self.parse_optional_punct(text):
            where = f" {context}" if context else ""
            raise self.error(f"expected '{text}'{where}, found {self._describe(self.peek())}")

    def parse_optional_keyword(self, word: str) -> bool:
        if self.peek().kind == "word" and self.peek().text == word:
            self.next()
            return True
        return False

    def parse_keyword(self, word: str) -> None:
        if not self.parse_optional_keyword(word):
            raise self.error(f"expected '{word}', found {self._describe(self.peek())}")

    def parse_word(self, what: str) -> str:
        if self.peek().kind != "word":
            raise self.error(f"expected {what}, found {self._describe(self.peek())}")
        return self.next().text

    def parse_choice(self, choices: tuple[str, ...], what: str) -> str:
        tok = self.peek()
        word = self.parse_word(what)
        if word not in choices:
            raise self.error(f"unknown {what} '{word}'", tok)
        return word

    def parse_int(self, what: str = "integer") -> int:
        if self.peek().kind != "int":
            raise self.error(f"expected {what}, found {self._describe(self.peek())}")
        return int(self.next().text)

    def parse_optional_comma_keyword(self, word: str) -> bool:
        """`, word` (both consumed), as in `, align 4`."""
        if self.peek().text == "," and self.peek(1).kind == "word" and self.peek(1).text == word:
            self.pos += 2
            return True
        return False

    def parse_optional_align(self) -> int:
        """`, align N`, or 0 when it is not next."""
        return self.parse_int("alignment") if self.parse_optional_comma_keyword("align") else 0

    def parse_comma_list(self, item: Callable[[], Any], close: str) -> list[Any]:
        """`item, item, ... close` (the opening bracket already consumed)."""
        items: list[Any] = []
        if self.parse_optional_punct(close):
            return items
        items.append(item())
        while self.parse_optional_punct(","):
            items.append(item())
        self.parse_punct(close, "to close the list")
        return items

    # -- types ------------------------------------------------------------------
    def parse_optional_type(self) -> Type | None:
        tok = self.peek()
        t = self._parse_optional_base_type()
        if t is None:
            return None
        while self.peek().kind == "punct" and self.peek().text == "(" and \
                self.peek(1).text != "...":
            self.next()
            params = self.parse_comma_list(self.parse_type, ")")
            t = FunctionType(t, tuple(params))
        if isinstance(t, FunctionType) and t.ret != VOID and not _is_first_class(t.ret):
            raise self.error(f"invalid function return type {t.ret}", tok)
        return t

    def parse_type(self) -> Type:
        t = self.parse_optional_type()
        if t is None:
            raise self.error(f"expected a type, found {self._describe(self.peek())}")
        return t

    def _parse_optional_base_type(self) -> Type | None:
        tok = self.peek()
        if tok.kind == "word":
            return self._parse_optional_named_type()
        if tok.kind != "punct" or tok.text not in "<[{":
            return None
        self.next()
        if tok.text == "{":
            return StructType(tuple(self.parse_comma_list(self.parse_type, "}")))
        if tok.text == "<" and self.parse_optional_punct("{"):
            fields = self.parse_comma_list(self.parse_type, "}")
            self.parse_punct(">", "after packed struct type")
            return StructType(tuple(fields), packed=True)
        count = self.parse_int("element count")
        self.parse_keyword("x")
        elem_tok = self.peek()
        elem = self.parse_type()
        self.parse_punct("]" if tok.text == "[" else ">", "after element type")
        if tok.text == "[":
            return ArrayType(elem, count)
        if count < 1 or not isinstance(elem, (IntType, FloatType, PtrType)):
            raise self.error(f"invalid vector type <{count} x {elem}>", elem_tok)
        return VectorType(elem, count)

    def _parse_optional_named_type(self) -> Type | None:
        tok = self.peek()
        word = tok.text
        simple = {"void": VOID, "half": FloatType(16), "float": FloatType(32),
                  "double": FloatType(64)}
        if word in simple:
            self.next()
            return simple[word]
        if _INT_TYPE.match(word):
            self.next()
            bits = int(word[1:])
            if not 1 <= bits <= 1 << 23:
                raise self.error(f"invalid integer width {bits}", tok)
            return IntType(bits)
        if word == "ptr":
            self.next()
            self.parse_punct("<", "after 'ptr'")
            space = self.parse_address_space()
            self.parse_punct(">", "after the address space")
            return PtrType(space)
        return None

    def parse_address_space(self) -> AddressSpace:
        tok = self.peek()
        word = self.parse_word("an address space")
        try:
            space = AddressSpace(word)
        except ValueError:
            raise self.error(f"unknown address space '{word}'", tok) from None
        return space

    # -- constants and values ---------------------------------------------------
    def parse_optional_constant(self, t: Type) -> Value | None:
        tok = self.peek()
        if tok.kind == "word" and tok.text in _WORD_CONSTANTS:
            self.next()
            return _WORD_CONSTANTS[tok.text](self, t, tok)
        if tok.kind in ("int", "float", "hex"):
            self.next()
            return self._number(t, tok)
        if tok.kind == "punct" and tok.text in "[<{":
            return self._aggregate(t)
        if tok.kind == "global":
            self.next()
            return self.use_symbol(tok, t)
        return None

    def _number(self, t: Type, tok: Token) -> Value:
        if isinstance(t, IntType) and tok.kind in ("int", "hex"):
            return ConstInt(t, int(tok.text, 16 if tok.kind == "hex" else 10))
        if isinstance(t, FloatType):
            value = self.hex_double(tok) if tok.kind == "hex" else float(tok.text)
            return ConstFloat(t, value)
        raise self.error(f"constant '{tok.text}' is not a valid {t}", tok)

    def _aggregate(self, t: Type) -> Value:
        tok = self.next()
        packed = tok.text == "<" and self.parse_optional_punct("{")
        kinds = {"[": ArrayType, "<": VectorType, "{": StructType}
        want = StructType if packed else kinds[tok.text]
        if not isinstance(t, want) or (isinstance(t, StructType) and t.packed != packed):
            raise self.error(f"aggregate constant does not match type {t}", tok)
        close = {"[": "]", "<": "}" if packed else ">", "{": "}"}[tok.text]
        elements = self.parse_comma_list(self.parse_typed_constant, close)
        if packed:
            self.parse_punct(">", "after packed struct constant")
        expected = list(t.fields) if isinstance(t, StructType) else \
            [t.elem] * t.count  # type: ignore[attr-defined]
        if [e.type for e in elements] != expected:
            got = ", ".join(str(e.type) for e in elements)
            raise self.error(f"constant elements ({got}) do not match type {t}", tok)
        return ConstAggregate(t, elements)

    def hex_double(self, tok: Token) -> float:
        """`0x` and 16 hex digits: the bits of an IEEE double (how inf and NaN print)."""
        digits = tok.text[2:]
        if len(digits) != 16:
            raise self.error("hexadecimal float constants need 16 digits", tok)
        return struct.unpack(">d", bytes.fromhex(digits))[0]

    def parse_typed_constant(self) -> Value:
        t = self.parse_type()
        c = self.parse_optional_constant(t)
        if c is None:
            raise self.error(f"expected a constant of type {t}, found {self._describe(self.peek())}")
        return c

    def parse_value(self, t: Type) -> Value:
        """A value of known type `t`: `%x`, `@g`, or a constant."""
        tok = self.peek()
        if tok.kind == "local":
            self.next()
            return self.use_local(tok, t)
        value = self.parse_optional_constant(t)
        if value is None:
            raise self.error(f"expected a value of type {t}, found {self._describe(tok)}")
        return value

    def parse_typed_value(self) -> Value:
        return self.parse_value(self.parse_type())

    # -- symbols (@) --------------------------------------------------------------
    def use_symbol(self, tok: Token, t: Type) -> Value:
        name = _name_of(tok.text)
        sym = self.symbols.get(name)
        if sym is None and name in self.sym_forward:
            sym = self.sym_forward[name][0]
        if sym is None:
            sym = self._symbol_placeholder(name, t, tok)
            self.sym_forward[name] = (sym, tok)
        if sym.type != t:
            raise self.error(f"'@{name}' has type {sym.type}, not {t}", tok)
        return sym

    def _symbol_placeholder(self, name: str, t: Type, tok: Token) -> Value:
        if isinstance(t, PtrType):
            return GlobalVar(name, VOID, t.space)
        if isinstance(t, FunctionType):
            return Function(name, t)
        raise self.error(f"'@{name}' used with type {t}; globals are pointers", tok)

    def define_symbol(self, tok: Token, make: Callable[[Value | None], Value]) -> Value:
        name = _name_of(tok.text)
        if name in self.symbols:
            raise self.error(f"redefinition of '@{name}'", tok)
        forward = self.sym_forward.pop(name, None)
        value = make(forward[0] if forward else None)
        self.symbols[name] = value
        return value

    # -- locals (%) ------------------------------------------------------------
    def _reset_function(self) -> None:
        self.locals: dict[str, Value] = {}
        self.forward: dict[str, tuple[_Forward, Token]] = {}
        self.blocks: dict[str, Block] = {}
        self.pending_blocks: dict[str, Token] = {}

    def use_local(self, tok: Token, t: Type) -> Value:
        key = _key_of(tok.text)
        value = self.locals.get(key)
        if value is None and key in self.forward:
            value = self.forward[key][0]
        if value is None:
            if key in self.blocks:
                raise self.error(f"'{tok.text}' is a block, not a value", tok)
            value = _Forward(t, _name_of(tok.text))
            self.forward[key] = (value, tok)
        if value.type != t:
            raise self.error(f"'{tok.text}' has type {value.type}, not {t}", tok)
        return value

    def define_local(self, tok: Token, value: Value) -> None:
        key = _key_of(tok.text)
        if key in self.locals or key in self.blocks:
            raise self.error(f"redefinition of '{tok.text}'", tok)
        forward = self.forward.pop(key, None)
        if forward is not None:
            placeholder, use = forward
            if placeholder.type != value.type:
                raise self.error(
                    f"'{tok.text}' is defined with type {value.type} but used as {placeholder.type}",
                    use)
            placeholder.replace_all_uses_with(value)
        self.locals[key] = value

    def parse_block_ref(self) -> Block:
        tok = self.peek()
        if tok.kind != "local":
            raise self.error(f"expected a block label, found {self._describe(tok)}")
        self.next()
        key = _key_of(tok.text)
        if key in self.locals or key in self.forward:
            raise self.error(f"'{tok.text}' is a value, not a block", tok)
        block = self.blocks.get(key)
        if block is None:
            block = Block(_name_of(tok.text))
            self.blocks[key] = block
            self.pending_blocks[key] = tok
        return block

    def parse_label_ref(self) -> Block:
        self.parse_keyword("label")
        return self.parse_block_ref()


def _is_first_class(t: Type) -> bool:
    return not isinstance(t, (FunctionType,)) and t != VOID


def _const_word(cls: type, check: Callable[[Type], bool], what: str) -> Callable[..., Value]:
    def make(parser: Parser, t: Type, tok: Token) -> Value:
        if not check(t):
            raise parser.error(f"'{tok.text}' is not a valid {t} constant ({what})", tok)
        return cls(t)
    return make


def _bool_word(value: int) -> Callable[..., Value]:
    def make(parser: Parser, t: Type, tok: Token) -> Value:
        if not isinstance(t, IntType):
            raise parser.error(f"'{tok.text}' is not a valid {t} constant", tok)
        return ConstInt(t, value)
    return make


# BNF: const_offset := 'getelementptr' '(' 'i8' ',' PTR_TYPE GLOBAL ',' 'i64' INT ')'
def _const_offset(parser: Parser, t: Type, tok: Token) -> Value:
    """`getelementptr (i8, ptr<constant> @t, i64 8)`: a global's address plus bytes."""
    if not isinstance(t, PtrType):
        raise parser.error(f"'getelementptr' is not a valid {t} constant (it is a pointer)", tok)
    parser.parse_punct("(", "after 'getelementptr' in a constant")
    elem_tok = parser.peek()
    if parser.parse_type() != IntType(8):
        raise parser.error("a constant getelementptr steps in bytes: its element type is i8", elem_tok)
    parser.parse_punct(",")
    ptr_tok = parser.peek()
    if parser.parse_type() != t:
        raise parser.error(f"a constant getelementptr of type {t} starts from a {t}", ptr_tok)
    base_tok = parser.peek()
    if base_tok.kind != "global":
        raise parser.error(f"expected a global, found {parser._describe(base_tok)}")
    parser.next()
    base = parser.use_symbol(base_tok, t)
    if not isinstance(base, GlobalVar):
        raise parser.error(f"'{base_tok.text}' is a function, not a global", base_tok)
    parser.parse_punct(",")
    offset_tok = parser.peek()
    if parser.parse_type() != IntType(64):
        raise parser.error("a constant getelementptr's offset is an i64", offset_tok)
    offset = parser.parse_int("a byte offset")
    parser.parse_punct(")", "to close the constant getelementptr")
    return ConstOffset(base, offset)


# BNF: const_cast := 'addrspacecast' '(' PTR_TYPE (const_offset | GLOBAL) 'to' PTR_TYPE ')'
def _const_addrspacecast(parser: Parser, t: Type, tok: Token) -> Value:
    """`addrspacecast (ptr<global> @g to ptr<generic>)`: a global's address in another space."""
    if not isinstance(t, PtrType):
        raise parser.error(f"'addrspacecast' is not a valid {t} constant (it is a pointer)", tok)
    parser.parse_punct("(", "after 'addrspacecast' in a constant")
    inner_type = parser.parse_type()
    inner_tok = parser.peek()
    inner = parser.parse_optional_constant(inner_type)
    if isinstance(inner, GlobalVar):
        inner = ConstOffset(inner, 0)
    if not isinstance(inner, ConstOffset) or inner.space is not None:
        raise parser.error("a constant addrspacecast converts a global's address", inner_tok)
    word_tok = parser.peek()
    if parser.parse_word("'to'") != "to":
        raise parser.error("expected 'to' in a constant addrspacecast", word_tok)
    to_tok = parser.peek()
    if parser.parse_type() != t:
        raise parser.error(f"a constant addrspacecast of type {t} converts to {t}", to_tok)
    parser.parse_punct(")", "to close the constant addrspacecast")
    return ConstOffset(inner.base, inner.offset, t.space)


_WORD_CONSTANTS: dict[str, Callable[[Parser, Type, Token], Value]] = {
    "null": _const_word(ConstNull, lambda t: isinstance(t, PtrType), "null needs a pointer type"),
    "undef": _const_word(Undef, _is_first_class, "not a value type"),
    "zeroinitializer": _const_word(ConstZero, _is_first_class, "not a value type"),
    "true": _bool_word(1),
    "false": _bool_word(0),
    "getelementptr": _const_offset,
    "addrspacecast": _const_addrspacecast,
}


# -- module, globals, functions, blocks ---------------------------------------------


class ModuleParser(Parser):
    """The top level: `module`, globals, declarations and definitions."""

    # BNF: module := ['module' STRING] (global | function)* EOF
    def parse_module(self) -> Module:
        if self.parse_optional_keyword("module"):
            self.module.name = self.parse_string()
        while self.peek().kind != "eof":
            tok = self.peek()
            if tok.kind == "global":
                self.parse_global()
            elif tok.kind == "word" and tok.text in ("declare", "define", "kernel"):
                self.parse_function()
            else:
                raise self.error(
                    f"expected a global, 'define', 'kernel' or 'declare', found {self._describe(tok)}")
        for name, (_, tok) in self.sym_forward.items():
            raise self.error(f"use of undefined '@{name}'", tok)
        return self.module

    def parse_string(self) -> str:
        if self.peek().kind != "string":
            raise self.error(f"expected a string, found {self._describe(self.peek())}")
        return unquote(self.next().text[1:-1])

    # BNF: global := GLOBAL '=' 'addrspace' '(' SPACE ')' ('global'|'constant') type
    #                [constant] [',' 'align' INT]
    def parse_global(self) -> None:
        name_tok = self.next()
        self.parse_punct("=", "after the global's name")
        self.parse_keyword("addrspace")
        self.parse_punct("(")
        space_tok = self.peek()
        space = self.parse_address_space()
        self.parse_punct(")")
        kind = self.parse_choice(("global", "constant"), "global kind ('global' or 'constant')")
        value_type = self.parse_type()
        next_is_global = self.peek().kind == "global" and self.peek(1).text == "="
        init = None if next_is_global else self.parse_optional_constant(value_type)
        align = self.parse_optional_align()

        def make(forward: Value | None) -> Value:
            gv = forward if isinstance(forward, GlobalVar) else None
            if forward is not None and gv is None:
                raise self.error(f"'@{forward.name}' is used as a function", name_tok)
            if gv is not None and gv.space is not space:
                raise self.error(f"'@{gv.name}' is used as ptr<{gv.space}>", space_tok)
            gv = gv or GlobalVar(_name_of(name_tok.text), value_type, space)
            gv.value_type, gv.initializer = value_type, init
            gv.constant, gv.align = kind == "constant", align
            return gv
        self.module.add_global(self.define_symbol(name_tok, make))  # type: ignore[arg-type]

    # BNF: function := 'declare' ['kernel'] header
    #                | ('define' | 'kernel') header '{' block+ '}'
    # BNF: header := type GLOBAL '(' [param (',' param)*] [',' '...'] ')' [attrs]
    def parse_function(self) -> None:
        keyword = self.next().text
        is_kernel = keyword == "kernel" or (keyword == "declare" and
                                             self.parse_optional_keyword("kernel"))
        ret = self.parse_type()
        name_tok = self.peek()
        if name_tok.kind != "global":
            raise self.error(f"expected a function name, found {self._describe(name_tok)}")
        self.next()
        self._reset_function()
        self.parse_punct("(")
        args, variadic = self.parse_params()
        attrs = self.parse_optional_attrs() or {}
        if variadic:
            attrs["variadic"] = True
        base = intrinsic_base_from_name(_name_of(name_tok.text))
        if keyword == "declare" and base and "intrinsic" not in attrs:
            attrs["intrinsic"] = base
        ftype = FunctionType(ret, tuple(a.type for a in args))

        def make(forward: Value | None) -> Value:
            if forward is not None and not isinstance(forward, Function):
                raise self.error(f"'@{forward.name}' is used as a global variable", name_tok)
            fn = forward or Function(_name_of(name_tok.text), ftype)
            fn.type, fn.args, fn.is_kernel, fn.attrs = ftype, args, is_kernel, attrs
            return fn
        fn = self.define_symbol(name_tok, make)
        assert isinstance(fn, Function)
        self.module.add_function(fn)
        if keyword != "declare":
            self.parse_body(fn)

    def parse_params(self) -> tuple[list[Argument], bool]:
        args: list[Argument] = []
        if self.parse_optional_punct(")"):
            return args, False
        while True:
            if self.parse_optional_punct("..."):
                self.parse_punct(")", "after '...'")
                return args, True
            args.append(self.parse_param(len(args)))
            if self.parse_optional_punct(")"):
                return args, False
            self.parse_punct(",", "between parameters")

    # BNF: param := type [LOCAL] [attrs]
    def parse_param(self, index: int) -> Argument:
        tok = self.peek()
        t = self.parse_type()
        if not _is_first_class(t):
            raise self.error(f"invalid parameter type {t}", tok)
        arg = Argument(t, "", index)
        if self.peek().kind == "local":
            name_tok = self.next()
            arg.name = _name_of(name_tok.text)
            self.define_local(name_tok, arg)
        arg.attrs = self.parse_optional_attrs() or {}
        return arg

    # BNF: body := '{' [instr*] (LABEL instr*)* '}'
    def parse_body(self, fn: Function) -> None:
        self.parse_punct("{", "to open the function body")
        block: Block | None = None
        while not self.parse_optional_punct("}"):
            tok = self.peek()
            if tok.kind == "label":
                block = self.start_block(fn, self.next())
            elif tok.kind == "eof":
                raise self.error("expected '}' at the end of the function body")
            else:
                if block is None:
                    block = self.start_block(fn, None)
                block.append(self.parse_instr())
        if not fn.blocks:
            raise self.error("a function body needs at least one block", self.toks[self.pos - 1])
        self.finish_function(fn)

    def start_block(self, fn: Function, tok: Token | None) -> Block:
        if tok is None:  # an unlabelled entry block takes the next number, as in LLVM
            block = Block("")
            self.blocks[str(sum(1 for a in fn.args if not a.name))] = block
        else:
            key = _key_of(tok.text)
            if key in self.locals or key in self.forward or \
                    (key in self.blocks and key not in self.pending_blocks):
                raise self.error(f"redefinition of '%{tok.text[:-1]}'", tok)
            self.pending_blocks.pop(key, None)
            block = self.blocks.setdefault(key, Block(_name_of(tok.text)))
        block.parent = fn
        fn.blocks.append(block)
        return block

    def finish_function(self, fn: Function) -> None:
        for key, (_, tok) in self.forward.items():
            raise self.error(f"use of undefined value '{tok.text}'", tok)
        for key, tok in self.pending_blocks.items():
            raise self.error(f"use of undefined label '{tok.text}'", tok)
        self._reset_function()

    # BNF: instr := [LOCAL '='] OPCODE operands...
    def parse_instr(self) -> Instr:
        name_tok = None
        if self.peek().kind == "local" and self.peek(1).text == "=":
            name_tok = self.next()
            self.next()
        op_tok = self.peek()
        if op_tok.kind != "word":
            raise self.error(f"expected an instruction, found {self._describe(op_tok)}")
        row = OPS.get(op_tok.text)
        if row is None:
            raise self.error(f"unknown instruction '{op_tok.text}'", op_tok)
        self.next()
        instr = parse_operands(self, row)
        if name_tok is not None:
            if instr.type == VOID:
                raise self.error(f"'{op_tok.text}' produces no value to name", name_tok)
            instr.name = _name_of(name_tok.text)
            self.define_local(name_tok, instr)
        return instr

    # BNF: attrs := '#' '{' [KEY '=' attr (',' KEY '=' attr)*] '}'
    def parse_optional_attrs(self) -> dict[str, Any] | None:
        if not self.parse_optional_punct("#"):
            return None
        self.parse_punct("{", "after '#'")
        attrs: dict[str, Any] = {}
        for key_tok, value in self.parse_comma_list(self._parse_attr_item, "}"):
            key = _attr_key(key_tok)
            if key in attrs:
                raise self.error(f"duplicate attribute '{key}'", key_tok)
            attrs[key] = value
        return attrs

    def _parse_attr_item(self) -> tuple[Token, Any]:
        tok = self.peek()
        if tok.kind not in ("word", "string"):
            raise self.error(f"expected an attribute name, found {self._describe(tok)}")
        self.next()
        self.parse_punct("=", "after the attribute name")
        return tok, self.parse_attr_value()

    # BNF: attr := STRING | INT | FLOAT | HEX | 'true' | 'false' | 'none' | 'type' '(' type ')'
    #            | '(' [attr (',' attr)* [',']] ')' | '[' attrs ']' | '{' attrs '}'
    def parse_attr_value(self) -> Any:
        tok = self.next()
        scalars: dict[str, Callable[[], Any]] = {
            "string": lambda: unquote(tok.text[1:-1]),
            "int": lambda: int(tok.text),
            "float": lambda: float(tok.text),
            "hex": lambda: self.hex_double(tok),
        }
        if tok.kind in scalars:
            return scalars[tok.kind]()
        words = {"true": True, "false": False, "none": None}
        if tok.kind == "word" and tok.text in words:
            return words[tok.text]
        if tok.kind == "word" and tok.text == "type":
            self.parse_punct("(", "after 'type'")
            t = self.parse_type()
            self.parse_punct(")", "after the type")
            return t
        if tok.kind == "punct" and tok.text == "(":
            return self._parse_attr_tuple()
        if tok.kind == "punct" and tok.text == "[":
            return self.parse_comma_list(self.parse_attr_value, "]")
        if tok.kind == "punct" and tok.text == "{":
            items = self.parse_comma_list(self.parse_attr_value, "}")
            try:
                return set(items)
            except TypeError:
                raise self.error("set attribute elements must be hashable", tok) from None
        raise self.error(f"expected an attribute value, found {self._describe(tok)}", tok)

    def _parse_attr_tuple(self) -> tuple[Any, ...]:
        items: list[Any] = []
        while not self.parse_optional_punct(")"):
            items.append(self.parse_attr_value())
            if not self.parse_optional_punct(","):
                self.parse_punct(")", "to close the tuple")
                break
        return tuple(items)


def _key_of(token_text: str) -> str:
    """The lookup key of `%x`, `%"x"`, `x:`: the unquoted name, digits kept."""
    body = token_text[1:] if token_text[0] in "%@" else token_text[:-1]
    return unquote(body[1:-1]) if body.startswith('"') else body


def _name_of(token_text: str) -> str:
    """The IR name for `%x`, `@"a b"`, `entry:`: unquoted; "" for numbered names."""
    key = _key_of(token_text)
    return "" if key.isdigit() else key


def _attr_key(tok: Token) -> str:
    return unquote(tok.text[1:-1]) if tok.kind == "string" else tok.text


def parse_module(text: str, filename: str = "<ir>") -> Module:
    """Parse IR text (as `print_module` writes it) into a Module; raises IRParseError."""
    parser = ModuleParser(text, filename)
    try:
        return parser.parse_module()
    except RecursionError:
        raise parser.error("nesting too deep") from None


# -- instructions: the opcode table's syntax (ir/ops.py), one function per directive ------------
# Each reads one directive's piece of text into the instruction being parsed.


@dataclass
class _Parsed:
    """An instruction while its text is read."""

    operands: list[Value] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)  # where each operand starts
    attrs: dict[str, Any] = field(default_factory=dict)
    targets: list[Block] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    result: Type = VOID  # the result type, when the text states it
    values: Type = VOID  # the type of the bare operands that follow (TypeOf("values"))

    def add(self, tok: Token, value: Value) -> None:
        self.tokens.append(tok)
        self.operands.append(value)


def _p_lit(p: ModuleParser, item: Lit, s: _Parsed) -> None:
    if item.text.isalpha():
        p.parse_keyword(item.text)
    else:
        p.parse_punct(item.text)


def _p_flag(p: ModuleParser, item: Flag, s: _Parsed) -> None:
    if p.parse_optional_keyword(item.name):
        s.attrs[item.name] = True
    elif item.absent is not None:
        s.attrs[item.name] = item.absent


def _p_word(p: ModuleParser, item: Word, s: _Parsed) -> None:
    s.attrs[item.attr] = p.parse_choice(item.choices, item.what)


def _p_align(p: ModuleParser, item: object, s: _Parsed) -> None:
    s.attrs["align"] = p.parse_optional_align()


def _p_type_of(p: ModuleParser, item: TypeOf, s: _Parsed) -> None:
    t = p.parse_type()
    if item.of == "values":
        s.values = t
    elif item.of == "result":
        s.result = t
    else:
        s.attrs[item.of] = t


def _p_typed(p: ModuleParser, item: object, s: _Parsed) -> None:
    s.add(p.peek(), p.parse_typed_value())


def _p_more_typed(p: ModuleParser, item: object, s: _Parsed) -> None:
    while p.parse_optional_punct(","):
        _p_typed(p, item, s)


def _p_typed_or_void(p: ModuleParser, item: object, s: _Parsed) -> None:
    tok = p.peek()
    t = p.parse_type()
    if t != VOID:
        s.add(tok, p.parse_value(t))


def _p_space(p: ModuleParser, item: object, s: _Parsed) -> None:
    space = AddressSpace.PRIVATE
    if p.parse_optional_comma_keyword("addrspace"):
        p.parse_punct("(")
        space = p.parse_address_space()
        p.parse_punct(")")
    s.attrs["space"] = space


def _p_sync(p: ModuleParser, item: object, s: _Parsed) -> None:
    p.parse_keyword("scope")
    p.parse_punct("(")
    s.attrs["scope"] = p.parse_choice(SCOPES, "memory scope")
    p.parse_punct(")")
    s.attrs["ordering"] = p.parse_choice(ORDERINGS, "memory ordering")


def _p_mask(p: ModuleParser, item: object, s: _Parsed) -> None:
    p.parse_punct("[", "to open the shuffle mask")
    s.attrs["mask"] = tuple(p.parse_comma_list(lambda: p.parse_int("mask element"), "]"))


def _p_indices(p: ModuleParser, item: object, s: _Parsed) -> None:
    indices = []
    while p.parse_optional_punct(","):
        indices.append(p.parse_int("aggregate index"))
    if not indices:
        raise p.error("expected ', <index>'")
    s.attrs["indices"] = tuple(indices)


def _p_incoming(p: ModuleParser, item: object, s: _Parsed) -> None:
    while p.parse_optional_punct("["):
        s.add(p.peek(), p.parse_value(s.result))
        p.parse_punct(",")
        s.blocks.append(p.parse_block_ref())
        p.parse_punct("]", "to close the incoming pair")
        if not p.parse_optional_punct(","):
            break


def _p_callee(p: ModuleParser, item: object, s: _Parsed) -> None:
    tok = p.peek()
    if tok.kind != "global":
        raise p.error(f"expected a function name, found {p._describe(tok)}")
    p.next()
    p.parse_punct("(")
    for arg in p.parse_comma_list(lambda: (p.peek(), p.parse_typed_value()), ")"):
        s.add(*arg)
    s.attrs["callee"] = _resolve_callee(p, tok, s.result, [a.type for a in s.operands])


def _resolve_callee(p: ModuleParser, tok: Token, ret: Type, arg_types: list[Type]) -> Function:
    name = _name_of(tok.text)
    callee = p.symbols.get(name) or p.sym_forward.get(name, (None, tok))[0]
    if callee is None:
        callee = Function(name, FunctionType(ret, tuple(arg_types)))
        p.sym_forward[name] = (callee, tok)
    if not isinstance(callee, Function):
        raise p.error(f"'@{name}' is not a function", tok)
    if callee.type.ret != ret:
        raise p.error(f"'@{name}' returns {callee.type.ret}, not {ret}", tok)
    return callee


def _p_cases(p: ModuleParser, item: object, s: _Parsed) -> None:
    value_type = s.operands[0].type
    cases: list[int] = []
    p.parse_punct("[", "to open the switch cases")
    while not p.parse_optional_punct("]"):
        tok = p.peek()
        if p.parse_type() != value_type:
            raise p.error(f"switch case must have type {value_type}", tok)
        cases.append(p.parse_int("case value"))
        p.parse_punct(",")
        s.targets.append(p.parse_label_ref())
    s.attrs["cases"] = tuple(cases)


_PARSE: dict[str, Callable[[ModuleParser, Any, _Parsed], None]] = {
    "lit": _p_lit,
    "flag": _p_flag,
    "word": _p_word,
    "type_of": _p_type_of,
    "bare": lambda p, item, s: s.add(p.peek(), p.parse_value(s.values)),
    "typed": _p_typed,
    "more_typed": _p_more_typed,
    "typed_or_void": _p_typed_or_void,
    "label": lambda p, item, s: s.targets.append(p.parse_label_ref()),
    "align": _p_align,
    "space": _p_space,
    "sync": _p_sync,
    "mask": _p_mask,
    "indices": _p_indices,
    "incoming": _p_incoming,
    "callee": _p_callee,
    "cases": _p_cases,
}


# BNF: operands := the directives of the opcode's row, in order (ir/ops.py)
def parse_operands(p: ModuleParser, row: OpInfo) -> Instr:
    """The text after an opcode, read by its row's syntax; the result type is the
    one the text states or the one the row derives (an error at the operand the
    derivation rejects)."""
    s = _Parsed()
    for item in row.syntax:
        _PARSE[item.kind](p, item, s)
    result = s.result
    if row.result is not None:
        try:
            result = row.result(s.operands, s.attrs)
        except TypeRuleError as exc:
            raise p.error(str(exc), s.tokens[exc.operand]) from None
    return Instr(row.name, result, s.operands, s.attrs, s.targets, s.blocks)
