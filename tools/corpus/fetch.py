"""Materialise the pinned files of every project under the corpus directory.

Each project lands in `<corpus dir>/<owner>+<name>/` with the files its
manifest entry needs (kernels, headers, include dirs, preludes) at their
repository paths, and a `.commit` stamp. The source of the files is, in
order: a local bare mirror (`$OCLPY_CORPUS_MIRRORS`, default `/work/.mirror`,
laid out as `<owner>+<name>/repo[/.git]`), else git over the network (a
shallow, blob-filtered fetch of the pinned commit).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .manifest import Project, glob_match, project_root

MAX_FILE = 8 << 20  # hashcat's inc_common.cl is 2.4 MB; skips stray binaries


def mirror_for(project: Project) -> Path | None:
    base = Path(os.environ.get("OCLPY_CORPUS_MIRRORS", "/work/.mirror")) / project.repo.replace("/", "+")
    for candidate in (base / "repo" / ".git", base / "repo", base):
        if (candidate / "HEAD").exists() and (candidate / "objects").exists():
            return candidate
    return None


def _git(git_dir: Path, *args: str, stdout=subprocess.PIPE, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], stdout=stdout, input=input,
                          stderr=subprocess.PIPE, check=True)


def _network_clone(project: Project, into: Path) -> Path:
    """A bare repository holding just the pinned commit (its blobs fetched as needed)."""
    git_dir = into / "repo.git"
    subprocess.run(["git", "init", "-q", "--bare", str(git_dir)], check=True)
    url = f"https://github.com/{project.repo}.git"
    _git(git_dir, "fetch", "-q", "--depth", "1", "--filter=blob:none", url, project.commit)
    return git_dir


HEADER_SUFFIXES = (".h", ".hpp", ".hh", ".cl", ".clh", ".inc", ".hcl", ".cuh", ".opencl")


def wanted(project: Project, git_dir: Path) -> list[str]:
    """Files matching the project's globs; under include dirs, only header-like files."""
    listing = _git(git_dir, "ls-tree", "-r", "--name-only", project.commit).stdout.decode()
    explicit = project.kernels + project.headers + [
        p for spec in project.files.values() for p in spec.get("prelude", []) + spec.get("append", [])]
    dirs = [g for g in project.patterns if g not in explicit]
    return [p for p in listing.splitlines()
            if any(glob_match(p, g) for g in explicit)
            or (p.endswith(HEADER_SUFFIXES) and any(glob_match(p, g) for g in dirs))]


def _extract(project: Project, git_dir: Path, paths: list[str], dest: Path) -> int:
    """Write each path's blob at the pinned commit under `dest` (one `git cat-file --batch`)."""
    request = "".join(f"{project.commit}:{p}\n" for p in paths).encode()
    out = _git(git_dir, "cat-file", "--batch", stdout=subprocess.PIPE, input=request).stdout
    count, pos = 0, 0
    for path in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[-1] == b"missing":
            continue
        size = int(header[2])
        blob, pos = out[pos:pos + size], pos + size + 1
        if header[1] != b"blob" or size > MAX_FILE:
            continue
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
        count += 1
    return count


def fetch_project(project: Project, root: Path, log=print) -> bool:
    dest = project_root(root, project)
    stamp = dest / ".commit"
    if stamp.exists() and stamp.read_text().strip() == project.commit:
        return True
    with tempfile.TemporaryDirectory(prefix="oclpy-corpus-") as tmp:
        git_dir = mirror_for(project)
        try:
            if git_dir is None:
                git_dir = _network_clone(project, Path(tmp))
            paths = wanted(project, git_dir)
            staging = Path(tmp) / "files"
            staging.mkdir()
            count = _extract(project, git_dir, paths, staging)
        except (subprocess.CalledProcessError, OSError) as exc:
            err = getattr(exc, "stderr", b"") or b""
            log(f"{project.name}: not fetched: {exc} {err.decode(errors='replace').strip()[:300]}")
            return False
        if dest.exists():
            shutil.rmtree(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), dest)
    stamp.write_text(project.commit + "\n")
    log(f"{project.name}: {count} files at {project.commit[:12]}")
    return True


def fetch_all(projects: list[Project], root: Path, log=print) -> int:
    """Fetch every project (once per repository and commit); the number that failed."""
    failed = 0
    by_repo: dict[tuple[str, str], list[Project]] = {}
    for p in projects:
        by_repo.setdefault((p.repo, p.commit), []).append(p)
    for group in by_repo.values():
        merged = Project(**{**group[0].__dict__, "kernels": [k for p in group for k in p.kernels],
                            "headers": [h for p in group for h in p.headers],
                            "files": {k: v for p in group for k, v in p.files.items()},
                            "include_dirs": [d for p in group for d in p.include_dirs]})
        failed += not fetch_project(merged, root, log)
    return failed
