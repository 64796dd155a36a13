"""Fixtures for runtime tests: a cpu context, queues, `fake_program(*kernels)`,
which builds a Program whose compiled kernels are `fakes.FakeKernel`s, and
`fake_cuda`, the cuda driver set up on a fake `cuda.bindings.driver`
(`cuda_fake.use_fake`)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import pytest

import oclpy as cl
from oclpy.compiler import door

from .cuda_fake import use_fake
from .fakes import FakeKernel


@pytest.fixture(scope="session")
def ctx():
    return cl.Context(dev_type=cl.device_type.CPU)


@pytest.fixture()
def queue(ctx):
    return cl.CommandQueue(ctx)


@pytest.fixture()
def ooo_queue(ctx):
    return cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
                           | cl.command_queue_properties.PROFILING_ENABLE)


@pytest.fixture()
def fake_program(ctx, monkeypatch):
    registry: dict[str, dict[str, FakeKernel]] = {}
    real_build = door.build
    counter = itertools.count()

    def build(source: Any, options: str = "", target: Any = None, filename: str = "<kernel>") -> Any:
        if source in registry:
            return SimpleNamespace(program=SimpleNamespace(kernels=registry[source]), log="")
        return real_build(source, options, target, filename)

    monkeypatch.setattr(door, "build", build)

    def make(*kernels: FakeKernel) -> cl.Program:
        source = f"// fake program {next(counter)}\n"
        registry[source] = {k.name: k for k in kernels}
        return cl.Program(ctx, source).build()

    return make


@pytest.fixture()
def fake_cuda(monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    """One fake GPU (`cuda_fake.make_fake`), the build cache in a fresh folder."""
    return use_fake(monkeypatch, tmp_path)
