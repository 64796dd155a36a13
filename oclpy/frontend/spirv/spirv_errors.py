"""The SPIR-V reader's one error: where in the binary, which opcode, what is wrong.

Rendered as `<file>: error: SPIR-V word 123 (OpFoo): <message>`, the build-log
line the runtime shows for malformed or unsupported modules.
"""

from __future__ import annotations


class SpirvError(Exception):
    """Malformed or unsupported SPIR-V. `word` is the offset (in 32-bit words) of the
    instruction at fault, or None for the module as a whole."""

    def __init__(self, message: str, word: int | None = None, opname: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.word = word
        self.opname = opname

    def render(self, filename: str) -> str:
        where = ""
        if self.word is not None:
            where = f"SPIR-V word {self.word}" + (f" ({self.opname})" if self.opname else "") + ": "
        return f"{filename}: error: {where}{self.message}\n"
