"""pytest plugin (`-p benchmarks.cuda.spec_plugin`): run the spec-section suite
(tests/spec, whose harness asks for the cpu device) on the device OCLPY_DEVICE names.

Used by gpu_batch.sh; it changes nothing when OCLPY_DEVICE is unset or cpu."""

from __future__ import annotations

import os
import sys


def _device_context():  # type: ignore[no-untyped-def]
    import oclpy as cl

    kind = os.environ["OCLPY_DEVICE"]
    devices = [d for p in cl.get_platforms() for d in p.get_devices() if d.kind == kind]
    return cl.Context(devices[:1])


def pytest_collection_modifyitems(session, config, items):  # type: ignore[no-untyped-def]
    if os.environ.get("OCLPY_DEVICE", "cpu") in ("", "cpu"):
        return
    for name in ("tests.spec.harness", "tests.spec.conftest"):
        module = sys.modules.get(name)
        if module is not None and hasattr(module, "cpu_context"):
            module.cpu_context = _device_context


def pytest_report_header(config):  # type: ignore[no-untyped-def]
    return f"spec suite device: {os.environ.get('OCLPY_DEVICE') or 'cpu'}"
