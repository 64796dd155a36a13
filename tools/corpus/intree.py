"""The kernels of oclpy's own test tree, as corpus cases.

Two kinds: `tests/**/*.cl` files, and OpenCL C source embedded in the tests
as Python string literals (a plain literal holding `__kernel` or
`kernel void`; f-strings and concatenations are skipped, their text is not
known until the test runs). A case id is `tests:<path>` or
`tests:<path>:<line>` for a literal starting on that line.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from .manifest import DEFAULT_STD, Case

ROOT = Path(__file__).resolve().parents[2]
_KERNEL = re.compile(r"\b(__kernel|kernel)\s+void\b")
_STD = re.compile(r"-cl-std=(CL\d\.\d)")


def _literals(path: Path) -> list[tuple[int, str]]:
    try:
        tree = ast.parse(path.read_text())
    except (SyntaxError, UnicodeDecodeError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _KERNEL.search(node.value):
            found.append((node.lineno, node.value))
    return sorted(found)


def _std_near(text: str) -> str:
    """A test that builds with -cl-std=CL2.0/3.0 usually says so in the source's own comments."""
    m = _STD.search(text)
    return m.group(1) if m else DEFAULT_STD


def repo_cases(root: Path = ROOT) -> list[Case]:
    tests = root / "tests"
    cases = []
    for path in sorted(tests.rglob("*.cl")):
        rel = str(path.relative_to(root))
        text = path.read_text(errors="replace")
        cases.append(Case("tests", rel, text, path.parent, [], _std_near(text)))
    for path in sorted(tests.rglob("*.py")):
        rel = str(path.relative_to(root))
        for line, text in _literals(path):
            cases.append(Case("tests", f"{rel}:{line}", text, path.parent, [], _std_near(text)))
    return cases
