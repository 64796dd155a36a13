"""The text form of simt machine code (the only formatter; `asm_parser` reads it back).

```
kernel @vadd kernarg_bytes=24 {
  %stack.0 = slot 16, align 16
entry:
  s_load_b128 s[4:7], s[0:1], 0
  s_call_b64 s[30:31], @f uses[s0, v[0:1]] defs[v0]
  s_endpgm
}
```

A function is `kernel` or `func`, its name, its attributes as `key=value`
(sorted), then its frame slots and blocks; functions are separated by a
blank line. An instruction may end with its debug location,
`loc "k.cl":12:9` (printed when asked: `format_module(m, locs=True)`, as the
build cache does). Printing what `asm_parser.parse_asm` read gives the same text.
"""

from __future__ import annotations

import re

from ...diagnostics import SourceLocation
from .machine import MFunction, MInstr, MModule

PLAIN_WORD = re.compile(r"[A-Za-z_.][\w.]*\Z")


def format_attr(value: int | str) -> str:
    if isinstance(value, int) or PLAIN_WORD.match(value):
        return str(value)
    return format_attr_string(value)


def format_loc(loc: SourceLocation) -> str:
    """A debug location: `loc "k.cl":12:9`."""
    return f"loc {format_attr_string(loc.file)}:{loc.line}:{loc.col}"


def format_attr_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_instr(instr: MInstr, locs: bool = False) -> str:
    text = instr.op
    if instr.operands:
        text += " " + ", ".join(str(o) for o in instr.operands)
    if instr.implicit_uses:
        text += " uses[" + ", ".join(str(r) for r in instr.implicit_uses) + "]"
    if instr.implicit_defs:
        text += " defs[" + ", ".join(str(r) for r in instr.implicit_defs) + "]"
    if locs and instr.loc is not None:
        text += " " + format_loc(instr.loc)
    return text


def format_function(fn: MFunction, locs: bool = False) -> str:
    attrs = "".join(f" {k}={format_attr(v)}" for k, v in sorted(fn.attrs.items()))
    lines = [f"{fn.kind} @{fn.name}{attrs} {{"]
    for i, slot in enumerate(fn.slots):
        lines.append(f"  %stack.{i} = slot {slot.size}, align {slot.align}")
    for block in fn.blocks:
        lines.append(f"{block.name}:")
        lines += [f"  {format_instr(i, locs)}" for i in block.instrs]
    lines.append("}")
    return "\n".join(lines) + "\n"


def format_module(module: MModule, locs: bool = False) -> str:
    """The module's text; with `locs`, each instruction's debug location too."""
    return "\n".join(format_function(fn, locs) for fn in module.functions)
