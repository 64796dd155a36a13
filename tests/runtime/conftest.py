"""Fixtures for runtime tests: a cpu context, queues, and `fake_program(*kernels)`,
which builds a Program whose compiled kernels are `fakes.FakeKernel`s."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import pytest

import oclpy as cl
from oclpy.compiler import door

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


