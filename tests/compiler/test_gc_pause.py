"""The cyclic collector is paused during builds and comes back after them."""

import gc
import threading

import pytest

from oclpy.compiler import toolchain
from oclpy.compiler.gc_pause import paused_gc


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_within_and_back_after():
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_end_with_the_outermost():
    with paused_gc():
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_back_after_an_exception():
    with pytest.raises(ValueError, match="inside"):
        with paused_gc():
            raise ValueError("inside")
    assert gc.isenabled()


def test_stays_off_when_it_was_off():
    gc.disable()
    with paused_gc():
        pass
    assert not gc.isenabled()


def test_threads_share_one_pause():
    inside, release = threading.Event(), threading.Event()

    def build() -> None:
        with paused_gc():
            inside.set()
            release.wait(10)

    worker = threading.Thread(target=build)
    worker.start()
    inside.wait(10)
    with paused_gc():
        pass
    assert not gc.isenabled(), "the other build still runs"
    release.set()
    worker.join()
    assert gc.isenabled()


def test_a_build_runs_paused(monkeypatch):
    seen = []
    real = toolchain.compile_to_ir

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(toolchain, "compile_to_ir", spy)
    toolchain.compile_program("kernel void k(global int *o) { o[0] = 1; }")
    assert seen == [False]
    assert gc.isenabled()
