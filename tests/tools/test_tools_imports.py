"""tools/ sits below benchmarks/: no module of tools imports the benchmarks (they may import tools)."""

from __future__ import annotations

import ast
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def imported(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_no_tool_imports_the_benchmarks() -> None:
    files = sorted(TOOLS.rglob("*.py"))
    assert len(files) > 20
    offenders = [str(p.relative_to(TOOLS)) for p in files if "benchmarks" in imported(p)]
    assert offenders == []
