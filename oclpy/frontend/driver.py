"""The frontend driver: OpenCL C source to an IR module.

`compile_to_ir(source, options, filename)` chains build options ->
preprocess -> parse -> sema -> lower and returns `FrontendResult(module, log)`
(the log holds any warnings). Any error reported by a stage raises
`diagnostics.CompileError(log)` with the clang-style build log; a Python
exception escaping a stage is a compiler bug, reported as
`error: internal compiler error: ...` inside a CompileError, never a traceback.
"""

from __future__ import annotations

import sys
import threading
import traceback
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, TypeVar, Union

from ..diagnostics import CompileError, DiagnosticEngine, SourceLocation, TooManyErrors
from ..ir.values import Module
from .cltypes import CType
from .options import BuildOptions, InvalidBuildOptions, parse_build_options


# The frontend's walkers recurse over the AST; a kernel with a 1,500-term
# expression is a left-deep tree 1,500 levels down. The stages run in a worker
# thread with a large stack and a raised recursion limit, so such kernels build;
# the parser bounds nesting (brackets, operand chains) well inside these limits.
_WORKER_STACK_BYTES = 512 * 1024 * 1024
_WORKER_RECURSION_LIMIT = 200_000
_limit_lock = threading.Lock()
_limit_users = 0
_saved_limit = 0

_T = TypeVar("_T")


def _raise_recursion_limit() -> None:
    global _limit_users, _saved_limit
    with _limit_lock:
        if _limit_users == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, _WORKER_RECURSION_LIMIT))
        _limit_users += 1


def _restore_recursion_limit() -> None:
    global _limit_users
    with _limit_lock:
        _limit_users -= 1
        if _limit_users == 0:
            sys.setrecursionlimit(_saved_limit)


def run_with_deep_stack(fn: Callable[[], _T]) -> _T:
    """Run `fn()` in a thread with a large stack and a raised recursion limit;
    return its result or re-raise its exception in the caller."""
    result: list[_T] = []
    error: list[BaseException] = []

    def work() -> None:
        _raise_recursion_limit()
        try:
            result.append(fn())
        except BaseException as exc:  # handed back to the caller below
            error.append(exc)
        finally:
            _restore_recursion_limit()

    with _limit_lock:
        old_size = threading.stack_size(_WORKER_STACK_BYTES)
        try:
            worker = threading.Thread(target=work, name="oclpy-frontend", daemon=True)
            worker.start()
        finally:
            threading.stack_size(old_size)
    worker.join()
    if error:
        raise error[0]
    return result[0]


@dataclass
class FrontendResult:
    module: Module
    log: str  # warnings (empty when there were none)


def _preprocess(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> str:
    from .preprocess import preprocess
    return preprocess(source, filename, options, diags)


def version_type_names(options: BuildOptions) -> dict[str, CType]:
    """Predefined type names beyond OpenCL C 1.2's: CL2.0's atomic types."""
    from .cl20_atomics import atomic_type_names
    return atomic_type_names() if options.opencl_c_version >= 200 else {}


def _front(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> Optional[Module]:
    from .lower import lower
    from .parser import parse
    from .sema import analyze
    text = _preprocess(source, filename, options, diags)
    if diags.has_errors:
        return None
    tu = parse(text, filename, diags, version_type_names(options), options.opencl_c_version)
    if diags.has_errors:
        _check_after_syntax_errors(tu, options, diags)
        return None
    analyze(tu, options, diags)
    if diags.has_errors:
        return None
    return lower(tu, options)


def _check_after_syntax_errors(tu: object, options: BuildOptions, diags: DiagnosticEngine) -> None:
    """Semantic checks of what the parser recovered, as clang does after a syntax
    error, so one build reports the later errors too. The build has failed
    already: should sema trip over a half-parsed construct, the syntax errors
    stand alone (they are the cause) rather than an internal error."""
    from .sema import analyze
    parse_diags = len(diags.diagnostics)
    try:
        analyze(tu, options, diags)  # type: ignore[arg-type]
    except TooManyErrors:
        raise
    except Exception:  # a consequence of the recovered syntax error, not news to the user
        pass
    finally:
        if len(diags.diagnostics) > parse_diags:  # report in source order, as clang does
            diags.diagnostics.sort(key=lambda d: (d.loc.file, d.loc.line, d.loc.col))


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
        module = run_with_deep_stack(lambda: _front(source, filename, opts, diags))
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
