"""Oclgrind, the peer the simt benchmarks measure against: finding it and hearing what it says.

- `oclgrind_impl()`: Debian's `oclgrind` package driven through PyOpenCL:
  PyOpenCL's ICD loader is pointed at a folder whose only .icd names
  `liboclgrind-rt-icd.so` (`OCLPY_BENCH_OCLGRIND_ICD` names another
  library), so it must run before PyOpenCL is imported. What Oclgrind does
  besides plain simulation is up to the environment (`OCLGRIND_*`, read when
  a kernel runs).
- `Stderr`: the process's file descriptor 2 captured, where Oclgrind writes
  its error reports.

`simt_speed.py` (plain simulation) and `check.py` (Oclgrind's checks against
`oclpy check`) both use it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from .impl import Impl

OCLGRIND_ICD = "/usr/lib/oclgrind/liboclgrind-rt-icd.so"


def oclgrind_impl() -> tuple[Impl | None, str]:
    """Oclgrind through PyOpenCL, or None and why not. Must run before PyOpenCL is imported."""
    lib = os.environ.get("OCLPY_BENCH_OCLGRIND_ICD", OCLGRIND_ICD)
    if not os.path.exists(lib):
        return None, f"Oclgrind not found ({lib} missing: apt-get install oclgrind)"
    if "pyopencl" in sys.modules:
        return None, "PyOpenCL was imported before the ICD folder could be set"
    folder = tempfile.mkdtemp(prefix="oclgrind-icd-")
    Path(folder, "oclgrind.icd").write_text(lib + "\n")
    os.environ["OCL_ICD_VENDORS"] = folder
    try:
        import pyopencl as cl
    except ImportError:
        return None, "PyOpenCL is not installed"
    try:
        for plat in cl.get_platforms():
            if "oclgrind" in plat.name.lower():
                return Impl("oclgrind", cl, plat.get_devices()[0]), ""
    except cl.Error as exc:
        return None, f"Oclgrind's platform did not load ({exc})"
    return None, "PyOpenCL lists no Oclgrind platform"


class Stderr:
    """The process's stderr (file descriptor 2, where Oclgrind writes) captured while inside;
    `text` holds it after."""

    def __enter__(self) -> "Stderr":
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()
