"""Fixtures of the build cache's tests: a private cache folder, and the sources the compiler ran on."""

from __future__ import annotations

from pathlib import Path

import pytest

from oclpy.compiler import cache, toolchain


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(folder))
    monkeypatch.delenv("OCLPY_NO_CACHE", raising=False)
    monkeypatch.setattr(cache, "_warned", set())
    cache.clear_memory()
    yield folder
    cache.clear_memory()


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources the real compiler was run on (the cache did not answer)."""
    calls: list[str] = []
    real = toolchain.compile_program

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(source)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(toolchain, "compile_program", counting)
    return calls
