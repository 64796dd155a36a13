"""Fixtures for oclpy.array tests: one cpu context for the session, a fresh queue per test."""

from __future__ import annotations

import pytest

import oclpy as cl


@pytest.fixture(scope="session")
def ctx():
    return cl.Context(dev_type=cl.device_type.CPU)


@pytest.fixture()
def queue(ctx):
    return cl.CommandQueue(ctx)
