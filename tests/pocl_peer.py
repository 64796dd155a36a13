"""PoCL through PyOpenCL, the peer several tests compare oclpy with: its context, or the
test skipped with the reason (no PyOpenCL, no OpenCL platform, no PoCL)."""

from __future__ import annotations

from typing import Any

import pytest


def pocl_context(all_devices: bool = False) -> tuple[Any, Any]:
    """(the pyopencl module, a Context on PoCL's first device, or on all of them)."""
    pyopencl = pytest.importorskip("pyopencl")
    try:
        platforms = [p for p in pyopencl.get_platforms() if "Portable" in p.name]
    except pyopencl.Error as exc:
        pytest.skip(f"no OpenCL platform: {exc}")
    if not platforms:
        pytest.skip("PoCL is not installed")
    devices = platforms[0].get_devices()
    return pyopencl, pyopencl.Context(devices if all_devices else devices[:1])
