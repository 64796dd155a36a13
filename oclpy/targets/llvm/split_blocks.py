"""Huge basic blocks split for LLVM's code generator: its work stays linear in their size.

LLVM's instruction selection (one SelectionDAG per basic block) and machine
scheduler (one region per block) take time that grows with the square of a
block's size: a kernel of 30,000 lines of straight-line arithmetic is one block
of 120,000 instructions, and code generation took 97 s of its 136
(benchmarks/README.md, issue 13); GCC bounds the same work with
`max-sched-region-insns`. `split_huge_blocks(text)` takes optimised LLVM IR text
and cuts every block of more than `MAX_BLOCK` instructions into pieces of
`PIECE` joined by unconditional branches, after LLVM's optimisation (whose
SimplifyCFG would join them again) and before code generation:

- a cut never falls before a `phi`, an `alloca` (an entry block's allocas stay
  static), a terminator, or inside an instruction printed on several lines;
- the piece holding the block's terminator has a new name, so each `phi` that
  named the block as its incoming block names that piece instead;
- every new piece has its address taken (`blockaddress` in one internal
  constant, `SPLIT_BLOCKS`): the code generator's CodeGenPrepare merges a block
  into its one predecessor across an unconditional branch, but never a block
  whose address is taken.

The pieces run in order, as the block did: the code is the same, a jump every
`PIECE` instructions apart (lines 10,000: 154,632 bytes of object code -> 155,432;
code generation 8.8 s -> 2.0 s). Within a piece the schedulers still take time
that grows with the square of its size, the more so the more loads and stores
it holds: pieces of 500 rather than 2,000 instructions took code generation for
8,000 lines of `a[i * 4 + c] += b[i + k];` from 6.1 to 2.0 s (4,000 lines: 2.8
to 0.8 s; object code 0.5 to 1% larger). `tests/targets/test_split_blocks.py`
checks the text and the results.
"""

from __future__ import annotations

import re

MAX_BLOCK = 1000  # instructions in one block before it is split
PIECE = 500  # instructions per piece
SPLIT_BLOCKS = "@oclpy.split.blocks"
_DEFINE = re.compile(r'^define [^@]*@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')
_LABEL = re.compile(r'^("(?:[^"\\]|\\.)*"|[-\w.$]+):')
_TERMINATORS = ("ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "cleanupret",
                "catchret", "catchswitch", "callbr")


def _is_instruction(line: str) -> bool:
    """The first line of an instruction (a `switch`'s cases and closing `]` are not)."""
    return line.startswith("  ") and not line.startswith("   ") and not line.lstrip().startswith((";", "]"))


def _opcode(line: str) -> str:
    body = line.strip()
    if body.startswith("%") and " = " in body:
        body = body.split(" = ", 1)[1]
    return body.split(" ", 1)[0]


def largest_block(text: str) -> int:
    """The instructions of the largest basic block in LLVM IR `text`."""
    most = count = 0
    for line in text.split("\n"):
        if _is_instruction(line):
            count += 1
            most = max(most, count)
        elif line.startswith("}") or _LABEL.match(line) or line.startswith("define"):
            count = 0
    return most


def split_huge_blocks(text: str, max_block: int | None = None, piece: int | None = None) -> tuple[str, int]:
    """(`text` with every block of more than `max_block` (`MAX_BLOCK`) instructions cut
    into pieces of `piece` (`PIECE`), the number of cuts); `text` itself when no block is
    that large, or when the module already names `SPLIT_BLOCKS`."""
    max_block = MAX_BLOCK if max_block is None else max_block
    piece = PIECE if piece is None else piece
    if largest_block(text) <= max_block or SPLIT_BLOCKS in text:
        return text, 0
    lines = text.split("\n")
    out: list[str] = []
    taken: list[str] = []
    function = ""
    renamed: dict[str, str] = {}  # per function: a block's reference -> its last piece's
    body_start = 0
    k = 0
    while k < len(lines):
        line = lines[k]
        define = _DEFINE.match(line)
        if define and line.rstrip().endswith("{"):
            function, renamed, body_start = define.group(1), {}, len(out) + 1
            out.append(line)
            k += 1
            block_label, block = "", []
            while k < len(lines) and not lines[k].startswith("}"):
                label = _LABEL.match(lines[k])
                if label:
                    _flush(out, block_label, block, function, renamed, taken, max_block, piece)
                    block_label, block = label.group(1), [lines[k]]
                else:
                    block.append(lines[k])
                k += 1
            _flush(out, block_label, block, function, renamed, taken, max_block, piece)
            _rename_phi_edges(out, body_start, renamed)
            continue
        out.append(line)
        k += 1
    if not taken:
        return text, 0
    refs = ", ".join(f"ptr blockaddress(@{fn}, %{name})" for fn, name in
                     (t.split(" ", 1) for t in taken))
    out.append(f"{SPLIT_BLOCKS} = internal constant [{len(taken)} x ptr] [{refs}]")
    return "\n".join(out) + "\n", len(taken)


def _flush(out: list[str], label: str, block: list[str], function: str, renamed: dict[str, str],
           taken: list[str], max_block: int, piece: int) -> None:
    """Append `block` (its label line first, when it has one) to `out`, cut into pieces
    when it has more than `max_block` instructions."""
    positions = [n for n, line in enumerate(block) if _is_instruction(line)]
    if len(positions) <= max_block or not label:  # an unnamed entry block: phis name it by number
        out.extend(block)
        return
    # no cut before the last phi or alloca, nor before a terminator
    floor = max((n for n in positions if _opcode(block[n]) in ("phi", "alloca")), default=-1)
    cuts, since = [], 0
    for n in positions:
        since += 1
        if since > piece and n > floor and _opcode(block[n]) not in _TERMINATORS:
            cuts.append(n)
            since = 1
    if not cuts:
        out.extend(block)
        return
    previous = 0
    for n in cuts:
        name = f"oclpy.split.{len(taken)}"
        taken.append(f"{function} {name}")
        out.extend(block[previous:n])
        out.append(f"  br label %{name}")
        out.append(f"{name}:")
        previous = n
    out.extend(block[previous:])
    if label:
        renamed[f"%{label}"] = f"%{name}"


def _rename_phi_edges(out: list[str], start: int, renamed: dict[str, str]) -> None:
    """In the function body `out[start:]`, make each phi's incoming block that was split
    name the piece holding the split block's terminator."""
    if not renamed:
        return
    pattern = re.compile(r"(,\s*)(" + "|".join(re.escape(r) for r in renamed) + r")(\s*\])")
    for n in range(start, len(out)):
        if _is_instruction(out[n]) and _opcode(out[n]) == "phi":
            out[n] = pattern.sub(lambda m: m.group(1) + renamed[m.group(2)] + m.group(3), out[n])
