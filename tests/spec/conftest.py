"""Fixtures for the spec-section suite: one cpu context for the session and
`run_kernel`, which builds OpenCL C source and runs one kernel on NumPy arrays."""

from __future__ import annotations

import pytest

from .harness import KernelRunner, cpu_context


@pytest.fixture(scope="session")
def ctx():
    return cpu_context()


@pytest.fixture(scope="session")
def run_kernel(ctx):
    return KernelRunner(ctx)
