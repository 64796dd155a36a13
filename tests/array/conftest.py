"""Fixtures for oclpy.array tests: one context for the session on the device under test
(OCLPY_DEVICE, default cpu), a fresh queue per test."""

from __future__ import annotations

import pytest

import oclpy as cl


@pytest.fixture(scope="session")
def ctx():
    return cl.create_some_context(interactive=False)


@pytest.fixture()
def queue(ctx):
    return cl.CommandQueue(ctx)
