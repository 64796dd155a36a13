"""The cuda driver's logic on a fake `cuda.bindings.driver` (tests/runtime/cuda_fake.py):
availability messages, device info, memory, launches, streams, timing, caches."""

from __future__ import annotations

import struct
import sys

import numpy as np
import pytest

from oclpy.compiler import compile_program, cuda_target
from oclpy.runtime.constants import device_type
from oclpy.runtime.drivers import cuda_api
from oclpy.runtime.drivers.base import NDRange

from .cuda_fake import install, make_fake, use_fake

SRC = """
__kernel void red(__global const float *in, __global float *out, __local float *tmp) {
  __local float tile[64];
  size_t l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  tile[l] = tmp[l];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[63 - l];
}
"""


@pytest.fixture()
def driver(fake_cuda):
    from oclpy.runtime.drivers.cuda import CudaDriver

    return CudaDriver()


def test_without_bindings_says_pip_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "cuda", None)
    monkeypatch.setitem(sys.modules, "cuda.bindings", None)
    assert "pip install oclpy[cuda]" in cuda_api.why_unavailable()


def test_without_libcuda_says_so(fake_cuda, monkeypatch):
    monkeypatch.setattr(cuda_api.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(cuda_api, "_can_load", lambda name: False)
    assert cuda_api.why_unavailable() == ("no CUDA driver (libcuda.so) found: the 'cuda' "
                                          "device needs an NVIDIA GPU driver")


def test_no_gpu_and_failing_init(monkeypatch, fake_cuda):
    assert cuda_api.why_unavailable() is None
    install(monkeypatch, make_fake(devices=0))
    assert cuda_api.why_unavailable() == "the CUDA driver found no GPU"
    install(monkeypatch, make_fake(fail={"cuInit": 100}))
    assert cuda_api.why_unavailable() == ("the CUDA driver did not start: cuInit failed: "
                                          "CUDA_ERROR_FAKE: a fake failure")


def test_describe(driver):
    desc = driver.describe()
    assert desc.kind == "cuda" and desc.type == device_type.GPU
    assert desc.info["NAME"] == "Fake H200" and desc.info["MAX_COMPUTE_UNITS"] == 132
    assert desc.info["LOCAL_MEM_SIZE"] == 232448 and desc.info["ARCH"] == "sm_90"
    assert desc.info["MAX_WORK_ITEM_SIZES"] == [1024, 1024, 64]


def test_memory_round_trip_copy_and_fill(driver):
    a = np.arange(64, dtype=np.uint8)
    src, dst = driver.allocate(64), driver.allocate(64)
    driver.write(src, 0, memoryview(a))
    driver.copy(dst, 8, src, 0, 32)
    out = np.zeros(64, np.uint8)
    driver.read(dst, 0, memoryview(out))
    assert out[8:40].tolist() == a[:32].tolist()
    for pattern in (b"\x07", b"\x01\x02", b"\x01\x02\x03\x04", b"abc"):
        driver.fill(dst, 4, pattern, 12)
        driver.read(dst, 4, memoryview(out[:12]))
        assert bytes(out[:12]) == (pattern * 12)[:12]
    driver.free(src)
    assert src.address not in driver.drv.memory


def test_out_of_memory_is_memory_error(monkeypatch, fake_cuda):
    from oclpy.runtime.drivers.cuda import CudaDriver

    install(monkeypatch, make_fake(fail={"cuMemAlloc": 2}))
    with pytest.raises(MemoryError, match="cannot allocate 64 bytes: cuMemAlloc failed"):
        CudaDriver().allocate(64)


def _red_launch(driver, fake, local_bytes: int = 512):
    kernel = compile_program(SRC, "", cuda_target()).program.kernels["red"]
    a, b = driver.allocate(4096), driver.allocate(4096)
    blob = struct.pack("<QQQ", a.address, b.address, local_bytes)
    fake.param_count = len(kernel.param_offsets)
    nd = NDRange(1, (1024, 1, 1), (128, 1, 1), (256, 0, 0))
    driver.launch(kernel, blob, nd)
    return kernel, a, b


def test_launch_parameters_shared_memory_and_streams(driver, fake_cuda):
    kernel, a, b = _red_launch(driver, fake_cuda)
    launch = fake_cuda.launches[-1]
    assert launch["fn"] == "red" and launch["grid"] == (8, 1, 1) and launch["block"] == (128, 1, 1)
    assert launch["shared"] == 512 and kernel.static_local_bytes == 256
    p = [int.from_bytes(v, "little") for v in launch["params"]]
    assert p[:3] == [a.address, b.address, 512]
    assert p[3:6] == [256, 0, 0] and p[6:9] == [0, 0, 0] and p[9:12] == [8, 1, 1]
    assert p[12] & 0xFFFFFFFF == 1
    assert fake_cuda.calls[-1] == "cuLaunchKernel"  # asynchronous by default: no wait
    assert fake_cuda.calls.count("cuLinkCreate") == 1


def test_large_dynamic_shared_memory_opts_in(driver, fake_cuda):
    _red_launch(driver, fake_cuda, local_bytes=100_000)
    assert "cuFuncSetAttribute" in fake_cuda.calls


def test_cubin_cache_skips_the_jit(driver, fake_cuda):
    from oclpy.runtime.drivers.cuda import CudaDriver

    _red_launch(driver, fake_cuda)
    again = CudaDriver()
    _red_launch(again, fake_cuda)
    assert fake_cuda.calls.count("cuLinkCreate") == 1 and fake_cuda.calls.count("cuModuleLoadData") == 2


def test_timing_and_synchronous_mode(monkeypatch, driver, fake_cuda):
    driver.timing = True
    _red_launch(driver, fake_cuda)
    assert driver.last_kernel_seconds() == pytest.approx(0.25e-3)
    assert driver.asynchronous and driver.inline_out_of_order and driver.ordered_markers
    monkeypatch.setenv("OCLPY_CUDA_ASYNC", "0")
    from oclpy.runtime.drivers.cuda import CudaDriver

    eager = CudaDriver()
    assert not (eager.asynchronous or eager.inline_out_of_order or eager.ordered_markers)
    before = fake_cuda.calls.count("cuStreamSynchronize")
    _red_launch(eager, fake_cuda)
    assert fake_cuda.calls[-2:] == ["cuLaunchKernel", "cuStreamSynchronize"]
    assert fake_cuda.calls.count("cuStreamSynchronize") == before + 1
    assert eager.completion() is None and eager.begin(True) is None


def test_a_launch_reuses_its_parameter_record_until_the_shape_changes(driver, fake_cuda):
    kernel, a, b = _red_launch(driver, fake_cuda)
    record = driver._params(kernel)
    shape = record.shape
    driver.launch(kernel, struct.pack("<QQQ", b.address, a.address, 64),
                  NDRange(1, (1024, 1, 1), (128, 1, 1), (256, 0, 0)))
    assert driver._params(kernel) is record and record.shape == shape
    p = [int.from_bytes(v, "little") for v in fake_cuda.launches[-1]["params"]]
    assert p[:4] == [b.address, a.address, 64, 256]
    driver.launch(kernel, struct.pack("<QQQ", a.address, b.address, 0),
                  NDRange(1, (512, 1, 1), (64, 1, 1)))
    launch = fake_cuda.launches[-1]
    assert launch["grid"] == (8, 1, 1) and launch["block"] == (64, 1, 1) and launch["shared"] == 0
    assert int.from_bytes(launch["params"][3], "little") == 0


def test_a_failed_launch_names_the_call(monkeypatch, tmp_path):
    from oclpy.runtime.drivers.cuda import CudaDriver

    fake = use_fake(monkeypatch, tmp_path, fail={"cuLaunchKernel": 1})
    with pytest.raises(cuda_api.CudaError, match="cuLaunchKernel failed: CUDA_ERROR_FAKE"):
        _red_launch(CudaDriver(), fake)


def test_driver_error_names_the_call(monkeypatch, fake_cuda):
    from oclpy.runtime.drivers.cuda import CudaDriver

    install(monkeypatch, make_fake(fail={"cuLinkCreate": 218}))
    d = CudaDriver()
    with pytest.raises(cuda_api.CudaError, match="rejected the PTX: cuLinkCreate failed: CUDA_ERROR_FAKE"):
        _red_launch(d, d.drv)


def test_large_writes_go_through_pinned_staging(monkeypatch, driver, fake_cuda):
    from oclpy.runtime.drivers import cuda_staging

    monkeypatch.setattr(cuda_staging, "CHUNK", 1024)
    monkeypatch.setattr("oclpy.runtime.drivers.cuda.STAGING_THRESHOLD", 2048)
    data = np.random.default_rng(1).integers(0, 255, 5000, dtype=np.uint8)
    buf = driver.allocate(5000)
    driver.write(buf, 0, memoryview(data))
    assert len(fake_cuda.pinned) == 2 and fake_cuda.calls.count("cuMemcpyHtoDAsync") == 5
    out = np.zeros(5000, np.uint8)
    driver.read(buf, 0, memoryview(out))  # reads go straight through the driver
    assert fake_cuda.calls.count("cuMemcpyDtoHAsync") == 1 and (out == data).all()


def test_staging_can_be_turned_off(monkeypatch, fake_cuda):
    from oclpy.runtime.drivers.cuda import CudaDriver

    monkeypatch.setenv("OCLPY_CUDA_PINNED", "0")
    monkeypatch.setattr("oclpy.runtime.drivers.cuda.STAGING_THRESHOLD", 16)
    d = CudaDriver()
    d.write(d.allocate(64), 0, memoryview(np.ones(64, np.uint8)))
    assert not fake_cuda.pinned and fake_cuda.calls.count("cuMemcpyHtoDAsync") == 1


def test_more_groups_than_the_grid_holds_run_as_several_launches(driver, fake_cuda):
    kernel, a, b = _red_launch(driver, fake_cuda)
    before = len(fake_cuda.launches)
    nd = NDRange(3, (2, 2 * 70_000, 65_536), (1, 2, 1))  # 70,000 groups in y, 65,536 in z
    driver.launch(kernel, struct.pack("<QQQ", a.address, b.address, 0), nd)
    parts = fake_cuda.launches[before:]
    assert [p["grid"] for p in parts] == [(2, 65535, 65535), (2, 4465, 65535),
                                         (2, 65535, 1), (2, 4465, 1)]
    hidden = [[int.from_bytes(v, "little") for v in p["params"][3:12]] for p in parts]
    assert [h[3:6] for h in hidden] == [[0, 0, 0], [0, 65535, 0], [0, 0, 65535], [0, 65535, 65535]]
    assert all(h[6:9] == [2, 70_000, 65_536] for h in hidden)
    driver.launch(kernel, struct.pack("<QQQ", a.address, b.address, 0), NDRange(1, (64, 1, 1), (64, 1, 1)))
    last = [int.from_bytes(v, "little") for v in fake_cuda.launches[-1]["params"][3:12]]
    assert fake_cuda.launches[-1]["grid"] == (1, 1, 1) and last[3:9] == [0, 0, 0, 1, 1, 1]
