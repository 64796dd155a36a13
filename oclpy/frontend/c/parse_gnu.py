"""Parsing of the GNU C and clang extensions that OpenCL C compilers built on clang
accept: statement expressions `({ ... })`, `__typeof__(...)`, `_Static_assert`, the
`ext_vector_type` attribute, and GNU inline assembly, which parses and is refused
(oclpy's devices take no target assembly: Intel's vISA or AMD's ISA text means
nothing to them).

Each function takes the `Parser` as its first argument (an explicit context, not
a mixin) and is called from the parse method where the construct can appear.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ...diagnostics import DiagnosticEngine
from . import ast
from .ast import start_loc
from . import c_types as ct
from .gnu_types import TypeOf
from .consteval import eval_int_const, struct_offsets, type_size
from .lexer import Token

if TYPE_CHECKING:
    from .c_parser import DeclSpec, Parser


def at_statement_expression(p: Parser) -> bool:
    """Is `(` `{` next: a statement expression, not a parenthesised expression?"""
    return p.at("(") and p.ts.peek().kind == "punct" and p.ts.peek().text == "{"


def parse_statement_expression(p: Parser) -> ast.Expr:
    # BNF: statement_expression : '(' compound_statement ')'
    if p.function_depth == 0:
        loc = p.tok.loc
        p.skip_balanced_parens()
        raise p.error(loc, "statement expression not allowed at file scope")
    opener = p.ts.advance()
    body = p.parse_compound_statement()
    p.expect_closing(")", opener)
    return ast.StmtExpr(opener.loc, body)


def parse_typeof_specifier(p: Parser, spec: DeclSpec) -> None:
    # BNF: typeof_specifier : ('__typeof__' | '__typeof' | 'typeof') '(' (type_name | expression) ')'
    kw = p.ts.advance()
    opener = p.expect("(", f"expected '(' after '{kw.text}'")
    if p.is_type_name(p.tok):
        t = p.parse_type_name()
    else:
        t = TypeOf(p.parse_expression())
    p.expect_closing(")", opener)
    if spec.has_type:
        previous = spec.named_type or spec.words[0]
        p.diags.error(kw.loc, f"cannot combine with previous '{previous}' declaration specifier")
        return
    spec.named_type = t


def parse_static_assert(p: Parser) -> ast.StaticAssert:
    # BNF: static_assert_declaration : '_Static_assert' '(' constant_expression (',' string_literal)? ')' ';'
    kw = p.ts.advance()
    opener = p.expect("(", "expected '(' after '_Static_assert'")
    first = p.ts.mark()
    cond = p.parse_conditional()
    text = condition_text(p.ts.tokens[first:p.ts.mark()])
    message = None
    if p.accept(","):
        if p.tok.kind != "string":
            raise p.error(p.tok.loc, "expected string literal for diagnostic message in static_assert")
        literal = p.primary_string()
        assert isinstance(literal, ast.StringLiteral)
        message = literal.value
    else:
        p.diags.warning(p.tok.loc, "'_Static_assert' with no message is a C2x extension")
    p.expect_closing(")", opener)
    p.expect_semi("expected ';' after static_assert")
    return ast.StaticAssert(kw.loc, "", cond, message, text)


_NO_SPACE_AFTER = frozenset(["(", "[", "!", "~", ".", "->"])
_NO_SPACE_BEFORE = frozenset([")", "]", ",", ".", "->", "["])
_PREFIX_OPERATORS = frozenset(["-", "+", "*", "&"])


def condition_text(tokens: list[Token]) -> str:
    """The tokens of an expression spaced as clang prints it (`sizeof(int) == 8`, `-1 > 0`)."""
    out = ""
    prev: Optional[Token] = None
    prev_prefix = False  # the previous token was a prefix operator (`-` in `-1`)
    for tok in tokens:
        glued = prev is None or prev_prefix or prev.text in _NO_SPACE_AFTER or tok.text in _NO_SPACE_BEFORE \
            or (tok.text == "(" and prev.kind in ("id", "kw"))
        out += ("" if glued else " ") + tok.text
        follows_operand = prev is not None and (prev.kind != "punct" or prev.text in (")", "]"))
        prev_prefix = tok.kind == "punct" and tok.text in _PREFIX_OPERATORS and not follows_operand
        prev = tok
    return out


def check_static_assert_now(p: Parser, sa: ast.StaticAssert) -> None:
    """A `_Static_assert` among struct members: folded as the parser folds array sizes."""
    value = eval_int_const(sa.cond, p.rules, p.diags, type_of=p.type_from_declarations)
    report_static_assert(sa, value, p.diags)


def ext_vector_type(p: Parser, t: ct.CType, attrs: dict[str, Any], is_typedef: bool) -> ct.CType:
    """clang's `typedef float f4 __attribute__((ext_vector_type(4)))`: an OpenCL vector type,
    and GCC's `__attribute__((vector_size(16)))` (16 bytes of floats: 4 of them), which oclpy
    makes the same OpenCL vector (clang's GCC vectors convert to and from them implicitly;
    clang refuses swizzles and casts on them, oclpy takes those: a listed difference). The
    attributes are taken out of `attrs` (they are part of the type, not of the declaration)."""
    t = _gcc_vector_size(p, t, attrs)
    found = attrs.pop("ext_vector_type", None)
    if found is None:
        return t
    count, loc = found
    if not is_typedef:
        p.diags.error(loc, "'ext_vector_type' attribute only applies to typedefs")
        return t
    if not isinstance(t, ct.Scalar) or t.kind is ct.ScalarKind.BOOL:
        p.diags.error(loc, f"invalid vector element type '{t}'")
        return t
    if count not in ct.VECTOR_SIZES:
        p.diags.error(loc, f"vectors of {count} elements are not supported (OpenCL C vectors have 2, 3, 4, 8 "
                           "or 16)")
        return t
    return ct.Vector(t.kind, count, const=t.const, volatile=t.volatile, space=t.space)




def _gcc_vector_size(p: Parser, t: ct.CType, attrs: dict[str, Any]) -> ct.CType:
    """`vector_size(N)`: the vector of N bytes of `t`'s, on any declaration (as GCC and clang)."""
    found = attrs.pop("vector_size", None)
    if found is None:
        return t
    size, loc = found
    if not isinstance(t, ct.Scalar) or t.kind is ct.ScalarKind.BOOL:
        p.diags.error(loc, f"invalid vector element type '{t}'")
        return t
    if size <= 0 or size % t.kind.size:
        p.diags.error(loc, "vector size not an integral multiple of component size")
        return t
    count = size // t.kind.size
    if count not in ct.VECTOR_SIZES:
        p.diags.error(loc, f"vectors of {count} elements are not supported (OpenCL C vectors have 2, 3, 4, 8 "
                           "or 16)")
        return t
    return ct.Vector(t.kind, count, const=t.const, volatile=t.volatile, space=t.space)


def report_static_assert(sa: ast.StaticAssert, value: Optional[int], diags: DiagnosticEngine) -> None:
    """clang's diagnostics for a `_Static_assert` whose condition folded to `value` (None: not constant)."""
    if value is None:
        diags.error(start_loc(sa.cond), "static_assert expression is not an integral constant expression")
    elif value == 0:
        message = "" if sa.message is None else ' "' + sa.message.decode("latin-1") + '"'
        literal = isinstance(sa.cond, ast.IntLiteral)
        requirement = "" if literal else f" due to requirement '{sa.text}'"
        diags.error(sa.loc, f"static_assert failed{requirement}{message}")


def parse_astype(p: Parser) -> ast.Expr:
    # BNF: astype_expression : '__builtin_astype' '(' assignment_expression ',' type_name ')'
    # clang's builtin behind as_<type>(): the call is the as_<type> call of the type named
    kw = p.ts.advance()
    opener = p.expect("(", "expected '(' after '__builtin_astype'")
    value = p.parse_assignment()
    p.expect(",", "expected ','")
    t = p.parse_type_name()
    end = p.expect_closing(")", opener)
    if not (isinstance(t, ct.Vector) or isinstance(t, ct.Scalar) and t.kind is not ct.ScalarKind.BOOL):
        raise p.error(kw.loc, f"'__builtin_astype' to '{t}' is not supported: oclpy reinterprets values "
                              "as scalar and vector types")
    name = f"as_{t.unqualified()}"
    return ast.Call(kw.loc, ast.Identifier(kw.loc, name), [value], end_loc=end.loc)


def parse_offsetof(p: Parser) -> ast.Expr:
    # BNF: offsetof_expression : '__builtin_offsetof' '(' type_name ',' ID ('.' ID | '[' constant_expression ']')* ')'
    kw = p.ts.advance()
    opener = p.expect("(", "expected '(' after '__builtin_offsetof'")
    t = p.parse_type_name()
    p.expect(",", "expected ','")
    path: list[Any] = [p.expect_ident().text]
    while p.at(".", "["):
        bracket = p.ts.advance()
        if bracket.text == ".":
            path.append(p.expect_ident().text)
        else:
            path.append(p.parse_int_constant("array index"))
            p.expect_closing("]", bracket)
    p.expect_closing(")", opener)
    offset = member_offset(p, kw, t, path)
    return ast.IntLiteral(kw.loc, offset or 0, "ul")


def member_offset(p: Parser, kw: Token, t: ct.CType, path: list[Any]) -> Optional[int]:
    """The byte offset of member `path` (names and array indices) in `t`; None after an error."""
    total = 0
    for step in path:
        if isinstance(step, int) and isinstance(t, ct.Array):
            total += step * (type_size(t.elem, p.rules) or 0)
            t = t.elem
            continue
        if not isinstance(t, ct.Struct) or isinstance(step, int):
            p.diags.error(kw.loc, f"offsetof requires struct, union, or class type, '{t}' invalid")
            return None
        offsets = struct_offsets(t.definition, p.rules)
        if offsets is None:
            p.diags.error(kw.loc, f"offsetof of incomplete type '{t}'")
            return None
        found = t.definition.field(step)
        chain = [found] if found is not None else t.definition.anonymous_path(step)
        if chain is None:
            p.diags.error(kw.loc, f"no member named '{step}' in '{t}'")
            return None
        if found is None:  # through anonymous members: their offsets, then the member's
            chain = chain + [chain[-1].type.definition.field(step)]  # type: ignore[union-attr]
        for member in chain:
            total += struct_offsets(t.definition, p.rules)[member.name]  # type: ignore[index, union-attr]
            t = member.type  # type: ignore[union-attr]
    return total


ASM_KEYWORDS = ("__asm__", "__asm")
_ASM_QUALIFIERS = ("volatile", "__volatile__", "inline", "__inline__", "goto")


def at_asm(p: Parser) -> bool:
    """Is GNU `__asm__` next (unless the program declares the name)?"""
    return p.tok.text in ASM_KEYWORDS and p.tok.kind in ("id", "kw") and p.lookup(p.tok.text) is None


def parse_asm(p: Parser) -> ast.Stmt:
    # BNF: asm_statement : ('__asm__' | '__asm') asm_qualifier* '(' balanced_tokens ')' ';'
    # (at file scope too, without the qualifiers)
    tok = p.ts.advance()
    while p.tok.text in _ASM_QUALIFIERS:
        p.ts.advance()
    if not p.at("("):
        raise p.error(p.tok.loc, "expected '(' after 'asm'")
    p.skip_balanced_parens()
    p.expect(";", "expected ';' after asm statement")
    p.diags.error(tok.loc, "inline assembly is not supported: oclpy's devices take no target assembly")
    return ast.ExprStmt(tok.loc, None)
