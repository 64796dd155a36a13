"""The module's layout, read in one pass: everything that is not a function body.

`read_module(binary) -> ModuleInfo` collects capabilities, extended
instruction set imports, the memory model, entry points and execution modes,
debug names and strings, decorations (decoration groups applied), the
module-scope instructions in order (types, constants, variables, undefs) and
each function's instructions. It checks the OpenCL environment: the Kernel
capability, Physical32/Physical64 addressing, the OpenCL memory model, and
that no module-scope instruction follows a function body (the rest of the
logical layout order does not change the meaning, so it is not enforced).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .binary import Instruction, SpirvBinary
from .spirv_errors import SpirvError
from .grammar import (
    ADDRESSING_MODELS, CAPABILITIES, DEC, KERNEL_CAPABILITY, MEMORY_MODELS, OP,
    OPENCL_MEMORY_MODEL, UNSUPPORTED_CAPABILITIES,
)

Decoration = tuple[int, tuple[int, ...]]  # (decoration number, its literal operands)


@dataclass
class EntryPoint:
    model: int
    function: int
    name: str
    instr: Instruction


@dataclass
class ModuleInfo:
    version: tuple[int, int]
    bound: int
    pointer_bits: int = 64
    capabilities: set[int] = field(default_factory=set)
    ext_imports: dict[int, str] = field(default_factory=dict)
    entry_points: list[EntryPoint] = field(default_factory=list)
    execution_modes: dict[int, list[tuple[int, tuple[int, ...]]]] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    strings: dict[int, str] = field(default_factory=dict)
    decorations: dict[int, list[Decoration]] = field(default_factory=dict)
    member_decorations: dict[tuple[int, int], list[Decoration]] = field(default_factory=dict)
    globals: list[Instruction] = field(default_factory=list)
    functions: list[list[Instruction]] = field(default_factory=list)

    def decoration(self, id_: int, dec: str) -> tuple[int, ...] | None:
        """The operands of decoration `dec` on `id_`, or None when it has none."""
        num = DEC[dec]
        return next((ops for d, ops in self.decorations.get(id_, ()) if d == num), None)

    def member_decoration(self, id_: int, member: int, dec: str) -> tuple[int, ...] | None:
        num = DEC[dec]
        return next((ops for d, ops in self.member_decorations.get((id_, member), ()) if d == num), None)

    def func_param_attrs(self, id_: int) -> set[int]:
        num = DEC["FuncParamAttr"]
        return {ops[0] for d, ops in self.decorations.get(id_, ()) if d == num and ops}


def read_module(binary: SpirvBinary) -> ModuleInfo:
    info = ModuleInfo(binary.version, binary.bound)
    reader = _Reader(info)
    for instr in binary.instructions:
        reader.read(instr)
    if reader.function is not None:
        raise SpirvError("the last function has no OpFunctionEnd", reader.function[0].word, "OpFunction")
    if KERNEL_CAPABILITY not in info.capabilities:
        raise SpirvError("the module does not declare the Kernel capability: only OpenCL "
                         "kernels are supported (not Vulkan/GLSL shaders)")
    if not reader.memory_model_seen:
        raise SpirvError("the module has no OpMemoryModel")
    return info


class _Reader:
    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.function: list[Instruction] | None = None
        self.memory_model_seen = False
        self.table = {
            OP["Capability"]: self.capability, OP["ExtInstImport"]: self.ext_import,
            OP["MemoryModel"]: self.memory_model, OP["EntryPoint"]: self.entry_point,
            OP["ExecutionMode"]: self.execution_mode, OP["ExecutionModeId"]: self.execution_mode,
            OP["Name"]: self.name, OP["String"]: self.string, OP["Decorate"]: self.decorate,
            OP["DecorateId"]: self.decorate, OP["DecorateString"]: self.decorate,
            OP["MemberDecorate"]: self.member_decorate,
            OP["MemberDecorateString"]: self.member_decorate,
            OP["GroupDecorate"]: self.group_decorate,
            OP["GroupMemberDecorate"]: self.group_member_decorate,
            OP["Function"]: self.begin_function,
        }
        self.ignored = {OP[n] for n in ("Nop", "Source", "SourceContinued", "SourceExtension",
                                         "MemberName", "Line", "NoLine", "Extension",
                                         "ModuleProcessed", "DecorationGroup")}

    def read(self, instr: Instruction) -> None:
        if self.function is not None:
            self.function.append(instr)
            if instr.opcode == OP["FunctionEnd"]:
                self.info.functions.append(self.function)
                self.function = None
            elif instr.opcode == OP["Function"]:
                raise instr.error("OpFunction inside a function (missing OpFunctionEnd)")
            return
        handler = self.table.get(instr.opcode)
        if handler is not None:
            handler(instr)
        elif instr.opcode == OP["FunctionEnd"]:
            raise instr.error("OpFunctionEnd outside a function")
        elif instr.opcode not in self.ignored:
            if self.info.functions:
                raise instr.error("module-scope instruction after the first function body")
            self.info.globals.append(instr)

    def capability(self, instr: Instruction) -> None:
        cap = instr.operand(0)
        if cap in UNSUPPORTED_CAPABILITIES:
            name = CAPABILITIES.get(cap, str(cap))
            raise instr.error(f"capability {name} is not supported (oclpy has no images, "
                              f"samplers, pipes, device enqueue or shaders)")
        self.info.capabilities.add(cap)

    def ext_import(self, instr: Instruction) -> None:
        self.info.ext_imports[instr.operand(0)] = instr.string(1)[0]

    def memory_model(self, instr: Instruction) -> None:
        addressing, memory = instr.operand(0), instr.operand(1)
        bits = {1: 32, 2: 64}.get(addressing)
        if bits is None:
            raise instr.error(f"addressing model {ADDRESSING_MODELS.get(addressing, addressing)} is "
                              f"not supported (OpenCL needs Physical32 or Physical64)")
        if memory != OPENCL_MEMORY_MODEL:
            raise instr.error(f"memory model {MEMORY_MODELS.get(memory, memory)} is not supported "
                              f"(OpenCL needs the OpenCL memory model)")
        self.info.pointer_bits = bits
        self.memory_model_seen = True

    def entry_point(self, instr: Instruction) -> None:
        name, _ = instr.string(2)
        self.info.entry_points.append(EntryPoint(instr.operand(0), instr.operand(1), name, instr))

    def execution_mode(self, instr: Instruction) -> None:
        modes = self.info.execution_modes.setdefault(instr.operand(0), [])
        modes.append((instr.operand(1), instr.operands[2:]))

    def name(self, instr: Instruction) -> None:
        # a debug name becomes an IR and an LLVM name: a character that LLVM's text form
        # cannot hold there (a newline, a quote) becomes '_' (a mutant's "writ\n" broke it)
        text = instr.string(1)[0]
        self.info.names[instr.operand(0)] = "".join(c if c.isprintable() and c not in '"\\' else "_"
                                                    for c in text)

    def string(self, instr: Instruction) -> None:
        self.info.strings[instr.operand(0)] = instr.string(1)[0]

    def decorate(self, instr: Instruction) -> None:
        target, dec = instr.operand(0), instr.operand(1)
        self.info.decorations.setdefault(target, []).append((dec, instr.operands[2:]))

    def member_decorate(self, instr: Instruction) -> None:
        key = (instr.operand(0), instr.operand(1))
        self.info.member_decorations.setdefault(key, []).append((instr.operand(2), instr.operands[3:]))

    def group_decorate(self, instr: Instruction) -> None:
        group = self.info.decorations.get(instr.operand(0), [])
        for target in instr.operands[1:]:
            self.info.decorations.setdefault(target, []).extend(group)

    def group_member_decorate(self, instr: Instruction) -> None:
        group = self.info.decorations.get(instr.operand(0), [])
        ops = instr.operands[1:]
        for k in range(0, len(ops) - 1, 2):
            self.info.member_decorations.setdefault((ops[k], ops[k + 1]), []).extend(group)

    def begin_function(self, instr: Instruction) -> None:
        self.function = [instr]
