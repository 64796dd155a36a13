"""`dump(node)`: the AST as an indented tree, in the manner of `clang -ast-dump`.

    FunctionDecl <k.cl:1:13> add 'void (__global float *)' kernel
    |-ParamDecl <k.cl:1:31> a '__global float *'
    `-Compound <k.cl:2:1>
      `-ExprStmt <k.cl:3:5>

Each line shows the node kind, its location, its scalar fields (name, op,
value...), and its type: declared types always, expression types once sema has
filled them. Children (fields holding nodes) follow, indented. Used by
`oclpy build --emit ast` and by tests.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import ast
from .cltypes import CType

# Fields never shown inline: locations, links back into the tree, and sema bookkeeping shown elsewhere.
_HIDDEN = frozenset(["loc", "ctype", "is_lvalue", "decl", "builtin", "to", "operand", "attributes", "params"])
# Boolean fields shown as a bare word when true.
_FLAGS = {"is_kernel": "kernel", "is_inline": "inline", "is_global_scope": "global", "arrow": "->",
          "is_lvalue": "lvalue"}


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
        if f.name == "decl":
            continue
        value = getattr(node, f.name)
        if isinstance(value, ast.Node):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.Node))
    return out


def _dump(node: ast.Node, prefix: str, lines: list[str], first: str) -> None:
    lines.append(first + _label(node))
    children = _children(node)
    for i, child in enumerate(children):
        last = i == len(children) - 1
        _dump(child, prefix + ("  " if last else "| "), lines, prefix + ("`-" if last else "|-"))


def dump(node: ast.Node) -> str:
    """The tree under `node`, one node per line."""
    lines: list[str] = []
    _dump(node, "", lines, "")
    return "\n".join(lines) + "\n"
