"""Platforms, devices, contexts and create_some_context."""

from __future__ import annotations

import os

import pytest

import oclpy as cl
from oclpy.runtime import drivers
from oclpy.runtime.drivers.base import DriverUnavailable


def test_one_platform_with_a_cpu_device():
    platforms = cl.get_platforms()
    assert len(platforms) == 1
    platform = platforms[0]
    assert platform.name == "oclpy" and platform.version.startswith("OpenCL 3.0")
    assert platform.get_info(cl.platform_info.NAME) == "oclpy"
    cpus = platform.get_devices(cl.device_type.CPU)
    assert [d.kind for d in cpus] == ["cpu"]
    assert cpus[0] in platform.get_devices()


def test_device_info_attributes():
    dev = cl.get_platforms()[0].get_devices(cl.device_type.CPU)[0]
    assert dev.type == cl.device_type.CPU
    assert dev.version == "OpenCL 3.0 oclpy"
    assert dev.opencl_c_version.startswith("OpenCL C ")
    assert dev.max_work_group_size == 1024
    assert dev.max_work_item_dimensions == 3 and dev.max_work_item_sizes == [1024, 1024, 1024]
    expected_units = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert dev.max_compute_units == expected_units
    assert dev.local_mem_size > 0 and dev.global_mem_size >= dev.max_mem_alloc_size > 0
    assert "cl_khr_fp64" in dev.extensions
    assert dev.double_fp_config & cl.device_fp_config.FMA
    assert dev.address_bits == 64
    assert dev.platform is cl.get_platforms()[0]
    assert dev.get_info(cl.device_info.NAME) == dev.name == "oclpy cpu"
    assert dev.get_info(cl.device_info.TYPE) == cl.device_type.CPU
    assert repr(dev) == "<oclpy.Device 'oclpy cpu' on 'oclpy'>"


def test_device_info_errors():
    dev = cl.get_platforms()[0].get_devices()[0]
    with pytest.raises(cl.LogicError) as info:
        dev.get_info(12345)
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert str(info.value).startswith("clGetDeviceInfo failed: INVALID_VALUE")
    with pytest.raises(AttributeError):
        dev.no_such_info


def test_no_device_of_a_type():
    # PyOpenCL answers CL_DEVICE_NOT_FOUND from clGetDeviceIDs with an empty list
    assert cl.get_platforms()[0].get_devices(cl.device_type.CUSTOM) == []


def test_context_constructors(ctx):
    dev = ctx.devices[0]
    assert cl.Context([dev]).devices == [dev]
    assert cl.Context(dev_type=cl.device_type.ALL).devices[0].kind in drivers.DRIVER_TABLE
    assert cl.Context().devices  # DEFAULT device
    props = [(cl.context_properties.PLATFORM, cl.get_platforms()[0])]
    assert cl.Context(properties=props, dev_type=cl.device_type.CPU).num_devices == 1
    assert cl.Context([dev]).get_info(cl.context_info.NUM_DEVICES) == 1


@pytest.mark.parametrize("kwargs, code, text", [
    ({"devices": [], "dev_type": None}, cl.status_code.INVALID_VALUE, "no devices given"),
    ({"devices": ["cpu"]}, cl.status_code.INVALID_DEVICE, "expected an oclpy Device, got str"),
    ({"properties": [(0x9999, 1)]}, cl.status_code.INVALID_PROPERTY, "unsupported context property"),
    ({"properties": [(cl.context_properties.PLATFORM, "x")]}, cl.status_code.INVALID_PLATFORM,
     "is not the oclpy platform"),
])
def test_context_errors(kwargs, code, text):
    with pytest.raises(cl.LogicError) as info:
        cl.Context(**kwargs)
    assert info.value.code == code and text in str(info.value)


def test_context_devices_and_dev_type_exclusive(ctx):
    with pytest.raises(cl.LogicError, match="one of 'devices' or 'dev_type' must be None"):
        cl.Context(ctx.devices, dev_type=cl.device_type.CPU)


def test_create_some_context_honours_pyopencl_ctx(monkeypatch):
    monkeypatch.delenv("OCLPY_DEVICE", raising=False)
    for spec in ("0", "0:0", "oclpy:cpu", ""):
        monkeypatch.setenv("PYOPENCL_CTX", spec)
        ctx = cl.create_some_context(interactive=False)
        assert ctx.devices[0] is cl.get_platforms()[0].get_devices()[0]
    monkeypatch.setenv("PYOPENCL_CTX", "0:7")
    with pytest.raises(cl.LogicError, match="device index 7 out of range"):
        cl.create_some_context(interactive=False)
    monkeypatch.setenv("PYOPENCL_CTX", "nvidia")
    with pytest.raises(cl.LogicError, match="input 'nvidia' did not match any platform"):
        cl.create_some_context(interactive=False)


def test_oclpy_device_cpu(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setenv("OCLPY_DEVICE", "cpu")
    assert cl.create_some_context().devices[0].kind == "cpu"


def test_oclpy_device_unavailable_names_what_is_missing(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setitem(drivers._loaded, "cuda",
                        DriverUnavailable("cuda", "no NVIDIA GPU was found (cuInit failed)"))
    monkeypatch.setenv("OCLPY_DEVICE", "cuda")
    with pytest.raises(cl.RuntimeError) as info:
        cl.create_some_context()
    assert info.value.code == cl.status_code.DEVICE_NOT_FOUND
    assert ("OCLPY_DEVICE=cuda asks for the 'cuda' device, which is not available: "
            "no NVIDIA GPU was found (cuInit failed)") in str(info.value)


def test_oclpy_device_unknown_kind(monkeypatch):
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    monkeypatch.setenv("OCLPY_DEVICE", "tpu")
    with pytest.raises(cl.RuntimeError, match=r"unknown device kind 'tpu' \(known: cpu, cuda, simt\)"):
        cl.create_some_context()


def test_missing_driver_module_is_reported():
    missing = drivers.load_driver("simt")
    if isinstance(missing, DriverUnavailable):
        assert "simt" in missing.reason
