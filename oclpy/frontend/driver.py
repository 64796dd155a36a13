"""The frontend driver: OpenCL C source to an IR module.

`compile_to_ir(source, options, filename, layout)` chains build options ->
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
from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence, TypeVar, Union

from ..diagnostics import CompileError, DiagnosticEngine, SourceLocation, TooManyErrors
from ..ir.datalayout import CPU_LAYOUT, DataLayout
from ..ir.values import Module
from .c.c_types import CType
from .options import BuildOptions, InvalidBuildOptions, parse_build_options
from .c.sema.analyzer import analyze
from .c.preprocess import preprocess
from .c.c_parser import parse
from .c.extension_pragmas import ExtensionPragmas, extension_pragmas
from .c.lower.unit import lower
from .c.builtins.cl20_atomics import atomic_type_names
from .c.builtins.images import LIBRARY_NAME, library_source, wants_images


# The frontend's walkers recurse over the AST; a kernel with a 10,000-term
# expression is a left-deep tree 10,000 levels down. The stages run in a worker
# thread whose stack and recursion limit are sized to the source: Python frames
# live on the heap, but a level of recursion through C (a builtin calling back
# into Python) costs up to about a kilobyte of C stack, so the recursion limit
# is the stack's size over _BYTES_PER_LEVEL. A source of n bytes nests at most
# about n frames deep (a 10,000-term expression is 70 kB), so a small kernel
# gets a small stack (virtual address space is what concurrent builds under
# `ulimit -v` run out of) and only a large source a large one. When the thread
# cannot start (no address space left), the build retries on smaller stacks,
# and last on the calling thread; a build whose recursion still runs out
# retries once on the largest stack, then is a diagnostic.
_MIN_STACK_BYTES = 32 << 20
_MAX_STACK_BYTES = 512 << 20
_SMALLEST_STACK_BYTES = 4 << 20
_BYTES_PER_LEVEL = 2048
_limit_lock = threading.Lock()
_active_limits: dict[int, int] = {}  # recursion limit -> builds running with it
_saved_limit = 0

_T = TypeVar("_T")


def stack_bytes_for(source_size: int) -> int:
    """The worker stack for a source of `source_size` bytes (see above)."""
    want = max(_MIN_STACK_BYTES, source_size * _BYTES_PER_LEVEL)
    return min(_MAX_STACK_BYTES, (want + (1 << 20) - 1) & ~((1 << 20) - 1))


def _raise_recursion_limit(limit: int) -> None:
    """The process's recursion limit (one for all threads) is the largest any build needs."""
    global _saved_limit
    with _limit_lock:
        if not _active_limits:
            _saved_limit = sys.getrecursionlimit()
        _active_limits[limit] = _active_limits.get(limit, 0) + 1
        sys.setrecursionlimit(max(_saved_limit, *_active_limits))


def _restore_recursion_limit(limit: int) -> None:
    with _limit_lock:
        _active_limits[limit] -= 1
        if not _active_limits[limit]:
            del _active_limits[limit]
        sys.setrecursionlimit(max(_saved_limit, *_active_limits) if _active_limits else _saved_limit)


def run_with_deep_stack(fn: Callable[[], _T], stack_bytes: int = _MAX_STACK_BYTES) -> _T:
    """Run `fn()` in a thread with a `stack_bytes` stack (less when that cannot be had)
    and a recursion limit to match; return its result or re-raise its exception."""
    result: list[_T] = []
    error: list[BaseException] = []

    def work(limit: int) -> None:
        _raise_recursion_limit(limit)
        try:
            result.append(fn())
        except BaseException as exc:  # handed back to the caller below
            error.append(exc)
        finally:
            _restore_recursion_limit(limit)

    size = stack_bytes
    while size >= _SMALLEST_STACK_BYTES:
        worker = _start_worker(work, size)
        if worker is not None:
            worker.join()
            break
        size //= 2
    else:  # no thread at all: the calling thread's stack and recursion limit
        try:
            result.append(fn())
        except BaseException as exc:
            error.append(exc)
    if error:
        raise error[0]
    return result[0]


def _start_worker(work: Callable[[int], None], size: int) -> threading.Thread | None:
    """A started worker thread with a `size`-byte stack, or None when none can start."""
    with _limit_lock:
        try:
            old_size = threading.stack_size(size)
        except (ValueError, RuntimeError):
            return None
        try:
            worker = threading.Thread(target=work, args=(size // _BYTES_PER_LEVEL,),
                                      name="oclpy-frontend", daemon=True)
            worker.start()
        except (RuntimeError, MemoryError):  # "can't start new thread": no address space
            return None
        finally:
            threading.stack_size(old_size)
    return worker


@dataclass
class FrontendResult:
    module: Module
    log: str  # warnings (empty when there were none)


def _preprocess(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> str:
    return preprocess(source, filename, options, diags)


def _image_library(options: BuildOptions) -> str:
    """The image builtins, preprocessed without the user's -D macros (they name the user's things)."""
    plain = replace(options, defines={}, include_dirs=[])
    quiet = DiagnosticEngine({LIBRARY_NAME: library_source()})
    return preprocess(library_source(), LIBRARY_NAME, plain, quiet)


def version_type_names(options: BuildOptions) -> dict[str, CType]:
    """Predefined type names beyond OpenCL C 1.2's: CL2.0's atomic types."""
    return atomic_type_names() if options.opencl_c_version >= 200 else {}


def _front(source: str, filename: str, options: BuildOptions, diags: DiagnosticEngine) -> Optional[Module]:
    text = _preprocess(source, filename, options, diags)
    if diags.has_errors:
        return None
    if wants_images(text):
        text = _image_library(options) + text
    tu = parse(text, filename, diags, version_type_names(options), options.opencl_c_version,
               options.size_rules)
    pragmas = extension_pragmas(text, filename)
    if diags.has_errors:
        _check_after_syntax_errors(tu, options, diags, pragmas)
        return None
    analyze(tu, options, diags, pragmas)
    if diags.has_errors:
        return None
    return lower(tu, options)


def _check_after_syntax_errors(tu: object, options: BuildOptions, diags: DiagnosticEngine,
                               pragmas: ExtensionPragmas) -> None:
    """Semantic checks of what the parser recovered, as clang does after a syntax
    error, so one build reports the later errors too. The build has failed
    already: should sema trip over a half-parsed construct, the syntax errors
    stand alone (they are the cause) rather than an internal error."""
    try:
        analyze(tu, options, diags, pragmas)  # type: ignore[arg-type]
    except TooManyErrors:
        raise
    except Exception:  # a consequence of the recovered syntax error, not news to the user
        pass
    finally:  # the lexer's, the parser's and sema's diagnostics in translation order, as clang's
        diags.diagnostics.sort(key=lambda d: (pragmas.place(d.loc), d.loc.col))


def _fresh_diagnostics(old: DiagnosticEngine, source: str, filename: str) -> DiagnosticEngine:
    diags = DiagnosticEngine({filename: source})
    diags.warnings_as_errors = old.warnings_as_errors
    diags.suppress_warnings = old.suppress_warnings
    return diags


def compile_to_ir(source: str, options: Union[str, Sequence[str], BuildOptions, None] = "",
                  filename: str = "<kernel>", layout: DataLayout = CPU_LAYOUT) -> FrontendResult:
    """Compile OpenCL C `source` to an IR module for a target of DataLayout `layout` (sizes
    of pointers and of what holds them), or raise `CompileError(log)`."""
    diags = DiagnosticEngine({filename: source})
    try:
        opts = options if isinstance(options, BuildOptions) else parse_build_options(options)
    except InvalidBuildOptions as exc:
        raise CompileError(f"error: {exc}\n1 error generated.\n") from None
    if opts.layout is not layout:
        opts = replace(opts, layout=layout)
    diags.warnings_as_errors = opts.warnings_as_errors
    diags.suppress_warnings = opts.suppress_warnings
    module: Optional[Module] = None
    stack = stack_bytes_for(len(source))
    try:
        try:
            module = run_with_deep_stack(lambda: _front(source, filename, opts, diags), stack)
        except RecursionError:
            if stack >= _MAX_STACK_BYTES:
                raise
            diags = _fresh_diagnostics(diags, source, filename)  # again, on the largest stack
            module = run_with_deep_stack(lambda: _front(source, filename, opts, diags))
    except TooManyErrors:
        pass
    except CompileError:
        raise
    except RecursionError:
        diags.error(SourceLocation(filename, 0, 0), "the program nests too deeply to compile")
    except Exception as exc:  # a bug in the compiler: report it, never a traceback
        where = traceback.extract_tb(exc.__traceback__)[-1]
        detail = f"{type(exc).__name__}: {exc} (at {where.filename.rsplit('/', 1)[-1]}:{where.lineno})"
        diags.error(SourceLocation(filename, 0, 0), f"internal compiler error: {detail}")
    if diags.has_errors or module is None:
        raise CompileError(diags.render())
    return FrontendResult(module, diags.render())
