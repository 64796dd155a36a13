"""The kernels of oclpy's own test tree, as corpus cases.

Two kinds: `tests/**/*.cl` files, and OpenCL C source embedded in the tests
as Python string literals (a plain literal holding `kernel void NAME` with
balanced braces; pieces of f-strings and of concatenations are skipped, their
text is not known until the test runs). The -cl-std is the one the test names
near the literal (else the only one its file names); oclpy's bundled headers
(oclpy/include) are on the include path, as they are for every oclpy build.

A file's case id is `tests:<path>`. A literal's is `tests:<path>:<line>#<digest>`:
the line it starts on, for the reader, and `literal_digest` of its text and
-cl-std. Known differences name a literal by its stable key
`tests:<path>#<digest>` (`stable_key`), which a line added above it leaves
alone; a literal whose text and -cl-std repeat an earlier one of its file is
the same case and is left out.
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from .manifest import DEFAULT_STD, Case

ROOT = Path(__file__).resolve().parents[2]
_KERNEL = re.compile(r"\b(__kernel|kernel)\s+void\s+[A-Za-z_]")  # not IR text (`kernel void @k`)
_STD = re.compile(r"-cl-std=(CL1\.[012]|CL2\.0|CL3\.0)\b")


INCLUDE = ROOT / "oclpy" / "include"  # the headers every oclpy build can #include
NEAR = 40  # lines after a literal where its test passes -cl-std=...


def _literals(path: Path) -> list[tuple[int, str, str]]:
    """(line, text, std) of each whole-kernel string literal: not a piece of an f-string
    or of a concatenation, whose full text only exists when the test runs."""
    source = path.read_text(errors="replace")
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    pieces = {id(child) for node in ast.walk(tree) if isinstance(node, (ast.JoinedStr, ast.BinOp))
              for child in ast.iter_child_nodes(node)}
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces \
                and _KERNEL.search(node.value) and _whole(node.value) and _is_text(node.value):
            near = "\n".join(lines[node.lineno - 1:(node.end_lineno or node.lineno) + NEAR])
            found.append((node.lineno, node.value, _std_in(near) or _std_in(source, only=True) or DEFAULT_STD))
    return sorted(found)


def _whole(text: str) -> bool:
    """A whole kernel, not a fragment of one: a body, and its braces balanced."""
    return "{" in text and text.count("{") == text.count("}")


def _is_text(text: str) -> bool:
    """False for a literal that is not Unicode text (a test's lone surrogate): no compiler reads it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _std_in(text: str, only: bool = False) -> str | None:
    """The -cl-std the text names (with `only`, when it names one and no other)."""
    stds = set(_STD.findall(text))
    if only:
        return stds.pop() if len(stds) == 1 else None
    m = _STD.search(text)
    return m.group(1) if m else None


def literal_digest(text: str, std: str) -> str:
    """The stable part of a literal's case id: 8 hex digits of SHA-256 over its
    -cl-std and text, what both compilers see of it."""
    return hashlib.sha256(f"{std}\n{text}".encode()).hexdigest()[:8]


_LITERAL_ID = re.compile(r"(?P<file>tests:.+):(?P<line>\d+)#(?P<digest>[0-9a-f]+)")


def stable_key(case_id: str) -> str:
    """`tests:<path>#<digest>` for a literal's id, the id itself for any other."""
    m = _LITERAL_ID.fullmatch(case_id)
    return f"{m['file']}#{m['digest']}" if m else case_id


def line_key(case_id: str) -> str:
    """`tests:<path>:<line>` for a literal's id (the key known differences used
    before `stable_key`), the id itself for any other."""
    m = _LITERAL_ID.fullmatch(case_id)
    return f"{m['file']}:{m['line']}" if m else case_id


def repo_cases(root: Path = ROOT) -> list[Case]:
    tests = root / "tests"
    cases = []
    for path in sorted(tests.rglob("*.cl")):
        rel = str(path.relative_to(root))
        text = path.read_text(errors="replace")
        cases.append(Case("tests", rel, text, path.parent, [f"-I{INCLUDE}"], _std_in(text) or DEFAULT_STD))
    seen = set()
    for case in literal_cases(root):
        if stable_key(case.id) not in seen:
            seen.add(stable_key(case.id))
            cases.append(case)
    return cases


def literal_cases(root: Path = ROOT) -> list[Case]:
    """Every kernel literal of the tests, repeated ones included."""
    cases = []
    for path in sorted((root / "tests").rglob("*.py")):
        rel = str(path.relative_to(root))
        for line, text, std in _literals(path):
            name = f"{rel}:{line}#{literal_digest(text, std)}"
            cases.append(Case("tests", name, text, path.parent, [f"-I{INCLUDE}"], std))
    return cases
