"""The frontend driver: OpenCL C source to an IR module.

`compile_to_ir(source, options, filename)` chains build options ->
preprocess -> parse -> sema -> lower and returns `FrontendResult(module, log)`
(the log holds any warnings). Any error reported by a stage raises
`diagnostics.CompileError(log)` with the clang-style build log; a Python
exception escaping a stage is a compiler bug, reported as
`error: internal compiler error: ...` inside a CompileError, never a traceback.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Optional, Sequence, Union

from ..diagnostics import CompileError, DiagnosticEngine, SourceLocation, TooManyErrors
from ..ir.values import Module
from .options import BuildOptions, InvalidBuildOptions, parse_build_options


@dataclass
class FrontendResult:
    module: Module
    log: str  # warnings (empty when there were none)


def _preprocess(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> str:
    from .preprocess import preprocess
    return preprocess(source, filename, options, diags)


def _front(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> Optional[Module]:
    from .lower import lower
    from .parser import parse
    from .sema import analyze
    text = _preprocess(source, filename, options, diags)
    if diags.has_errors:
        return None
    tu = parse(text, filename, diags)
    if diags.has_errors:
        return None
    analyze(tu, options, diags)
    if diags.has_errors:
        return None
    return lower(tu, options)


def compile_to_ir(source: str, options: Union[str, Sequence[str], BuildOptions, None] = "",
                  filename: str = "<kernel>") -> FrontendResult:
    """Compile OpenCL C `source` to an IR module, or raise `CompileError(log)`."""
    diags = DiagnosticEngine({filename: source})
    try:
        opts = options if isinstance(options, BuildOptions) else parse_build_options(options)
    except InvalidBuildOptions as exc:
        raise CompileError(f"error: {exc}\n1 error generated.\n") from None
    diags.warnings_as_errors = opts.warnings_as_errors
    diags.suppress_warnings = opts.suppress_warnings
    module: Optional[Module] = None
    try:
        module = _front(source, filename, opts, diags)
    except TooManyErrors:
        pass
    except CompileError:
        raise
    except Exception as exc:  # a bug in the compiler: report it, never a traceback
        where = traceback.extract_tb(exc.__traceback__)[-1]
        detail = f"{type(exc).__name__}: {exc} (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})"
        diags.error(SourceLocation(filename, 0, 0), f"internal compiler error: {detail}")
    if diags.has_errors or module is None:
        raise CompileError(diags.render())
    return FrontendResult(module, diags.render())
