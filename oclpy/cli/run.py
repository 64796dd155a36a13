"""`oclpy run`: run a Python program with `import pyopencl` answered by oclpy.

    oclpy run SCRIPT [ARGS...]       as `python SCRIPT ARGS...`
    oclpy run -m MODULE [ARGS...]    as `python -m MODULE ARGS...` (`oclpy run -m pytest`)
    oclpy run -c CODE [ARGS...]      as `python -c CODE ARGS...`

`oclpy.as_pyopencl.install()` goes first, then the program runs in this
process as `__main__`, with `sys.argv` and `sys.path[0]` as Python would set
them (the script's folder; the current folder for -m and -c), as
`coverage run` does. The exit status is the program's (`sys.exit(n)`, 1 for an
uncaught exception, whose traceback is printed as Python prints it).
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys
import traceback
from types import ModuleType
from typing import Sequence

from .. import as_pyopencl

USAGE = "usage: oclpy run SCRIPT [ARGS...] | -m MODULE [ARGS...] | -c CODE [ARGS...]"


class UsageError(Exception):
    """The command line names no program to run."""


def parse(argv: Sequence[str]) -> tuple[str, str, list[str]]:
    """(kind: 'script' | 'module' | 'code', what, sys.argv for the program)."""
    args = list(argv)
    if not args or args[0] in ("-h", "--help"):
        raise UsageError(USAGE)
    if args[0] in ("-m", "-c"):
        if len(args) < 2:
            raise UsageError(f"oclpy run: error: {args[0]} needs an argument\n{USAGE}")
        kind = "module" if args[0] == "-m" else "code"
        program_argv = [args[0] if kind == "code" else args[1], *args[2:]]
        return kind, args[1], program_argv
    if args[0].startswith("-"):
        raise UsageError(f"oclpy run: error: unknown option {args[0]}\n{USAGE}")
    return "script", args[0], list(args)


def _exit_status(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _run_code(code: str) -> None:
    main = ModuleType("__main__")
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(compile(code, "<string>", "exec"), main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _print_program_error(exc: BaseException) -> None:
    """The traceback from the program's first frame on (not this module's nor runpy's)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in (__file__, runpy.__file__, "<frozen runpy>"):
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb)


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a parent package is missing
        return False


def run_program(kind: str, what: str, program_argv: list[str]) -> int:
    """Run the program with `pyopencl` answered by oclpy; its exit status."""
    if kind == "script" and not os.path.exists(what):
        print(f"oclpy run: error: can't open file '{what}': no such file", file=sys.stderr)
        return 2
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = program_argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(what)) if kind == "script" else os.getcwd())
    as_pyopencl.install()
    try:
        if kind == "module" and not _module_exists(what):
            print(f"oclpy run: error: no module named '{what}'", file=sys.stderr)
            return 1
        if kind == "script":
            runpy.run_path(what, run_name="__main__")
        elif kind == "module":
            runpy.run_module(what, run_name="__main__", alter_sys=True)
        else:
            _run_code(what)
    except SystemExit as exc:
        return _exit_status(exc)
    except BaseException as exc:  # the program's own uncaught exception, reported as Python would
        _print_program_error(exc)
        return 1
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return 0


def main(argv: Sequence[str]) -> int:
    try:
        kind, what, program_argv = parse(argv)
    except UsageError as exc:
        print(exc, file=sys.stderr)
        return 2
    return run_program(kind, what, program_argv)
