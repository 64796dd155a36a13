"""The SPIR-V binary: word stream, header and instruction records.

`parse_binary(data) -> SpirvBinary` checks the magic number (either byte
order), the header (version 1.0-1.6, id bound) and that every instruction's
word count stays inside the stream; it never interprets an opcode. Literal
strings (nul-terminated UTF-8 packed little-end-first into words) are decoded
by `literal_string`.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from .spirv_errors import SpirvError
from .grammar import opname

MAGIC = 0x07230203
HEADER_WORDS = 5
SUPPORTED_VERSIONS = ((1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6))


@dataclass(frozen=True)
class Instruction:
    """One instruction: its opcode, its operand words (after the first word) and
    the offset of its first word in the module, for error messages."""

    opcode: int
    operands: tuple[int, ...]
    word: int

    @property
    def name(self) -> str:
        return opname(self.opcode)

    def error(self, message: str) -> SpirvError:
        return SpirvError(message, self.word, self.name)

    def operand(self, i: int) -> int:
        if i >= len(self.operands):
            raise self.error(f"expected at least {i + 1} operand words, found {len(self.operands)}")
        return self.operands[i]

    def string(self, i: int) -> tuple[str, int]:
        """The literal string starting at operand `i`, and the index after it."""
        return literal_string(self, i)


@dataclass(frozen=True)
class SpirvBinary:
    version: tuple[int, int]
    generator: int
    bound: int
    instructions: list[Instruction]


def _words(data: bytes) -> array:
    if len(data) % 4:
        raise SpirvError(f"the module is {len(data)} bytes, not a whole number of 32-bit words")
    if len(data) < HEADER_WORDS * 4:
        raise SpirvError("the module is shorter than the 5-word SPIR-V header")
    words = array("I")
    words.frombytes(data)
    first = int.from_bytes(data[:4], "little")
    if words[0] != MAGIC:
        words.byteswap()
        if words[0] != MAGIC:
            raise SpirvError(f"not a SPIR-V module (magic number 0x{first:08x}, "
                             f"expected 0x{MAGIC:08x})", 0)
    return words


def parse_binary(data: bytes) -> SpirvBinary:
    words = _words(bytes(data))
    version = ((words[1] >> 16) & 0xFF, (words[1] >> 8) & 0xFF)
    if version not in SUPPORTED_VERSIONS or words[1] & 0xFF0000FF:
        raise SpirvError(f"unsupported SPIR-V version word 0x{words[1]:08x} "
                         f"(supported: 1.0 to 1.6)", 1)
    bound = words[3]
    if bound == 0 or bound > 1 << 22:
        raise SpirvError(f"invalid id bound {bound}", 3)
    if words[4] != 0:
        raise SpirvError(f"reserved header word (schema) is {words[4]}, expected 0", 4)
    return SpirvBinary(version, words[2], bound, _instructions(words))


def _instructions(words: array) -> list[Instruction]:
    out, i, n = [], HEADER_WORDS, len(words)
    while i < n:
        first = words[i]
        count, opcode = first >> 16, first & 0xFFFF
        if count == 0:
            raise SpirvError(f"instruction {opname(opcode)} has a word count of 0", i, opname(opcode))
        if i + count > n:
            raise SpirvError(f"instruction {opname(opcode)} of {count} words runs past the end "
                             f"of the module ({n} words)", i, opname(opcode))
        out.append(Instruction(opcode, tuple(words[i + 1:i + count]), i))
        i += count
    return out


def literal_string(instr: Instruction, start: int) -> tuple[str, int]:
    found = string_from_words(instr.operands, start)
    if found is None:
        raise instr.error("literal string is not nul-terminated valid UTF-8")
    return found


def string_from_words(words: tuple[int, ...], start: int) -> tuple[str, int] | None:
    """The nul-terminated UTF-8 string packed into `words` from `start`, and the index after
    it; None when it has no terminator or is not UTF-8."""
    raw = bytearray()
    for k in range(start, len(words)):
        raw += words[k].to_bytes(4, "little")
        end = raw.find(b"\0")
        if end >= 0:
            try:
                return raw[:end].decode("utf-8"), k + 1
            except UnicodeDecodeError:
                return None
    return None

