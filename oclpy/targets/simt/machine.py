"""Machine code as plain data: modules, functions, blocks, instructions, operands.

What instruction selection produces, register allocation rewrites and the
simulator runs. Operands are frozen values:
- `PReg(file, index, width)`: a physical register, `s5`, `v[4:5]`, `s[8:11]`;
  `file` is "s" or "v", `width` in bits (32, 64, 128, 256); a 64-bit register
  starts at an even index, a wider one at a multiple of 4 (`PReg.problem`);
- `VReg(file, id, width)`: a virtual register, `%s3`, `%v7:64`;
- `EXEC`: the exec mask; `Imm(value)`: an int, or a float for a float field;
  `Label(name)`: a block; `Func(name)`: a function; `Slot(index)`: a frame slot.

An `MInstr` is an opcode (a row of `isa.OPS`) with its explicit operands in
the row's field order, plus the registers a call or return reads and writes
beyond them (`implicit_uses`, `implicit_defs`), and the source location it
was selected from (`loc`, a debug location: None for code no source line
asked for, such as spills). `defs()` and `uses()` list
(operand index, operand) pairs and `set_operand` replaces one, so an
allocator rewrites virtual registers in place and a checker walks both.
Implicit `scc` and `exec` effects are the row's (`Op.scc`, `Op.exec`).

Blocks fall through to the next block in the function's list unless they end
in a terminator (`s_branch`, `s_setpc_b64`, `s_endpgm`, `s_trap`); a
conditional branch is followed by its fallthrough. `instr_problems` and
`function_problems` say what is malformed, as sentences; the parser and the
simulator report them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ...diagnostics import SourceLocation
from .isa import OPS, Field, Op


@dataclass(frozen=True)
class PReg:
    """A physical register or aligned tuple of the scalar ("s") or vector ("v") file."""

    file: str
    index: int
    width: int = 32

    @property
    def kind(self) -> str:
        return f"{self.file}reg"

    @property
    def count(self) -> int:
        return self.width // 32

    def units(self) -> range:
        """The 32-bit registers it covers."""
        return range(self.index, self.index + self.count)

    def problem(self) -> str | None:
        if self.file not in ("s", "v"):
            return f"unknown register file '{self.file}'"
        if self.width not in (32, 64, 128, 256):
            return f"register {self} is {self.width} bits wide; widths are 32, 64, 128, 256"
        align = 1 if self.width == 32 else 2 if self.width == 64 else 4
        if self.index % align:
            return f"register {self} must start at a multiple of {align}"
        return None

    def __str__(self) -> str:
        if self.width == 32:
            return f"{self.file}{self.index}"
        return f"{self.file}[{self.index}:{self.index + self.count - 1}]"


@dataclass(frozen=True)
class VReg:
    """A virtual register: its file, a number unique in its function, its width in bits."""

    file: str
    id: int
    width: int = 32

    @property
    def kind(self) -> str:
        return f"{self.file}reg"

    def __str__(self) -> str:
        return f"%{self.file}{self.id}" + ("" if self.width == 32 else f":{self.width}")


@dataclass(frozen=True)
class ExecReg:
    """The exec mask (64 bits)."""

    kind = "exec"
    width = 64

    def __str__(self) -> str:
        return "exec"


EXEC = ExecReg()


@dataclass(frozen=True)
class Imm:
    value: int | float
    kind = "imm"

    def __str__(self) -> str:
        return format_imm(self.value)


@dataclass(frozen=True)
class Label:
    name: str
    kind = "label"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Func:
    name: str
    kind = "func"

    def __str__(self) -> str:
        return f"@{self.name}"


@dataclass(frozen=True)
class Slot:
    """A frame slot; before frame lowering it reads as its offset from the frame base
    (the stack pointer at the function's entry) in `frame_layout`."""

    index: int
    kind = "slot"

    def __str__(self) -> str:
        return f"%stack.{self.index}"


Operand = Union[PReg, VReg, ExecReg, Imm, Label, Func, Slot]
Register = Union[PReg, VReg, ExecReg]


def format_imm(value: int | float) -> str:
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    return str(value)


DEF_MASKS: dict[tuple[str, int], tuple[bool, ...]] = {}  # (op, operand count) -> MInstr.def_mask


@dataclass
class MInstr:
    op: str
    operands: list[Operand]
    implicit_uses: list[Register] = field(default_factory=list)
    implicit_defs: list[Register] = field(default_factory=list)
    loc: SourceLocation | None = field(default=None, compare=False)  # the source it was selected from

    @property
    def info(self) -> Op:
        return OPS[self.op]

    def field_of(self, index: int) -> Field:
        """The row's field that operand `index` fills (variadic rows repeat one)."""
        fields, n = self.info.fields, len(self.operands)
        if self.info.variadic == "uses":
            return fields[min(index, len(fields) - 1)]
        if self.info.variadic == "defs":
            return fields[1] if index == n - 1 else fields[0]
        return fields[index]

    def def_mask(self) -> tuple[bool, ...]:
        """Per operand, whether it is a definition (a function of the opcode and the operand count)."""
        key = (self.op, len(self.operands))
        mask = DEF_MASKS.get(key)
        if mask is None:
            mask = DEF_MASKS[key] = tuple(self.field_of(i).is_def for i in range(key[1]))
        return mask

    def defs(self) -> list[tuple[int, Operand]]:
        mask = self.def_mask()
        return [(i, o) for i, o in enumerate(self.operands) if mask[i]]

    def uses(self) -> list[tuple[int, Operand]]:
        mask = self.def_mask()
        return [(i, o) for i, o in enumerate(self.operands) if not mask[i]]

    def set_operand(self, index: int, operand: Operand) -> None:
        self.operands[index] = operand

    def reads(self) -> list[Register]:
        """Every register it reads: explicit uses, implicit uses, and exec when the row reads it."""
        regs = [o for _, o in self.uses() if isinstance(o, (PReg, VReg, ExecReg))] + list(self.implicit_uses)
        return regs + ([EXEC] if self.info.exec in ("use", "both") and EXEC not in regs else [])

    def writes(self) -> list[Register]:
        """Every register it writes: explicit definitions, implicit ones, and exec when the row writes it."""
        regs = [o for _, o in self.defs() if isinstance(o, (PReg, VReg, ExecReg))] + list(self.implicit_defs)
        return regs + ([EXEC] if self.info.exec in ("def", "both") and EXEC not in regs else [])

    def registers(self) -> list[Register]:
        """Every register it reads or writes, explicit and implicit."""
        regs = [o for o in self.operands if isinstance(o, (PReg, VReg, ExecReg))]
        return regs + list(self.implicit_uses) + list(self.implicit_defs)


@dataclass
class MBlock:
    name: str
    instrs: list[MInstr] = field(default_factory=list)


@dataclass(frozen=True)
class FrameSlot:
    size: int
    align: int


@dataclass
class MFunction:
    name: str
    kind: str = "func"  # "kernel" or "func"
    blocks: list[MBlock] = field(default_factory=list)
    slots: list[FrameSlot] = field(default_factory=list)
    attrs: dict[str, int | str] = field(default_factory=dict)

    def block(self, name: str) -> MBlock:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def instrs(self) -> list[MInstr]:
        return [i for b in self.blocks for i in b.instrs]

    def copy(self) -> "MFunction":
        """A copy whose blocks, instructions and their lists are new (operands are immutable, shared):
        what `copy.deepcopy` gives, without walking every operand."""
        blocks = [MBlock(b.name, [MInstr(i.op, list(i.operands), list(i.implicit_uses), list(i.implicit_defs), i.loc)
                                  for i in b.instrs]) for b in self.blocks]
        return MFunction(self.name, self.kind, blocks, list(self.slots), dict(self.attrs))


@dataclass
class MModule:
    functions: list[MFunction] = field(default_factory=list)
    strings: list[bytes] = field(default_factory=list)  # printf's formats and string arguments, by id

    def function(self, name: str) -> MFunction:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


def successors(fn: MFunction, index: int) -> list[str]:
    """The names of the blocks control may reach from block `index`, branch targets first."""
    block = fn.blocks[index]
    targets = [str(o) for i in block.instrs if i.info.branch for o in i.operands if isinstance(o, Label)]
    ends = bool(block.instrs) and block.instrs[-1].info.terminator
    if not ends and index + 1 < len(fn.blocks):
        targets.append(fn.blocks[index + 1].name)
    return list(dict.fromkeys(targets))


def frame_layout(fn: MFunction) -> tuple[list[int], int]:
    """Each slot's offset from the frame base, in order at its alignment, and the frame's size
    (a multiple of 16, the stack alignment)."""
    offsets, end = [], 0
    for slot in fn.slots:
        end = (end + slot.align - 1) // slot.align * slot.align
        offsets.append(end)
        end += slot.size
    return offsets, (end + 15) // 16 * 16


# -- what is malformed ---------------------------------------------------------------

def operand_problem(operand: Operand, f: Field) -> str | None:
    """Why `operand` cannot stand in field `f` (None: it can)."""
    if operand.kind not in f.accepts:
        return f"expected {describe(f)}, found {describe_operand(operand)}"
    if isinstance(operand, PReg) and operand.problem():
        return operand.problem()
    width = getattr(operand, "width", None)
    if width is not None and f.bits and width != f.bits:
        return f"expected a {f.bits}-bit operand, found {width}-bit {operand}"
    if isinstance(operand, Imm):
        return imm_problem(operand.value, f)
    return None


def imm_problem(value: int | float, f: Field) -> str | None:
    if isinstance(value, float):
        if f.type not in ("f32", "f64", "b32", "b64", "any"):
            return f"a float immediate cannot stand for a {f.type} operand"
        return None
    bits = f.bits or 64
    if not -(1 << (bits - 1)) <= value < (1 << min(bits, 64)):
        return f"immediate {value} does not fit in {bits} bits"
    return None


KIND_NAMES = {"sreg": "a scalar register", "vreg": "a vector register", "exec": "exec",
              "imm": "an immediate", "slot": "a frame slot", "label": "a block label",
              "func": "a function"}


def describe(f: Field) -> str:
    kinds = [k for k in ("vreg", "sreg", "exec", "imm", "label", "func") if k in f.accepts]
    return " or ".join(KIND_NAMES[k] for k in kinds)


def describe_operand(o: Operand) -> str:
    return f"{KIND_NAMES[o.kind]} '{o}'"


def instr_problems(instr: MInstr) -> list[str]:
    """What is wrong with one instruction on its own: operand count, kinds, widths, alignment."""
    info = OPS.get(instr.op)
    if info is None:
        return [f"unknown opcode '{instr.op}'"]
    n, expected = len(instr.operands), len(info.fields)
    if (info.variadic and n < expected + 1) or (not info.variadic and n != expected):
        least = "at least " if info.variadic else ""
        return [f"{instr.op} takes {least}{expected + bool(info.variadic)} operands, found {n}"]
    problems = []
    for i, operand in enumerate(instr.operands):
        problem = operand_problem(operand, instr.field_of(i))
        if problem:
            problems.append(f"operand {i + 1} of {instr.op}: {problem}")
    for reg in instr.implicit_uses + instr.implicit_defs:
        if isinstance(reg, PReg) and reg.problem():
            problems.append(f"{instr.op}: {reg.problem()}")
    return problems or pseudo_problems(instr)


def pseudo_problems(instr: MInstr) -> list[str]:
    """The width rules of p_copy, p_join and p_split, which their rows cannot state."""
    if instr.info.family != "pseudo" or instr.op == "p_undef":
        return []
    defs = [o for _, o in instr.defs()]
    uses = [o for _, o in instr.uses()]
    width = lambda o: getattr(o, "width", 0)  # noqa: E731 (immediates take the other side's width)
    whole = sum(width(o) for o in (uses if instr.op != "p_split" else defs))
    other = width(defs[0]) if instr.op != "p_split" else width(uses[0])
    if any(isinstance(o, Imm) for o in uses) and instr.op != "p_copy":
        return [f"{instr.op} takes registers only"]
    if instr.op == "p_copy" and isinstance(uses[0], Imm):
        return []
    if whole != other:
        return [f"{instr.op}: the parts ({whole} bits) do not make the whole ({other} bits)"]
    if instr.op == "p_copy" and defs[0].kind == "sreg" and uses[0].kind == "vreg":
        return ["p_copy cannot copy a vector register to a scalar one (use v_readfirstlane_b32)"]
    return []


def function_problems(fn: MFunction, module: MModule | None = None) -> list[str]:
    """Structure: unique block names, labels that exist, slots that exist, calls to known
    functions, no fallthrough off the last block."""
    problems = []
    names = [b.name for b in fn.blocks]
    for name in {n for n in names if names.count(n) > 1}:
        problems.append(f"block '{name}' is defined twice")
    known = {f.name for f in module.functions} if module else None
    for block in fn.blocks:
        for instr in block.instrs:
            for o in instr.operands:
                if isinstance(o, Label) and o.name not in names:
                    problems.append(f"{instr.op} branches to unknown block '{o.name}'")
                if isinstance(o, Slot) and not 0 <= o.index < len(fn.slots):
                    problems.append(f"{instr.op} names frame slot {o} that is not declared")
                if isinstance(o, Func) and known is not None and o.name not in known:
                    problems.append(f"{instr.op} calls unknown function '@{o.name}'")
    if not fn.blocks or not fn.blocks[-1].instrs or not fn.blocks[-1].instrs[-1].info.terminator:
        problems.append(f"function '@{fn.name}' may run off the end of its last block")
    return problems
