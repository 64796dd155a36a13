"""OpenCL C parser: preprocessed text -> `ast.TranslationUnit`.

A recursive-descent parser in the pycparser manner: every parse method carries
a `# BNF:` comment, binary operators are driven by one precedence table, and a
scope stack tells typedef names from ordinary identifiers, so one token of
lookahead settles the cast-or-parenthesis question (`(T)x` vs `(x)`). The
token stream offers `mark()`/`reset()`; recovery uses marks to make sure every
error consumes input.

Types are resolved while parsing (declarators become `cltypes` values, array
sizes are folded by `consteval`). Syntax errors are reported the way clang
words and places them, then the parser skips to the next `;` or `}` at the
right nesting so one build reports several errors. `parse` never raises.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Optional, TypeVar, Union

from ...diagnostics import DiagnosticEngine, SourceLocation, TooManyErrors
from ...ir.types import AddressSpace
from . import ast
from . import c_types as ct
from . import parse_gnu, parse_recovery
from ..size_rules import CPU_SIZE_RULES, SizeRules
from .consteval import eval_int_const
from .decl_types import declared_type
from .lexer import Token, tokenize
from .opaque_types import UNOFFERED_TYPE_NAMES, is_image, opaque_type_names
from .gnu_types import TYPEOF_KEYWORDS
from .type_rules import ERROR


class ParseError(Exception):
    """Internal: a syntax error that was already reported; unwinds to a recovery point."""


# Nesting levels (a parenthesis counts two: its expression and its operand), keeping
# recursion well inside the interpreter's limit; clang's bracket limit is 256 too.
MAX_NESTING = 512
# Operands in one chain of binary operators (`a + b + ... + z` is a left-deep tree
# this deep); sema and lowering walk it recursively in the driver's deep-stack thread.
MAX_OPERANDS = 10_000
# Elements in one array dimension (far beyond any device's private, local or constant memory).
MAX_ARRAY_ELEMENTS = 1 << 24
MAX_ELSE_IFS = 10_000
_RECURSION_LIMIT = 20000

_ParseMethod = TypeVar("_ParseMethod", bound=Callable[..., Any])


def nested(method: _ParseMethod) -> _ParseMethod:
    """Count the nesting depth through a recursive parse method; report when it is too deep."""

    @functools.wraps(method)
    def wrapper(self: Parser, *args: Any, **kwargs: Any) -> Any:
        if self.depth >= MAX_NESTING:
            raise self.error(self.tok.loc, f"bracket nesting level exceeded maximum of {MAX_NESTING // 2}")
        self.depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self.depth -= 1

    return wrapper  # type: ignore[return-value]


BUILTIN_TYPES = {**ct.builtin_type_names(), **opaque_type_names()}

# Binary operator -> precedence (higher binds tighter).
BINARY_PRECEDENCE = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
ASSIGN_OPS = frozenset(["=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="])
UNARY_OPS = frozenset(["-", "+", "!", "~", "*", "&"])

ADDRESS_SPACES = {
    "__global": AddressSpace.GLOBAL, "global": AddressSpace.GLOBAL,
    "__local": AddressSpace.LOCAL, "local": AddressSpace.LOCAL,
    "__constant": AddressSpace.CONSTANT, "constant": AddressSpace.CONSTANT,
    "__private": AddressSpace.PRIVATE, "private": AddressSpace.PRIVATE,
    "__generic": AddressSpace.GENERIC, "generic": AddressSpace.GENERIC,
}
ACCESS_QUALIFIERS = {
    "__read_only": "read_only", "read_only": "read_only", "__write_only": "write_only",
    "write_only": "write_only", "__read_write": "read_write", "read_write": "read_write",
}
STORAGE_CLASSES = frozenset(["typedef", "static", "extern", "auto", "register"])
TYPE_WORDS = frozenset(["void", "char", "short", "int", "long", "float", "double", "signed",
                        "unsigned", "_Bool", "_Complex", "_Imaginary"])
QUALIFIERS = frozenset(["const", "__const", "volatile", "restrict", "__restrict", "__restrict__"])
FUNCTION_SPECIFIERS = frozenset(["__kernel", "kernel", "inline", "__inline", "__inline__"])
DECL_KEYWORDS = (STORAGE_CLASSES | TYPE_WORDS | QUALIFIERS | FUNCTION_SPECIFIERS | set(ADDRESS_SPACES)
                 | set(ACCESS_QUALIFIERS) | {"struct", "union", "enum", "__attribute__", "__attribute"}
                 | TYPEOF_KEYWORDS)
SPECIFIER_QUALIFIER_KEYWORDS = DECL_KEYWORDS - STORAGE_CLASSES - FUNCTION_SPECIFIERS

_SIGNED_TO_UNSIGNED = {ct.ScalarKind.CHAR: ct.ScalarKind.UCHAR, ct.ScalarKind.SHORT: ct.ScalarKind.USHORT,
                       ct.ScalarKind.INT: ct.ScalarKind.UINT, ct.ScalarKind.LONG: ct.ScalarKind.ULONG}
# C type-specifier words (other than signed/unsigned/long) -> scalar kind.
_BASE_KINDS = {"char": ct.ScalarKind.CHAR, "short": ct.ScalarKind.SHORT, "int": ct.ScalarKind.INT,
               "float": ct.ScalarKind.FLOAT, "double": ct.ScalarKind.DOUBLE, "_Bool": ct.ScalarKind.BOOL}


@dataclass
class DeclSpec:
    """What the declaration specifiers said."""

    loc: SourceLocation
    storage: Optional[str] = None
    words: list[str] = field(default_factory=list)  # C type-specifier words
    named_type: Optional[ct.CType] = None  # typedef, struct/enum or OpenCL type name
    type_spelling: Optional[str] = None  # the typedef or OpenCL type name as written
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None
    access: Optional[str] = None
    access_loc: Optional[SourceLocation] = None
    is_kernel: bool = False
    is_inline: bool = False
    attributes: dict[str, Any] = field(default_factory=dict)
    side_decls: list[ast.Decl] = field(default_factory=list)  # enum constants, tag declarations
    ctype: ct.CType = ct.INT
    defines_tag: bool = False
    missing_semi: bool = False  # `struct S {...}` followed by a new declaration: ';' forgotten

    @property
    def has_type(self) -> bool:
        return bool(self.words) or self.named_type is not None

    @property
    def empty(self) -> bool:
        return not (self.has_type or self.storage or self.const or self.volatile or self.space
                    or self.access or self.is_kernel or self.is_inline or self.attributes)


@dataclass
class TypeOp:
    """One step of a declarator, applied to the type built so far."""

    kind: str  # "ptr", "array", "func"
    const: bool = False
    volatile: bool = False
    restrict: bool = False
    space: Optional[AddressSpace] = None
    count: Optional[int] = None
    params: list[ast.ParamDecl] = field(default_factory=list)
    variadic: bool = False
    # An array parameter's `[static const restrict N]`: the words, and the '[' they follow.
    array_quals: tuple[str, ...] = ()
    loc: Optional[SourceLocation] = None


@dataclass
class Declarator:
    name: str
    loc: SourceLocation
    ops: list[TypeOp] = field(default_factory=list)  # applied from the base type outward
    attributes: dict[str, Any] = field(default_factory=dict)

    @property
    def is_function(self) -> bool:
        return bool(self.ops) and self.ops[-1].kind == "func"

    @property
    def params(self) -> list[ast.ParamDecl]:
        return self.ops[-1].params if self.is_function else []


def _innermost_bracket(d: Declarator) -> Optional[SourceLocation]:
    """The innermost '[' of a declarator that makes an array (clang reports the element there)."""
    arrays = len(d.ops)
    while arrays and d.ops[arrays - 1].kind == "array":
        arrays -= 1
    return d.ops[arrays].loc if arrays < len(d.ops) else None


def _written_type_name(spec: DeclSpec, d: Declarator) -> Optional[str]:
    """`my_struct_t*` for a parameter written with a type name and plain pointers
    (what clGetKernelArgInfo reports); None when no type name was used."""
    if spec.type_spelling is None or any(op.kind != "ptr" for op in d.ops):
        return None
    return spec.type_spelling + "*" * len(d.ops)


def _adjust_param_type(t: ct.CType) -> ct.CType:
    """C99 6.7.5.3: array and function parameters are adjusted to pointers."""
    if isinstance(t, ct.Array):
        return ct.Pointer(t.elem, const=False)
    if isinstance(t, ct.FunctionType):
        return ct.Pointer(t)
    return t


def apply_ops(base: ct.CType, ops: list[TypeOp]) -> ct.CType:
    """Build the declared type from the base type and the declarator's steps."""
    t = base
    for op in ops:
        if op.kind == "ptr":
            t = ct.Pointer(t, const=op.const, volatile=op.volatile, restrict=op.restrict, space=op.space)
        elif op.kind == "array":
            t = ct.Array(t, op.count, const=t.const, volatile=t.volatile, space=t.space)
        else:
            t = ct.FunctionType(t, tuple(p.ctype for p in op.params), op.variadic)
    return t


class TokenStream:
    """The token list with a cursor; mark()/reset() let the parser look ahead and back off."""

    __slots__ = ("tokens", "pos", "tok")

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.tok = tokens[0]  # the current token, tokens[pos] (read for every token, so kept)

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    @property
    def prev(self) -> Token:
        return self.tokens[max(self.pos - 1, 0)]

    def advance(self) -> Token:
        tok = self.tok
        if tok.kind != "eof":
            self.pos += 1
            self.tok = self.tokens[self.pos]
        return tok

    def mark(self) -> int:
        return self.pos

    def reset(self, mark: int) -> None:
        self.pos = mark
        self.tok = self.tokens[mark]


class Parser:
    def __init__(self, tokens: list[Token], diags: DiagnosticEngine,
                 extra_types: Optional[dict[str, ct.CType]] = None) -> None:
        self.ts = TokenStream(tokens)
        self.diags = diags
        self.builtin_types = {**BUILTIN_TYPES, **extra_types} if extra_types else BUILTIN_TYPES
        self.scopes: list[dict[str, Union[ct.CType, ast.Decl]]] = [{}]
        self.tags: list[dict[str, ct.CType]] = [{}]
        self.tu = ast.TranslationUnit(self.ts.tok.loc, [])  # what was parsed so far
        self.depth = 0  # nesting of recursive constructs, see `nested`
        self.else_ifs = 0  # depth of the current `else if` chain
        self.function_depth = 0  # inside a function body (statement expressions are allowed)
        self.in_parameter = False  # parsing a parameter's declarator (array qualifiers are allowed)
        self.attribute_locs: dict[str, SourceLocation] = {}  # where each attribute name was last written
        self.version = 120  # the OpenCL C version being parsed
        self.rules = CPU_SIZE_RULES  # the target's pointer sizes, for `sizeof` in constants

    # -- token helpers --------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.ts.tok

    def at(self, *texts: str) -> bool:
        tok = self.ts.tok
        return tok.kind in ("punct", "kw") and tok.text in texts

    def accept(self, text: str) -> Optional[Token]:
        return self.ts.advance() if self.at(text) else None

    def error(self, loc: SourceLocation, message: str) -> ParseError:
        self.diags.error(loc, message)
        return ParseError(message)

    def expect(self, text: str, message: Optional[str] = None, after_prev: bool = False) -> Token:
        """Consume `text` or report `message` (at the token, or just after the previous one)."""
        if self.at(text):
            return self.ts.advance()
        loc = self.ts.prev.end if after_prev and self.ts.pos > 0 else self.tok.loc
        raise self.error(loc, message or f"expected '{text}'")

    def expect_semi(self, message: str) -> None:
        """Consume a ';' that ends a complete construct; if missing, report it just after the
        previous token and carry on as if it were there (as clang does)."""
        if not self.accept(";"):
            self.diags.error(self.ts.prev.end, message)

    def expect_closing(self, text: str, opener: Token) -> Token:
        if self.at(text):
            return self.ts.advance()
        diag = self.diags.error(self.tok.loc, f"expected '{text}'")
        self.diags.note(diag, opener.loc, f"to match this '{opener.text}'")
        raise ParseError(text)

    def expect_ident(self, message: str = "expected identifier") -> Token:
        if self.tok.kind == "id":
            return self.ts.advance()
        raise self.error(self.tok.loc, message)

    # -- scopes ---------------------------------------------------------------

    def push_scope(self) -> None:
        self.scopes.append({})
        self.tags.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()
        self.tags.pop()

    def declare(self, name: str, what: Union[ct.CType, ast.Decl]) -> None:
        if name:
            self.scopes[-1][name] = what

    def lookup(self, name: str) -> Optional[Union[ct.CType, ast.Decl]]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def type_from_declarations(self, e: ast.Expr) -> Optional[ct.CType]:
        """The type of `e` from the declarations in scope (`sizeof(x)` in an array size)."""
        return declared_type(e, self.lookup)

    def typedef_type(self, name: str) -> Optional[ct.CType]:
        found = self.lookup(name)
        if isinstance(found, ct.CType):
            return found
        return self.builtin_types.get(name) if found is None else None

    def is_type_name(self, tok: Token) -> bool:
        if tok.kind == "kw":
            return tok.text in SPECIFIER_QUALIFIER_KEYWORDS
        return tok.kind == "id" and (self.typedef_type(tok.text) is not None or self.is_typeof_word(tok))

    def is_typeof_word(self, tok: Token) -> bool:
        """GNU `typeof` (spelt without underscores it is an identifier unless one is declared so)."""
        return tok.text == "typeof" and tok.kind == "id" and self.lookup("typeof") is None

    def is_declaration_start(self) -> bool:
        tok = self.tok
        if tok.kind == "kw":
            return tok.text in DECL_KEYWORDS
        if tok.kind != "id":
            return False
        if self.typedef_type(tok.text) is not None or self.is_typeof_word(tok):
            return True
        # `flot x;`: an unknown identifier followed by an identifier is a misspelt type.
        return self.lookup(tok.text) is None and self.ts.peek().kind == "id"

    # -- translation unit -----------------------------------------------------

    def parse_translation_unit(self) -> ast.TranslationUnit:
        # BNF: translation_unit : external_declaration*
        tu = self.tu = ast.TranslationUnit(self.tok.loc, [])
        while self.tok.kind != "eof":
            start = self.ts.mark()
            try:
                tu.decls.extend(self.parse_external_declaration())
            except ParseError:
                self.sync(top_level=True)
            if self.ts.mark() == start:
                self.ts.advance()
        return tu

    def parse_external_declaration(self) -> list[ast.Decl]:
        # BNF: external_declaration : function_definition | declaration | ';'
        if self.accept(";"):
            return []
        if self.at("}"):
            raise self.error(self.ts.advance().loc, "extraneous closing brace ('}')")
        if self.at("_Static_assert"):
            return [parse_gnu.parse_static_assert(self)]
        if parse_gnu.at_asm(self):
            parse_gnu.parse_asm(self)
            return []
        return self.parse_declaration(top_level=True)

    def sync(self, top_level: bool = False) -> None:
        """Skip to just after the next `;` (or before a `}`) at the current nesting."""
        depth = 0
        while self.tok.kind != "eof":
            text = self.tok.text if self.tok.kind == "punct" else ""
            if depth == 0 and text == ";":
                self.ts.advance()
                return
            if depth == 0 and text == "}":
                if top_level:
                    self.ts.advance()
                return
            if text in ("(", "[", "{"):
                depth += 1
            elif text in (")", "]", "}") and depth > 0:
                depth -= 1
                if depth == 0 and text == "}":
                    self.ts.advance()
                    return
            self.ts.advance()

    # -- declarations ---------------------------------------------------------

    def parse_declaration(self, top_level: bool = False, spec: Optional[DeclSpec] = None) -> list[ast.Decl]:
        # BNF: declaration : declaration_specifiers init_declarator_list? ';'
        #      function_definition : declaration_specifiers declarator compound_statement
        spec = spec or self.parse_declaration_specifiers()
        if spec.empty:
            raise self.error(self.tok.loc, "expected identifier or '('")
        if spec.storage == "typedef":
            self.misplaced_amdgpu_attributes(spec.attributes)
        decls = list(spec.side_decls)
        if spec.missing_semi or self.accept(";"):
            return decls + self.tag_only_declaration(spec)
        while True:
            declarator = self.parse_declarator()
            self.parse_attributes_into(declarator.attributes)
            if declarator.is_function and self.at("{") and not decls[len(spec.side_decls):]:
                if top_level:
                    return decls + [self.parse_function_definition(spec, declarator)]
                raise self.error(self.tok.loc, "function definition is not allowed here")
            decls.append(self.finish_declarator(spec, declarator, top_level))
            if not self.accept(","):
                break
        if not self.accept(";"):
            message = "expected ';' after top level declarator" if top_level else "expected ';' at end of declaration"
            parse_recovery.missing_declaration_semi(self, message)
        return decls

    def tag_only_declaration(self, spec: DeclSpec) -> list[ast.Decl]:
        """`struct S { ... };` or `enum E { ... };`: no declarators."""
        t = spec.named_type
        if isinstance(t, (ct.Struct, ct.Enum)) and not spec.storage:
            tag = t.definition.tag if isinstance(t, ct.Struct) else t.tag
            if tag or isinstance(t, ct.Enum):
                return [ast.TagDecl(spec.loc, tag, t)]
        self.diags.warning(spec.loc, "declaration does not declare anything")
        if isinstance(t, ct.Struct):  # still checked, as clang does (a bit-field in it is an error)
            return [ast.TagDecl(spec.loc, "", t)]
        return []

    def declared_type(self, base: ct.CType, ops: list[TypeOp]) -> ct.CType:
        """The type a declarator gives; a pointer to a function is reported (OpenCL C has none),
        and the declaration gets the error type unless it declares a function."""
        t, bad = base, False
        for op in ops:
            if op.kind == "ptr" and isinstance(t, ct.FunctionType):
                self.diags.error(op.loc or self.tok.loc, "pointers to functions are not allowed")
                bad = True
            t = apply_ops(t, [op])
        return ERROR if bad and not isinstance(t, ct.FunctionType) else t

    def check_typedef_redefinition(self, d: Declarator, ctype: ct.CType) -> None:
        """A typedef may name again the type its name has in this scope (C11; clang's tests
        spell out `typedef float float4 __attribute__((ext_vector_type(4)))`), never
        another: clang's "typedef redefinition with different types"."""
        scope = self.scopes[-1]
        if d.name in scope:
            old = scope[d.name]
        else:  # at file scope the builtin type names count as declared there
            old = self.builtin_types.get(d.name) if len(self.scopes) == 1 else None
        if not isinstance(old, ct.CType) or old is ERROR or ctype is ERROR:
            return
        same_struct = not isinstance(old, ct.Struct) or (
            isinstance(ctype, ct.Struct) and old.definition is ctype.definition)
        if not (old == ctype and same_struct):
            self.diags.error(d.loc, f"typedef redefinition with different types ('{ctype}' vs '{old}')")

    def finish_declarator(self, spec: DeclSpec, d: Declarator, top_level: bool) -> ast.Decl:
        """Make the Decl for one declarator (with its initializer, if any)."""
        ctype = self.declared_type(spec.ctype, d.ops)
        attributes = {**spec.attributes, **d.attributes}
        ctype = parse_gnu.ext_vector_type(self, ctype, attributes, spec.storage == "typedef")
        if spec.storage == "typedef":
            if attributes.get("aligned") and hasattr(ctype, "align"):  # clang: more alignment, same size
                ctype = replace(ctype, align=max(ctype.align, int(attributes["aligned"])))  # type: ignore[attr-defined]
            self.check_typedef_redefinition(d, ctype)
            self.declare(d.name, ctype)
            if self.at("="):
                raise self.error(self.tok.loc, "illegal initializer (only variables can be initialized)")
            return ast.TypedefDecl(d.loc, d.name, ctype)
        if isinstance(ctype, ct.FunctionType):
            decl: ast.Decl = self.make_function(spec, d, ctype, None)
            self.declare(d.name, decl)
            return decl
        init = None
        self.declare(d.name, ast.VarDecl(d.loc, d.name, ctype))
        if self.accept("="):
            try:
                init = self.parse_initializer()
                ctype = self.complete_array_from_init(ctype, init)
            except ParseError:  # reported: the variable stays declared, with the error type
                parse_recovery.skip_declarator_rest(self)
                init, ctype = None, ERROR
        storage = spec.storage if spec.storage in ("static", "extern") else None
        var = ast.VarDecl(d.loc, d.name, ctype, init, storage, attributes, is_global_scope=top_level)
        var.array_loc = _innermost_bracket(d)
        self.declare(d.name, var)
        return var

    @staticmethod
    def complete_array_from_init(ctype: ct.CType, init: ast.Expr) -> ct.CType:
        """`int a[] = {1, 2, 3}` / `char s[] = "ab"` get their size from the initializer."""
        if not isinstance(ctype, ct.Array) or ctype.count is not None:
            return ctype
        if isinstance(init, ast.StringLiteral):
            return replace(ctype, count=len(init.value) + 1)
        if isinstance(init, ast.InitList):
            count = index = 0
            for designator in init.designators or [None] * len(init.items):
                if designator and isinstance(designator[0], (int, tuple)):
                    index = designator[0] if isinstance(designator[0], int) else designator[0][1]
                index += 1
                count = max(count, index)
            return replace(ctype, count=count)
        return ctype

    def make_function(self, spec: DeclSpec, d: Declarator, ctype: ct.FunctionType,
                      body: Optional[ast.Compound]) -> ast.FunctionDecl:
        storage = spec.storage if spec.storage in ("static", "extern") else None
        attributes = {**spec.attributes, **d.attributes}
        misplaced = [] if spec.is_kernel else sorted(_KERNEL_ATTRIBUTES & attributes.keys())
        for name in misplaced:
            self.diags.error(d.loc, f"attribute '{name}' can only be applied to an OpenCL kernel function")
            del attributes[name]
        if not spec.is_kernel:
            self.misplaced_amdgpu_attributes(attributes, d.loc)
        return ast.FunctionDecl(d.loc, d.name, ctype, list(d.params), body, spec.is_kernel,
                                spec.is_inline, storage, attributes)

    def parse_function_definition(self, spec: DeclSpec, d: Declarator) -> ast.FunctionDecl:
        # BNF: function_definition : declaration_specifiers declarator compound_statement
        ctype = self.declared_type(spec.ctype, d.ops)
        assert isinstance(ctype, ct.FunctionType)
        func = self.make_function(spec, d, ctype, None)
        self.declare(d.name, func)
        self.push_scope()
        self.function_depth += 1
        try:
            for param in func.params:
                self.declare(param.name, param)
            func.body = self.parse_compound_statement(new_scope=False)
        finally:
            self.function_depth -= 1
            self.pop_scope()
        return func

    def parse_declaration_specifiers(self, in_param: bool = False) -> DeclSpec:
        # BNF: declaration_specifiers : (storage_class | type_qualifier | type_specifier
        #                                | function_specifier | attribute)+
        spec = DeclSpec(self.tok.loc)
        errors_before = self.diags.error_count
        while self.parse_one_specifier(spec, in_param):
            if spec.defines_tag and self.ts.prev.text == "}" and self.starts_new_declaration():
                kind = "enum" if isinstance(spec.named_type, ct.Enum) else "struct"
                self.diags.error(self.ts.prev.end, f"expected ';' after {kind}")
                spec.missing_semi = True
                break
        spec.ctype = self.resolve_type(spec)
        if (spec.access_loc is not None and not is_image(spec.ctype) and spec.ctype is not ERROR
                and self.diags.error_count == errors_before):  # `read_only pipe int`: pipe's error says it
            self.diags.error(spec.access_loc, "access qualifier can only be used for pipe and image type")
        return spec

    def starts_new_declaration(self) -> bool:
        """After `struct S { ... }`: does a new declaration start on the next line?"""
        tok = self.tok
        if tok.loc.line == self.ts.prev.loc.line:
            return False
        if tok.kind == "kw":
            return tok.text in STORAGE_CLASSES | TYPE_WORDS | FUNCTION_SPECIFIERS | {"struct", "union", "enum"}
        return tok.kind == "id" and self.typedef_type(tok.text) is not None

    def parse_one_specifier(self, spec: DeclSpec, in_param: bool) -> bool:
        """Consume one declaration specifier into `spec`; False when none is next."""
        tok = self.tok
        if tok.kind == "id":
            return self.parse_type_name_specifier(spec, in_param)
        if tok.kind != "kw":
            return False
        handler = _SPECIFIER_HANDLERS.get(tok.text)
        if handler is None:
            return False
        handler(self, spec)
        return True

    def parse_type_name_specifier(self, spec: DeclSpec, in_param: bool) -> bool:
        """An identifier among the specifiers: a type name, or a misspelt one."""
        tok = self.tok
        if self.is_typeof_word(tok) and self.ts.peek().text == "(":
            parse_gnu.parse_typeof_specifier(self, spec)
            return True
        if spec.has_type:
            return False
        named = self.typedef_type(tok.text)
        if named is not None:
            self.ts.advance()
            spec.named_type = named
            spec.type_spelling = tok.text
            return True
        next_tok = self.ts.peek()
        follows_type = next_tok.kind == "id" or (next_tok.text == "*" and not spec.empty)
        unoffered = in_param and self.version >= 200 and tok.text in UNOFFERED_TYPE_NAMES
        if follows_type or unoffered or (in_param and next_tok.text not in (",", ")", "[")):
            self.diags.error(tok.loc, f"unknown type name '{tok.text}'")
            self.ts.advance()
            spec.named_type = ct.INT
            return True
        return False

    def spec_storage(self, spec: DeclSpec) -> None:
        tok = self.ts.advance()
        if spec.storage is not None:
            self.diags.error(tok.loc, "cannot combine with previous '%s' declaration specifier" % spec.storage)
        spec.storage = tok.text

    def spec_qualifier(self, spec: DeclSpec) -> None:
        text = self.ts.advance().text
        if text in ("const", "__const"):
            spec.const = True
        elif text == "volatile":
            spec.volatile = True

    def spec_address_space(self, spec: DeclSpec) -> None:
        tok = self.ts.advance()
        space = ADDRESS_SPACES[tok.text]
        self.check_generic_word(tok)
        if spec.space is not None and spec.space is not space:
            self.diags.error(tok.loc, "multiple address spaces specified for type")
        spec.space = space

    def check_generic_word(self, tok: Token) -> None:
        """`__generic` came with OpenCL C 2.0 (clang's error before it)."""
        if ADDRESS_SPACES.get(tok.text) is AddressSpace.GENERIC and self.version < 200:
            self.diags.error(tok.loc, f"OpenCL C version {self.version // 100}.{self.version % 100 // 10} does not "
                                      f"support the '{tok.text}' type qualifier")

    def spec_access(self, spec: DeclSpec) -> None:
        tok = self.ts.advance()
        spec.access, spec.access_loc = ACCESS_QUALIFIERS[tok.text], tok.loc

    def spec_function(self, spec: DeclSpec) -> None:
        text = self.ts.advance().text
        if text in ("__kernel", "kernel"):
            spec.is_kernel = True
        else:
            spec.is_inline = True

    def spec_type_word(self, spec: DeclSpec) -> None:
        tok = self.ts.advance()
        if tok.text in ("_Complex", "_Imaginary"):
            self.diags.error(tok.loc, f"'{tok.text}' types are not supported in OpenCL C")
            return
        if spec.named_type is not None:
            self.diags.error(tok.loc, f"cannot combine with previous '{spec.named_type}' declaration specifier")
            return
        spec.words.append(tok.text)

    def spec_tag(self, spec: DeclSpec) -> None:
        tok = self.tok
        t = self.parse_enum_specifier(spec) if tok.text == "enum" else self.parse_struct_specifier(spec)
        if spec.has_type:
            self.diags.error(tok.loc, f"cannot combine with previous '{spec.named_type or spec.words[0]}' "
                                      "declaration specifier")
            return
        spec.named_type = t

    def spec_attribute(self, spec: DeclSpec) -> None:
        self.parse_attributes_into(spec.attributes)

    def resolve_type(self, spec: DeclSpec) -> ct.CType:
        """The base type the specifiers name, with their qualifiers."""
        base = spec.named_type if spec.named_type is not None else self.resolve_words(spec)
        return replace(base, const=spec.const or base.const, volatile=spec.volatile or base.volatile,
                       space=spec.space or base.space)

    def resolve_words(self, spec: DeclSpec) -> ct.CType:
        """`unsigned long int` and friends -> a scalar type (C's long long is OpenCL's long)."""
        words = spec.words
        if not words:
            if not spec.empty:
                self.diags.error(spec.loc, "type specifier missing, defaults to 'int'")
            return ct.INT
        longs = words.count("long")
        signs = [w for w in words if w in ("signed", "unsigned")]
        rest = [w for w in words if w not in ("signed", "unsigned", "long")]
        if "int" in rest and len(rest) == 2 and "short" in rest:
            rest = ["short"]
        if len(rest) > 1 or len(signs) > 1 or longs > 2:
            self.diags.error(spec.loc, f"cannot combine with previous '{words[0]}' declaration specifier")
        base = rest[0] if rest else "int"
        if base == "void":
            return ct.VOID
        kind = _BASE_KINDS[base]
        if longs and base == "int":
            kind = ct.ScalarKind.LONG
        elif longs and base != "double":
            self.diags.error(spec.loc, f"'long {base}' is invalid")
        if signs and kind.is_float or (signs and kind is ct.ScalarKind.BOOL):
            self.diags.error(spec.loc, f"'{signs[0]} {base}' is invalid")
        elif signs == ["unsigned"]:
            kind = _SIGNED_TO_UNSIGNED[kind]
        return ct.Scalar(kind)

    # -- struct, union, enum --------------------------------------------------

    def lookup_tag(self, name: str) -> Optional[ct.CType]:
        for scope in reversed(self.tags):
            if name in scope:
                return scope[name]
        return None

    def parse_struct_specifier(self, spec: DeclSpec) -> ct.CType:
        # BNF: struct_or_union_specifier : ('struct' | 'union') attribute* ID? ('{' struct_declaration* '}')?
        #                                  attribute*
        kw = self.ts.advance()
        attrs: dict[str, Any] = {}
        self.parse_attributes_into(attrs)
        name_tok = self.ts.advance() if self.tok.kind == "id" else None
        tag = name_tok.text if name_tok else ""
        if not self.at("{"):
            if name_tok is None:
                raise self.error(self.tok.loc, f"declaration of anonymous {kw.text} must be a definition")
            return self.struct_reference(kw, name_tok)
        definition = self.new_struct_definition(kw, name_tok)
        t = ct.Struct(definition)
        definition.fields = self.parse_struct_body()
        self.check_flexible_array_members(definition)
        self.parse_attributes_into(attrs)
        definition.packed = bool(attrs.get("packed"))
        definition.align = int(attrs.get("aligned", 0))
        spec.defines_tag = True
        return t

    def struct_reference(self, kw: Token, name_tok: Token) -> ct.CType:
        found = self.lookup_tag(name_tok.text)
        if isinstance(found, ct.Struct) and found.definition.is_union == (kw.text == "union"):
            return found
        if found is not None:
            raise self.error(name_tok.loc, f"use of '{name_tok.text}' with tag type that does not match "
                                           "previous declaration")
        t = ct.Struct(ct.StructDef(name_tok.text, is_union=kw.text == "union"))
        self.tags[-1][name_tok.text] = t
        return t

    def new_struct_definition(self, kw: Token, name_tok: Optional[Token]) -> ct.StructDef:
        tag = name_tok.text if name_tok else ""
        existing = self.tags[-1].get(tag) if tag else None
        if isinstance(existing, ct.Struct) and existing.definition.is_union == (kw.text == "union"):
            if existing.definition.fields is not None and name_tok is not None:
                self.diags.error(name_tok.loc, f"redefinition of '{tag}'")
            else:
                return existing.definition
        definition = ct.StructDef(tag, is_union=kw.text == "union")
        if tag:
            self.tags[-1][tag] = ct.Struct(definition)
        return definition

    def parse_struct_body(self) -> list[ct.StructField]:
        # BNF: struct_body : '{' struct_declaration* '}'
        opener = self.expect("{")
        fields: list[ct.StructField] = []
        names: set[str] = set()
        while not self.at("}"):
            if self.tok.kind == "eof":
                self.expect_closing("}", opener)
            loc = self.tok.loc
            try:
                for f in self.parse_struct_declaration():
                    self.check_member_names(f, names, loc)
                    fields.append(f)
            except ParseError:
                self.sync()
        self.ts.advance()
        return fields

    def check_flexible_array_members(self, d: ct.StructDef) -> None:
        """C99 6.7.2.1: a flexible array member `T name[]` ends a struct with other members."""
        fields = d.fields or []
        for i, f in enumerate(fields):
            if not (isinstance(f.type, ct.Array) and f.type.count is None):
                continue
            loc = f.loc or self.ts.prev.loc
            kind = f"with type '{f.type.elem}[]' is not at the end of struct" if i != len(fields) - 1 else \
                "in a union is not allowed" if d.is_union else \
                "not allowed in otherwise empty struct" if len(fields) == 1 else ""
            if kind:
                self.diags.error(loc, f"flexible array member '{f.name}' {kind}")

    def check_member_names(self, f: ct.StructField, names: set[str], loc: SourceLocation) -> None:
        """Report a member whose name is already taken in the struct being defined,
        counting the members of anonymous struct and union members as its own."""
        if f.name.startswith(ct.ANONYMOUS_MEMBER) and isinstance(f.type, ct.Struct):
            for inner in f.type.definition.fields or []:
                self.check_member_names(inner, names, loc)
            return
        if not f.name:
            return
        if f.name in names:
            self.diags.error(loc, f"duplicate member '{f.name}'")
        names.add(f.name)

    def parse_struct_declaration(self) -> list[ct.StructField]:
        # BNF: struct_declaration : specifier_qualifier_list struct_declarator (',' struct_declarator)* ';'
        #      struct_declarator : declarator? (':' constant_expression)?
        if self.accept(";"):
            return []
        if self.at("_Static_assert"):
            parse_gnu.check_static_assert_now(self, parse_gnu.parse_static_assert(self))
            return []
        spec = self.parse_declaration_specifiers()
        if not spec.has_type:
            raise self.error(self.tok.loc, "type name requires a specifier or qualifier")
        fields: list[ct.StructField] = []
        if self.at(";"):
            if isinstance(spec.ctype, ct.Struct) and not spec.ctype.definition.tag:
                # C11 anonymous member: its members are reached as members of this struct
                fields.append(ct.StructField(f"{ct.ANONYMOUS_MEMBER}{id(spec.ctype.definition)}",
                                             spec.ctype))
            else:
                self.diags.warning(spec.loc, "declaration does not declare anything")
        while not self.at(";"):
            declarator = self.parse_declarator(abstract=self.at(":"))
            width = None
            if self.accept(":"):
                width = self.parse_int_constant("bit-field width")
            self.parse_attributes_into(declarator.attributes)
            align = declarator.attributes.get("aligned") or spec.attributes.get("aligned") or 0
            field_type = self.declared_type(spec.ctype, declarator.ops)
            field_type = parse_gnu.ext_vector_type(self, field_type, {**spec.attributes, **declarator.attributes}, False)
            incomplete = self.incomplete_field(field_type)
            if incomplete:  # as clang: reported, and the member left out
                self.diags.error(declarator.loc or spec.loc, incomplete)
            else:
                fields.append(ct.StructField(declarator.name, field_type, width, align=align, loc=declarator.loc))
            if not self.accept(","):
                break
        if self.at("}"):  # `struct S { int a; float b };`: clang only warns
            self.diags.warning(self.ts.prev.end, "expected ';' at end of declaration list")
        elif not self.accept(";"):  # as clang: report, then skip the rest of this member declaration
            self.diags.error(self.ts.prev.end, "expected ';' at end of declaration list")
            parse_recovery.skip_to(self, frozenset([";"]))
            self.accept(";")
        return fields

    @staticmethod
    def incomplete_field(t: ct.CType) -> str:
        """clang's error for a member of type `t` that has no size (void, a struct or union
        declared but not defined, an array of either), or ""."""
        def incomplete(u: ct.CType) -> bool:
            return isinstance(u, ct.Void) or (isinstance(u, ct.Struct) and u.definition.fields is None)

        if isinstance(t, ct.Array):
            elem = t.elem
            while isinstance(elem, ct.Array):
                elem = elem.elem
            return f"array has incomplete element type '{elem}'" if incomplete(elem) else ""
        return f"field has incomplete type '{t}'" if incomplete(t) else ""

    def parse_enum_specifier(self, spec: DeclSpec) -> ct.CType:
        # BNF: enum_specifier : 'enum' attribute* ID? ('{' enumerator (',' enumerator)* ','? '}')?
        self.ts.advance()
        self.parse_attributes_into({})
        name_tok = self.ts.advance() if self.tok.kind == "id" else None
        tag = name_tok.text if name_tok else ""
        t = ct.Enum(tag)
        if name_tok is None and not self.at("{"):
            raise self.error(self.tok.loc, "expected identifier or '{'")
        if tag:
            self.tags[-1].setdefault(tag, t)
        if self.at("{") and name_tok is not None and self.version >= 200 and self.builtin_types.get(tag) == t:
            # the language's own enum (OpenCL C 2.0's memory_order, memory_scope): clang's error,
            # and its enumerators, predefined, are not parsed again
            self.diags.error(name_tok.loc, f"redefinition of '{tag}'")
            self.skip_balanced("{", "}")
        elif self.at("{"):
            spec.side_decls.extend(self.parse_enumerators())
            spec.defines_tag = True
        return t

    def parse_enumerators(self) -> list[ast.EnumConstant]:
        # BNF: enumerator : ID ('=' constant_expression)?
        opener = self.expect("{")
        constants: list[ast.EnumConstant] = []
        value = 0
        while not self.at("}"):
            name = self.expect_ident()
            if self.accept("="):
                value = self.parse_int_constant("enumerator value")
            constant = ast.EnumConstant(name.loc, name.text, value)
            self.declare(name.text, constant)
            constants.append(constant)
            value += 1
            if not self.accept(","):
                break
        self.expect_closing("}", opener)
        return constants

    def parse_int_constant(self, what: str) -> int:
        """A conditional expression that must fold to an integer (array size, bit-field width...);
        in an array size a const integer variable with a constant initializer folds, as in clang."""
        expr = self.parse_conditional()
        value = eval_int_const(expr, self.rules, self.diags, self.lookup if what == "array size" else None,
                               self.type_from_declarations)
        if value is None and what == "array size" and self.names_a_variable(expr):
            self.diags.error(ast.start_loc(expr), "variable length arrays are not supported in OpenCL")
            return 0
        unknown = self.undeclared_name(expr)  # sizeof's operand is typed, not folded: look at it all
        if unknown is not None:
            self.diags.error(unknown.loc, f"use of undeclared identifier '{unknown.name}'")
            return 0
        if value is None:
            self.diags.error(expr.loc, f"{what} is not an integer constant expression")
            return 0
        if value == 0 and what == "array size":  # C99 6.7.5.2p1: above zero (GNU C's [0] is not OpenCL C's)
            self.diags.error(ast.start_loc(expr), "zero-length arrays are not permitted in OpenCL")
        return value

    def undeclared_name(self, e: object) -> Optional[ast.Identifier]:
        """The first name in expression `e` that nothing in scope declares (a called name may
        be a builtin's)."""
        if isinstance(e, ast.Identifier):
            return e if self.lookup(e.name) is None else None
        if isinstance(e, ast.Call):
            return next((found for a in e.args if (found := self.undeclared_name(a)) is not None), None)
        if isinstance(e, ast.Expr):
            parts = [v for v in vars(e).values() if isinstance(v, ast.Expr)]
            return next((found for v in parts if (found := self.undeclared_name(v)) is not None), None)
        return None

    def names_a_variable(self, e: object) -> bool:
        """Does expression `e` read a variable or parameter in scope (a VLA's size, to clang)?"""
        if isinstance(e, ast.Identifier):
            return isinstance(self.lookup(e.name), (ast.VarDecl, ast.ParamDecl))
        if isinstance(e, ast.Expr) and not isinstance(e, ast.SizeOf):  # sizeof reads no variable
            return any(self.names_a_variable(v) for v in vars(e).values() if isinstance(v, ast.Expr))
        return False

    # -- attributes -----------------------------------------------------------

    def parse_attributes_into(self, attrs: dict[str, Any]) -> None:
        # BNF: attribute_specifier : '__attribute__' '(' '(' attribute (',' attribute)* ')' ')'
        while self.at("__attribute__", "__attribute"):
            self.ts.advance()
            outer = self.expect("(", "expected '(' after 'attribute'")
            inner = self.expect("(", "expected '(' after 'attribute'")
            while not self.at(")"):
                self.parse_attribute(attrs)
                if not self.accept(","):
                    break
            self.expect_closing(")", inner)
            self.expect_closing(")", outer)

    def parse_attribute(self, attrs: dict[str, Any]) -> None:
        # BNF: attribute : (ID | keyword) ('(' argument_list ')')?
        tok = self.tok
        if tok.kind not in ("id", "kw"):
            raise self.error(tok.loc, "expected identifier")
        self.ts.advance()
        name = tok.text.strip("_") if tok.text.startswith("__") and tok.text.endswith("__") else tok.text
        handler = _ATTRIBUTE_HANDLERS.get(name)
        if handler is None:
            self.diags.warning(tok.loc, f"unknown attribute '{tok.text}' ignored")
            self.skip_balanced_parens()
            return
        self.attribute_locs[name] = tok.loc
        value = handler(self, name, tok)
        if value is not None:
            attrs[name] = value

    def misplaced_amdgpu_attributes(self, attributes: dict[str, Any], loc: Optional[SourceLocation] = None) -> None:
        """clang's error for AMD's kernel attributes anywhere but on a kernel (they are hints
        for AMD's compiler; on a kernel oclpy checks their arguments and keeps nothing), at
        `loc` (a function's name) or else at the attribute."""
        for name in sorted(_AMDGPU_KERNEL_ATTRIBUTES & attributes.keys()):
            self.diags.error(loc or self.attribute_locs[name], f"'{name}' attribute only applies to kernel functions")
            del attributes[name]

    def attr_address_space(self, name: str, tok: Token) -> Any:
        """clang's numbered address spaces are a target's own (amdgcn's 3 is its LDS): oclpy's
        IR knows OpenCL C's named spaces only, so it refuses them rather than drop the qualifier."""
        self.skip_balanced_parens()
        self.diags.error(tok.loc, "'address_space' attribute is not supported: oclpy's address spaces are OpenCL "
                                  "C's named ones")
        return None

    def attr_amdgpu(self, name: str, tok: Token) -> Any:
        return self.attribute_int_args(name, tok, _AMDGPU_KERNEL_ATTRIBUTES[name])

    def skip_balanced_parens(self) -> None:
        self.skip_balanced("(", ")")

    def skip_balanced(self, left: str, right: str) -> None:
        if not self.at(left):
            return
        opener, depth = self.tok, 0
        while self.tok.kind != "eof":
            text = self.ts.advance().text
            depth += {left: 1, right: -1}.get(text, 0)
            if depth == 0:
                return
        self.expect_closing(right, opener)

    def attribute_int_args(self, name: str, tok: Token, counts: tuple[int, ...]) -> Optional[tuple[int, ...]]:
        values: list[int] = []
        constant = True
        if self.at("("):
            opener = self.ts.advance()
            while not self.at(")"):
                expr = self.parse_assignment()
                value = eval_int_const(expr, self.rules, self.diags, type_of=self.type_from_declarations)
                if value is None:
                    self.diags.error(expr.loc, f"'{name}' attribute requires an integer constant")
                    constant = False
                values.append(value or 0)
                if not self.accept(","):
                    break
            self.expect_closing(")", opener)
        if not constant:
            return None
        if len(values) not in counts:
            n = counts[-1]
            plural = "s" if n != 1 else ""
            exact = "exactly" if len(counts) == 1 else "at most"
            self.diags.error(tok.loc, f"'{name}' attribute takes {exact} {n} argument{plural}"
                             if counts[0] == 0 else f"'{name}' attribute requires exactly {n} argument{plural}")
            return None
        return tuple(values)

    def attr_flag(self, name: str, tok: Token) -> Any:
        if name in NO_ARGUMENT_ATTRIBUTES and self.at("(") and self.ts.peek().text != ")":
            self.diags.error(tok.loc, f"'{name}' attribute takes no arguments")  # clang's
        self.skip_balanced_parens()
        return True

    def attr_aligned(self, name: str, tok: Token) -> Any:
        values = self.attribute_int_args(name, tok, (0, 1))
        if values is None:
            return None
        value = values[0] if values else 16
        if value <= 0 or value & (value - 1):
            self.diags.error(tok.loc, "requested alignment is not a power of 2")
            return None
        return value

    def attr_work_group(self, name: str, tok: Token) -> Any:
        values = self.attribute_int_args(name, tok, (3,))
        if values is not None and any(v <= 0 for v in values):
            self.diags.error(tok.loc, f"'{name}' attribute must be greater than 0")
            return None
        return values

    def attr_unroll(self, name: str, tok: Token) -> Any:
        values = self.attribute_int_args(name, tok, (0, 1))
        if values and values[0] <= 0:
            self.diags.error(tok.loc, f"'{name}' attribute requires a positive integral compile time constant "
                                      "expression")
            return None
        return None if values is None else (values[0] if values else 0)

    def attr_nosvm(self, name: str, tok: Token) -> Any:
        """OpenCL C 2.0 introduced `nosvm` and deprecated it at once; before 2.0 it is an error."""
        self.skip_balanced_parens()
        if self.version < 200:
            self.diags.error(tok.loc, "attribute 'nosvm' is supported in the OpenCL version 2.0 onwards")
        else:
            self.diags.warning(tok.loc, f"'nosvm' attribute is deprecated and ignored in OpenCL C version "
                                        f"{self.version // 100}.{self.version % 100 // 10}")
        return None

    def attr_ext_vector_type(self, name: str, tok: Token) -> Any:
        values = self.attribute_int_args(name, tok, (1,))
        return None if values is None else (values[0], tok.loc)

    def attr_vec_type_hint(self, name: str, tok: Token) -> Any:
        opener = self.expect("(", f"'{name}' attribute takes one argument")
        t = self.parse_type_name()
        self.expect_closing(")", opener)
        if not isinstance(t, (ct.Scalar, ct.Vector)) or isinstance(t, ct.Scalar) and t.kind is ct.ScalarKind.BOOL:
            self.diags.error(tok.loc, f"invalid attribute argument '{t}' - expecting a vector or vectorizable "
                                      "scalar type")
            return None
        return t

    # -- declarators ----------------------------------------------------------

    def parse_pointers(self) -> list[TypeOp]:
        # BNF: pointer : ('*' type_qualifier*)+
        ops: list[TypeOp] = []
        while self.at("*"):
            op = TypeOp("ptr", loc=self.ts.advance().loc)
            while self.tok.kind == "kw" and self.tok.text in QUALIFIERS | set(ADDRESS_SPACES) | {"__attribute__"}:
                text = self.tok.text
                if text.startswith("__attribute"):
                    self.parse_attributes_into({})
                    continue
                self.check_generic_word(self.ts.advance())
                op.const |= text in ("const", "__const")
                op.volatile |= text == "volatile"
                op.restrict |= "restrict" in text
                op.space = ADDRESS_SPACES.get(text, op.space)
            ops.append(op)
        return ops

    @nested
    def parse_declarator(self, abstract: bool = False, name_optional: bool = False) -> Declarator:
        # BNF: declarator : pointer? direct_declarator
        #      direct_declarator : (ID | '(' declarator ')') declarator_suffix*
        #      (abstract declarators omit the ID; a parameter's may: `int f(char *, int [4])`)
        pointers = self.parse_pointers()
        self.parse_attributes_into({})
        inner: Optional[Declarator] = None
        if self.tok.kind == "id" and not abstract:
            tok = self.ts.advance()
            inner = Declarator(tok.text, tok.loc)
        elif self.at("(") and self.ts.peek().text == "^":  # clang's blocks: `int (^b)(int)`
            raise self.error(self.ts.peek().loc, BLOCKS_UNSUPPORTED)
        elif self.at("(") and self.is_nested_declarator(abstract):
            opener = self.ts.advance()
            inner = self.parse_declarator(abstract, name_optional)
            self.expect_closing(")", opener)
        elif abstract or name_optional:
            inner = Declarator("", self.tok.loc)
        else:
            raise self.error(self.tok.loc, "expected identifier or '('")
        suffixes = self.parse_declarator_suffixes()
        return Declarator(inner.name, inner.loc, pointers + suffixes[::-1] + inner.ops, inner.attributes)

    def is_nested_declarator(self, abstract: bool) -> bool:
        """After '(' in a declarator: a parenthesised declarator, or a parameter list?"""
        nxt = self.ts.peek()
        if nxt.text in ("*", "(", "[", "__attribute__") and nxt.kind == "punct" or nxt.text == "__attribute__":
            return True
        return not abstract and nxt.kind == "id" and self.typedef_type(nxt.text) is None

    def parse_declarator_suffixes(self) -> list[TypeOp]:
        # BNF: declarator_suffix : '[' constant_expression? ']' | '(' parameter_type_list? ')'
        ops: list[TypeOp] = []
        while self.at("[", "("):
            opener = self.ts.advance()
            if opener.text == "[":
                count = None
                quals = self.parse_array_qualifiers(opener)
                if not self.at("]"):
                    size_loc = self.tok.loc
                    count = self.parse_int_constant("array size")
                    if count < 0:
                        self.diags.error(size_loc, "array has negative size")  # at the size, as clang
                    elif count > MAX_ARRAY_ELEMENTS:
                        self.diags.error(size_loc, f"array is too large ({count} elements)")
                        count = 1
                self.expect_closing("]", opener)
                ops.append(TypeOp("array", count=count, array_quals=quals, loc=opener.loc))
            else:
                ops.append(self.parse_parameter_list(opener))
        return ops

    def parse_array_qualifiers(self, opener: Token) -> tuple[str, ...]:
        # BNF: array_qualifiers : ('static' | type_qualifier)*   (array parameters only, C99 6.7.5.3)
        words: list[str] = []
        while self.tok.kind == "kw" and (self.tok.text in QUALIFIERS or self.tok.text == "static"):
            words.append(self.ts.advance().text)
        if words and not self.in_parameter:
            what = "'static'" if "static" in words else "type qualifier"
            self.diags.error(opener.loc, f"{what} used in array declarator outside of function prototype")
        return tuple(words)

    def parse_parameter_list(self, opener: Token) -> TypeOp:
        # BNF: parameter_type_list : 'void' | parameter_declaration (',' parameter_declaration)* (',' '...')?
        op = TypeOp("func")
        if self.at("void") and self.ts.peek().text == ")":
            self.ts.advance()
        while not (self.at(")") and not op.params):
            if self.accept("..."):
                op.variadic = True
                break
            op.params.append(self.parse_parameter_declaration())
            if not self.accept(","):
                break
        self.expect_closing(")", opener)
        return op

    def parse_parameter_declaration(self) -> ast.ParamDecl:
        # BNF: parameter_declaration : declaration_specifiers (declarator | abstract_declarator)?
        spec = self.parse_declaration_specifiers(in_param=True)
        if spec.empty:
            raise self.error(self.tok.loc, "expected parameter declarator")
        outer, self.in_parameter = self.in_parameter, True
        try:
            declarator = self.parse_declarator(name_optional=True)
        finally:
            self.in_parameter = outer
        self.parse_attributes_into(declarator.attributes)
        declared = self.declared_type(spec.ctype, declarator.ops)
        incomplete = self.incomplete_field(declared) if isinstance(declared, ct.Array) else ""
        if incomplete:  # an array of void or of an undefined struct, before it decays
            self.diags.error(_innermost_bracket(declarator) or declarator.loc, incomplete)
        ctype = _adjust_param_type(declared)
        ctype = self.array_parameter_qualifiers(declarator.ops, ctype)
        return ast.ParamDecl(declarator.loc, declarator.name, ctype, access=spec.access,
                             type_name=_written_type_name(spec, declarator))

    def array_parameter_qualifiers(self, ops: list[TypeOp], ctype: ct.CType) -> ct.CType:
        """`int a[const restrict 4]` is `int *const restrict a`; only the outermost array may say so."""
        for op in ops[:-1]:
            if op.array_quals and op.loc is not None:
                what = "'static'" if "static" in op.array_quals else "type qualifier"
                self.diags.error(op.loc, f"{what} used in non-outermost array type derivation")
        quals = ops[-1].array_quals if ops else ()
        if not quals or not isinstance(ctype, ct.Pointer):
            return ctype
        return replace(ctype, const=ctype.const or "const" in quals or "__const" in quals,
                       volatile=ctype.volatile or "volatile" in quals,
                       restrict=ctype.restrict or any("restrict" in q for q in quals))

    def parse_type_name(self) -> ct.CType:
        # BNF: type_name : specifier_qualifier_list abstract_declarator?
        spec = self.parse_declaration_specifiers()
        if not spec.has_type:
            raise self.error(self.tok.loc, "expected a type")
        declarator = self.parse_declarator(abstract=True)
        return self.declared_type(spec.ctype, declarator.ops)

    # -- initializers ---------------------------------------------------------

    @nested
    def parse_initializer(self) -> ast.Expr:
        # BNF: initializer : assignment_expression | '{' initializer_list ','? '}'
        if not self.at("{"):
            return self.parse_assignment()
        opener_pos = self.ts.mark()
        opener = self.ts.advance()
        init = ast.InitList(opener.loc, [], [])
        try:
            while not self.at("}"):
                locs: list[tuple[SourceLocation, ...]] = []
                designators = self.parse_designation(locs)
                init.items.append(self.parse_initializer())
                init.designators.append(designators)
                init.designator_locs.append(locs or None)
                if not self.accept(","):
                    break
            self.expect_closing("}", opener)
        except ParseError:
            parse_recovery.skip_init_list(self, opener_pos)
        if not any(init.designators):
            init.designators = [None] * len(init.items)
            init.designator_locs = [None] * len(init.items)
        return init

    def parse_designation(self, locs: list[tuple[SourceLocation, ...]]) -> Optional[list[ast.Designator]]:
        # BNF: designation : ('[' constant_expression ('...' constant_expression)? ']' | '.' ID)+ '='
        designators: list[ast.Designator] = []
        while self.at("[", "."):
            opener = self.ts.advance()
            if opener.text == ".":
                name = self.expect_ident("expected a field designator, such as '.field = 4'")
                designators.append(name.text)
                locs.append((opener.loc, name.loc))
            else:
                where = [opener.loc, self.tok.loc]
                index = self.parse_int_constant("array designator")
                if self.accept("..."):  # GNU range `[lo ... hi]`
                    where.append(self.tok.loc)
                    designators.append((index, self.parse_int_constant("array designator")))
                else:
                    designators.append(index)
                locs.append(tuple(where))
                self.expect_closing("]", opener)
        if designators:
            self.expect("=", "expected '=' or another designator")
        return designators or None

    # -- statements -----------------------------------------------------------

    def parse_compound_statement(self, new_scope: bool = True) -> ast.Compound:
        # BNF: compound_statement : '{' (declaration | statement)* '}'
        opener = self.expect("{")
        block = ast.Compound(opener.loc, [])
        if new_scope:
            self.push_scope()
        try:
            while not self.at("}"):
                if self.tok.kind == "eof":
                    self.expect_closing("}", opener)
                self.parse_block_item_into(block.items)
            block.end_loc = self.ts.advance().loc
        finally:
            if new_scope:
                self.pop_scope()
        return block

    def parse_block_item_into(self, items: list[Union[ast.Stmt, ast.Decl]]) -> None:
        # BNF: block_item : declaration | statement
        start = self.ts.mark()
        try:
            items.append(self.parse_statement(allow_declaration=True))
        except ParseError:
            self.sync()
            if self.ts.mark() == start and not self.at("}"):
                self.ts.advance()

    @nested
    def parse_statement(self, allow_declaration: bool = False) -> ast.Stmt:
        # BNF: statement : labeled_statement | compound_statement | expression_statement
        #                | selection_statement | iteration_statement | jump_statement
        tok = self.tok
        if tok.kind == "kw" and tok.text in _STATEMENT_PARSERS:
            return _STATEMENT_PARSERS[tok.text](self)
        if self.at("{"):
            return self.parse_compound_statement()
        if tok.kind == "id" and self.ts.peek().text == ":" and self.ts.peek().kind == "punct":
            return self.parse_label()
        if parse_gnu.at_asm(self):
            return parse_gnu.parse_asm(self)
        if self.at("_Static_assert"):
            if not allow_declaration:  # a declaration, so no loop or if body: clang's words
                self.diags.error(tok.loc, "expected expression")
            return ast.DeclStmt(tok.loc, [parse_gnu.parse_static_assert(self)])
        if self.at("__attribute__", "__attribute"):
            attrs: dict[str, Any] = {}
            self.parse_attributes_into(attrs)
            if not self.is_declaration_start():
                hint = self.attribute_locs.get("opencl_unroll_hint") if "opencl_unroll_hint" in attrs else None
                stmt = self.parse_statement(allow_declaration)
                if hint is not None and not isinstance(stmt, (ast.For, ast.While, ast.DoWhile)):
                    self.diags.error(hint, "'opencl_unroll_hint' attribute only applies to 'for', 'while', "
                                           "and 'do' statements")
                return stmt
            spec = self.parse_declaration_specifiers()
            spec.attributes = {**attrs, **spec.attributes}
            return ast.DeclStmt(tok.loc, self.parse_declaration(spec=spec))
        if self.is_declaration_start():
            if not allow_declaration:
                self.diags.error(tok.loc, "expected expression")
            return ast.DeclStmt(tok.loc, self.parse_declaration())
        return self.parse_expression_statement()

    def parse_expression_statement(self) -> ast.ExprStmt:
        # BNF: expression_statement : expression? ';'
        tok = self.tok
        if self.accept(";"):
            return ast.ExprStmt(tok.loc, None)
        expr = self.parse_expression()
        self.expect_semi("expected ';' after expression")
        return ast.ExprStmt(tok.loc, expr)

    def parse_label(self) -> ast.Label:
        # BNF: labeled_statement : ID ':' statement
        name = self.ts.advance()
        self.ts.advance()
        return ast.Label(name.loc, name.text, self.parse_sub_statement("label"))

    def parse_sub_statement(self, after: str) -> ast.Stmt:
        """The statement after a label, case, if, loop...: `}` there is an error."""
        if self.at("}"):
            raise self.error(self.tok.loc, f"label at end of compound statement: expected statement"
                             if after in ("label", "case", "default") else "expected statement")
        return self.parse_statement()

    def parse_paren_condition(self, keyword: str) -> ast.Expr:
        opener = self.expect("(", f"expected '(' after '{keyword}'")
        cond = self.parse_expression()
        if not self.at(")") and self.at("{"):  # `if (x {`: as clang, report and go on as if ')' were there
            diag = self.diags.error(self.tok.loc, "expected ')'")
            self.diags.note(diag, opener.loc, "to match this '('")
            return cond
        self.expect_closing(")", opener)
        return cond

    def parse_if(self) -> ast.If:
        # BNF: selection_statement : 'if' '(' expression ')' statement ('else' statement)?
        kw = self.ts.advance()
        cond = self.parse_paren_condition("if")
        then = self.parse_sub_statement("if")
        if not self.accept("else"):
            return ast.If(kw.loc, cond, then)
        if not (self.tok.kind == "kw" and self.tok.text == "if"):
            return ast.If(kw.loc, cond, then, self.parse_sub_statement("else"))
        # `else if` chains are not nesting (clang takes thousands); they have their own bound.
        self.else_ifs += 1
        if self.else_ifs > MAX_ELSE_IFS:
            raise self.error(self.tok.loc, f"too many chained 'else if' statements (more than {MAX_ELSE_IFS})")
        try:
            return ast.If(kw.loc, cond, then, self.parse_if())
        finally:
            self.else_ifs -= 1

    def parse_switch(self) -> ast.Switch:
        # BNF: selection_statement : 'switch' '(' expression ')' statement
        kw = self.ts.advance()
        cond = self.parse_paren_condition("switch")
        return ast.Switch(kw.loc, cond, self.parse_sub_statement("switch"))

    def parse_case(self) -> ast.Case:
        # BNF: labeled_statement : 'case' constant_expression ('...' constant_expression)? ':' statement
        kw = self.ts.advance()
        value = self.parse_conditional()
        high = self.parse_conditional() if self.accept("...") else None
        self.expect(":", "expected ':' after 'case'", after_prev=True)
        return ast.Case(kw.loc, value, self.parse_sub_statement("case"), high=high)

    def parse_default(self) -> ast.Default:
        # BNF: labeled_statement : 'default' ':' statement
        kw = self.ts.advance()
        self.expect(":", "expected ':' after 'default'", after_prev=True)
        return ast.Default(kw.loc, self.parse_sub_statement("default"))

    def parse_while(self) -> ast.While:
        # BNF: iteration_statement : 'while' '(' expression ')' statement
        kw = self.ts.advance()
        cond = self.parse_paren_condition("while")
        return ast.While(kw.loc, cond, self.parse_sub_statement("while"))

    def parse_do(self) -> ast.DoWhile:
        # BNF: iteration_statement : 'do' statement 'while' '(' expression ')' ';'
        kw = self.ts.advance()
        body = self.parse_sub_statement("do")
        if not self.at("while"):
            diag = self.diags.error(self.tok.loc, "expected 'while' in do/while loop")
            self.diags.note(diag, kw.loc, "to match this 'do'")
            raise ParseError("do")
        self.ts.advance()
        cond = self.parse_paren_condition("while")
        self.expect_semi("expected ';' after do/while statement")
        return ast.DoWhile(kw.loc, body, cond)

    def parse_for(self) -> ast.For:
        # BNF: iteration_statement : 'for' '(' (declaration | expression? ';') expression? ';' expression? ')'
        #                            statement
        kw = self.ts.advance()
        opener = self.expect("(", "expected '(' after 'for'")
        self.push_scope()
        try:
            init: Optional[Union[ast.DeclStmt, ast.ExprStmt]] = None
            if self.is_declaration_start():
                init = ast.DeclStmt(self.tok.loc, self.parse_declaration())
            elif not self.accept(";"):
                start = self.tok
                init = ast.ExprStmt(start.loc, self.parse_expression())
                self.expect(";", "expected ';' in 'for' statement specifier", after_prev=True)
            cond = None if self.at(";") else self.parse_expression()
            self.expect(";", "expected ';' in 'for' statement specifier", after_prev=True)
            step = None if self.at(")") else self.parse_expression()
            self.expect_closing(")", opener)
            return ast.For(kw.loc, init, cond, step, self.parse_sub_statement("for"))
        finally:
            self.pop_scope()

    def parse_jump(self) -> ast.Stmt:
        # BNF: jump_statement : 'goto' ID ';' | 'continue' ';' | 'break' ';' | 'return' expression? ';'
        kw = self.ts.advance()
        stmt: ast.Stmt
        if kw.text == "goto":
            stmt = ast.Goto(kw.loc, self.expect_ident().text)
        elif kw.text == "return":
            stmt = ast.Return(kw.loc, None if self.at(";") else self.parse_expression())
        else:
            stmt = ast.Break(kw.loc) if kw.text == "break" else ast.Continue(kw.loc)
        self.expect_semi(f"expected ';' after {kw.text} statement")
        return stmt

    # -- expressions ----------------------------------------------------------

    def parse_expression(self) -> ast.Expr:
        # BNF: expression : assignment_expression (',' assignment_expression)*
        expr = self.parse_assignment()
        while self.at(","):
            op = self.ts.advance()
            expr = ast.Binary(op.loc, ",", expr, self.parse_assignment())
        return expr

    @nested
    def parse_assignment(self) -> ast.Expr:
        # BNF: assignment_expression : conditional_expression
        #                            | unary_expression assignment_operator assignment_expression
        lhs = self.parse_conditional()
        if self.tok.kind == "punct" and self.tok.text in ASSIGN_OPS:
            op = self.ts.advance()
            return ast.Assign(op.loc, op.text, lhs, self.parse_assignment())
        return lhs

    def parse_conditional(self) -> ast.Expr:
        # BNF: conditional_expression : binary_expression ('?' expression ':' conditional_expression)?
        cond = self.parse_binary(1)
        if not self.at("?"):
            return cond
        q = self.ts.advance()
        then = self.parse_expression()
        if not self.at(":"):
            diag = self.diags.error(self.tok.loc, "expected ':'")
            self.diags.note(diag, q.loc, "to match this '?'")
            raise ParseError(":")
        self.ts.advance()
        return ast.Conditional(q.loc, cond, then, self.parse_conditional())

    def parse_binary(self, min_precedence: int) -> ast.Expr:
        # BNF: binary_expression : cast_expression (binary_operator cast_expression)*
        #      (operators from BINARY_PRECEDENCE, left-associative, higher binds tighter)
        lhs = self.parse_cast()
        operands = 1
        while self.tok.kind == "punct" and BINARY_PRECEDENCE.get(self.tok.text, 0) >= min_precedence:
            op = self.ts.advance()
            operands += 1
            if operands > MAX_OPERANDS:
                raise self.error(op.loc, f"expression is too complex (more than {MAX_OPERANDS} operands)")
            rhs = self.parse_binary(BINARY_PRECEDENCE[op.text] + 1)
            lhs = ast.Binary(op.loc, op.text, lhs, rhs)
        return lhs

    def parse_cast(self) -> ast.Expr:
        # BNF: cast_expression : '(' type_name ')' cast_expression
        #                      | '(' vector_type_name ')' '(' argument_expression_list ')'
        #                      | unary_expression
        if not (self.at("(") and self.is_type_name(self.ts.peek())):
            return self.parse_unary()
        opener = self.ts.advance()
        to = self.parse_type_name()
        self.expect_closing(")", opener)
        if isinstance(to, ct.Vector) and self.at("("):
            return self.parse_vector_literal(opener, to)
        if self.at("{"):
            return self.parse_compound_literal(opener, to)
        return ast.Cast(opener.loc, to, self.parse_cast())

    def parse_compound_literal(self, opener: Token, to: ct.CType) -> ast.Expr:
        # BNF: compound_literal : '(' type_name ')' '{' initializer_list ','? '}'
        #      (`(float3){x, y, z}` is a vector literal, `(int){n}` a cast; others are objects)
        init = self.parse_initializer()
        assert isinstance(init, ast.InitList)
        plain = not any(init.designators) and not any(isinstance(i, ast.InitList) for i in init.items)
        if isinstance(to, ct.Vector) and plain:
            return self.parse_postfix(ast.VectorLiteral(opener.loc, to, init.items, braced=True, brace_loc=init.loc))
        if isinstance(to, ct.Scalar) and plain and len(init.items) == 1:
            return self.parse_postfix(ast.Cast(opener.loc, to, init.items[0]))
        to = self.complete_array_from_init(to, init)
        return self.parse_postfix(ast.CompoundLiteral(opener.loc, to, init))

    def parse_vector_literal(self, opener: Token, to: ct.CType) -> ast.Expr:
        # BNF: vector_literal : '(' vector_type ')' '(' assignment_expression (',' assignment_expression)* ')'
        #      (a primary expression, OpenCL C 1.2 §6.1.6: `(float4)(x).w` is the literal's `w`, as in clang)
        paren = self.ts.advance()
        components = self.parse_argument_list(paren)
        if not components:
            raise self.error(self.ts.prev.loc, "expected expression")
        return self.parse_postfix(ast.VectorLiteral(opener.loc, to, components))

    @nested
    def parse_unary(self) -> ast.Expr:
        # BNF: unary_expression : postfix_expression | ('++' | '--') unary_expression
        #                       | unary_operator cast_expression
        #                       | ('sizeof' | 'vec_step' | '__alignof__' | '_Alignof') (unary_expression | '(' type_name ')')
        tok = self.tok
        if tok.kind == "punct" and tok.text == "^":  # a block literal, `^(int i) { ... }`
            raise self.error(tok.loc, BLOCKS_UNSUPPORTED)
        if tok.kind == "punct" and tok.text in ("++", "--"):
            self.ts.advance()
            return ast.Unary(tok.loc, tok.text + "pre", self.parse_unary())
        if tok.kind == "punct" and tok.text in UNARY_OPS:
            self.ts.advance()
            return ast.Unary(tok.loc, tok.text, self.parse_cast())
        if tok.kind == "kw" and tok.text in _SIZEOF_KINDS:
            return self.parse_sizeof()
        return self.parse_postfix(self.parse_primary())

    def parse_sizeof(self) -> ast.SizeOf:
        kw = self.ts.advance()
        kind = _SIZEOF_KINDS[kw.text]
        if self.at("(") and self.is_type_name(self.ts.peek()):
            opener = self.ts.advance()
            t = self.parse_type_name()
            self.expect_closing(")", opener)
            return ast.SizeOf(kw.loc, kind, t)
        return ast.SizeOf(kw.loc, kind, self.parse_unary())

    def parse_postfix(self, expr: ast.Expr) -> ast.Expr:
        # BNF: postfix_expression : primary_expression ('[' expression ']' | '(' argument_expression_list? ')'
        #                                               | ('.' | '->') ID | '++' | '--')*
        while self.tok.kind == "punct":
            tok = self.tok
            if tok.text == "[":
                self.ts.advance()
                index = self.parse_expression()
                self.expect_closing("]", tok)
                expr = ast.Index(tok.loc, expr, index)
            elif tok.text == "(":
                self.ts.advance()
                expr = ast.Call(expr.loc, expr, self.parse_argument_list(tok), end_loc=self.ts.prev.loc)
            elif tok.text in (".", "->"):
                self.ts.advance()
                name = self.expect_ident()
                expr = ast.Member(name.loc, expr, name.text, arrow=tok.text == "->")
            elif tok.text in ("++", "--"):
                self.ts.advance()
                expr = ast.Unary(tok.loc, tok.text + "post", expr)
            else:
                break
        return expr

    def parse_argument_list(self, opener: Token) -> list[ast.Expr]:
        # BNF: argument_expression_list : assignment_expression (',' assignment_expression)*  (then ')')
        args: list[ast.Expr] = []
        while not self.at(")"):
            args.append(self.parse_assignment())
            if not self.accept(","):
                break
        self.expect_closing(")", opener)
        return args

    def parse_primary(self) -> ast.Expr:
        # BNF: primary_expression : ID | constant | string_literal+ | '(' expression ')'
        #                        | statement_expression | offsetof_expression | astype_expression
        tok = self.tok
        if tok.text == "__builtin_offsetof" and tok.kind == "id" and self.ts.peek().text == "(":
            return parse_gnu.parse_offsetof(self)
        if tok.text == "__builtin_astype" and tok.kind == "id" and self.ts.peek().text == "(":
            return parse_gnu.parse_astype(self)
        builder = _PRIMARY_BUILDERS.get(tok.kind)
        if builder is not None:
            return builder(self)
        if parse_gnu.at_statement_expression(self):
            return parse_gnu.parse_statement_expression(self)
        if self.at("("):
            self.ts.advance()
            expr = self.parse_expression()
            self.expect_closing(")", tok)
            return expr
        raise self.error(tok.loc, "expected expression")

    def primary_identifier(self) -> ast.Expr:
        tok = self.ts.advance()
        found = self.lookup(tok.text)
        decl = found if isinstance(found, ast.EnumConstant) else None
        return ast.Identifier(tok.loc, tok.text, decl)

    def primary_int(self) -> ast.Expr:
        tok = self.ts.advance()
        text = tok.text.lower()
        radix = 16 if text.startswith("0x") else 8 if text.startswith("0") and len(text.rstrip("ul")) > 1 else 10
        return ast.IntLiteral(tok.loc, int(tok.value or 0), tok.suffix, radix=radix)

    def primary_char(self) -> ast.Expr:
        tok = self.ts.advance()
        return ast.IntLiteral(tok.loc, int(tok.value or 0))

    def primary_float(self) -> ast.Expr:
        tok = self.ts.advance()
        suffix = "" if tok.suffix == "l" else tok.suffix
        return ast.FloatLiteral(tok.loc, float(tok.value or 0.0), suffix)

    def primary_string(self) -> ast.Expr:
        first = self.tok
        data = b""
        while self.tok.kind == "string":
            data += bytes(self.ts.advance().value or b"")
        return ast.StringLiteral(first.loc, data)


BLOCKS_UNSUPPORTED = "blocks are not supported: oclpy has no device-side enqueue to call them"
_SIZEOF_KINDS = {"sizeof": "sizeof", "vec_step": "vec_step", "__alignof__": "alignof", "__alignof": "alignof",
                 "_Alignof": "alignof"}

_PRIMARY_BUILDERS: dict[str, Callable[[Parser], ast.Expr]] = {
    "id": Parser.primary_identifier,
    "int": Parser.primary_int,
    "char": Parser.primary_char,
    "float": Parser.primary_float,
    "string": Parser.primary_string,
}

_STATEMENT_PARSERS: dict[str, Callable[[Parser], ast.Stmt]] = {
    "if": Parser.parse_if,
    "switch": Parser.parse_switch,
    "case": Parser.parse_case,
    "default": Parser.parse_default,
    "while": Parser.parse_while,
    "do": Parser.parse_do,
    "for": Parser.parse_for,
    "goto": Parser.parse_jump,
    "return": Parser.parse_jump,
    "break": Parser.parse_jump,
    "continue": Parser.parse_jump,
}


def _specifier_handlers() -> dict[str, Callable[[Parser, DeclSpec], None]]:
    table: dict[str, Callable[[Parser, DeclSpec], None]] = {}
    groups: list[tuple[frozenset[str] | set[str], Callable[[Parser, DeclSpec], None]]] = [
        (STORAGE_CLASSES, Parser.spec_storage),
        (QUALIFIERS, Parser.spec_qualifier),
        (set(ADDRESS_SPACES), Parser.spec_address_space),
        (set(ACCESS_QUALIFIERS), Parser.spec_access),
        (FUNCTION_SPECIFIERS, Parser.spec_function),
        (TYPE_WORDS, Parser.spec_type_word),
        ({"struct", "union", "enum"}, Parser.spec_tag),
        ({"__attribute__", "__attribute"}, Parser.spec_attribute),
        (TYPEOF_KEYWORDS, parse_gnu.parse_typeof_specifier),
    ]
    for words, handler in groups:
        table.update(dict.fromkeys(words, handler))
    return table


_SPECIFIER_HANDLERS = _specifier_handlers()

_KERNEL_ATTRIBUTES = frozenset(["reqd_work_group_size", "work_group_size_hint", "vec_type_hint"])
# clang's AMD GPU kernel attributes and the argument counts they take
_AMDGPU_KERNEL_ATTRIBUTES = {"amdgpu_flat_work_group_size": (2,), "amdgpu_waves_per_eu": (1, 2),
                             "amdgpu_num_sgpr": (1,), "amdgpu_num_vgpr": (1,)}

_ATTRIBUTE_HANDLERS: dict[str, Callable[[Parser, str, Token], Any]] = {
    "aligned": Parser.attr_aligned,
    "reqd_work_group_size": Parser.attr_work_group,
    "work_group_size_hint": Parser.attr_work_group,
    "vec_type_hint": Parser.attr_vec_type_hint,
    "opencl_unroll_hint": Parser.attr_unroll,
    "ext_vector_type": Parser.attr_ext_vector_type,
    "vector_size": Parser.attr_ext_vector_type,  # (bytes, loc): parse_gnu makes the vector
    "nosvm": Parser.attr_nosvm,
    "address_space": Parser.attr_address_space,
    **dict.fromkeys(_AMDGPU_KERNEL_ATTRIBUTES, Parser.attr_amdgpu),
    **dict.fromkeys(["packed", "always_inline", "noinline", "unused", "used", "const", "pure", "overloadable",
                     "noreturn", "weak", "flatten", "nodebug", "cold", "hot", "convergent",
                     "deprecated", "visibility", "endian", "mode", "format", "fallthrough", "nonnull",
                     "warn_unused_result", "returns_nonnull", "artificial", "gnu_inline", "optnone", "minsize",
                     "leaf", "nothrow", "may_alias", "no_instrument_function", "section", "noduplicate",
                     "format_arg", "malloc", "alloc_size", "assume_aligned", "transparent_union",
                     "intel_reqd_sub_group_size", "uniform_work_group_size"], Parser.attr_flag),
}
# the flags clang refuses arguments for (`convergent(1)` is an error; `noinline()` is not)
NO_ARGUMENT_ATTRIBUTES = frozenset([
    "always_inline", "noinline", "convergent", "noreturn", "flatten", "nodebug", "cold", "hot", "artificial",
    "gnu_inline", "optnone", "minsize", "leaf", "nothrow", "noduplicate", "pure", "const", "used", "unused",
    "overloadable", "returns_nonnull", "warn_unused_result", "may_alias", "no_instrument_function",
    "transparent_union", "weak"])
ATTRIBUTE_NAMES = frozenset(_ATTRIBUTE_HANDLERS)  # what `__attribute__((...))` takes (`__has_attribute`)


def parse(text: str, filename: str, diags: DiagnosticEngine,
          extra_types: Optional[dict[str, ct.CType]] = None, version: int = 120,
          rules: SizeRules = CPU_SIZE_RULES) -> ast.TranslationUnit:
    """Parse preprocessed OpenCL C; errors go to `diags`, never raised. `extra_types`
    are predefined type names of the language version (CL2.0's atomic types); `version`
    is the OpenCL C version (120, 200, 300: some attributes depend on it); `rules` say
    how large pointers are (`sizeof` in array sizes), `BuildOptions.size_rules`."""
    try:
        tokens = tokenize(text, filename, diags)
    except TooManyErrors:
        return ast.TranslationUnit(SourceLocation(filename, 1, 1), [])
    parser = Parser(tokens, diags, extra_types)
    parser.version = version
    parser.rules = rules
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
    try:
        return parser.parse_translation_unit()
    except TooManyErrors:
        return parser.tu
    except RecursionError:
        diags.error(parser.tok.loc, "expression is too deeply nested")
        return parser.tu
    finally:
        sys.setrecursionlimit(old_limit)
