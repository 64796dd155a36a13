"""Printing the AST: `dump(node)` as a tree, `to_source(node)` back to OpenCL C.

`dump` writes an indented tree in the manner of `clang -ast-dump`:

    FunctionDecl <k.cl:1:13> add kernel 'void (__global float *)'
    |-ParamDecl <k.cl:1:31> a '__global float *'
    `-Compound <k.cl:2:1>
      `-ExprStmt <k.cl:3:5>

Each line shows the node kind, its location, its scalar fields (name, op,
value...), and its type: declared types always, expression types once sema has
filled them. Children (fields holding nodes) follow, indented. Used by
`oclpy build --emit ast` and by tests.

`to_source` writes OpenCL C that parses back to the same tree, so
parse -> to_source -> parse -> dump is a test of the parser (pycparser's
c_generator idea).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import ast
from . import c_types as ct
from .c_types import CType
from .gnu_types import TypeOf

# Fields never shown inline: locations, links back into the tree, and sema bookkeeping shown elsewhere.
_HIDDEN = frozenset(["loc", "end_loc", "brace_loc", "array_loc", "type_name", "ctype", "is_lvalue", "decl", "builtin", "to", "operand",
                     "attributes", "params", "result", "text",
                     "designator_locs", "link_name"])
# Boolean fields shown as a bare word when true.
_FLAGS = {"is_kernel": "kernel", "is_inline": "inline", "is_global_scope": "global", "arrow": "->",
          "is_lvalue": "lvalue", "braced": "braced"}


def _label(node: ast.Node) -> str:
    parts = [type(node).__name__, f"<{node.loc.file}:{node.loc.line}:{node.loc.col}>"]
    fields = sorted(dataclasses.fields(node), key=lambda f: f.name != "name")  # the name first
    for f in fields:
        value = getattr(node, f.name)
        if f.name in _FLAGS:
            if value:
                parts.append(_FLAGS[f.name])
        elif f.name == "radix" and value == 10:
            continue
        elif f.name not in _HIDDEN and not _is_child(value) and value not in (None, "", [], {}):
            parts.append(_scalar(f.name, value))
    parts.extend(_extras(node))
    return " ".join(parts)


def _scalar(name: str, value: Any) -> str:
    if name in ("name", "kind"):
        return str(value)
    if name == "op":
        return f"'{value}'"
    if isinstance(value, bytes):
        return '"' + repr(value)[2:-1].replace('"', '\\"') + '"'
    return f"{name}={value}"


def _extras(node: ast.Node) -> list[str]:
    """Types, references and attributes: the parts of a node that are not plain fields."""
    out: list[str] = []
    to = getattr(node, "to", None)
    if isinstance(to, CType):
        out.append(f"to '{to}'")
    operand = getattr(node, "operand", None)
    if isinstance(operand, CType):
        out.append(f"'{operand}'")
    decl = getattr(node, "decl", None)
    if isinstance(decl, ast.Decl):
        out.append(f"-> {type(decl).__name__} '{decl.name}'")
    ctype = getattr(node, "ctype", None)
    if isinstance(ctype, CType):
        out.append(f"'{ctype}'")
    attributes = getattr(node, "attributes", None)
    if attributes:
        out.append("attrs(" + ", ".join(f"{k}={_attr(v)}" for k, v in attributes.items()) + ")")
    return out


def _attr(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value)


def _is_child(value: Any) -> bool:
    if isinstance(value, ast.Node):
        return True
    return isinstance(value, list) and any(isinstance(v, ast.Node) for v in value)


def _children(node: ast.Node) -> list[ast.Node]:
    out: list[ast.Node] = []
    for f in dataclasses.fields(node):
        if f.name in ("decl", "result"):  # links back into the tree
            continue
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.Node))
    return out


def dump(node: ast.Node) -> str:
    """The tree under `node`, one node per line (iterative: deep trees are fine)."""
    lines: list[str] = []
    stack: list[tuple[ast.Node, str, str]] = [(node, "", "")]  # node, child prefix, own line prefix
    while stack:
        current, prefix, first = stack.pop()
        lines.append(first + _label(current))
        children = _children(current)
        for i in reversed(range(len(children))):
            last = i == len(children) - 1
            stack.append((children[i], prefix + ("  " if last else "| "), prefix + ("`-" if last else "|-")))
    return "\n".join(lines) + "\n"


# -- back to OpenCL C source --------------------------------------------------------
#
# `to_source(tu)` writes the tree as OpenCL C that parses back to the same tree
# (expressions fully parenthesised), the pycparser c_generator way: the test
# parse -> to_source -> parse -> dump compares the two dumps.

_SIZEOF_SPELLING = {"sizeof": "sizeof", "alignof": "__alignof__", "vec_step": "vec_step"}
_LITERAL_BASES = {16: lambda v: hex(v), 8: lambda v: "0" + format(v, "o"), 10: str}


def _c_string(data: bytes) -> str:
    chars = (chr(b) if 32 <= b < 127 and chr(b) not in '"\\?' else f"\\{b:03o}" for b in data)
    return '"' + "".join(chars) + '"'


def _attribute_text(name: str, value: Any) -> str:
    if value is True:
        return name
    if isinstance(value, tuple):
        return f"{name}({', '.join(str(v) for v in value)})"
    if isinstance(value, ct.CType):
        return f"{name}({_SourceWriter().declaration(value, '')})"
    return f"{name}({value})"


def _attributes(attrs: dict[str, Any]) -> str:
    if not attrs:
        return ""
    return "__attribute__((" + ", ".join(_attribute_text(k, v) for k, v in attrs.items()) + ")) "


def _base_type(t: ct.CType) -> ct.CType:
    """The type a declarator starts from (below pointers, arrays and functions)."""
    while isinstance(t, (ct.Pointer, ct.Array, ct.FunctionType)):
        t = t.pointee if isinstance(t, ct.Pointer) else t.elem if isinstance(t, ct.Array) else t.ret
    return t


class _SourceWriter:
    def __init__(self) -> None:
        self.defined: set[int] = set()  # StructDefs whose body was written
        self.enumerators: list[ast.EnumConstant] = []  # written with the next enum type

    # types
    def base(self, t: ct.CType) -> str:
        quals = t.qualifiers_str()
        if isinstance(t, ct.Struct):
            name = self.struct(t.definition)
        elif isinstance(t, ct.Enum):
            name = self.enum(t)
        elif isinstance(t, ct.Scalar):
            name = t.kind.spelling
        elif isinstance(t, TypeOf):
            name = f"__typeof__({self.expr(t.expr)})"
        else:
            name = str(t.unqualified())
        return f"{quals} {name}" if quals else name

    def struct(self, d: ct.StructDef) -> str:
        kw = "union" if d.is_union else "struct"
        if d.fields is None or (d.tag and id(d) in self.defined):
            return f"{kw} {d.tag}"
        self.defined.add(id(d))
        attrs = {**({"packed": True} if d.packed else {}), **({"aligned": d.align} if d.align else {})}
        fields = " ".join(self.field(f) for f in d.fields)
        return f"{kw} {_attributes(attrs)}{d.tag}{' ' if d.tag else ''}{{ {fields} }}"

    def field(self, f: ct.StructField) -> str:
        width = f" : {f.bit_width}" if f.bit_width is not None else ""
        return f"{self.declaration(f.type, f.name)}{width};"

    def enum(self, t: ct.Enum) -> str:
        if not self.enumerators:
            return f"enum {t.tag}"
        items = ", ".join(f"{c.name} = {c.value}" for c in self.enumerators)
        self.enumerators = []
        return " ".join(p for p in ["enum", t.tag, f"{{ {items} }}"] if p)

    def declarator(self, t: ct.CType, inner: str) -> tuple[ct.CType, str]:
        """Wrap `inner` in t's declarator syntax; return the base type and the declarator."""
        while isinstance(t, (ct.Pointer, ct.Array, ct.FunctionType)):
            if isinstance(t, ct.Pointer):
                quals = " ".join(q for q in [t.qualifiers_str(), "restrict" if t.restrict else ""] if q)
                inner = f"*{quals} {inner}".rstrip() if quals else f"*{inner}"
                if isinstance(t.pointee, (ct.Array, ct.FunctionType)):
                    inner = f"({inner})"
                t = t.pointee
            elif isinstance(t, ct.Array):
                inner = f"{inner}[{'' if t.count is None else t.count}]"
                t = t.elem
            else:
                params = ", ".join(self.declaration(p, "") for p in t.params) + (", ..." if t.variadic else "")
                inner = f"{inner}({params or 'void'})"
                t = t.ret
        return t, inner

    def declaration(self, t: ct.CType, name: str) -> str:
        base, declarator = self.declarator(t, name)
        return f"{self.base(base)} {declarator}".rstrip()

    # declarations
    def decl(self, d: ast.Decl) -> str:
        writer = _DECL_WRITERS.get(type(d))
        return writer(self, d) if writer is not None else ""

    def decls(self, decls: list[ast.Decl], terminator: str = ";", separator: str = " ") -> str:
        """A run of declarations; VarDecls sharing a base type and storage share one specifier list."""
        out: list[str] = []
        group: list[ast.VarDecl] = []
        for d in decls + [None]:  # type: ignore[list-item]
            if isinstance(d, ast.VarDecl) and (not group or self.same_specifiers(group[0], d)):
                group.append(d)
                continue
            if group:
                out.append(self.var_group(group) + terminator)
                group = [d] if isinstance(d, ast.VarDecl) else []
                if group:
                    continue
            if isinstance(d, ast.EnumConstant):
                self.enumerators.append(d)
            elif d is not None:
                out.append(self.decl(d))
        return separator.join(o for o in out if o)

    @staticmethod
    def same_specifiers(a: ast.VarDecl, b: ast.VarDecl) -> bool:
        ba, bb = _base_type(a.ctype), _base_type(b.ctype)
        anonymous = isinstance(ba, ct.Struct) and not ba.definition.tag
        return ba == bb and a.storage == b.storage and not anonymous and ba.qualifiers_str() == bb.qualifiers_str()

    def var_group(self, group: list[ast.VarDecl]) -> str:
        first = group[0]
        base = self.base(_base_type(first.ctype))
        parts = [self.var_declarator(v) for v in group]
        storage = f"{first.storage} " if first.storage else ""
        return f"{storage}{base} {', '.join(parts)}"

    def var_declarator(self, v: ast.VarDecl) -> str:
        _, declarator = self.declarator(v.ctype, v.name)
        attrs = f" {_attributes(v.attributes).strip()}" if v.attributes else ""
        init = f" = {self.expr(v.init)}" if v.init is not None else ""
        return declarator + attrs + init

    def function(self, f: ast.FunctionDecl) -> str:
        specifiers = [f.storage or "", "__kernel" if f.is_kernel else "", "inline" if f.is_inline else "",
                      _attributes(f.attributes).strip()]
        assert isinstance(f.ctype, ct.FunctionType)
        params = ", ".join(self.param(p) for p in f.params) + (", ..." if f.ctype.variadic else "")
        base, declarator = self.declarator(f.ctype.ret, f"{f.name}({params or 'void'})")
        head = " ".join(s for s in specifiers + [self.base(base), declarator] if s)
        return head + (" " + self.stmt(f.body) if f.body is not None else ";")

    def param(self, p: ast.ParamDecl) -> str:
        access = f"__{p.access} " if p.access else ""
        return access + self.declaration(p.ctype, p.name)

    def typedef(self, d: ast.TypedefDecl) -> str:
        return f"typedef {self.declaration(d.ctype, d.name)};"

    def tag(self, d: ast.TagDecl) -> str:
        return f"{self.base(d.ctype)};"

    # statements
    def stmt(self, s: ast.Stmt) -> str:
        return _STMT_WRITERS[type(s)](self, s)

    def compound(self, s: ast.Compound) -> str:
        items = [self.decl(i) if isinstance(i, ast.Decl) else self.stmt(i) for i in s.items]
        return "{ " + "".join(i + " " for i in items if i) + "}"

    def for_stmt(self, s: ast.For) -> str:
        init = self.decls(s.init.decls, "") if isinstance(s.init, ast.DeclStmt) else (
            self.expr(s.init.expr) if s.init is not None and s.init.expr is not None else "")
        cond = self.expr(s.cond) if s.cond is not None else ""
        step = self.expr(s.step) if s.step is not None else ""
        return f"for ({init}; {cond}; {step}) {self.stmt(s.body)}"

    def if_stmt(self, s: ast.If) -> str:
        text = f"if ({self.expr(s.cond)}) {self.stmt(s.then)}"
        return text + (f" else {self.stmt(s.else_)}" if s.else_ is not None else "")

    # expressions
    def expr(self, e: ast.Expr) -> str:
        return _EXPR_WRITERS[type(e)](self, e)

    def unary(self, e: ast.Unary) -> str:
        if e.op.endswith("post"):
            return f"({self.expr(e.operand)}{e.op[:2]})"
        return f"({e.op[:2] if e.op.endswith('pre') else e.op} {self.expr(e.operand)})"

    def init_list(self, e: ast.InitList) -> str:
        items = []
        for designators, item in zip(e.designators or [None] * len(e.items), e.items):
            prefix = "".join(f".{d}" if isinstance(d, str) else f"[{d[0]} ... {d[1]}]" if isinstance(d, tuple)
                             else f"[{d}]" for d in designators or [])
            items.append(f"{prefix} = {self.expr(item)}" if prefix else self.expr(item))
        return "{" + ", ".join(items) + "}"

    def sizeof(self, e: ast.SizeOf) -> str:
        operand = self.declaration(e.operand, "") if isinstance(e.operand, ct.CType) else self.expr(e.operand)
        return f"{_SIZEOF_SPELLING[e.kind]}({operand})"


_DECL_WRITERS: dict[type, Any] = {
    ast.VarDecl: lambda w, d: w.decls([d]),
    ast.FunctionDecl: _SourceWriter.function,
    ast.TypedefDecl: _SourceWriter.typedef,
    ast.TagDecl: _SourceWriter.tag,
    ast.EnumConstant: lambda w, d: w.enumerators.append(d) or "",
    ast.StaticAssert: lambda w, d: (f"_Static_assert({w.expr(d.cond)}"
                                    + (f", {_c_string(d.message)});" if d.message is not None else ");")),
}

_STMT_WRITERS: dict[type, Any] = {
    ast.Compound: _SourceWriter.compound,
    ast.ExprStmt: lambda w, s: (w.expr(s.expr) if s.expr is not None else "") + ";",
    ast.DeclStmt: lambda w, s: w.decls(s.decls),
    ast.If: _SourceWriter.if_stmt,
    ast.While: lambda w, s: f"while ({w.expr(s.cond)}) {w.stmt(s.body)}",
    ast.DoWhile: lambda w, s: f"do {w.stmt(s.body)} while ({w.expr(s.cond)});",
    ast.For: _SourceWriter.for_stmt,
    ast.Break: lambda w, s: "break;",
    ast.Continue: lambda w, s: "continue;",
    ast.Return: lambda w, s: f"return {w.expr(s.value)};" if s.value is not None else "return;",
    ast.Switch: lambda w, s: f"switch ({w.expr(s.cond)}) {w.stmt(s.body)}",
    ast.Case: lambda w, s: (f"case {w.expr(s.value)}{' ... ' + w.expr(s.high) if s.high is not None else ''}: "
                            f"{w.stmt(s.body)}"),
    ast.Default: lambda w, s: f"default: {w.stmt(s.body)}",
    ast.Label: lambda w, s: f"{s.name}: {w.stmt(s.body)}",
    ast.Goto: lambda w, s: f"goto {s.name};",
}

_EXPR_WRITERS: dict[type, Any] = {
    ast.IntLiteral: lambda w, e: _LITERAL_BASES[e.radix](e.value) + e.suffix,
    ast.FloatLiteral: lambda w, e: (repr(e.value) if e.value != float("inf") else "1e999") + e.suffix,
    ast.StringLiteral: lambda w, e: _c_string(e.value),
    ast.Identifier: lambda w, e: e.name,
    ast.Unary: _SourceWriter.unary,
    ast.Binary: lambda w, e: f"({w.expr(e.lhs)} {e.op} {w.expr(e.rhs)})",
    ast.Assign: lambda w, e: f"({w.expr(e.target)} {e.op} {w.expr(e.value)})",
    ast.Conditional: lambda w, e: f"({w.expr(e.cond)} ? {w.expr(e.then)} : {w.expr(e.else_)})",
    ast.Call: lambda w, e: f"{w.expr(e.callee)}({', '.join(w.expr(a) for a in e.args)})",
    ast.Index: lambda w, e: f"{w.expr(e.base)}[{w.expr(e.index)}]",
    ast.Member: lambda w, e: f"{w.expr(e.base)}{'->' if e.arrow else '.'}{e.name}",
    ast.Cast: lambda w, e: f"(({w.declaration(e.to, '')}){w.expr(e.operand)})",
    ast.VectorLiteral: lambda w, e: (f"(({w.declaration(e.to, '')}){'{' if e.braced else '('}"
                                     f"{', '.join(w.expr(c) for c in e.components)}{'}' if e.braced else ')'})"),
    ast.SizeOf: _SourceWriter.sizeof,
    ast.InitList: _SourceWriter.init_list,
    ast.ImplicitCast: lambda w, e: w.expr(e.operand),
    ast.StmtExpr: lambda w, e: f"({w.compound(e.body)})",
    ast.CompoundLiteral: lambda w, e: f"(({w.declaration(e.to, '')}){w.init_list(e.init)})",
}


def to_source(node: ast.Node) -> str:
    """OpenCL C source for a translation unit, declaration, statement or expression."""
    writer = _SourceWriter()
    if isinstance(node, ast.TranslationUnit):
        return writer.decls(node.decls, separator="\n") + "\n"
    if isinstance(node, ast.Decl):
        return writer.decl(node)
    if isinstance(node, ast.Stmt):
        return writer.stmt(node)
    assert isinstance(node, ast.Expr)
    return writer.expr(node)
