"""SPIR-V binary -> verified IR module: the SPIR-V frontend's one entry point.

`compile_spirv(data, options, filename, layout) -> FrontendResult` parses the
binary, validates its structure (`validate.py`), reads the module layout,
translates it with the target's DataLayout and runs the IR verifier.
Malformed or unsupported input raises `CompileError` whose log is one line,
`<file>: error: SPIR-V word N (OpFoo): <what is wrong>`; a Python exception
escaping from the reader is reported the same way as an internal error,
never as a traceback.
"""

from __future__ import annotations

import traceback

from ...diagnostics import CompileError
from ...ir.datalayout import CPU_LAYOUT, DataLayout
from ...ir.verifier import VerifyError, verify_module
from ..driver import FrontendResult
from ..options import InvalidBuildOptions, parse_build_options
from .binary import MAGIC, parse_binary
from .spirv_errors import SpirvError
from .reader import read_module
from .translate import translate
from .validate import validate

MAGIC_BYTES = (MAGIC.to_bytes(4, "little"), MAGIC.to_bytes(4, "big"))


def is_spirv(data: bytes | str) -> bool:
    """Whether `data` starts with the SPIR-V magic number (either byte order). A str is
    taken as bytes decoded as Latin-1 (how the runtime carries IL through text caches)."""
    if isinstance(data, str):
        return any(data.startswith(magic.decode("latin-1")) for magic in MAGIC_BYTES)
    return bytes(data[:4]) in MAGIC_BYTES


def compile_spirv(data: bytes, options: str = "", filename: str = "<spirv>",
                  layout: DataLayout = CPU_LAYOUT) -> FrontendResult:
    """Translate a SPIR-V module to IR, or raise `CompileError(log)`."""
    try:
        parse_build_options(options)
    except InvalidBuildOptions as exc:
        raise CompileError(f"error: {exc}\n1 error generated.\n") from None
    try:
        binary = parse_binary(data)
        validate(binary)
        module = translate(read_module(binary), layout)
        verify_module(module, layout)
    except SpirvError as exc:
        raise CompileError(exc.render(filename)) from None
    except VerifyError as exc:
        problems = "; ".join(exc.problems[:3])
        raise CompileError(f"{filename}: error: the SPIR-V module does not translate to valid IR: "
                           f"{problems}\n") from None
    except RecursionError:
        raise CompileError(f"{filename}: error: the SPIR-V module nests too deeply\n") from None
    except Exception as exc:  # a bug in the reader: reported, never a traceback
        where = traceback.extract_tb(exc.__traceback__)[-1]
        raise CompileError(f"{filename}: error: internal compiler error: {type(exc).__name__}: "
                           f"{exc} (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})\n") from None
    return FrontendResult(module, "")
