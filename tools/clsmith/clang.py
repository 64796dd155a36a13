"""clang-14 as a quick judge of OpenCL C: does a kernel parse, and without the
warnings that mark undefined behaviour?

PoCL compiles with clang too, so a kernel clang-14 rejects is one PoCL
rejects; `clang_accepts` answers in a quarter of a second where a PoCL
build takes seconds. Used to tell a kernel oclpy fails to build from an
invalid one without running PoCL (`check.py`), and to keep reductions free
of the undefined behaviour a deletion can introduce (`oracle.py`), with the
static analyzer's reports of uninitialized reads (`uninitialized_reads`).
clang runs in its own session, so that a Ctrl-C meant for the run does not
kill it and read as a rejected kernel.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile

CLANG = shutil.which("clang-14") or shutil.which("clang")
UB_WARNINGS = ("uninitialized", "sometimes-uninitialized", "return-type", "implicit-function-declaration",
               "implicit-int", "int-conversion", "incompatible-pointer-types", "array-bounds", "shift-count-overflow",
               "shift-count-negative", "division-by-zero")

# warnings that clang 15 (int-conversion) and 16 made errors by default, -w or not: a kernel
# with one is rejected by today's clang and by a PoCL built on it, though clang-14 builds it
NEWER_ERRORS = ("int-conversion", "incompatible-function-pointer-types")


def clang_check(source: str, include_dir: str, errors: tuple[str, ...] = ()) -> tuple[bool, str]:
    """(accepted, clang's messages) for `source` as OpenCL C 1.2, with the given warnings
    made errors; (True, "") where no clang is installed."""
    if CLANG is None:
        return True, ""
    with tempfile.NamedTemporaryFile("w", suffix=".cl") as f:
        f.write(source)
        f.flush()
        cmd = [CLANG, "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header", "-fsyntax-only",
               # -w would silence the -Werror= warnings too; -Wno-everything leaves them on
               "-Wno-everything", "-I", include_dir, *[f"-Werror={w}" for w in errors], f.name]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, start_new_session=True)
        return proc.returncode == 0, proc.stderr


def clang_accepts(source: str, include_dir: str, errors: tuple[str, ...] = ()) -> bool:
    return clang_check(source, include_dir, errors)[0]


_GARBAGE = re.compile(r"uninitialized|garbage|undefined", re.I)


def uninitialized_reads(source: str, include_dir: str) -> list[str]:
    """The clang static analyzer's reports of uninitialized values read (which
    -Wuninitialized misses in structs and through pointers); [] without clang."""
    if CLANG is None:
        return []
    with tempfile.NamedTemporaryFile("w", suffix=".cl") as f:
        f.write(source)
        f.flush()
        cmd = [CLANG, "--analyze", "-x", "cl", "-cl-std=CL1.2", "-Xclang", "-finclude-default-header",
               "-Xclang", "-analyzer-checker=core", "-I", include_dir, "-o", "/dev/null", f.name]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, start_new_session=True)
        except subprocess.TimeoutExpired:
            return ["analyzer timed out"]
        return [ln for ln in proc.stderr.splitlines() if "warning:" in ln and _GARBAGE.search(ln)]
