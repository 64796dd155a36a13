"""Several GPUs on the fake `cuda.bindings.driver` (cuda_fake.py): one driver per GPU,
and a thread that drives two GPUs makes the right context current before each call."""

from __future__ import annotations

import pytest

from .cuda_fake import use_fake


@pytest.fixture()
def fake(monkeypatch, tmp_path):
    return use_fake(monkeypatch, tmp_path, devices=2)


def test_one_driver_per_gpu(fake, monkeypatch):
    from oclpy.runtime.drivers.cuda import CudaDriver

    assert CudaDriver.ordinals() == [0, 1]
    monkeypatch.setenv("OCLPY_CUDA_DEVICE", "1")
    assert CudaDriver.ordinals() == [1]


def test_one_thread_switches_contexts_between_gpus(fake):
    from oclpy.runtime.drivers.cuda import CudaDriver

    g0, g1 = CudaDriver(0), CudaDriver(1)
    assert (g0.context, g1.context) == ("ctx-dev0", "ctx-dev1")
    seen = []
    alloc = fake.cuMemAlloc

    def recording(n):
        seen.append(fake.current)
        return alloc(n)

    fake.cuMemAlloc = recording
    for gpu in (g0, g1, g0, g0, g1):
        gpu.allocate(64)
    assert seen == ["ctx-dev0", "ctx-dev1", "ctx-dev0", "ctx-dev0", "ctx-dev1"]
    assert g0.memory_domain is g0 and g1.memory_domain is g1  # separate memories


def test_a_buffer_moves_gpu_to_gpu_without_the_host(fake):
    import numpy as np

    import oclpy as cl
    from oclpy.runtime.device import Device
    from oclpy.runtime.drivers.cuda import CudaDriver

    platform = cl.get_platforms()[0]
    g0, g1 = Device(CudaDriver(0), platform), Device(CudaDriver(1), platform)
    ctx = cl.Context([g0, g1])
    q0, q1 = cl.CommandQueue(ctx, g0), cl.CommandQueue(ctx, g1)
    data = np.arange(64, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, data.nbytes)
    cl.enqueue_copy(q0, buf, data)  # on GPU 0
    out = np.zeros_like(data)
    cl.enqueue_copy(q1, out, buf)  # read on GPU 1: migrated GPU to GPU first
    np.testing.assert_array_equal(out, data)
    assert fake.peer_copies == [("ctx-dev1", "ctx-dev0", data.nbytes)]
    assert buf.storage.valid == {g0.driver.memory_domain, g1.driver.memory_domain}
    ctx.release()
