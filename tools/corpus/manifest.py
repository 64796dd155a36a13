"""The manifest: projects, and the kernel cases they expand to.

`manifest.json` says, per project, which files of a pinned commit are
kernels, which are headers, and the build options the project's host code
passes. `cases(root)` expands it over the fetched files into one `Case` per
kernel: its text (after extraction and concatenation), the directory it is
built from (for relative #includes) and its build options.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = Path(__file__).with_name("manifest.json")
DEFAULT_STD = "CL1.2"


def corpus_dir() -> Path:
    """Where `fetch` materialises the pinned files."""
    return Path(os.environ.get("OCLPY_CORPUS_DIR", Path.home() / ".cache" / "oclpy-corpus"))


@dataclass
class Project:
    name: str
    repo: str
    commit: str
    licence: str
    domain: str
    kernels: list[str]
    headers: list[str] = field(default_factory=list)
    options: str = ""
    include_dirs: list[str] = field(default_factory=list)
    std: str = DEFAULT_STD
    extract: str = "none"
    run_lines: bool = False
    files: dict[str, dict] = field(default_factory=dict)

    @property
    def patterns(self) -> list[str]:
        """Every glob whose files the project needs fetched."""
        extra = [p for spec in self.files.values() for p in spec.get("prelude", []) + spec.get("append", [])]
        dirs = [f"{d.rstrip('/')}/**" for d in self.include_dirs if d not in (".", "")]
        return self.kernels + self.headers + extra + dirs


@dataclass
class Case:
    """One kernel to build: `text` is what both compilers see."""

    project: str
    path: str  # inside the repository
    text: str
    directory: Path  # the kernel's own directory: relative #includes resolve here
    options: list[str]  # -D/-I/... (include dirs absolute), without -cl-std
    std: str
    skip: str = ""

    @property
    def id(self) -> str:
        return f"{self.project}:{self.path}"


def load(path: Path = MANIFEST) -> list[Project]:
    data = json.loads(path.read_text())
    keys = Project.__dataclass_fields__.keys()
    return [Project(**{k: v for k, v in p.items() if k in keys}) for p in data["projects"]]


@functools.lru_cache(maxsize=None)
def _glob_regex(pattern: str) -> re.Pattern:
    """`*` and `?` stay inside one directory, `**` crosses them, `**/` may match none."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.index("]", i)
            out.append(pattern[i:end + 1])
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(path: str, pattern: str) -> bool:
    return _glob_regex(pattern).match(path) is not None


def project_root(root: Path, project: Project) -> Path:
    return root / project.repo.replace("/", "+")


def kernel_paths(project: Project, files: list[str]) -> list[str]:
    """The repository paths that are kernels: named in `kernels`, or matching a
    glob of `kernels` and none of `headers`."""
    out = []
    for rel in sorted(files):
        if rel.endswith(".corpus.cl"):  # a copy `build.kernel_file` made of an extracted kernel
            continue
        if rel in project.kernels:
            out.append(rel)
            continue
        if any(glob_match(rel, h) for h in project.headers):
            continue
        if any(glob_match(rel, k) for k in project.kernels):
            out.append(rel)
    return out


def extract_raw_string(text: str) -> str:
    """The body of the first C++ raw string literal R"( ... )" (CLBlast's .opencl files)."""
    start = text.find('R"(')
    end = text.rfind(')"')
    if start < 0 or end < start:
        return text
    # keep line numbers: blank out what precedes the body instead of dropping it
    head = "\n" * text.count("\n", 0, start)
    return head + text[start + 3:end]


_RUN = re.compile(r"^\s*//\s*RUN:(.*)$", re.M)


def run_line_options(text: str) -> tuple[list[str], str | None]:
    """-D, -I, -cl-std and -cl-ext from the first RUN line of a clang lit test."""
    lines = _RUN.findall(text)
    if not lines:
        return [], None
    line = lines[0].split("|")[0]
    # lit continues a RUN line that ends in a backslash on the next RUN line
    for nxt in lines[1:]:
        if not line.rstrip().endswith("\\"):
            break
        line = line.rstrip()[:-1] + " " + nxt.split("|")[0]
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    opts: list[str] = []
    std = None
    it = iter(words)
    for w in it:
        if w.startswith("-cl-std="):
            std = w.split("=", 1)[1]
            std = "CL1.0" if std.upper() == "CL" else std  # clang's name for OpenCL C 1.0
        elif w.startswith("-D") or w.startswith("-U"):
            opts.append(w if len(w) > 2 else w + next(it, ""))
        elif w.startswith("-I") and "%" not in w:
            opts.append(w)
    return opts, std


def _overrides(project: Project, rel: str) -> dict:
    merged: dict = {}
    for pattern, spec in project.files.items():
        if glob_match(rel, pattern):
            for key, value in spec.items():
                if key == "options":
                    merged["options"] = (merged.get("options", "") + " " + value).strip()
                else:
                    merged[key] = value
    return merged


def extract_macro_argument(text: str, macro: str) -> str:
    """The argument of a stringifying macro around the whole kernel, `MSTRINGIFY( ... )`."""
    start = text.find(macro + "(")
    end = text.rfind(")")
    if start < 0 or end < start:
        return text
    return "\n" * text.count("\n", 0, start) + text[start + len(macro) + 1:end]


def _read(base: Path, rel: str, extract: str) -> str:
    text = (base / rel).read_text(errors="replace")
    if extract == "raw-string":
        return extract_raw_string(text)
    if extract.startswith("macro:"):
        return extract_macro_argument(text, extract.split(":", 1)[1])
    return text


def make_case(project: Project, base: Path, rel: str) -> Case:
    spec = _overrides(project, rel)
    body = _read(base, rel, project.extract)
    parts = [_read(base, p, project.extract) for p in spec.get("prelude", [])]
    if parts:  # a concatenation: keep the kernel's own lines numbered from where its text starts
        body = "\n".join(parts + [body])
    if spec.get("append"):
        body = "\n".join([body] + [_read(base, p, project.extract) for p in spec["append"]])
    std = spec.get("std", project.std)
    options = shlex.split(project.options) + shlex.split(spec.get("options", ""))
    if project.run_lines:
        extra, run_std = run_line_options(body)
        options += extra
        std = run_std or std
    options += [f"-I{base / d}" for d in project.include_dirs]
    return Case(project.name, rel, body, (base / rel).parent, options, std, spec.get("skip", ""))


def cases(root: Path | None = None, projects: list[Project] | None = None,
          only: str | None = None) -> list[Case]:
    """Every kernel of every fetched project (a project not fetched yet has none)."""
    root = root or corpus_dir()
    out = []
    for project in projects or load():
        if only and not fnmatch.fnmatch(project.name, only):
            continue
        base = project_root(root, project)
        if not (base / ".commit").exists():
            continue
        files = [str(p.relative_to(base)) for p in base.rglob("*") if p.is_file()]
        out += [make_case(project, base, rel) for rel in kernel_paths(project, files)]
    return out
