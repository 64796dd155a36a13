"""Program binaries and the headers of separate compilation (`Program.compile`).

An oclpy program binary is the program's body and the build options it was
built with, behind a one-line header:

    OCLPY-BINARY 2 {"type": "executable", "device": "cpu", "options": "-O2"}\\n<body>

The body is the preprocessed translation unit as UTF-8 text (every
`#include` and macro already expanded, with `#line` markers back to the
user's files), or an IL program's SPIR-V module, its bytes as they are. So
rebuilding needs nothing but the binary and gives the same kernels:
`Program(ctx, devices, binaries).build()`. Version 1 binaries (UTF-8 text
bodies; an IL program's module as the text of its bytes read as Latin-1) are
read too.

`Program.compile(options, devices, headers)` preprocesses the unit (headers
given as (name, Program) pairs are found by `#include "name"`; `header_sources`
checks them) and parses it, reporting syntax errors as
COMPILE_PROGRAM_FAILURE; its binary is a "compiled-object".
`link_program(ctx, programs)` (program.py) joins the compiled units' texts into
one and builds that (semantic errors, such as a function declared but defined
in no unit, surface there as LINK_PROGRAM_FAILURE). Units are joined as one
translation unit: two units that each define the same `static` function
clash, a limit of this linker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..compiler import units
from .errors import as_list, raise_cl, status_code

MAGIC = b"OCLPY-BINARY 2 "
MAGIC_V1 = b"OCLPY-BINARY 1 "
EXECUTABLE = "executable"
OBJECT = "compiled-object"
BINARY_TYPES = {OBJECT: 1, EXECUTABLE: 4}  # program_binary_type values


@dataclass(frozen=True)
class ProgramBinary:
    type: str  # EXECUTABLE or OBJECT
    device: str  # the device kind it was made for
    options: str
    body: bytes  # UTF-8 OpenCL C text, or a SPIR-V module

    def to_bytes(self) -> bytes:
        header = json.dumps({"type": self.type, "device": self.device, "options": self.options})
        return MAGIC + header.encode() + b"\n" + self.body

    @property
    def il(self) -> bytes | None:
        """The SPIR-V module of an IL program's binary, else None."""
        return self.body if units.is_spirv(self.body) else None

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def parse_binary(data: Any, routine: str = "clCreateProgramWithBinary") -> ProgramBinary:
    """A ProgramBinary from bytes, or LogicError INVALID_BINARY saying what is wrong."""
    try:
        raw = bytes(memoryview(data))
    except TypeError:
        raise_cl(routine, status_code.INVALID_BINARY,
                 f"a binary must be bytes, got {type(data).__name__}")
    if not raw.startswith((MAGIC, MAGIC_V1)):
        raise_cl(routine, status_code.INVALID_BINARY, "not an oclpy program binary")
    header, _, body = raw[len(MAGIC):].partition(b"\n")
    try:
        meta = json.loads(header)
        if not isinstance(meta, dict):
            raise TypeError(f"the header is a JSON {type(meta).__name__}, not an object")
        if raw.startswith(MAGIC_V1):  # a UTF-8 text body; IL as the text of its Latin-1 bytes
            text = body.decode("utf-8")
            body = text.encode("latin-1") if units.is_spirv(body) else body
        elif not units.is_spirv(body):
            body.decode("utf-8")
        binary = ProgramBinary(meta["type"], meta["device"], meta["options"], body)
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError) as exc:
        raise_cl(routine, status_code.INVALID_BINARY, f"corrupt oclpy program binary: {exc}")
    bad = [f for f in ("type", "device", "options") if not isinstance(getattr(binary, f), str)]
    if bad:
        raise_cl(routine, status_code.INVALID_BINARY,
                 f"corrupt oclpy program binary: field {bad[0]!r} is not a string")
    if binary.type not in BINARY_TYPES:
        raise_cl(routine, status_code.INVALID_BINARY, f"unknown binary type {binary.type!r}")
    return binary


def header_sources(headers: Any) -> dict[str, str]:
    """{include name: text} of `Program.compile`'s (name, Program or source) headers."""
    found: dict[str, str] = {}
    for item in as_list(headers, "clCompileProgram", status_code.INVALID_VALUE, "headers") if headers else []:
        try:
            name, program = item
        except (TypeError, ValueError):
            raise_cl("clCompileProgram", status_code.INVALID_VALUE,
                     f"headers are (name, Program) pairs, got {item!r}")
        text = program if isinstance(program, str) else getattr(program, "source", None)
        if not isinstance(text, str) or not isinstance(name, str):
            raise_cl("clCompileProgram", status_code.INVALID_VALUE,
                     f"header {name!r}: expected a name and a Program made from source")
        check_text(text, "clCompileProgram", f"header {name!r}")
        try:
            found[units.check_header_name(name)] = text
        except ValueError as exc:
            raise_cl("clCompileProgram", status_code.INVALID_VALUE, str(exc))
    return found


def check_text(text: str, routine: str, what: str) -> None:
    """INVALID_VALUE for text that is not Unicode text (lone surrogates cannot be UTF-8)."""
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"{what} is not valid Unicode text: {exc.reason} at character {exc.start}")
