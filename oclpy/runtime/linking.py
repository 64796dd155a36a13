"""Program binaries, separate compilation (`Program.compile`) and `link_program`.

An oclpy program binary is the preprocessed translation unit and the build
options it was built with, behind a one-line header:

    OCLPY-BINARY 1 {"type": "executable", "device": "cpu", "options": "-O2"}\\n<text>

The text has every `#include` and macro already expanded (with `#line`
markers back to the user's files), so rebuilding it needs nothing but the
binary and gives the same kernels: `Program(ctx, devices, binaries).build()`.

`Program.compile(options, devices, headers)` preprocesses the unit (headers
given as (name, Program) pairs are found by `#include "name"`) and parses it,
reporting syntax errors as COMPILE_PROGRAM_FAILURE; its binary is a
"compiled-object". `link_program(ctx, programs)` joins the compiled units'
texts into one and builds that (semantic errors, such as a function declared
but defined in no unit, surface here as LINK_PROGRAM_FAILURE). Units are
joined as one translation unit: two units that each define the same
`static` function clash, a limit of this linker.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from typing import Any, Sequence

from .errors import as_list, make_error, raise_cl, status_code

MAGIC = b"OCLPY-BINARY 1 "
EXECUTABLE = "executable"
OBJECT = "compiled-object"
BINARY_TYPES = {OBJECT: 1, EXECUTABLE: 4}  # program_binary_type values


@dataclass(frozen=True)
class ProgramBinary:
    type: str  # EXECUTABLE or OBJECT
    device: str  # the device kind it was made for
    options: str
    text: str

    def to_bytes(self) -> bytes:
        header = json.dumps({"type": self.type, "device": self.device, "options": self.options})
        return MAGIC + header.encode() + b"\n" + self.text.encode("utf-8")


def parse_binary(data: Any, routine: str = "clCreateProgramWithBinary") -> ProgramBinary:
    """A ProgramBinary from bytes, or LogicError INVALID_BINARY saying what is wrong."""
    try:
        raw = bytes(memoryview(data))
    except TypeError:
        raise_cl(routine, status_code.INVALID_BINARY,
                 f"a binary must be bytes, got {type(data).__name__}")
    if not raw.startswith(MAGIC):
        raise_cl(routine, status_code.INVALID_BINARY, "not an oclpy program binary")
    header, _, body = raw[len(MAGIC):].partition(b"\n")
    try:
        meta = json.loads(header)
        binary = ProgramBinary(meta["type"], meta["device"], meta["options"], body.decode("utf-8"))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise_cl(routine, status_code.INVALID_BINARY, f"corrupt oclpy program binary: {exc}")
    if binary.type not in BINARY_TYPES:
        raise_cl(routine, status_code.INVALID_BINARY, f"unknown binary type {binary.type!r}")
    return binary


def _header_dir(headers: Any, folder: str) -> None:
    """Write each (name, Program or source) header into `folder` for #include."""
    for item in as_list(headers, "clCompileProgram", status_code.INVALID_VALUE, "headers"):
        try:
            name, program = item
        except (TypeError, ValueError):
            raise_cl("clCompileProgram", status_code.INVALID_VALUE,
                     f"headers are (name, Program) pairs, got {item!r}")
        text = program if isinstance(program, str) else getattr(program, "source", None)
        if not isinstance(text, str) or not isinstance(name, str):
            raise_cl("clCompileProgram", status_code.INVALID_VALUE,
                     f"header {name!r}: expected a name and a Program made from source")
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def preprocess_unit(source: str, options: str, headers: Any = None, parse: bool = False,
                    filename: str = "<kernel>") -> tuple[str, str]:
    """(preprocessed text, log) of one unit; raises CompileError with the log on errors."""
    from ..diagnostics import CompileError, DiagnosticEngine
    from ..frontend.options import parse_build_options
    from ..frontend.c.parser import parse as parse_text
    from ..frontend.c.preprocess import preprocess

    with tempfile.TemporaryDirectory(prefix="oclpy-headers-") as folder:
        opts = parse_build_options(options)
        if headers:
            _header_dir(headers, folder)
            opts.include_dirs.insert(0, folder)
        diags = DiagnosticEngine({filename: source})
        text = preprocess(source, filename, opts, diags)
        if parse and not diags.has_errors:
            parse_text(text, filename, diags)
    if diags.has_errors:
        raise CompileError(diags.render())
    return text, diags.render()


def strip_source_options(options: str) -> str:
    """The options that still mean something for preprocessed text (no -D, -I)."""
    from ..frontend.options import parse_build_options

    words = parse_build_options(options).raw
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-D", "-I"):
            skip = True
            continue
        if word[:2] not in ("-D", "-I"):
            kept.append(word)
    return " ".join(kept)


def link_programs(context: Any, programs: Sequence[Any], options: Any = "",
                  devices: Sequence[Any] | None = None) -> Any:
    """clLinkProgram: one executable Program from compiled ones."""
    from .program import Program, normalize_options

    routine = "clLinkProgram"
    units = as_list(programs, routine, status_code.INVALID_VALUE, "programs")
    if not units:
        raise_cl(routine, status_code.INVALID_VALUE, "no programs to link")
    texts = []
    for unit in units:
        if not isinstance(unit, Program) or unit.context is not context:
            raise_cl(routine, status_code.INVALID_PROGRAM,
                     f"{unit!r} is not a Program of this context")
        text = unit.object_text()
        if text is None:
            raise_cl(routine, status_code.INVALID_PROGRAM,
                     f"{unit!r} was not compiled (call .compile() first) nor made from a "
                     f"compiled-object binary")
        texts.append(text)
    linked = Program(context, "\n".join(texts))
    try:
        return linked.build(normalize_options(options), devices)
    except Exception as exc:
        code = getattr(exc, "code", None)
        if code == status_code.BUILD_PROGRAM_FAILURE:
            what = str(exc.what).replace("clBuildProgram", routine).replace(
                "BUILD_PROGRAM_FAILURE", "LINK_PROGRAM_FAILURE")
            raise make_error(routine, status_code.LINK_PROGRAM_FAILURE, what) from None
        raise
