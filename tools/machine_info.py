"""The machine and the software versions a measurement ran on, for the records that
benchmarks and tools write."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"platform": platform.platform(), "machine": platform.machine(),
                            "python": sys.version.split()[0], "cores": os.cpu_count()}
    try:
        info["usable_cores"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        pass
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            info["cpu"] = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return info


def software() -> dict[str, str]:
    import llvmlite
    import llvmlite.binding as llvm
    import numpy

    out = {"numpy": numpy.__version__, "llvmlite": llvmlite.__version__,
           "llvm": ".".join(map(str, llvm.llvm_version_info))}
    try:
        from importlib.metadata import version
        out["oclpy"] = version("oclpy")
    except Exception:
        pass
    for pkg in ("pyopencl", "pocl-binary-distribution"):
        try:
            from importlib.metadata import version
            out[pkg] = version(pkg)
        except Exception:
            pass
    return out
