"""Fixtures for the spec-section suite: one context for the session on the device under
test (OCLPY_DEVICE, default cpu) and `run_kernel`, which builds OpenCL C source and runs
one kernel on NumPy arrays."""

from __future__ import annotations

import pytest

from .harness import KernelRunner, device_context


@pytest.fixture(scope="session")
def ctx():
    return device_context()


@pytest.fixture(scope="session")
def run_kernel(ctx):
    return KernelRunner(ctx)
