"""-O0 against -O2: every end-to-end kernel test of tests/e2e (and the demo's
kernels) runs once with `-cl-opt-disable` and once at the default level (-O2),
and what each run read back from the device must be the same, bit for bit.

How: the test functions of the other e2e modules are collected and called with
the usual fixtures, while `Program.build` is wrapped to add the level's option
and `enqueue_copy` is wrapped to record every array it fills on the host. Each
test's own assertions still run at both levels.
"""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import oclpy as cl
from oclpy.cli import demo
from oclpy.runtime.program import Program

HERE = Path(__file__).parent
MODULES = ("test_slice.py", "test_corpus.py", "test_async_copy.py", "test_generic_space.py",
           "test_vectors.py")
FIXTURES = {"run_kernel", "ctx", "queue"}
LEVELS = {"O0": "-cl-opt-disable", "O2": ""}


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"e2e_pipelines_{name[:-3]}", HERE / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases() -> list[Any]:
    """(test function, its parametrize arguments) for every collectable e2e test."""
    cases = []
    for file in MODULES:
        module = _load(file)
        for name, fn in sorted(vars(module).items()):
            if not name.startswith("test_") or not callable(fn):
                continue
            params = set(inspect.signature(fn).parameters)
            for kwargs in _parametrizations(fn):
                if params - set(kwargs) <= FIXTURES:
                    suffix = "-".join(str(v.__name__ if hasattr(v, "__name__") else v)
                                      for v in kwargs.values())
                    cases.append(pytest.param(fn, kwargs, id=f"{file[:-3]}::{name}"
                                              + (f"[{suffix}]" if suffix else "")))
    return cases


def _parametrizations(fn: Callable[..., Any]) -> list[dict[str, Any]]:
    combos: list[dict[str, Any]] = [{}]
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) \
            else list(mark.args[0])
        values = [v if isinstance(v, (tuple, list)) and len(names) > 1 else (v,) for v in mark.args[1]]
        combos = [{**c, **dict(zip(names, v))} for c in combos for v in values]
    return combos


class Recorder:
    """Patches the build options and records host arrays filled by enqueue_copy."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.original_build = Program.build
        self.original_copy = cl.enqueue_copy
        self.arrays: list[np.ndarray] = []

    def run(self, level_option: str, body: Callable[[], Any]) -> list[np.ndarray]:
        self.arrays = []
        original_build, original_copy = self.original_build, self.original_copy

        def build(program: Program, options: Any = "", *args: Any, **kwargs: Any) -> Program:
            joined = " ".join(options) if isinstance(options, (list, tuple)) else str(options or "")
            return original_build(program, f"{joined} {level_option}".strip(), *args, **kwargs)

        def copy(queue: Any, dest: Any, src: Any, **kwargs: Any) -> Any:
            event = original_copy(queue, dest, src, **kwargs)
            if isinstance(dest, np.ndarray):
                queue.finish()
                self.arrays.append(dest.copy())
            return event

        self.monkeypatch.setattr(Program, "build", build)
        self.monkeypatch.setattr(cl, "enqueue_copy", copy)
        try:
            body()
        finally:
            self.monkeypatch.setattr(Program, "build", original_build)
            self.monkeypatch.setattr(cl, "enqueue_copy", original_copy)
        return self.arrays


def _assert_same(o0: list[np.ndarray], o2: list[np.ndarray]) -> None:
    assert len(o0) == len(o2) and o0, "both levels read back the same number of arrays"
    for k, (a, b) in enumerate(zip(o0, o2)):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes(), f"array {k} differs between -O0 and -O2"


@pytest.mark.parametrize("fn,kwargs", _cases())
def test_o0_and_o2_agree(fn, kwargs, ctx, queue, run_kernel, monkeypatch) -> None:
    fixtures = {"ctx": ctx, "queue": queue, "run_kernel": run_kernel}
    wanted = set(inspect.signature(fn).parameters) - set(kwargs)
    call = lambda: fn(**kwargs, **{k: fixtures[k] for k in wanted})  # noqa: E731
    recorder = Recorder(monkeypatch)
    _assert_same(recorder.run(LEVELS["O0"], call), recorder.run(LEVELS["O2"], call))


def test_the_e2e_modules_are_collected() -> None:
    assert {"test_slice.py", "test_corpus.py", "test_async_copy.py"} <= set(MODULES)
    assert len(_cases()) >= 30


@pytest.mark.parametrize("case", demo.CASES, ids=[c.name for c in demo.CASES])
def test_demo_kernels_agree(case, ctx, monkeypatch) -> None:
    recorder = Recorder(monkeypatch)
    results = []

    def body() -> None:
        results.append(case.run(demo.Runner(cl, ctx), True))

    o0 = recorder.run(LEVELS["O0"], body)
    o2 = recorder.run(LEVELS["O2"], body)
    assert all(r.ok for r in results), results
    _assert_same(o0, o2)


def test_the_level_option_reaches_the_compiler(ctx, monkeypatch) -> None:
    """The recorder really changes the pipeline: -cl-opt-disable leaves allocas, -O2 none."""
    from oclpy.compiler import toolchain

    seen: list[int] = []
    original = toolchain.optimize

    def spy(module: Any, level: int, *args: Any, **kwargs: Any) -> Any:
        seen.append(level)
        return original(module, level, *args, **kwargs)

    monkeypatch.setattr(toolchain, "optimize", spy)
    import uuid

    # A fresh comment: build caches (in memory or on disk) must not answer for the compiler.
    src = f"// {uuid.uuid4()}\n__kernel void k(__global int *o) {{ int x = 3; o[get_global_id(0)] = x; }}"
    recorder = Recorder(monkeypatch)
    for option in (LEVELS["O0"], LEVELS["O2"]):
        recorder.run(option, lambda: cl.Program(ctx, src).build())
    assert seen == [0, 2]
