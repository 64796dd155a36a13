"""Re-key the known differences of our tests' kernel literals.

A literal's old key, `tests:<path>:<line>`, breaks whenever a line is added
above the literal; its stable key, `tests:<path>#<digest>` (intree.py), does
not. `rekey_text` rewrites each `match = "..."` line of known_differences.toml
that holds an old key: an exact one becomes the literal's stable key, a glob
over a file's every line (`tests:<path>:*`) becomes `tests:<path>#*`. The rest
of the file stays as it is. Old keys still match (known.py), so an entry left
unconverted keeps working until its literal moves.
"""

from __future__ import annotations

import re
from pathlib import Path

from .intree import ROOT, line_key, literal_cases, stable_key

_MATCH = re.compile(r'^(match\s*=\s*")(tests:[^"#]+:[^"/#]+)(")', re.M)


def stable_keys(root: Path = ROOT) -> dict[str, str]:
    """Each kernel literal's old key -> its stable key."""
    return {line_key(case.id): stable_key(case.id) for case in literal_cases(root)}


def rekey_text(text: str, keys: dict[str, str]) -> tuple[str, list[str], list[str]]:
    """(`text` with its old keys made stable, "old -> new" for each change, the old
    keys that name no literal of `keys` and stay as they are)."""
    changed: list[str] = []
    unknown: list[str] = []

    def new_key(m: re.Match[str]) -> str:
        old = m[2]
        path, _, line = old.rpartition(":")
        new = f"{path}#*" if line == "*" else keys.get(old)
        if new is None:
            unknown.append(old)
            return m[0]
        changed.append(f"{old} -> {new}")
        return f"{m[1]}{new}{m[3]}"

    return _MATCH.sub(new_key, text), changed, unknown


def rekey_file(path: Path, root: Path = ROOT) -> tuple[list[str], list[str]]:
    """Rewrite `path` in place; returns `rekey_text`'s changes and unknown keys."""
    text, changed, unknown = rekey_text(path.read_text(), stable_keys(root))
    if changed:
        path.write_text(text)
    return changed, unknown
