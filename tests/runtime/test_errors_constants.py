"""The exception classes and the constant classes, as PyOpenCL shapes them."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.errors import KernelNameError, error_class, make_error, raise_cl


@pytest.mark.parametrize("code, cls", [
    (cl.status_code.MEM_OBJECT_ALLOCATION_FAILURE, cl.MemoryError),
    (cl.status_code.INVALID_VALUE, cl.LogicError),
    (cl.status_code.INVALID_WORK_GROUP_SIZE, cl.LogicError),
    (cl.status_code.BUILD_PROGRAM_FAILURE, cl.RuntimeError),
    (cl.status_code.OUT_OF_RESOURCES, cl.RuntimeError),
    (cl.status_code.SUCCESS, cl.Error),
])
def test_class_follows_code(code, cls):
    assert error_class(code) is cls
    err = make_error("clFoo", code, "details")
    assert type(err) is cls and isinstance(err, cl.Error)


def test_message_code_routine_what():
    with pytest.raises(cl.LogicError) as info:
        raise_cl("clSetKernelArg", cl.status_code.INVALID_ARG_SIZE, "arg#2 is wrong")
    err = info.value
    assert str(err) == "clSetKernelArg failed: INVALID_ARG_SIZE - arg#2 is wrong"
    assert err.code == cl.status_code.INVALID_ARG_SIZE == -51
    assert err.routine == "clSetKernelArg"
    assert err.what.what() == "arg#2 is wrong" and str(err.what) == "arg#2 is wrong"
    assert err.what.code() == -51 and err.what.routine() == "clSetKernelArg"
    assert not err.is_out_of_memory()


def test_message_without_details_and_plain_errors():
    assert str(make_error("clFinish", cl.status_code.OUT_OF_RESOURCES)) == "clFinish failed: OUT_OF_RESOURCES"
    assert str(cl.Error("just a message")) == "just a message"
    assert cl.Error("just a message").code == 0
    legacy = cl.LogicError("Buffer", cl.status_code.INVALID_VALUE, "too big")
    assert str(legacy) == "Buffer failed: INVALID_VALUE - too big"
    assert make_error("x", cl.status_code.MEM_OBJECT_ALLOCATION_FAILURE).is_out_of_memory()


def test_pyopencl_classes_do_not_shadow_builtins():
    assert not issubclass(cl.RuntimeError, RuntimeError)
    assert not issubclass(cl.MemoryError, MemoryError)


def test_kernel_name_error_is_also_attribute_error():
    err = make_error("clCreateKernel", cl.status_code.INVALID_KERNEL_NAME, "nope", KernelNameError)
    assert isinstance(err, cl.LogicError) and isinstance(err, AttributeError)
    assert err.code == cl.status_code.INVALID_KERNEL_NAME


def test_to_string():
    assert cl.status_code.to_string(-54) == "INVALID_WORK_GROUP_SIZE"
    assert cl.device_type.to_string(cl.device_type.CPU) == "CPU"
    assert cl.device_type.to_string(cl.device_type.ALL) == "ALL"
    flags = cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR
    assert cl.mem_flags.to_string(flags) == "READ_ONLY | COPY_HOST_PTR"
    assert cl.status_code.to_string(-9999, "<unknown error %d>") == "<unknown error -9999>"
    with pytest.raises(ValueError, match="a name for value -9999 was not found in status_code"):
        cl.status_code.to_string(-9999)


def test_constant_values_are_the_khronos_ones():
    assert cl.mem_flags.READ_WRITE == 1 and cl.mem_flags.COPY_HOST_PTR == 32
    assert cl.command_queue_properties.PROFILING_ENABLE == 2
    assert cl.device_info.NAME == 0x102B
    assert cl.command_execution_status.COMPLETE == 0 and cl.command_execution_status.QUEUED == 3
    with pytest.raises(TypeError):
        cl.mem_flags()


def test_bad_host_values_are_opencl_errors_not_tracebacks(ctx):
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    cases = [
        (lambda: cl.Context(devices=5), cl.status_code.INVALID_VALUE, "devices must be a sequence, got int"),
        (lambda: cl.Context(properties=7), cl.status_code.INVALID_PROPERTY, "properties must be a sequence"),
        (lambda: cl.Program(ctx, "// x\n").build(options=5), cl.status_code.INVALID_BUILD_OPTIONS,
         "build options must be a sequence, got int"),
        (lambda: cl.Program(ctx, "// x\n").build(devices=3), cl.status_code.INVALID_DEVICE,
         "devices must be a sequence"),
        (lambda: cl.enqueue_marker(queue, wait_for=3), cl.status_code.INVALID_EVENT_WAIT_LIST,
         "wait_for must be a sequence, got int"),
        (lambda: cl.wait_for_events(None), None, None),
        (lambda: cl.enqueue_copy(queue, buf, buf, byte_count="8"), cl.status_code.INVALID_VALUE,
         "byte_count must be a non-negative integer, got '8'"),
        (lambda: cl.enqueue_copy(queue, buf, np.zeros(2), dst_offset=-1), cl.status_code.INVALID_VALUE,
         "dst_offset must be a non-negative integer, got -1"),
    ]
    for call, code, text in cases:
        if code is None:
            call()
            continue
        with pytest.raises(cl.LogicError) as info:
            call()
        assert info.value.code == code and text in str(info.value), str(info.value)
