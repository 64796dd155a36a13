"""The vendored kernels: reading them, assembling a program's source, their origins.

Each project's folder under `kernels/` holds the upstream files at their
upstream paths, the licence files, and `ORIGIN.toml` (name, repo, pinned
commit, licence, the files taken). Nothing here changes a kernel: C++ raw
strings (CLBlast, clSPARSE) are unwrapped as those projects' hosts do, and
defines are prepended or passed as options, as each project's host does.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

KERNELS = Path(__file__).resolve().parent / "kernels"
_RAW = re.compile(r'R"\((.*?)\)"', re.S)


@cache
def origin(project: str) -> dict[str, object]:
    with open(KERNELS / project / "ORIGIN.toml", "rb") as f:
        return {"project": project, **tomllib.load(f)}


def origins() -> list[dict[str, object]]:
    return [origin(p.name) for p in sorted(KERNELS.iterdir()) if (p / "ORIGIN.toml").exists()]


def path(project: str, name: str) -> Path:
    """A vendored file; it must be listed in the project's ORIGIN.toml."""
    if name not in origin(project)["files"]:  # type: ignore[operator]
        raise KeyError(f"{name} is not a vendored file of {project}")
    return KERNELS / project / name


def read(project: str, name: str, raw_string: bool = False) -> str:
    text = path(project, name).read_text(encoding="utf-8")
    return "".join(_RAW.findall(text)) if raw_string else text


def assemble(project: str, *names: str, prelude: str = "", raw_string: bool = False) -> str:
    """`prelude` then the files in order, as one program source."""
    return prelude + "".join(read(project, n, raw_string) + "\n" for n in names)


def defines(values: dict[str, object]) -> str:
    """#define lines, as a host that prepends its parameters writes them."""
    return "".join(f"#define {k} {v}\n" for k, v in values.items())


def options(values: dict[str, object]) -> str:
    """-D options, as a host that passes its parameters to clBuildProgram writes them."""
    return " ".join(f"-D{k}={v}" if v is not None else f"-D{k}" for k, v in values.items())


def include(project: str, name: str) -> str:
    """-I for the folder of a vendored file (for kernels that #include a neighbour)."""
    return f"-I{path(project, name).parent}"
