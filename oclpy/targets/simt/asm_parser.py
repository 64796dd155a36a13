"""Reads the text form of simt machine code (`asm_printer`'s output) back into data.

`parse_asm(text, filename) -> MModule`. One instruction per line; `;`
starts a comment. Every instruction is checked against its row of the
opcode table as it is read (`machine.operand_problem`, `instr_problems`),
every function's structure when it closes (`machine.function_problems`), and
calls when the module ends, so malformed text is an `AsmParseError` whose
`str()` is rendered like a compiler diagnostic, with `loc` and `message`:

```
k.s:4:21: error: operand 3 of v_add_f32: expected a vector register or a scalar register or an
immediate, found a block label 'done'
  v_add_f32 v1, v0, done
                    ^
```

Parse methods pair `parse_optional_x` (returns None) with `parse_x` (raises).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...diagnostics import Diagnostic, DiagnosticEngine, SourceLocation
from .isa import OPS
from .machine import (
    EXEC, FrameSlot, Func, Imm, Label, MBlock, MFunction, MInstr, MModule, Operand, PReg, Register,
    Slot, VReg, function_problems, instr_problems, operand_problem,
)


class AsmParseError(Exception):
    """A syntax, name or operand error in machine code text; `str()` is the rendering."""

    def __init__(self, loc: SourceLocation, message: str, rendered: str) -> None:
        super().__init__(rendered)
        self.loc = loc
        self.message = message


TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r]+|;[^\n]*)
  | (?P<nl>\n)
  | (?P<preg>[sv]\[\d+:\d+\]|[sv]\d+\b)
  | (?P<slot>%stack\.\d+\b)
  | (?P<vreg>%[sv]\d+(?::\d+)?\b)
  | (?P<func>@[A-Za-z_.$][\w.$]*)
  | (?P<float>-?\d+\.\d*(?:[eE][+-]?\d+)?|-?\d+[eE][+-]?\d+|-inf\b)
  | (?P<int>-?0x[0-9A-Fa-f]+|-?\d+)
  | (?P<word>[A-Za-z_.][\w.]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<punct>[{}\[\],:=])
    """,
    re.VERBOSE,
)
RESERVED = re.compile(r"([sv]\d+|exec|inf|nan|uses|defs|slot|align|kernel|func)\Z")


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    line: int
    col: int


class AsmParser:
    """Recursive descent over the token list; one instance reads one module."""

    def __init__(self, text: str, filename: str = "<asm>") -> None:
        self.filename = filename
        self.engine = DiagnosticEngine({filename: text})
        self.toks = self.tokenize(text)
        self.pos = 0
        self.module = MModule()
        self.calls: list[tuple[str, Token]] = []

    # -- tokens and errors ------------------------------------------------------
    def tokenize(self, text: str) -> list[Token]:
        out, pos, line, start = [], 0, 1, 0
        while pos < len(text):
            m = TOKEN_RE.match(text, pos)
            if m is None:
                raise self.error_at(line, pos - start + 1, f"unexpected character '{text[pos]}'")
            kind = m.lastgroup or ""
            if kind != "ws":
                out.append(Token(kind, m.group(), line, pos - start + 1))
            if kind == "nl":
                line, start = line + 1, m.end()
            pos = m.end()
        out.append(Token("eof", "", line, pos - start + 1))
        return out

    def error_at(self, line: int, col: int, message: str) -> AsmParseError:
        loc = SourceLocation(self.filename, line, col)
        return AsmParseError(loc, message, self.engine.render_one(Diagnostic("error", message, loc)))

    def error(self, message: str, tok: Token | None = None) -> AsmParseError:
        tok = tok or self.peek()
        return self.error_at(tok.line, tok.col, message)

    def peek(self) -> Token:
        return self.toks[self.pos]

    def next(self) -> Token:
        tok = self.toks[self.pos]
        self.pos = min(self.pos + 1, len(self.toks) - 1)
        return tok

    @staticmethod
    def describe(tok: Token) -> str:
        return {"eof": "end of input", "nl": "end of line"}.get(tok.kind, f"'{tok.text}'")

    def parse_optional(self, kind: str, text: str | None = None) -> Token | None:
        tok = self.peek()
        if tok.kind == kind and (text is None or tok.text == text):
            return self.next()
        return None

    def parse_token(self, kind: str, text: str | None = None, what: str = "") -> Token:
        tok = self.parse_optional(kind, text)
        if tok is None:
            raise self.error(f"expected {what or repr(text)}, found {self.describe(self.peek())}")
        return tok

    def skip_newlines(self) -> None:
        while self.parse_optional("nl"):
            pass

    def parse_end_of_line(self) -> None:
        if self.peek().kind != "eof":
            self.parse_token("nl", what="end of line")

    def parse_int(self, what: str = "an integer") -> int:
        return int(self.parse_token("int", what=what).text, 0)

    # -- module and functions -----------------------------------------------------
    def parse_module(self) -> MModule:
        self.skip_newlines()
        while self.peek().kind != "eof":
            self.module.functions.append(self.parse_function())
            self.skip_newlines()
        known = {f.name for f in self.module.functions}
        for name, tok in self.calls:
            if name not in known:
                raise self.error(f"call to unknown function '@{name}'", tok)
        return self.module

    def parse_function(self) -> MFunction:
        kind = self.peek()
        if kind.kind != "word" or kind.text not in ("kernel", "func"):
            raise self.error(f"expected 'kernel' or 'func', found {self.describe(kind)}")
        self.next()
        name_tok = self.parse_token("func", what="a function name '@name'")
        if any(f.name == name_tok.text[1:] for f in self.module.functions):
            raise self.error(f"function '{name_tok.text}' is defined twice", name_tok)
        fn = MFunction(name_tok.text[1:], kind.text)
        while self.peek().kind == "word":
            key = self.next().text
            self.parse_token("punct", "=")
            fn.attrs[key] = self.parse_attr_value()
        self.parse_token("punct", "{")
        self.parse_end_of_line()
        self.parse_body(fn)
        return fn

    def parse_attr_value(self) -> int | str:
        tok = self.next()
        if tok.kind == "int":
            return int(tok.text, 0)
        if tok.kind == "word":
            return tok.text
        if tok.kind == "string":
            return re.sub(r"\\(.)", r"\1", tok.text[1:-1])
        raise self.error(f"expected an attribute value, found {self.describe(tok)}", tok)

    def parse_body(self, fn: MFunction) -> None:
        self.widths: dict[tuple[str, int], tuple[int, Token]] = {}
        labels: list[tuple[str, Token]] = []
        while True:
            self.skip_newlines()
            tok = self.peek()
            if tok.kind == "punct" and tok.text == "}":
                close = self.next()
                break
            if tok.kind == "slot":
                self.parse_slot(fn)
            elif tok.kind in ("word", "preg") and self.toks[self.pos + 1].text == ":":
                self.parse_label(fn)
            elif tok.kind == "word":
                if not fn.blocks:
                    raise self.error("an instruction before the first block label")
                instr, refs = self.parse_instr()
                fn.blocks[-1].instrs.append(instr)
                labels += refs
            else:
                raise self.error(f"expected an instruction, a block label or '}}', found {self.describe(tok)}")
        names = {b.name for b in fn.blocks}
        for name, ref in labels:
            if name not in names:
                raise self.error(f"branch to unknown block '{name}'", ref)
        problems = function_problems(fn)
        if problems:
            raise self.error(problems[0], close)
        self.parse_end_of_line()

    def parse_slot(self, fn: MFunction) -> None:
        tok = self.next()
        index = int(tok.text.split(".")[1])
        if index != len(fn.slots):
            raise self.error(f"frame slot {tok.text} declared out of order (expected %stack.{len(fn.slots)})", tok)
        self.parse_token("punct", "=")
        self.parse_token("word", "slot")
        size_tok = self.peek()
        size = self.parse_int("the slot's size")
        self.parse_token("punct", ",")
        self.parse_token("word", "align")
        align_tok = self.peek()
        align = self.parse_int("the slot's alignment")
        if size <= 0:
            raise self.error("a frame slot's size must be positive", size_tok)
        if align <= 0 or align & (align - 1):
            raise self.error("a frame slot's alignment must be a power of two", align_tok)
        fn.slots.append(FrameSlot(size, align))
        self.parse_end_of_line()

    def parse_label(self, fn: MFunction) -> None:
        tok = self.next()
        self.next()
        if RESERVED.match(tok.text):
            raise self.error(f"'{tok.text}' cannot name a block (it reads as an operand or keyword)", tok)
        if any(b.name == tok.text for b in fn.blocks):
            raise self.error(f"block '{tok.text}' is defined twice", tok)
        fn.blocks.append(MBlock(tok.text))
        self.parse_end_of_line()

    # -- instructions ---------------------------------------------------------------
    def parse_instr(self) -> tuple[MInstr, list[tuple[str, Token]]]:
        op_tok = self.next()
        if op_tok.text not in OPS:
            raise self.error(f"unknown opcode '{op_tok.text}'", op_tok)
        operands: list[Operand] = []
        toks: list[Token] = []
        if self.peek().kind not in ("nl", "eof") and not self.at_implicit() and not self.at_loc():
            while True:
                toks.append(self.peek())
                operands.append(self.parse_operand())
                if not self.parse_optional("punct", ","):
                    break
        instr = MInstr(op_tok.text, operands)
        instr.implicit_uses = self.parse_optional_implicit("uses")
        instr.implicit_defs = self.parse_optional_implicit("defs")
        instr.loc = self.parse_optional_loc()
        self.check_instr(instr, op_tok, toks)
        self.parse_end_of_line()
        refs = [(o.name, t) for o, t in zip(operands, toks) if isinstance(o, Label)]
        self.calls += [(o.name, t) for o, t in zip(operands, toks) if isinstance(o, Func)]
        return instr, refs

    def at_implicit(self) -> bool:
        tok = self.peek()
        return tok.kind == "word" and tok.text in ("uses", "defs") and self.toks[self.pos + 1].text == "["

    def at_loc(self) -> bool:
        return self.peek().kind == "word" and self.peek().text == "loc" and self.toks[self.pos + 1].kind == "string"

    def parse_optional_loc(self) -> SourceLocation | None:
        """BNF: loc-suffix ::= 'loc' string ':' int ':' int"""
        if not self.at_loc():
            return None
        self.next()
        file = re.sub(r"\\(.)", r"\1", self.next().text[1:-1])
        self.parse_token("punct", ":")
        line = self.parse_int("a line number")
        self.parse_token("punct", ":")
        return SourceLocation(file, line, self.parse_int("a column number"))

    def check_instr(self, instr: MInstr, op_tok: Token, toks: list[Token]) -> None:
        problems = instr_problems(instr)
        if not problems:
            return
        if problems[0].startswith("operand "):
            for i, (operand, tok) in enumerate(zip(instr.operands, toks)):
                problem = operand_problem(operand, instr.field_of(i))
                if problem:
                    raise self.error(f"operand {i + 1} of {instr.op}: {problem}", tok)
        raise self.error(problems[0], op_tok)

    def parse_optional_implicit(self, word: str) -> list[Register]:
        if not (self.at_implicit() and self.peek().text == word):
            return []
        self.next()
        self.parse_token("punct", "[")
        regs: list[Register] = []
        while not self.parse_optional("punct", "]"):
            if regs:
                self.parse_token("punct", ",")
            tok = self.peek()
            reg = self.parse_operand()
            if not isinstance(reg, (PReg, VReg)):
                raise self.error(f"expected a register in {word}[...], found {self.describe(tok)}", tok)
            regs.append(reg)
        return regs

    def parse_operand(self) -> Operand:
        tok = self.next()
        if tok.kind == "preg":
            return self.preg(tok)
        if tok.kind == "vreg":
            return self.vreg(tok)
        if tok.kind == "slot":
            return Slot(int(tok.text.split(".")[1]))
        if tok.kind == "func":
            return Func(tok.text[1:])
        if tok.kind == "int":
            return Imm(int(tok.text, 0))
        if tok.kind == "float":
            return Imm(float(tok.text))
        if tok.kind == "word":
            special = {"exec": EXEC, "inf": Imm(float("inf")), "nan": Imm(float("nan"))}
            return special.get(tok.text, Label(tok.text))
        raise self.error(f"expected an operand, found {self.describe(tok)}", tok)

    def preg(self, tok: Token) -> PReg:
        file = tok.text[0]
        if "[" in tok.text:
            low, high = (int(x) for x in tok.text[2:-1].split(":"))
            if high < low:
                raise self.error(f"register range {tok.text} runs backwards", tok)
            reg = PReg(file, low, 32 * (high - low + 1))
        else:
            reg = PReg(file, int(tok.text[1:]))
        problem = reg.problem()
        if problem:
            raise self.error(problem, tok)
        return reg

    def vreg(self, tok: Token) -> VReg:
        name, _, width_text = tok.text[1:].partition(":")
        reg = VReg(name[0], int(name[1:]), int(width_text or 32))
        if reg.width not in (32, 64, 128, 256):
            raise self.error(f"virtual register widths are 32, 64, 128, 256 bits, not {reg.width}", tok)
        seen = self.widths.setdefault((reg.file, reg.id), (reg.width, tok))
        if seen[0] != reg.width:
            raise self.error(f"virtual register %{name} is {reg.width} bits here but {seen[0]} bits "
                             f"at line {seen[1].line}", tok)
        return reg


def parse_asm(text: str, filename: str = "<asm>") -> MModule:
    return AsmParser(text, filename).parse_module()

