"""clang as the oracle: does clang accept this kernel, and where is its first error?

Three ways to ask clang, the first that is available wins:
  binary    a `clang`/`clang-NN` on PATH (`clang -x cl -cl-std=CLx.y -fsyntax-only`);
  libclang  the `libclang` wheel (clang.cindex) with the OpenCL headers that
            the `clang-tidy` wheel ships as its resource directory;
  none      neither: callers skip with `Oracle.reason`.
`OCLPY_CLANG` names a binary explicitly; `OCLPY_CLANG=libclang` forces the wheel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

# clang's and oclpy's diagnostics share this shape: FILE:LINE:COL: error: MESSAGE
DIAG = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<msg>.*)$", re.M)


@dataclass(frozen=True)
class Diag:
    file: str  # basename; "" for the kernel itself
    line: int
    message: str

    def where(self) -> str:
        return f"{self.file or '<kernel>'}:{self.line}"


@dataclass
class Verdict:
    ok: bool
    first: Diag | None = None  # the first error when not ok
    log: str = ""


def first_error(log: str, kernel_names: tuple[str, ...]) -> Diag | None:
    """The first `error:` of a clang-style log; files named in `kernel_names` are the kernel."""
    m = DIAG.search(log)
    if not m:
        return None
    name = os.path.basename(m["file"])
    return Diag("" if name in kernel_names else name, int(m["line"]), m["msg"].strip())


def std_flag(std: str) -> str:
    return f"-cl-std={std}"


def opencl_version(std: str) -> int:
    """CL1.2 -> 120, CL3.0 -> 300."""
    digits = re.findall(r"\d", std)
    return int(digits[0]) * 100 + int(digits[1]) * 10 if len(digits) >= 2 else 120


ORACLE_REVISION = 3  # part of the verdict cache's key: bump when the oracle's arguments change


def _find_binary() -> str | None:
    explicit = os.environ.get("OCLPY_CLANG")
    if explicit and explicit != "libclang":
        return shutil.which(explicit)
    if explicit == "libclang":
        return None
    for name in ["clang"] + [f"clang-{v}" for v in range(30, 13, -1)]:
        found = shutil.which(name)
        if found:
            return found
    return None


def _resource_dir() -> str | None:
    """The clang-tidy wheel's resource directory (it holds opencl-c.h)."""
    try:
        import clang_tidy  # type: ignore[import-not-found]
    except ImportError:
        return None
    base = Path(clang_tidy.__file__).parent / "data" / "lib" / "clang"
    for d in sorted(base.glob("*"), reverse=True):
        if (d / "include" / "opencl-c.h").exists():
            return str(d)
    return None


class Oracle:
    """`check(path, options, std)`: clang's verdict on the kernel in file `path`.

    `extensions`: the OpenCL extensions of the device being imitated (oclpy's);
    clang then defines those extension macros and no others, as a runtime
    compiling for that device would (left alone, clang's x86 target claims
    every extension it knows, cl_amd_media_ops included)."""

    def __init__(self, extensions: list[str] | None = None) -> None:
        self.extensions = extensions
        self.kind = "none"
        self.reason = ""
        self.binary = _find_binary()
        self.resource_dir = None
        self._index = None
        if self.binary:
            self.kind = "binary"
            return
        self.resource_dir = _resource_dir()
        try:
            import clang.cindex as ci  # type: ignore[import-not-found]
            self._index = ci.Index.create()
        except Exception as exc:  # no wheel, or no libclang.so in it
            self.reason = f"no clang binary on PATH and no usable libclang ({exc})"
            return
        if self.resource_dir is None:
            self.reason = "libclang found, but no OpenCL headers (pip install clang-tidy)"
            self._index = None
            return
        self.kind = "libclang"

    @property
    def available(self) -> bool:
        return self.kind != "none"

    def describe(self) -> str:
        if self.kind == "binary":
            version = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout
            return f"{self.binary}: {version.splitlines()[0] if version else '?'}"
        if self.kind == "libclang":
            return f"libclang with resource dir {self.resource_dir}"
        return f"no oracle: {self.reason}"

    def args(self, options: list[str], std: str) -> list[str]:
        """clang as an OpenCL runtime drives it: the runtime, not clang, defines
        __OPENCL_VERSION__ (the device's version; here the -cl-std's)."""
        ext = [] if self.extensions is None else \
            ["-Xclang", "-cl-ext=" + ",".join(["-all"] + [f"+{e}" for e in self.extensions])]
        return ["-x", "cl", std_flag(std), f"-D__OPENCL_VERSION__={opencl_version(std)}", *ext, *options]

    def check(self, path: Path, options: list[str], std: str, timeout: float = 60) -> Verdict:
        names = (path.name,)
        if self.kind == "binary":
            cmd = [self.binary, *self.args(options, std), "-fsyntax-only", "-w", "-ferror-limit=5", str(path)]
            try:
                run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                return Verdict(False, Diag("", 0, "clang timed out"), "")
            first = first_error(run.stderr, names)
            if run.returncode != 0 and first is None:  # a crash or a driver error
                first = Diag("", 0, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "clang failed")
            return Verdict(run.returncode == 0, first, run.stderr)
        if self.kind == "libclang":
            return self._check_libclang(path, options, std, names)
        raise RuntimeError(self.reason)

    def _check_libclang(self, path: Path, options: list[str], std: str, names: tuple[str, ...]) -> Verdict:
        args = [*self.args(options, std), "-resource-dir", self.resource_dir, "-w", "-ferror-limit=5"]
        tu = self._index.parse(str(path), args=args)
        errors = [d for d in tu.diagnostics if d.severity >= 3]
        log = "\n".join(f"{d.location.file}:{d.location.line}:{d.location.column}: error: {d.spelling}"
                        for d in errors)
        if not errors:
            return Verdict(True, None, log)
        d = errors[0]
        name = os.path.basename(str(d.location.file)) if d.location.file else ""
        return Verdict(False, Diag("" if name in names else name, d.location.line, d.spelling), log)
