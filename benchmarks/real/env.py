"""The suite's own environment: Intel's CPU runtime and matplotlib, outside the system.

Intel's CPU OpenCL (`intel-opencl-rt`, which needs `intel-cmplr-lib-rt`) is
installed with pip into a virtual environment under the benchmarks' cache
(`$XDG_CACHE_HOME/oclpy-bench/real/venv`), with matplotlib for the plot. The
ICD loader of the PyOpenCL in this process is pointed at its
`libintelocl.so` through a vendors folder of our own (OCL_ICD_VENDORS, set in
this process only, before PyOpenCL loads); PyOpenCL's wheel adds its bundled
PoCL to whatever that folder lists.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PACKAGES = ("intel-opencl-rt", "intel-cmplr-lib-rt", "matplotlib")


def root() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "oclpy-bench" / "real"


def venv_python() -> Path:
    return root() / "venv" / "bin" / "python"


def intel_library() -> Path | None:
    libs = sorted((root() / "venv" / "lib").glob("libintelocl.so"))
    return libs[0] if libs else None


def install(log=sys.stderr) -> str | None:  # type: ignore[no-untyped-def]
    """Create the venv and pip-install PACKAGES into it; None, or why it failed."""
    venv = root() / "venv"
    try:
        if not venv_python().exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        print(f"installing {' '.join(PACKAGES)} into {venv} (about 850 MB) ...", file=log)
        proc = subprocess.run([str(venv_python()), "-m", "pip", "install", "-q", *PACKAGES],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return f"pip failed: {proc.stderr.strip()[-500:]}"
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    return None


def point_icd_at_intel() -> str | None:
    """Make this process's ICD loader list Intel's runtime; None, or why it cannot.

    Call before PyOpenCL is imported. A vendors file set earlier (pocl_fix's
    patched PoCL) is kept in the folder beside Intel's."""
    lib = intel_library()
    if lib is None:
        return (f"Intel's CPU runtime is not installed in {root() / 'venv'} "
                "(python -m benchmarks.real --install-intel installs it there)")
    vendors = root() / "vendors"
    vendors.mkdir(parents=True, exist_ok=True)
    for old in vendors.glob("*.icd"):
        old.unlink()
    (vendors / "intel-cpu.icd").write_text(f"{lib}\n")
    earlier = os.environ.get("OCL_ICD_VENDORS")
    if earlier and Path(earlier).is_file():
        (vendors / Path(earlier).name).write_text(Path(earlier).read_text())
    os.environ["OCL_ICD_VENDORS"] = str(vendors)
    return None
