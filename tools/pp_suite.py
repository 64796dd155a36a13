"""A preprocessor conformance suite, used as data, against clang -E (tools/pp_compare.py).

    python tools/pp_suite.py fetch     materialise the pinned suite under $OCLPY_PP_SUITE_DIR
    python tools/pp_suite.py [run]     compare oclpy's token stream with clang's on every test

The suite is Boost.Wave's test files (test/testwave/testfiles), whose
t_5_*.cpp and t_6_*.cpp began as mcpp's validation suite (n.*.c and e.*.c)
and the rest add C99 and C++ cases. Nothing of it is vendored: `fetch`
takes the pinned commit's files from a local mirror, else git (as
tools/corpus/fetch.py does for the corpus), into `$OCLPY_PP_SUITE_DIR`
(default ~/.cache/oclpy-pp-suite).

Each test's `//O` lines are Wave's options: `-D`, and `-I`/`-S` (user and
system include folders, `$P(dir)` relative to the test) pass on to both
preprocessors; a test that asks for C++ (`--c++11`, `--c++17`,
`--c++20`) is skipped, OpenCL C being C99's preprocessor. Wave's own
expected output (`//R`) is not checked: clang is the reference.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.corpus.fetch import fetch_project  # noqa: E402
from tools.corpus.manifest import Project, project_root  # noqa: E402
from tools.pp_compare import CLANG_NAMES, Job, find_clang, report  # noqa: E402

SUITE = Project(name="boost-wave-testfiles", repo="boostorg/wave", commit="74b1ef6609cf26499ef74334951fe243714a4667",
                licence="BSL-1.0 (the mcpp-derived tests: BSD-2-Clause)", domain="preprocessor tests",
                kernels=["test/testwave/testfiles/**"])
TESTS = "test/testwave/testfiles"
CXX_ONLY = ("--c++11", "--c++17", "--c++20")
_OPTION = re.compile(r"^//O[ \t]+(\S+)", re.M)


def suite_dir() -> Path:
    return Path(os.environ.get("OCLPY_PP_SUITE_DIR", Path.home() / ".cache" / "oclpy-pp-suite"))


def tests_dir(root: Path | None = None) -> Path:
    return project_root(root or suite_dir(), SUITE) / TESTS


def options_of(text: str, directory: Path) -> tuple[list[str], str]:
    """(build options, reason to skip or "") from a test's `//O` lines."""
    options = []
    for word in _OPTION.findall(text):
        if word in CXX_ONLY:
            return [], f"C++ only ({word})"
        if word.startswith("-D"):
            options.append(word)
        elif word[:2] in ("-I", "-S"):  # -S: Wave's system include path
            folder = word[5:-1] if word[2:].startswith("$P(") and word.endswith(")") else word[2:]
            options.append(f"-I{directory / folder}")
    return options, ""


def suite_jobs(root: Path | None = None) -> tuple[list[Job], list[tuple[str, str]]]:
    """(the tests to compare, (name, reason) of those skipped)."""
    jobs, skipped = [], []
    for path in sorted(tests_dir(root).glob("t_*.cpp")):
        options, reason = options_of(path.read_text(errors="replace"), path.parent)
        if reason:
            skipped.append((path.name, reason))
        else:
            jobs.append(Job(path.name, path, options))
    return jobs, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", default="run", choices=["fetch", "run"])
    parser.add_argument("--clang", default=None, help="the clang to run (default: as tools/pp_compare.py)")
    parser.add_argument("--diags", action="store_true", help="compare diagnostics as well")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        return 0 if fetch_project(SUITE, suite_dir()) else 1
    if not tests_dir().is_dir():
        print(f"pp_suite: no suite under {suite_dir()}; run `python tools/pp_suite.py fetch`", file=sys.stderr)
        return 2
    clang = args.clang or find_clang()
    if clang is None:
        print("pp_suite: no clang found (tried %s)" % ", ".join(CLANG_NAMES), file=sys.stderr)
        return 2
    jobs, skipped = suite_jobs()
    for name, reason in skipped:
        print(f"SKIPPED {name}: {reason}")
    return report(clang, jobs, args.diags, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
