"""Differential: every e2e kernel on simt (default and tiny register files) against the cpu device, bit for bit.

    python -m tools.simt_differential [REPORT.md] [-- PYTEST ARGS]

Runs `tests/e2e` on the cpu device with this module as a pytest plugin. Each
kernel that a test runs through the `run_kernel` fixture (`KernelRunner`) is
run again, from copies of the same inputs, on the simulator for two simt
devices: the default register files and the smallest the ABI allows (48
scalar, 24 vector registers: every kernel with more than a handful of live
values spills). Each output array must have the same bytes as the cpu's.
Kernels that simt cannot build are counted apart, with the build error's
first line; kernels whose outputs depend on the order of atomics or on
floating-point rounding the two devices may do differently are reported as
differences, to be read (the report says which tests they come from).

Tests that drive the runtime themselves (their own queues and programs) are
not covered; the report counts the kernels that were.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import oclpy as cl
from oclpy.compiler import build, simt_target
from oclpy.diagnostics import CompileError
from oclpy.targets.simt.device_config import SimtMachine
from oclpy.targets.simt.sim_memory import GlobalMemory
from oclpy.targets.simt.simt_program import load_data, pack_args
from oclpy.targets.simt.simulator import SimConfig, run_kernel

MACHINES = {"default": SimtMachine(), "tiny": SimtMachine(32, 48, 24)}


@dataclass
class Outcome:
    test: str
    kernel: str
    results: dict[str, str] = field(default_factory=dict)  # machine -> "same", "differs: ...", "build: ..."


OUTCOMES: list[Outcome] = []


def run_on_simt(source: str, name: str, global_size: Any, local_size: Any, args: list[Any], options: str,
                machine: SimtMachine) -> list[np.ndarray]:
    """The arrays of `args` after running kernel `name` on a simt device of `machine`."""
    program = build(source, options, simt_target(machine)).program
    memory = GlobalMemory()
    values, arrays = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            address = memory.upload(a)
            arrays.append((address, a))
            values.append(address)
        elif isinstance(a, cl.LocalMemory):
            values.append(a.size)
        else:
            values.append(a if isinstance(a, (bytes, bytearray)) else np.asarray(a))
    kernel = program.kernels[name]
    blob, local = pack_args(kernel, values, load_data(program, memory)[0])
    gsize = tuple(global_size)
    lsize = tuple(local_size) if local_size is not None else (1,) * len(gsize)
    run_kernel(program.module, name, memory, global_size=gsize, local_size=lsize, args=blob, local_bytes=local,
               private_bytes=kernel.private_bytes,
               config=SimConfig(machine.wave_width, machine.sgprs, machine.vgprs))
    return [memory.download(address, a.dtype, a.size).reshape(a.shape) for address, a in arrays]


def compare(want: list[np.ndarray], got: list[np.ndarray]) -> str:
    for k, (w, g) in enumerate(zip(want, got)):
        if w.tobytes() != g.tobytes():
            bad = np.flatnonzero(w.view(np.uint8).ravel() != g.view(np.uint8).ravel())
            return f"differs: array {k}, {len(bad)} bytes, first at byte {bad[0]}"
    return "same"


def differential_call(original: Any, test: str) -> Any:
    def call(self: Any, source: str, name: str, global_size: Any, local_size: Any, *args: Any,
             options: str = "") -> list[np.ndarray]:
        inputs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        out = original(self, source, name, global_size, local_size, *args, options=options)
        if self.ctx.devices[0].kind != "cpu":  # the e2e slice's second run, on simt itself
            return out
        outcome = Outcome(test, name)
        for label, machine in MACHINES.items():
            try:
                got = run_on_simt(source, name, global_size, local_size, [
                    a.copy() if isinstance(a, np.ndarray) else a for a in inputs], options, machine)
                outcome.results[label] = compare(out, got)
            except CompileError as exc:
                outcome.results[label] = "build: " + first_error(exc.log)
            except Exception as exc:  # a simulator error is a finding too
                outcome.results[label] = f"run: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        OUTCOMES.append(outcome)
        return out
    return call


def first_error(log: str) -> str:
    lines = [line for line in log.splitlines() if "error:" in line]
    return (lines[0] if lines else log.strip().splitlines()[0]).split("error: ", 1)[-1][:200]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    runner = getattr(item, "funcargs", {}).get("run_kernel")
    if runner is None:
        yield
        return
    cls = type(runner)
    original = cls.__call__
    cls.__call__ = differential_call(original, item.nodeid)
    try:
        yield
    finally:
        cls.__call__ = original


def report() -> str:
    lines = ["# simt differential: e2e kernels on simt (default and tiny register files) against cpu", ""]
    counts = {label: Counter(r.results[label].split(":")[0] for r in OUTCOMES) for label in MACHINES}
    lines.append(f"Kernels run through `run_kernel`: {len(OUTCOMES)}")
    for label, c in counts.items():
        lines.append(f"- {label} ({MACHINES[label]}): " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    lines += ["", "| test | kernel | default | tiny |", "| --- | --- | --- | --- |"]
    for r in OUTCOMES:
        if any(v != "same" for v in r.results.values()):
            lines.append(f"| {r.test} | {r.kernel} | {r.results['default']} | {r.results['tiny']} |")
    return "\n".join(lines) + "\n"


def pytest_sessionfinish(session: pytest.Session) -> None:
    text = report()
    path = os.environ.get("OCLPY_SIMT_DIFFERENTIAL_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write("\n" + text)


def main(argv: list[str]) -> int:
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    head = argv[: argv.index("--")] if "--" in argv else argv
    if head:
        os.environ["OCLPY_SIMT_DIFFERENTIAL_REPORT"] = head[0]
    os.environ["OCLPY_DEVICE"] = "cpu"
    plugin = importlib.import_module("tools.simt_differential")  # one module, whether run as __main__ or not
    pytest.main(["-q", "tests/e2e", *extra], plugins=[plugin])
    return 1 if any(not v.startswith(("same", "build")) for r in plugin.OUTCOMES for v in r.results.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
