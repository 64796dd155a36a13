"""The PyOpenCL compatibility run: PyOpenCL's own examples and tests on oclpy.

`python -m oclpy.cli.compat [--dir DIR] [--files NAME ...]` downloads PyOpenCL's
source distribution with pip (`pip download --no-binary pyopencl --no-deps
pyopencl`: the source only, never a wheel; `--no-binary :all:` would also
force pip to build PyOpenCL's build dependencies, numpy among them, from
source just to read its metadata), unpacks the files below, replaces every
`pyopencl` with `oclpy` and changes nothing else, runs each example as a
script and each test file under pytest, and prints one line per file with
its pass counts.

`OCLPY_PYOPENCL_SDIST=/path/to/pyopencl-X.tar.gz` uses that archive instead
of downloading (and so works offline). Without it and without network, pip's
own failure says why the archive cannot be had.

The array tests (test_array, test_clmath, test_clrandom, test_algorithm)
exercise oclpy.array and its kernel builders. PyOpenCL's test_algorithm
skips its reduction and scan tests unless `mako` can be imported.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

EXAMPLES = ("examples/demo.py", "examples/narray.py", "examples/transpose.py",
            "examples/dump-properties.py")
TEST_FILES = ("test/test_wrapper.py", "test/test_enqueue_copy.py", "test/test_arrays_in_structs.py",
              "test/test_array.py", "test/test_clmath.py", "test/test_clrandom.py",
              "test/test_algorithm.py")
SUPPORT_FILES = ("test/empty-header.h", "test/add-vectors-32.spv", "test/add-vectors-64.spv")
_WORD = re.compile(r"\bpyopencl\b")
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?|deselected)")


class Unavailable(Exception):
    """The source distribution cannot be had here (no network, pip failed)."""


@dataclass
class FileResult:
    name: str
    counts: dict[str, int] = field(default_factory=dict)
    returncode: int = 0
    output: str = ""

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def summary(self) -> str:
        if not self.counts:
            if self.returncode == TIMED_OUT:
                return f"{self.name}: TIMED OUT"
            return f"{self.name}: {'ran OK' if self.ok else f'FAILED (exit {self.returncode})'}"
        parts = ", ".join(f"{n} {k}" for k, n in self.counts.items())
        return f"{self.name}: {parts}"


def find_sdist(directory: Path) -> Path | None:
    found = sorted(directory.glob("pyopencl-*.tar.gz"))
    return found[-1] if found else None


def download_sdist(directory: Path, timeout: float = 180.0) -> Path:
    """PyOpenCL's source archive in `directory` (downloaded once), or Unavailable."""
    given = os.environ.get("OCLPY_PYOPENCL_SDIST")
    if given:
        if not Path(given).is_file():
            raise Unavailable(f"OCLPY_PYOPENCL_SDIST={given} is not a file")
        return Path(given)
    directory.mkdir(parents=True, exist_ok=True)
    cached = find_sdist(directory)
    if cached is not None:
        return cached
    # one retry and a 10 s socket timeout: offline, pip fails within seconds and says why
    cmd = [sys.executable, "-m", "pip", "download", "--no-binary", "pyopencl", "--no-deps",
           "--disable-pip-version-check", "--retries", "1", "--timeout", "10", "pyopencl",
           "-d", str(directory)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Unavailable(f"pip download did not finish within {timeout:.0f} s") from None
    sdist = find_sdist(directory)
    if proc.returncode != 0 or sdist is None:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-3:]
        raise Unavailable("pip download failed: " + " | ".join(tail))
    return sdist


def rewrite(text: str) -> str:
    """The one change made to PyOpenCL's files: the package name."""
    return _WORD.sub("oclpy", text)


def unpack(sdist: Path, dest: Path, names: tuple[str, ...]) -> dict[str, Path]:
    """Extract `names` (paths inside the archive's top folder), rewritten, into `dest`."""
    out: dict[str, Path] = {}
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
        for name in names:
            member = members.get(name)
            if member is None:
                raise Unavailable(f"{sdist.name} has no {name}")
            data = tar.extractfile(member)
            assert data is not None
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            raw = data.read()
            if name.endswith(".spv"):
                target.write_bytes(raw)  # binary data: nothing to rename
            else:
                target.write_text(rewrite(raw.decode("utf-8")), encoding="utf-8")
            out[name] = target
    return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])  # the folder holding the oclpy package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    env.pop("PYOPENCL_CTX", None)
    return env


TIMED_OUT = -9  # a FileResult's returncode when the file ran past its time limit


def run_file(cmd: list[str], cwd: Path, timeout: float) -> tuple[int, str]:
    """(exit status, output) of `cmd`; a run past `timeout` seconds is TIMED_OUT, its output
    so far kept (a slow device, the simulator's, must not end the whole compatibility run)."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=_env(), text=True, capture_output=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        out = [o.decode(errors="replace") if isinstance(o, bytes) else o or "" for o in (exc.stdout, exc.stderr)]
        return TIMED_OUT, "".join(out) + f"\ntimed out after {timeout:.0f} s\n"
    return proc.returncode, proc.stdout + proc.stderr


def run_example(path: Path, timeout: float = 300.0) -> FileResult:
    code, output = run_file([sys.executable, path.name], path.parent, timeout)
    return FileResult(f"examples/{path.name}", {}, code, output)


def run_tests(path: Path, timeout: float = 600.0, extra: tuple[str, ...] = ()) -> FileResult:
    cmd = [sys.executable, "-m", "pytest", "-q", "-rs", "-rx", "-p", "no:cacheprovider",
           "-o", "addopts=", path.name, *extra]
    code, output = run_file(cmd, path.parent, timeout)
    summary = [line for line in output.splitlines() if _COUNT.search(line)]
    counts = {kind: int(n) for n, kind in _COUNT.findall(summary[-1])} if summary else {}
    return FileResult(f"test/{path.name}", counts, code, output)


def run_all(workdir: Path, files: tuple[str, ...] = EXAMPLES + TEST_FILES,
            verbose: bool = False) -> list[FileResult]:
    sdist = download_sdist(workdir / "download")
    paths = unpack(sdist, workdir / "src", files)
    unpack(sdist, workdir / "src", SUPPORT_FILES)
    results = []
    for name, path in paths.items():
        result = run_example(path) if name.startswith("examples/") else run_tests(path)
        print(result.summary(), flush=True)
        if verbose or (not result.ok and not result.counts):
            print(result.output[-4000:], flush=True)
        results.append(result)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m oclpy.cli.compat", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=None,
                        help="work folder (default: a fresh temporary folder)")
    parser.add_argument("--files", nargs="*", default=None,
                        help="paths inside the archive (default: the examples and test files)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each file's output")
    args = parser.parse_args(argv)
    files = tuple(args.files) if args.files else EXAMPLES + TEST_FILES
    workdir = args.dir or Path(tempfile.mkdtemp(prefix="oclpy-compat-"))
    try:
        results = run_all(workdir, files, args.verbose)
    except Unavailable as exc:
        print(f"PyOpenCL source distribution unavailable: {exc}")
        return 2
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
