"""Commands behind a failed one: until the failure has been raised to the user, they
do not run and fail with EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and the first
failure's message (PoCL fails them too), so a blocking read behind a failed kernel
raises the kernel's error instead of returning what the buffer held; once it has
been raised (a wait, finish()), the queue goes on."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .fakes import FakeKernel

CES = cl.command_execution_status
ERROR_FOR_EVENTS = cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
MF = cl.mem_flags


def _boom(*args):
    raise ValueError("kernel exploded")


def _failing(fake_program, ran: list | None = None):
    good = (lambda *a: ran.append(1)) if ran is not None else None
    return fake_program(FakeKernel("bad", [("x", "scalar", 4, "int")], _boom),
                        FakeKernel("good", [("x", "scalar", 4, "int")], good))


def _numbers(ctx) -> cl.Buffer:
    return cl.Buffer(ctx, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.arange(4, dtype=np.int32))


def test_a_blocking_read_behind_a_failed_kernel_raises_its_error(ctx, queue, fake_program):
    prg, buf = _failing(fake_program), _numbers(ctx)
    prg.bad(queue, (1,), (1,), np.int32(0))  # fails on the calling thread (the cpu's quick launch)
    out = np.full(4, -1, np.int32)
    with pytest.raises(cl.RuntimeError) as info:
        cl.enqueue_copy(queue, out, buf)
    assert info.value.code == ERROR_FOR_EVENTS
    assert str(info.value) == (
        "clWaitForEvents failed: EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST - READ_BUFFER did not run, "
        "because NDRANGE_KERNEL ended with status OUT_OF_RESOURCES: ValueError: kernel exploded")
    assert out.tolist() == [-1] * 4  # nothing written
    queue.finish()  # raised once: not again
    cl.enqueue_copy(queue, out, buf)  # and the queue goes on
    assert out.tolist() == [0, 1, 2, 3]


def test_a_blocking_write_behind_a_failed_kernel_writes_nothing(ctx, queue, fake_program):
    prg, buf = _failing(fake_program), _numbers(ctx)
    prg.bad(queue, (1,), (1,), np.int32(0))
    with pytest.raises(cl.RuntimeError, match="WRITE_BUFFER did not run, because NDRANGE_KERNEL ended"):
        cl.enqueue_copy(queue, buf, np.full(4, 9, np.int32))
    out = np.empty(4, np.int32)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [0, 1, 2, 3]


def test_a_failure_already_raised_orders_only(ctx, queue, fake_program):
    ran: list = []
    prg = _failing(fake_program, ran)
    evt = prg.bad(queue, (1,), (1,), np.int32(0))
    with pytest.raises(cl.RuntimeError, match="NDRANGE_KERNEL ended with status OUT_OF_RESOURCES"):
        evt.wait()
    prg.good(queue, (1,), (1,), np.int32(0)).wait()
    assert ran == [1]
    queue.finish()


def test_commands_behind_a_failed_wait_list_fail_with_it_as_on_pocl(ctx, queue, fake_program):
    # PoCL 5: the kernel waiting for the user event, the copy and the kernel behind it
    # all end with EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    ran: list = []
    prg, buf = _failing(fake_program, ran), _numbers(ctx)
    gate = cl.UserEvent(ctx)
    first = prg.good(queue, (1,), (1,), np.int32(0), wait_for=[gate])
    out = np.full(4, -1, np.int32)
    copy = cl.enqueue_copy(queue, out, buf, is_blocking=False)
    last = prg.good(queue, (1,), (1,), np.int32(0))
    gate.set_status(cl.status_code.OUT_OF_RESOURCES)
    assert [e.command_execution_status for e in (first, copy, last)] == [ERROR_FOR_EVENTS] * 3
    assert ran == [] and out.tolist() == [-1] * 4
    with pytest.raises(cl.RuntimeError) as info:
        queue.finish()
    assert str(info.value).endswith("NDRANGE_KERNEL did not run, because USER ended with status OUT_OF_RESOURCES")
    queue.finish()
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [0, 1, 2, 3]


def test_out_of_order_commands_without_a_dependency_run(ctx, ooo_queue, fake_program):
    ran: list = []
    prg = _failing(fake_program, ran)
    prg.bad(ooo_queue, (1,), (1,), np.int32(0))
    prg.good(ooo_queue, (1,), (1,), np.int32(0)).wait()  # no dependency on the failed one
    assert ran == [1]
    with pytest.raises(cl.RuntimeError, match="NDRANGE_KERNEL ended with status OUT_OF_RESOURCES"):
        ooo_queue.finish()


def _simt_queue() -> cl.CommandQueue:
    simt = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt")
    return cl.CommandQueue(cl.Context([simt]))


def test_a_read_behind_a_simt_out_of_bounds_store_raises_the_checkers_message():
    queue = _simt_queue()
    ctx = queue.context
    buf = _numbers(ctx)
    prg = cl.Program(ctx, "kernel void k(global int *o) { o[get_global_id(0) * 64] = 7; o[0] = 99; }").build()
    prg.k(queue, (4,), None, buf)
    out = np.full(4, -1, np.int32)
    with pytest.raises(cl.RuntimeError) as info:
        cl.enqueue_copy(queue, out, buf)
    assert "READ_BUFFER did not run, because NDRANGE_KERNEL ended with status OUT_OF_RESOURCES: SimError: @k:" \
        in str(info.value)
    assert "bytes past the end of the 16-byte buffer" in str(info.value)
    assert out.tolist() == [-1] * 4
    queue.finish()
