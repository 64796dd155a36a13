"""Structural validation of a SPIR-V module, before it is read or translated.

`validate(binary)` checks what the translator takes for granted, so that a
malformed module is a `SpirvError` naming the word and opcode at fault,
never an exception from deep inside a handler or LLVM:

- every instruction has the operands its opcode's layout (`LAYOUTS`, from the
  SPIR-V 1.6 grammar) says, no fewer and no more, and its literal strings end;
- functions do not nest, and each ends;
- every id is below the header's id bound and above 0; a result id is
  defined once; an id operand names an id the module defines; a result type
  names a type;
- memory operands (OpLoad, OpStore, OpCopyMemory*) have the words their mask
  asks for, and no mask bits SPIR-V does not define;
- the decorations and execution modes the translator reads have their
  operands, and an alignment is a power of two no larger than `MAX_ALIGNMENT`.

Opcodes missing from `LAYOUTS` are left to the translator, which refuses
them by name. The checks are linear in the module's size.
"""

from __future__ import annotations

from .binary import Instruction, SpirvBinary, string_from_words
from .grammar import DEC, OP

MAX_ALIGNMENT = 1 << 16

# Operand kinds: T result type, R result id, I id, L literal word, S literal string,
# W any word (checked elsewhere or not at all). A token is one kind, a kind with "?"
# (optional), or a group of kinds with "*" (repeated, maybe zero times).
_LAYOUT_TEXT = """
Nop: | Undef: T R | SourceContinued: S | Source: L L I? S? | SourceExtension: S | Name: I S
MemberName: I L S | String: R S | Line: I L L | Extension: S | ExtInstImport: R S
ExtInst: T R I L W* | MemoryModel: L L | EntryPoint: L I S I* | ExecutionMode: I L L*
Capability: L | TypeVoid: R | TypeBool: R | TypeInt: R L L | TypeFloat: R L L?
TypeVector: R I L | TypeMatrix: R I L | TypeImage: R I L L L L L L L? | TypeSampler: R
TypeSampledImage: R I | TypeArray: R I I | TypeRuntimeArray: R I | TypeStruct: R I*
TypeOpaque: R S | TypePointer: R L I | TypeFunction: R I I* | TypeEvent: R | TypeDeviceEvent: R
TypeReserveId: R | TypeQueue: R | TypePipe: R L | TypeForwardPointer: I L
ConstantTrue: T R | ConstantFalse: T R | Constant: T R L L* | ConstantComposite: T R I*
ConstantSampler: T R L L L | ConstantNull: T R | SpecConstantTrue: T R | SpecConstantFalse: T R
SpecConstant: T R L L* | SpecConstantComposite: T R I* | SpecConstantOp: T R L W*
Function: T R L I | FunctionParameter: T R | FunctionEnd: | FunctionCall: T R I I*
Variable: T R L I? | ImageTexelPointer: T R I I I | Load: T R I W* | Store: I I W*
CopyMemory: I I W* | CopyMemorySized: I I I W* | AccessChain: T R I I* | InBoundsAccessChain: T R I I*
PtrAccessChain: T R I I I* | ArrayLength: T R I L | GenericPtrMemSemantics: T R I
InBoundsPtrAccessChain: T R I I I* | Decorate: I L W* | MemberDecorate: I L L W* | DecorationGroup: R
GroupDecorate: I I* | GroupMemberDecorate: I IL* | VectorExtractDynamic: T R I I
VectorInsertDynamic: T R I I I | VectorShuffle: T R I I L* | CompositeConstruct: T R I*
CompositeExtract: T R I L* | CompositeInsert: T R I I L* | CopyObject: T R I | Transpose: T R I
SampledImage: T R I I | ImageSampleImplicitLod: T R I I W* | ImageFetch: T R I I W*
ImageRead: T R I I W* | ImageWrite: I I I W* | Image: T R I | ImageQuerySizeLod: T R I I
ImageQuerySize: T R I
ConvertFToU: T R I | ConvertFToS: T R I | ConvertSToF: T R I | ConvertUToF: T R I | UConvert: T R I
SConvert: T R I | FConvert: T R I | QuantizeToF16: T R I | ConvertPtrToU: T R I
SatConvertSToU: T R I | SatConvertUToS: T R I | ConvertUToPtr: T R I | PtrCastToGeneric: T R I
GenericCastToPtr: T R I | GenericCastToPtrExplicit: T R I L | Bitcast: T R I
SNegate: T R I | FNegate: T R I | IAdd: T R I I | FAdd: T R I I | ISub: T R I I | FSub: T R I I
IMul: T R I I | FMul: T R I I | UDiv: T R I I | SDiv: T R I I | FDiv: T R I I | UMod: T R I I
SRem: T R I I | SMod: T R I I | FRem: T R I I | FMod: T R I I | VectorTimesScalar: T R I I
MatrixTimesScalar: T R I I | VectorTimesMatrix: T R I I | MatrixTimesVector: T R I I
MatrixTimesMatrix: T R I I | OuterProduct: T R I I | Dot: T R I I | IAddCarry: T R I I
ISubBorrow: T R I I | UMulExtended: T R I I | SMulExtended: T R I I | Any: T R I | All: T R I
IsNan: T R I | IsInf: T R I | IsFinite: T R I | IsNormal: T R I | SignBitSet: T R I
LessOrGreater: T R I I | Ordered: T R I I | Unordered: T R I I | LogicalEqual: T R I I
LogicalNotEqual: T R I I | LogicalOr: T R I I | LogicalAnd: T R I I | LogicalNot: T R I
Select: T R I I I | IEqual: T R I I | INotEqual: T R I I | UGreaterThan: T R I I
SGreaterThan: T R I I | UGreaterThanEqual: T R I I | SGreaterThanEqual: T R I I
ULessThan: T R I I | SLessThan: T R I I | ULessThanEqual: T R I I | SLessThanEqual: T R I I
FOrdEqual: T R I I | FUnordEqual: T R I I | FOrdNotEqual: T R I I | FUnordNotEqual: T R I I
FOrdLessThan: T R I I | FUnordLessThan: T R I I | FOrdGreaterThan: T R I I
FUnordGreaterThan: T R I I | FOrdLessThanEqual: T R I I | FUnordLessThanEqual: T R I I
FOrdGreaterThanEqual: T R I I | FUnordGreaterThanEqual: T R I I | ShiftRightLogical: T R I I
ShiftRightArithmetic: T R I I | ShiftLeftLogical: T R I I | BitwiseOr: T R I I
BitwiseXor: T R I I | BitwiseAnd: T R I I | Not: T R I | BitFieldInsert: T R I I I I
BitFieldSExtract: T R I I I | BitFieldUExtract: T R I I I | BitReverse: T R I | BitCount: T R I
DPdx: T R I | EmitVertex: | ControlBarrier: I I I | MemoryBarrier: I I | AtomicLoad: T R I I I
AtomicStore: I I I I | AtomicExchange: T R I I I I | AtomicCompareExchange: T R I I I I I I
AtomicCompareExchangeWeak: T R I I I I I I | AtomicIIncrement: T R I I I
AtomicIDecrement: T R I I I | AtomicIAdd: T R I I I I | AtomicISub: T R I I I I
AtomicSMin: T R I I I I | AtomicUMin: T R I I I I | AtomicSMax: T R I I I I
AtomicUMax: T R I I I I | AtomicAnd: T R I I I I | AtomicOr: T R I I I I | AtomicXor: T R I I I I
Phi: T R II* | LoopMerge: I I L W* | SelectionMerge: I L | Label: R | Branch: I
BranchConditional: I I I L* | Switch: I I W* | Kill: | Return: | ReturnValue: I | Unreachable:
LifetimeStart: I L | LifetimeStop: I L | GroupAsyncCopy: T R I I I I I I | GroupWaitEvents: I I I
GroupAll: T R I I | GroupAny: T R I I | GroupBroadcast: T R I I I | GroupIAdd: T R I L I
GroupFAdd: T R I L I | GroupFMin: T R I L I | GroupUMin: T R I L I | GroupSMin: T R I L I
GroupFMax: T R I L I | GroupUMax: T R I L I | GroupSMax: T R I L I | ReadPipe: T R I I I I
WritePipe: T R I I I I | RetainEvent: I | ReleaseEvent: I | CreateUserEvent: T R | NoLine:
AtomicFlagTestAndSet: T R I I I | AtomicFlagClear: I I I | SizeOf: T R I | TypePipeStorage: R
TypeNamedBarrier: R | ModuleProcessed: S | ExecutionModeId: I L I* | DecorateId: I L I*
CopyLogical: T R I | PtrEqual: T R I I | PtrNotEqual: T R I I | PtrDiff: T R I I
DecorateString: I L S S* | MemberDecorateString: I L L S S* | AtomicFAddEXT: T R I I I I
AtomicFMinEXT: T R I I I I | AtomicFMaxEXT: T R I I I I | SubgroupBallotKHR: T R I
"""


def _layouts(text: str) -> dict[int, tuple[str, ...]]:
    table = {}
    for entry in text.replace("\n", "|").split("|"):
        if not entry.strip():
            continue
        name, _, kinds = entry.partition(":")
        table[OP[name.strip()]] = tuple(kinds.split())
    return table


LAYOUTS = _layouts(_LAYOUT_TEXT)
_TYPE_OPCODES = frozenset(code for name, code in OP.items() if name.startswith("Type"))

# Memory-operand mask bits and the extra words each asks for ("L" a literal, "I" an id).
_MEMORY_BITS = {0x1: "", 0x2: "L", 0x4: "", 0x8: "I", 0x10: "I", 0x20: ""}
_MEMORY_OPERANDS_AT = {OP["Load"]: (3, 1), OP["Store"]: (2, 1), OP["CopyMemory"]: (2, 2),
                       OP["CopyMemorySized"]: (3, 2)}  # opcode -> (first word, sets allowed)

# Decorations the translator reads, and how many literal words each has.
_DECORATION_WORDS = {DEC[name]: n for name, n in (
    ("Alignment", 1), ("BuiltIn", 1), ("ArrayStride", 1), ("Offset", 1), ("SpecId", 1),
    ("FuncParamAttr", 1), ("FPRoundingMode", 1), ("FPFastMathMode", 1), ("MaxByteOffset", 1),
    ("Restrict", 0), ("Aliased", 0), ("Volatile", 0), ("Constant", 0), ("Coherent", 0),
    ("NonWritable", 0), ("NonReadable", 0), ("SaturatedConversion", 0), ("CPacked", 0),
    ("NoSignedWrap", 0), ("NoUnsignedWrap", 0))}
_EXECUTION_MODE_WORDS = {17: 3, 18: 3, 30: 1, 31: 0}  # LocalSize, LocalSizeHint, VecTypeHint, ContractionOff


def validate(binary: SpirvBinary) -> None:
    """Raise SpirvError at the first structural fault of `binary` (see the module docstring)."""
    checker = _Checker(binary.bound)
    for instr in binary.instructions:
        checker.instruction(instr)
    checker.finish()


class _Checker:
    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.defined: dict[int, Instruction] = {}
        self.types: set[int] = set()
        self.uses: list[tuple[Instruction, int]] = []  # (instruction, id operand) to resolve
        self.type_uses: list[tuple[Instruction, int]] = []
        self.function: Instruction | None = None  # the OpFunction whose body this is

    def instruction(self, instr: Instruction) -> None:
        if instr.opcode == OP["Function"]:
            if self.function is not None:
                raise instr.error("OpFunction inside a function (missing OpFunctionEnd)")
            self.function = instr
        elif instr.opcode == OP["FunctionEnd"]:
            if self.function is None:
                raise instr.error("OpFunctionEnd outside a function")
            self.function = None
        layout = LAYOUTS.get(instr.opcode)
        if layout is None:
            return
        kinds = _match(instr, layout)
        for kind, word in zip(kinds, instr.operands):
            if kind in "TRI":
                self.id_operand(instr, kind, word)
        at = _MEMORY_OPERANDS_AT.get(instr.opcode)
        if at is not None:
            _memory_operands(instr, *at)
        elif instr.opcode in (OP["Decorate"], OP["MemberDecorate"]):
            _decoration(instr, 1 if instr.opcode == OP["Decorate"] else 2)
        elif instr.opcode == OP["ExecutionMode"]:
            _execution_mode(instr)

    def id_operand(self, instr: Instruction, kind: str, word: int) -> None:
        if not 0 < word < self.bound:
            raise instr.error(f"id %{word} is outside the module's id bound {self.bound}")
        if kind == "R":
            if word in self.defined:
                raise instr.error(f"%{word} is defined twice (first at SPIR-V word "
                                  f"{self.defined[word].word})")
            self.defined[word] = instr
            if instr.opcode in _TYPE_OPCODES:
                self.types.add(word)
        elif kind == "T":
            self.type_uses.append((instr, word))
        else:
            self.uses.append((instr, word))

    def finish(self) -> None:
        if self.function is not None:
            raise self.function.error("the last function has no OpFunctionEnd")
        for instr, word in self.uses:
            if word not in self.defined:
                raise instr.error(f"%{word} is used but never defined")
        for instr, word in self.type_uses:
            if word not in self.types:
                raise instr.error(f"result type %{word} is not a type")


def _match(instr: Instruction, layout: tuple[str, ...]) -> list[str]:
    """The kind of each operand word, or SpirvError when the words do not fit `layout`."""
    words, kinds, k = instr.operands, [], 0
    for token in layout:
        if token.endswith("*"):
            group = token[:-1]
            while k < len(words):
                if k + len(group) > len(words) and "S" not in group:
                    raise instr.error(f"{len(words)} operand words do not end on a whole "
                                      f"group of {instr.name}'s repeated operands")
                k = _take(instr, group, kinds, k)
        elif token.endswith("?"):
            if k < len(words):
                k = _take(instr, token[:-1], kinds, k)
        else:
            if k >= len(words):
                raise instr.error(f"{instr.name} needs at least {_minimum(layout)} operand words, "
                                  f"found {len(words)}")
            k = _take(instr, token, kinds, k)
    if k < len(words):
        raise instr.error(f"{instr.name} has {len(words) - k} operand words more than its "
                          f"layout allows")
    return kinds


def _take(instr: Instruction, group: str, kinds: list[str], k: int) -> int:
    for kind in group:
        if kind == "S":
            found = string_from_words(instr.operands, k)
            if found is None:
                raise instr.error("literal string is not nul-terminated valid UTF-8")
            kinds += ["S"] * (found[1] - k)
            k = found[1]
        else:
            if k >= len(instr.operands):
                raise instr.error(f"{instr.name} is missing operand words")
            kinds.append(kind)
            k += 1
    return k


def _minimum(layout: tuple[str, ...]) -> int:
    return sum(len(t) for t in layout if not t.endswith(("*", "?")))


def _memory_operands(instr: Instruction, start: int, sets: int) -> None:
    ops, k = instr.operands, start
    for _ in range(sets):
        if k >= len(ops):
            return
        mask = ops[k]
        unknown = mask & ~sum(_MEMORY_BITS)
        if unknown:
            raise instr.error(f"memory operand mask 0x{mask:x} has unknown bits 0x{unknown:x}")
        k += 1
        for bit, extra in _MEMORY_BITS.items():
            if mask & bit and extra:
                if k >= len(ops):
                    raise instr.error(f"memory operand mask 0x{mask:x} asks for more words than follow")
                if bit == 0x2:
                    _check_alignment(instr, ops[k])
                k += 1
    if k != len(ops):
        raise instr.error(f"{len(ops) - k} words follow the memory operands")


def _decoration(instr: Instruction, head: int) -> None:
    dec = instr.operand(head)
    want = _DECORATION_WORDS.get(dec)
    extra = instr.operands[head + 1:]
    if want is not None and len(extra) != want:
        raise instr.error(f"decoration {dec} takes {want} literal words, found {len(extra)}")
    if dec == DEC["LinkageAttributes"]:
        name = string_from_words(extra, 0)
        if name is None or name[1] != len(extra) - 1:
            raise instr.error("LinkageAttributes takes a name and a linkage type")
    elif dec == DEC["Alignment"]:
        _check_alignment(instr, extra[0])
    elif dec == DEC["ArrayStride"] and extra[0] == 0:
        raise instr.error("ArrayStride of 0")


def _execution_mode(instr: Instruction) -> None:
    mode, extra = instr.operand(1), instr.operands[2:]
    want = _EXECUTION_MODE_WORDS.get(mode)
    if want is not None and len(extra) != want:
        raise instr.error(f"execution mode {mode} takes {want} literal words, found {len(extra)}")


def _check_alignment(instr: Instruction, align: int) -> None:
    if align == 0 or align & (align - 1) or align > MAX_ALIGNMENT:
        raise instr.error(f"alignment {align} is not a power of two from 1 to {MAX_ALIGNMENT}")
