"""Fixtures shared by the frontend tests that run kernels."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def queue():  # type: ignore[no-untyped-def]
    """(context, command queue) on the first device: OCLPY_DEVICE's kind, else the cpu."""
    import oclpy as cl

    try:
        ctx = cl.Context(cl.get_platforms()[0].get_devices()[:1])
    except Exception as exc:  # no device in this build
        pytest.skip(f"no device: {exc}")
    return ctx, cl.CommandQueue(ctx)
