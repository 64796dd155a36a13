"""The devices the image tests run on: a context on the cpu, simt or cuda device,
the cuda one skipped (with the reason) where no GPU or its bindings are present."""

from __future__ import annotations

import pytest

import oclpy as cl
from oclpy.runtime.drivers import load_driver
from oclpy.runtime.drivers.base import DriverUnavailable

KINDS = ["cpu", "simt", "cuda"]


def context_on(kind: str) -> cl.Context:
    if kind == "cuda":
        driver = load_driver("cuda")
        if isinstance(driver, DriverUnavailable):
            pytest.skip(driver.reason)
    return cl.Context([next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == kind)])
