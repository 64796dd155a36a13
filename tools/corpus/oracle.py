"""clang as the oracle: does clang accept this kernel, and where is its first error?

The oracle of record is the clang-tidy wheel that the `test` extra pins
(`clang-tidy>=23.1,<23.2`: LLVM 23.1.x), a whole clang with its own OpenCL
headers (`clang-tidy --allow-no-checks k.cl -- -x cl ...` runs clang's
frontend). Every machine that ran the README's set-up has it, so it is
chosen before any clang on PATH, and tools/corpus/known_differences.toml is
written against it (clang 23.1; an entry that names clang 14 explains where
Debian's clang-14, the oracle of earlier sessions, disagreed).

The kinds of oracle, the first that is available wins:
  clang-tidy  the wheel's binary (else a `clang-tidy` on PATH, after `binary`);
  binary      a `clang`/`clang-NN` on PATH (`clang -x cl -cl-std=CLx.y -fsyntax-only`);
  libclang    the `libclang` wheel (clang.cindex) with the clang-tidy wheel's
              headers as resource directory: usable for OpenCL C 1.2, but its
              clang 18 and those newer headers disagree on OpenCL C 2.0 builtins;
  none        callers skip with `Oracle.reason`.
`OCLPY_CLANG` chooses explicitly: a binary's name or path (one named
clang-tidy* is run as clang-tidy), or `clang-tidy` (the wheel's) or
`libclang`.

clang-tidy prints clang's errors sorted by file and at physical lines, so an
error in an included header or after `#line` would move; both kinds of
binary therefore also write clang's diagnostic log (see `diaglog`), and the
verdict is read from it: clang's order, clang's presumed locations.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import diaglog

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


ORACLE_REVISION = 8

# The OpenCL extensions clang knows and enables by default on its x86 target; the
# oracle turns off those the imitated device does not advertise. (Not "-all":
# clang 18 counts the OpenCL C 3.0 features among "all", and turning those off
# takes away core OpenCL C 2.0 builtins such as get_fence.)
CLANG_EXTENSIONS = (
    "cl_khr_fp16", "cl_khr_fp64", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics",
    "cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
    "cl_khr_byte_addressable_store", "cl_khr_3d_image_writes", "cl_khr_depth_images",
    "cl_khr_gl_msaa_sharing", "cl_khr_mipmap_image", "cl_khr_mipmap_image_writes",
    "cl_khr_subgroups", "cl_khr_srgb_image_writes", "cl_khr_gl_sharing", "cl_khr_gl_event",
    "cl_khr_d3d10_sharing", "cl_khr_icd", "cl_khr_spir", "cl_khr_extended_bit_ops",
    "cl_khr_integer_dot_product", "cl_khr_subgroup_extended_types",
    "cl_amd_media_ops", "cl_amd_media_ops2", "cl_clang_storage_class_specifiers",
    "cl_intel_subgroups", "cl_intel_subgroups_short", "cl_intel_subgroups_char",
    "cl_intel_subgroups_long", "cl_intel_required_subgroup_size",
    "cl_intel_device_side_avc_motion_estimation", "cl_intel_planar_yuv",
    "cl_arm_integer_dot_product_int8", "cl_arm_integer_dot_product_accumulate_int8",
    "cl_arm_integer_dot_product_accumulate_int16", "cl_arm_integer_dot_product_accumulate_saturate_int8",
    "cl_ext_float_atomics",
    # clang 23's additions (its x86 target claims them too)
    "cl_khr_subgroup_ballot", "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_rotate", "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative", "cl_khr_kernel_clock", "cl_intel_bfloat16_conversions",
    "cl_intel_split_work_group_barrier", "cl_intel_subgroup_buffer_prefetch", "cl_intel_subgroup_local_block_io",
    # clang 23's image channel types of the cl_ext_image_* extensions (CLK_UNSIGNED_INT_RAW10_EXT, ...),
    # which its x86 target claims from OpenCL C 2.0 on: oclpy's images have none of those formats
    "__opencl_c_ext_image_raw10_raw12", "__opencl_c_ext_image_unorm_int_2_101010",
    "__opencl_c_ext_image_unsigned_10x6_12x4_14x2",
)  # part of the verdict cache's key: bump when the oracle's arguments change


# Extensions whose OpenCL C 3.0 optional feature clang checks against them.
FEATURE_OF = {"cl_khr_3d_image_writes": "__opencl_c_3d_image_writes", "cl_khr_fp64": "__opencl_c_fp64",
              "cl_khr_subgroups": "__opencl_c_subgroups"}


RECORD_VERSION = "23.1"  # the clang-tidy wheel's major.minor that the known differences are written for


def _wheel_clang_tidy() -> str | None:
    """The clang-tidy wheel's binary."""
    try:
        import clang_tidy  # type: ignore[import-not-found]
    except ImportError:
        return None
    found = Path(clang_tidy.__file__).parent / "data" / "bin" / "clang-tidy"
    return str(found) if found.exists() else None


def _clang_on_path() -> str | None:
    for name in ["clang"] + [f"clang-{v}" for v in range(30, 13, -1)]:
        found = shutil.which(name)
        if found:
            return found
    return None


def choose(explicit: str | None) -> tuple[str, str | None, str]:
    """(kind, binary, reason when none) for `OCLPY_CLANG`'s value (None: not set)."""
    if explicit == "libclang":
        return "libclang", None, ""
    if explicit == "clang-tidy":
        tidy = _wheel_clang_tidy() or shutil.which("clang-tidy")
        return ("clang-tidy", tidy, "") if tidy else ("none", None, "OCLPY_CLANG=clang-tidy, but no clang-tidy")
    if explicit:
        found = shutil.which(explicit)
        if not found:
            return "none", None, f"OCLPY_CLANG={explicit} is not a program"
        return ("clang-tidy" if Path(found).name.startswith("clang-tidy") else "binary"), found, ""
    tidy = _wheel_clang_tidy()
    if tidy:
        return "clang-tidy", tidy, ""
    found = _clang_on_path()
    if found:
        return "binary", found, ""
    tidy = shutil.which("clang-tidy")
    return ("clang-tidy", tidy, "") if tidy else ("libclang", None, "")


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
    clang then defines those extension macros and none of the others it knows
    (`CLANG_EXTENSIONS`), as a runtime compiling for that device would (left
    alone, clang's x86 target claims them all, cl_amd_media_ops included)."""

    def __init__(self, extensions: list[str] | None = None) -> None:
        self.extensions = extensions
        self.kind, self.binary, self.reason = choose(os.environ.get("OCLPY_CLANG"))
        self.resource_dir = None
        self._index = None
        if self.kind != "libclang":
            return
        self.kind = "none"
        self.resource_dir = _resource_dir()
        try:
            import clang.cindex as ci  # type: ignore[import-not-found]
            self._index = ci.Index.create()
        except Exception as exc:  # no wheel, or no libclang.so in it
            self.reason = f"no clang-tidy wheel, no clang binary on PATH and no usable libclang ({exc})"
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
        if self.kind in ("binary", "clang-tidy"):
            version = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout
            lines = [ln.strip() for ln in version.splitlines() if "version" in ln.lower()]
            line = lines[0] if lines else "?"
            record = self.kind == "clang-tidy" and re.search(rf"version {re.escape(RECORD_VERSION)}\.", line)
            note = "" if record else f" (not the oracle of record, clang-tidy {RECORD_VERSION}.x: known differences may not hold)"
            return f"{self.binary}: {line}{note}"
        if self.kind == "libclang":
            return f"libclang with resource dir {self.resource_dir}"
        return f"no oracle: {self.reason}"

    def args(self, options: list[str], std: str) -> list[str]:
        """clang as an OpenCL runtime drives it: the runtime, not clang, defines
        __OPENCL_VERSION__ (the device's version; here the -cl-std's)."""
        off = [e for e in CLANG_EXTENSIONS if e not in (self.extensions or ())]
        if opencl_version(std) >= 300:  # clang wants an extension and its OpenCL C 3.0 feature to agree
            off += [FEATURE_OF[e] for e in off if e in FEATURE_OF]
        ext = [] if self.extensions is None else ["-Xclang", "-cl-ext=" + ",".join(f"-{e}" for e in off)]
        return ["-x", "cl", std_flag(std), f"-D__OPENCL_VERSION__={opencl_version(std)}", *ext, *options]

    def check(self, path: Path, options: list[str], std: str, timeout: float = 60) -> Verdict:
        names = (path.name,)
        if self.kind in ("binary", "clang-tidy"):
            return self._check_binary(path, options, std, names, timeout)
        if self.kind == "libclang":
            return self._check_libclang(path, options, std, names)
        raise RuntimeError(self.reason)

    def _check_binary(self, path: Path, options: list[str], std: str, names: tuple[str, ...],
                      timeout: float) -> Verdict:
        fd, log_path = tempfile.mkstemp(suffix=".diagnostics")
        os.close(fd)
        flags = [*self.args(options, std), "-w", "-ferror-limit=5", "-Xclang", "-diagnostic-log-file",
                 "-Xclang", log_path]
        cmd = [self.binary, *flags, "-fsyntax-only", str(path)] if self.kind == "binary" else \
            [self.binary, "--allow-no-checks", "--quiet", str(path), "--", *flags]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            logged = Path(log_path).read_text(errors="replace")
        except subprocess.TimeoutExpired:
            return Verdict(False, Diag("", 0, "clang timed out"), "")
        finally:
            os.unlink(log_path)
        printed = (run.stderr + run.stdout).replace(" [clang-diagnostic-error]", "")
        errors = diaglog.errors(logged) if logged.strip() else []
        # the log is clang's frontend's: a driver error (a bad option) is only printed
        log = "\n".join(e.render() for e in errors) if errors else printed
        first = first_error(log, names)
        if run.returncode != 0 and first is None:  # a crash or a driver error
            first = Diag("", 0, printed.strip().splitlines()[-1] if printed.strip() else "clang failed")
        return Verdict(run.returncode == 0 and first is None, first, log)

    def _check_libclang(self, path: Path, options: list[str], std: str, names: tuple[str, ...]) -> Verdict:
        import clang.cindex as ci  # type: ignore[import-not-found]

        args = [*self.args(options, std), "-resource-dir", self.resource_dir, "-w", "-ferror-limit=5"]
        try:
            tu = self._index.parse(str(path), args=args)
        except ci.TranslationUnitLoadError as exc:  # bad arguments (an unknown -cl-std, ...)
            return Verdict(False, Diag("", 0, f"libclang could not parse: {exc}"), str(exc))
        errors = [d for d in tu.diagnostics if d.severity >= 3]
        log = "\n".join(f"{d.location.file}:{d.location.line}:{d.location.column}: error: {d.spelling}"
                        for d in errors)
        if not errors:
            return Verdict(True, None, log)
        d = errors[0]
        name = os.path.basename(str(d.location.file)) if d.location.file else ""
        return Verdict(False, Diag("" if name in names else name, d.location.line, d.spelling), log)
