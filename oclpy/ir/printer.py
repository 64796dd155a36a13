"""The IR printer: the one canonical text form of a module.

The form is LLVM-like and is read back by `ir/parser.py`; printing, parsing
and printing again gives the same text byte for byte. A short example:

    @lut = addrspace(constant) constant [2 x float] [float 1.0, float 0.5], align 8

    declare i64 @ocl.get_global_id(i32 %a0)

    kernel void @scale(ptr<global> %out #{address_qualifier = "global"}, i32 %n) {
    entry:
      %0 = call i64 @ocl.get_global_id(i32 0)
      %p = getelementptr inbounds float, ptr<global> %out, i64 %0
      store float 2.0, ptr<global> %p, align 4
      ret void
    }

Naming: within a function, arguments, block labels and instruction results
share one namespace. Named values keep their names (a later duplicate gets
`.1`, `.2`, ... appended); unnamed values, and values whose name is all
digits, are numbered `%0`, `%1`, ... in order of appearance. Names that are
not plain identifiers are quoted (`%"a b"`). What follows an instruction's
opcode is printed by the syntax of its row in the opcode table (`ir/ops.py`),
one small function per directive kind. `docs/ir.md` describes the form.
"""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from typing import Any, Callable

from .ops import OPS, TypeOf
from .types import ArrayType, FunctionType, IntType, StructType, Type, VectorType, VOID
from .values import (
    Block, ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstOffset, ConstZero, Function,
    GlobalVar, Instr, Module, Undef, Value,
)

_PLAIN_NAME = re.compile(r"[-A-Za-z$._][-A-Za-z$._0-9]*\Z")
_ATTR_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_PRINTABLE = set(range(0x20, 0x7F)) - {ord('"'), ord("\\")}


def quote_string(text: str) -> str:
    """`"..."` with `"`, `\\` and non-printable bytes (UTF-8) escaped as `\\XX`."""
    out = []
    for byte in text.encode("utf-8"):
        out.append(chr(byte) if byte in _PRINTABLE else f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


def format_name(name: str) -> str:
    """A name as written after `%` or `@`: bare when it is a plain identifier."""
    return name if _PLAIN_NAME.match(name) else quote_string(name)


def intrinsic_base_from_name(name: str) -> str | None:
    """`ocl.sqrt.f32` -> `sqrt`; None when the name is not `ocl.<base>[.<suffix>]`."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[0] == "ocl" and parts[1]:
        return parts[1]
    return None


class Names:
    """Per-function printed names of arguments, blocks and instruction results."""

    def __init__(self, fn: Function | None = None) -> None:
        self._ids: dict[int, str] = {}
        self._taken: set[str] = set()
        self._next = 0
        if fn is not None:
            for arg in fn.args:
                self._assign(arg, arg.name)
            for block in fn.blocks:
                self._assign(block, block.name)
                for instr in block.instrs:
                    if instr.type != VOID:
                        self._assign(instr, instr.name)

    def _assign(self, obj: object, name: str) -> None:
        if not name or name.isdigit():
            self._ids[id(obj)] = str(self._next)
            self._next += 1
            return
        candidate, n = name, 0
        while candidate in self._taken:
            n += 1
            candidate = f"{name}.{n}"
        self._taken.add(candidate)
        self._ids[id(obj)] = format_name(candidate)

    def local(self, obj: Value | Block) -> str:
        """`%name` of an argument, block or instruction (`%?name` if not in this function)."""
        found = self._ids.get(id(obj))
        if found is not None:
            return "%" + found
        return "%?" + (format_name(obj.name) if obj.name else "")


def names_for(obj: Instr | Block | None) -> Names:
    """The naming of the function holding `obj` (empty when it is detached)."""
    block = obj.parent if isinstance(obj, Instr) else obj
    fn = block.parent if block is not None else None
    return Names(fn)


# -- constants and operands ------------------------------------------------------


def format_float(value: float) -> str:
    """Shortest decimal that reads back to the same double; hex bits for inf and NaN."""
    if math.isfinite(value):
        return repr(value)
    return "0x" + struct.pack(">d", value).hex().upper()


def _format_aggregate(c: ConstAggregate, names: Names) -> str:
    body = ", ".join(format_typed(e, names) for e in c.elements)
    t = c.type
    if isinstance(t, ArrayType):
        return f"[{body}]"
    if isinstance(t, VectorType):
        return f"<{body}>"
    if isinstance(t, StructType) and t.packed:
        return f"<{{{body}}}>"
    return f"{{{body}}}"


def _format_int(c: ConstInt) -> str:
    if c.type == IntType(1):
        return "true" if c.value else "false"
    return str(c.signed())


def _format_offset(c: ConstOffset) -> str:
    gep = f"getelementptr (i8, {c.base.type} @{format_name(c.base.name)}, i64 {c.offset})"
    return gep if c.space is None else f"addrspacecast ({c.base.type} {gep} to {c.type})"


_CONSTANT_FORMATS: dict[type, Callable[[Any, Names], str]] = {
    ConstInt: lambda c, names: _format_int(c),
    ConstFloat: lambda c, names: format_float(c.value),
    ConstNull: lambda c, names: "null",
    Undef: lambda c, names: "undef",
    ConstZero: lambda c, names: "zeroinitializer",
    ConstAggregate: _format_aggregate,
    ConstOffset: lambda c, names: _format_offset(c),
    GlobalVar: lambda g, names: "@" + format_name(g.name),
    Function: lambda f, names: "@" + format_name(f.name),
}


def format_value(value: Value | Block, names: Names | None = None) -> str:
    """A value (or block) as an operand, without its type: `%x`, `42`, `@g`, `null`."""
    fmt = _CONSTANT_FORMATS.get(type(value))
    if fmt is not None:
        return fmt(value, names or Names())
    return (names or Names()).local(value)


def format_typed(value: Value, names: Names | None = None) -> str:
    """`type value`, e.g. `i32 %x`."""
    return f"{value.type} {format_value(value, names)}"


# -- attributes (Function.attrs, Argument.attrs) ---------------------------------


def format_attr_value(value: Any) -> str:
    """An attribute value: string, int, float, bool, none, (tuple), [list], {set}, type(T)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, str):
        return quote_string(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, Type):
        return f"type({value})"
    if isinstance(value, tuple):
        items = [format_attr_value(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(format_attr_value(v) for v in value) + "]"
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(format_attr_value(v) for v in value)) + "}"
    # Anything else cannot round-trip; keep the printer total and show what it was.
    return quote_string(repr(value))


def format_attrs(attrs: dict[str, Any]) -> str:
    """` #{key = value, ...}` with keys sorted, or "" when there are none."""
    if not attrs:
        return ""
    items = []
    for key in sorted(attrs):
        shown = key if _ATTR_KEY.match(key) else quote_string(key)
        items.append(f"{shown} = {format_attr_value(attrs[key])}")
    return " #{" + ", ".join(items) + "}"


# -- instructions: the opcode table's syntax (ir/ops.py), one function per directive ---------


@dataclass
class _Printing:
    """An instruction being printed: which operand and successor come next."""

    instr: Instr
    names: Names
    operand: int = 0
    target: int = 0

    def next_operand(self) -> Value:
        self.operand += 1
        return self.instr.operands[self.operand - 1]

    def next_target(self) -> Block:
        self.target += 1
        return self.instr.targets[self.target - 1]

    def typed(self) -> str:
        return format_typed(self.next_operand(), self.names)


def _type_of(item: TypeOf, s: _Printing) -> str:
    if item.of == "values":
        return str(s.instr.operands[s.operand].type)
    return str(s.instr.type if item.of == "result" else s.instr.attrs[item.of])


def _more_typed(item: object, s: _Printing) -> str:
    return "".join(f", {s.typed()}" for _ in range(s.operand, len(s.instr.operands)))


def _align(item: object, s: _Printing) -> str:
    align = s.instr.attrs.get("align", 0)
    return f", align {align}" if align else ""


def _space(item: object, s: _Printing) -> str:
    space = s.instr.attrs.get("space")
    return f", addrspace({space})" if space is not None and str(space) != "private" else ""


def _incoming(item: object, s: _Printing) -> str:
    n = s.names
    pairs = zip(s.instr.operands, s.instr.blocks)
    return ", ".join(f"[ {format_value(v, n)}, {format_value(b, n)} ]" for v, b in pairs)


def _callee(item: object, s: _Printing) -> str:
    args = ", ".join(s.typed() for _ in s.instr.operands)
    return f"{format_value(s.instr.attrs['callee'], s.names)}({args})"


def _cases(item: object, s: _Printing) -> str:
    value_type = s.instr.operands[0].type
    dests = s.instr.targets[s.target:]
    lines = [f"\n    {value_type} {case}, label {format_value(dest, s.names)}"
             for case, dest in zip(s.instr.attrs["cases"], dests)]
    return "[" + "".join(lines) + "\n  ]"


_PRINT: dict[str, Callable[[Any, _Printing], str]] = {
    "lit": lambda item, s: item.text,
    "flag": lambda item, s: item.name if s.instr.attrs.get(item.name) else "",
    "word": lambda item, s: s.instr.attrs[item.attr],
    "type_of": _type_of,
    "bare": lambda item, s: format_value(s.next_operand(), s.names),
    "typed": lambda item, s: s.typed(),
    "more_typed": _more_typed,
    "typed_or_void": lambda item, s: s.typed() if s.instr.operands else "void",
    "label": lambda item, s: f"label {format_value(s.next_target(), s.names)}",
    "align": _align,
    "space": _space,
    "sync": lambda item, s: f"scope({s.instr.attrs['scope']}) {s.instr.attrs['ordering']}",
    "mask": lambda item, s: "[" + ", ".join(str(m) for m in s.instr.attrs["mask"]) + "]",
    "indices": lambda item, s: "".join(f", {k}" for k in s.instr.attrs["indices"]),
    "incoming": _incoming,
    "callee": _callee,
    "cases": _cases,
}


def _print_operands(instr: Instr, names: Names) -> str:
    """The opcode and what its row's syntax says follows it."""
    row = OPS.get(instr.op)
    if row is None:
        return f"<unknown op {instr.op}>"
    want, count = row.operands, len(instr.operands)
    if want is not None and count != want:
        plural = "s" if want != 1 else ""
        return f"{instr.op} <malformed: expected {want} operand{plural}, found {count}>"
    s = _Printing(instr, names)
    text = instr.op
    for item in row.syntax:
        piece = _PRINT[item.kind](item, s)
        if piece:
            text += piece if piece.startswith(",") else " " + piece
    return text


def print_instr(instr: Instr, names: Names | None = None) -> str:
    """One instruction without indentation: `%3 = add i32 %1, %2`.

    Without `names`, values are named as in the instruction's function."""
    names = names or names_for(instr)
    try:
        body = _print_operands(instr, names)
    except (KeyError, ValueError, IndexError, AttributeError, TypeError) as exc:
        # Malformed instructions (missing attrs or operands) still print, for the verifier.
        body = f"{instr.op} <malformed: {type(exc).__name__} {exc}>"
    if instr.type == VOID:
        return body
    return f"{names.local(instr)} = {body}"


# -- functions and modules ---------------------------------------------------------


def _shown_function_attrs(fn: Function) -> dict[str, Any]:
    attrs = dict(fn.attrs)
    if fn.is_declaration and attrs.get("intrinsic") == intrinsic_base_from_name(fn.name):
        attrs.pop("intrinsic", None)  # the parser derives it from the name
    if attrs.get("variadic") is True:
        attrs.pop("variadic")  # printed as `...`
    return attrs


def function_header(fn: Function, names: Names) -> str:
    """`kernel void @k(ptr<global> %a, i32 %n) #{...}`, or `float @f(...)` for a
    non-kernel (the caller puts `define` or `declare` in front)."""
    params = [f"{a.type} {names.local(a)}{format_attrs(a.attrs)}" for a in fn.args]
    if fn.attrs.get("variadic") is True:
        params.append("...")
    ftype: FunctionType = fn.type
    keyword = "kernel " if fn.is_kernel else ""
    if any(a.attrs for a in fn.args):  # long parameter lists: one per line
        joined = "".join(f"\n    {p}," for p in params)[:-1]
    else:
        joined = ", ".join(params)
    head = f"{keyword}{ftype.ret} @{format_name(fn.name)}({joined})"
    return head + format_attrs(_shown_function_attrs(fn))


def print_block(block: Block, names: Names) -> str:
    label = names.local(block)[1:]
    lines = [f"{label}:"]
    lines += [f"  {print_instr(instr, names)}" for instr in block.instrs]
    return "\n".join(lines)


def print_function(fn: Function) -> str:
    """A definition with its body, or a `declare` line for a declaration."""
    names = Names(fn)
    header = function_header(fn, names)
    if fn.is_declaration:
        return f"declare {header}"
    if not fn.is_kernel:
        header = f"define {header}"
    body = "\n\n".join(print_block(b, names) for b in fn.blocks)
    return f"{header} {{\n{body}\n}}"


def print_global(gv: GlobalVar) -> str:
    """`@g = addrspace(local) global [16 x float], align 4` (no initializer: none)."""
    kind = "constant" if gv.constant else "global"
    text = f"@{format_name(gv.name)} = addrspace({gv.space}) {kind} {gv.value_type}"
    if gv.initializer is not None:
        text += " " + format_value(gv.initializer, Names())
    if gv.align:
        text += f", align {gv.align}"
    return text


def print_module(module: Module) -> str:
    """The whole module: a `module` line (unless the name is the default), globals, functions."""
    parts: list[str] = []
    if module.name != "module":
        parts.append(f"module {quote_string(module.name)}")
    if module.globals:
        parts.append("\n".join(print_global(g) for g in module.globals))
    parts += [print_function(fn) for fn in module.functions]
    return "\n\n".join(parts) + "\n"
