"""`oclpy check`: run a Python program with every kernel checked on the simt device.

    oclpy check python app.py [ARGS...]     (also: -m MODULE, -c CODE; `python` may be left out)

The program runs unchanged in this process (as `oclpy run` runs it, with
`import pyopencl` answered by oclpy), with `OCLPY_CHECK=1` and
`OCLPY_DEVICE=simt`: every launch runs under the checker, each report is
printed to stderr as it is found, and a summary follows at the end. The exit
status is the program's when it failed, else 1 when anything was found, else 0.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from ..runtime import checking
from .run import UsageError, parse, run_program

USAGE = "usage: oclpy check python SCRIPT [ARGS...] | python -m MODULE [ARGS...] | python -c CODE [ARGS...]"


def strip_python(argv: Sequence[str]) -> list[str]:
    """The program's part of the command line: a leading `python` (or python3, a path to one) dropped."""
    args = list(argv)
    if args and os.path.basename(args[0]).startswith("python") and not args[0].endswith(".py"):
        args = args[1:]
    return args


def main(argv: Sequence[str]) -> int:
    try:
        kind, what, program_argv = parse(strip_python(argv))
    except UsageError as exc:
        first = str(exc).splitlines()[0]
        error = first.replace("oclpy run:", "oclpy check:", 1) + "\n" if first.startswith("oclpy run: error") else ""
        print(error + USAGE, file=sys.stderr)
        return 2
    if kind == "script" and not os.path.exists(what):
        print(f"oclpy check: error: can't open file '{what}': no such file", file=sys.stderr)
        return 2
    os.environ["OCLPY_DEVICE"] = "simt"
    checking.enable(summary_at_exit=False)
    status = run_program(kind, what, program_argv)
    found = checking.reports()
    checking.print_summary()
    if status:
        return status
    return 1 if found else 0
