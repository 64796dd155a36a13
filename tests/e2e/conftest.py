"""Fixtures for end-to-end kernel tests: a context and queue on the device
under test (OCLPY_DEVICE, default cpu), and a helper that builds a kernel,
runs it on NumPy inputs and returns the outputs.

The simt slice: the tests of `SIMT_SLICE` (a few dozen kernels, seconds) run
on the simt device as well, in every test run, so that CI keeps simt working
(`OCLPY_DEVICE=simt` runs the whole suite there)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import oclpy as cl


SIMT_SLICE = ("test_slice.py", "test_vectors.py", "test_corpus.py", "test_generic_space.py")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The slice's tests get a second context, on simt (unless simt is the device under test)."""
    on_simt = os.environ.get("OCLPY_DEVICE", "").strip().lower() == "simt"
    if "ctx" in metafunc.fixturenames and metafunc.definition.path.name in SIMT_SLICE and not on_simt:
        metafunc.parametrize("ctx", ["default", "simt"], indirect=True, scope="session")


@pytest.fixture(scope="session")
def ctx(request: pytest.FixtureRequest):
    if getattr(request, "param", "default") == "simt":
        return cl.Context([d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt"])
    return cl.create_some_context(interactive=False)


@pytest.fixture()
def queue(ctx):
    return cl.CommandQueue(ctx)


class KernelRunner:
    """Builds `source` and runs one kernel: arrays become buffers (copied in and
    read back), NumPy scalars and LocalMemory pass through."""

    def __init__(self, ctx, queue):
        self.ctx, self.queue = ctx, queue

    def __call__(self, source, name, global_size, local_size, *args, options=""):
        program = cl.Program(self.ctx, source).build(options=options)
        mf = cl.mem_flags
        buffers = []
        call_args = []
        for arg in args:
            if isinstance(arg, np.ndarray):
                buf = cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=arg)
                buffers.append((buf, arg))
                call_args.append(buf)
            else:
                call_args.append(arg)
        getattr(program, name)(self.queue, global_size, local_size, *call_args).wait()
        for buf, arr in buffers:
            cl.enqueue_copy(self.queue, arr, buf)
        self.queue.finish()
        return [arr for _, arr in buffers]


@pytest.fixture()
def run_kernel(ctx, queue):
    return KernelRunner(ctx, queue)


def pytest_report_header(config):
    """Say which device the end-to-end kernels run on (OCLPY_DEVICE, default cpu)."""
    return f"oclpy e2e device: {os.environ.get('OCLPY_DEVICE') or 'cpu'}"
