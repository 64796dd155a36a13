"""The launch fast path (runtime/launch_plan.py): which launches take it, that the
arguments of a fast call are the kernel's arguments afterwards, that its errors
and ordering are the general path's, and the out-of-order hand-off."""

from __future__ import annotations

import os
import sys
import threading
import warnings

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime import kernel as kernel_module
from oclpy.runtime.event import Event
from oclpy.runtime.kernel import Kernel, enqueue_nd_range_kernel

from .fakes import FakeKernel

CES = cl.command_execution_status
MF = cl.mem_flags


def pair(name: str = "k", body=None) -> FakeKernel:
    """A kernel taking (global int *p, int n)."""
    return FakeKernel(name, [("p", "global", 8, "int*"), ("n", "scalar", 4, "int")], body)


@pytest.fixture()
def general_path(monkeypatch):
    """Count the launches that take the general path (Kernel._enqueue)."""
    taken = []
    real = Kernel._enqueue

    def spy(self, *args, **kwargs):
        taken.append(self.function_name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Kernel, "_enqueue", spy)
    return taken


def test_a_plain_launch_takes_the_fast_path_and_runs(ctx, queue, fake_program, general_path):
    seen = []
    prg = fake_program(pair("k", lambda knl, blob, group, launch: seen.append(knl.scalar(blob, 1, "i"))))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    evt = prg.k(queue, (2,), (1,), buf, np.int32(7))
    assert evt.command_execution_status == CES.COMPLETE and seen == [7, 7]
    assert evt.command_type == cl.command_type.NDRANGE_KERNEL and evt.command_queue is queue
    assert general_path == []


@pytest.mark.parametrize("case", ["offset", "g_times_l", "pending wait_for", "generator wait_for",
                                  "local memory"])
def test_the_unusual_launches_take_the_general_path(ctx, queue, fake_program, general_path, case):
    specs = [("p", "global", 8, "int*"), ("n", "scalar", 4, "int")]
    if case == "local memory":
        specs.append(("tmp", "local", 8, "int*"))
    prg = fake_program(FakeKernel("k", specs))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    args = [buf, np.int32(1)] + ([cl.LocalMemory(16)] if case == "local memory" else [])
    gate = cl.UserEvent(ctx)
    gate.set_status(CES.COMPLETE)
    knl = prg.k
    kwargs = {"offset": {"global_offset": (1,)}, "g_times_l": {"g_times_l": True},
              "pending wait_for": {"wait_for": [cl.UserEvent(ctx)]},
              "generator wait_for": {"wait_for": (e for e in [gate])}}.get(case, {})
    knl(queue, (2,), (1,), *args, **kwargs)
    assert general_path == ["k"]


SCALARS = [("i", "int", 4), ("I", "uint", 4), ("q", "long", 8), ("f", "float", 4), ("d", "double", 8),
           ("b", "char", 1), ("H", "ushort", 2)]


@pytest.mark.parametrize("code, ctype, size", SCALARS)
@pytest.mark.parametrize("value", [0, 1, -1, 7.0, 2.5, 300, 1 << 40, np.int32(5), np.float32(1.5),
                                   np.float64(2.5), True, 1e40, float("nan")])
def test_declared_dtypes_pack_as_the_general_path_does(ctx, queue, fake_program, code, ctype, size, value):
    """A value for a parameter of a declared dtype: the fast path's bytes are the general
    path's, or the fast path steps aside and the general path decides (or raises)."""
    blobs = {}
    fake = FakeKernel("k", [("p", "global", 8, "int*"), ("x", "scalar", size, ctype)],
                      lambda knl, blob, group, launch: None)
    prg = fake_program(fake)
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    dtype = np.dtype(code)
    results = {}
    for path in ("fast", "general"):
        knl = prg.k
        knl.set_scalar_arg_dtypes([None, dtype])
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if path == "fast":
                    knl(queue, (1,), (1,), buf, value)
                else:
                    knl(queue, (1,), (1,), buf, value, global_offset=(0,))  # forces the general path
            results[path] = fake.launches[-1].blob[8:8 + size]
        except cl.Error as exc:
            results[path] = (type(exc), exc.code, str(exc))
    assert results["fast"] == results["general"]


def test_dtypes_declared_again_are_used(ctx, queue, fake_program, general_path):
    seen = []
    prg = fake_program(pair("k", lambda knl, blob, group, launch: seen.append(bytes(blob[8:12]))))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl = prg.k
    knl.set_scalar_arg_dtypes([None, np.int32])
    knl(queue, (1,), (1,), buf, 3)
    knl.set_scalar_arg_dtypes([None, np.float32])
    knl(queue, (1,), (1,), buf, 3)
    knl(queue, (1,), (1,), buf, np.float32(0.5))
    assert seen == [np.int32(3).tobytes(), np.float32(3).tobytes(), np.float32(0.5).tobytes()]
    assert general_path == []  # all three on the fast path


def test_an_unusual_declared_dtype_takes_the_general_path(ctx, queue, fake_program, general_path):
    prg = fake_program(FakeKernel("k", [("p", "global", 8, "int*"), ("z", "scalar", 8, "float2")]))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl = prg.k
    knl.set_scalar_arg_dtypes([None, np.complex64])
    knl(queue, (1,), (1,), buf, np.float64(1.0))  # 8 bytes, but converted to complex64 first
    assert general_path == ["k"]


def test_errors_after_a_fast_launch_are_the_general_paths(ctx, queue, fake_program):
    prg = fake_program(pair())
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl = prg.k
    knl(queue, (2,), (1,), buf, np.int32(1))  # the plan exists now
    with pytest.raises(kernel_module.KernelArgCountError, match="length of argument list"):
        knl(queue, (2,), (1,), buf)
    with pytest.raises(cl.LogicError, match="arg#2 .*invalid kernel argument") as info:
        knl(queue, (2,), (1,), buf, 1)
    assert info.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.LogicError, match="arg#2 .*takes 4 bytes, got 8") as info:
        knl(queue, (2,), (1,), buf, np.int64(1))
    assert info.value.code == cl.status_code.INVALID_ARG_SIZE
    with pytest.raises(cl.LogicError, match="arg#1 .*pass a Buffer") as info:
        knl(queue, (2,), (1,), np.zeros(4, np.int32), np.int32(1))
    assert info.value.code == cl.status_code.INVALID_ARG_VALUE
    other = cl.Buffer(cl.Context(dev_type=cl.device_type.CPU), MF.READ_WRITE, 16)
    with pytest.raises(cl.LogicError, match="another context") as info:
        knl(queue, (2,), (1,), other, np.int32(1))
    assert info.value.code == cl.status_code.INVALID_MEM_OBJECT
    with pytest.raises(cl.LogicError, match="not divisible by local size") as info:
        knl(queue, (3,), (2,), buf, np.int32(1))
    assert info.value.code == cl.status_code.INVALID_WORK_GROUP_SIZE
    with pytest.raises(cl.LogicError, match="wait_for holds a int") as info:
        knl(queue, (2,), (1,), buf, np.int32(1), wait_for=[3])
    assert info.value.code == cl.status_code.INVALID_EVENT_WAIT_LIST
    knl(queue, (0,), None, buf, np.int32(1)).wait()  # an empty range runs nothing (OpenCL 2.1 on)
    buf.release()
    with pytest.raises(cl.LogicError, match="the buffer was released") as info:
        knl(queue, (2,), (1,), buf, np.int32(1))
    assert info.value.code == cl.status_code.INVALID_MEM_OBJECT


def test_a_released_queue_is_refused_after_a_fast_launch(ctx, fake_program):
    queue = cl.CommandQueue(ctx)
    prg = fake_program(pair())
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    prg.k(queue, (1,), (1,), buf, np.int32(1))
    queue.release()
    with pytest.raises(cl.LogicError, match="the queue was released") as info:
        prg.k(queue, (1,), (1,), buf, np.int32(1))
    assert info.value.code == cl.status_code.INVALID_COMMAND_QUEUE


def test_a_fast_calls_arguments_become_the_kernels(ctx, queue, fake_program):
    seen = []
    prg = fake_program(pair("k", lambda knl, blob, group, launch: seen.append(
        (knl.address(blob, 0), knl.scalar(blob, 1, "i")))))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl = prg.k
    value = np.array(5, np.int32)  # mutable: the call keeps the bytes it had
    knl(queue, (1,), (1,), buf, value)
    value[...] = 9
    enqueue_nd_range_kernel(queue, knl, (1,), (1,))
    knl.set_arg(1, np.int32(11))  # one argument changed, the buffer kept
    enqueue_nd_range_kernel(queue, knl, (1,), (1,))
    queue.finish()
    address = buf.allocation(queue.device.driver)[0].address
    assert seen == [(address, 5), (address, 5), (address, 11)]


def test_the_same_size_tuples_are_checked_once(queue, fake_program, monkeypatch, ctx):
    calls = []
    real = kernel_module.make_ndrange
    monkeypatch.setattr(kernel_module, "make_ndrange", lambda *a, **k: calls.append(a) or real(*a, **k))
    prg = fake_program(pair())
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    sizes = (4,), (2,)
    for _ in range(3):
        prg.k(queue, *sizes, buf, np.int32(0))
    prg.k(queue, (8,), (2,), buf, np.int32(0))
    prg.k(queue, *sizes, buf, np.int32(0))  # the kernel's shape cache still knows it
    assert len(calls) == 2


def test_a_size_list_changed_between_launches_is_checked_again(ctx, queue, fake_program):
    fake = pair()
    prg = fake_program(fake)
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    sizes = [4]
    prg.k(queue, sizes, None, buf, np.int32(0))
    sizes[0] = 8
    prg.k(queue, sizes, None, buf, np.int32(0))
    queue.finish()
    assert [launch.global_size for launch in fake.launches][-1] == (8, 1, 1)
    assert fake.launches[0].global_size == (4, 1, 1)


def test_a_fast_launch_waits_behind_a_command_still_queued(ctx, queue, fake_program):
    log = []
    prg = fake_program(pair("a", lambda *a: log.append("a")), pair("b", lambda *a: log.append("b")))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    first = prg.a(queue, (1,), (1,), buf, np.int32(0), wait_for=[gate])
    second = prg.b(queue, (1,), (1,), buf, np.int32(0))
    assert log == [] and second.command_execution_status != CES.COMPLETE
    gate.set_status(CES.COMPLETE)
    queue.finish()
    assert log == ["a", "b"] and first.command_execution_status == CES.COMPLETE


def test_a_failing_fast_launch_fails_its_event_and_finish(ctx, queue, fake_program):
    def boom(*args):
        raise ValueError("kernel exploded")

    prg = fake_program(pair("k", boom))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    evt = prg.k(queue, (1,), (1,), buf, np.int32(0))
    assert evt.command_execution_status == cl.status_code.OUT_OF_RESOURCES
    with pytest.raises(cl.RuntimeError, match="ValueError: kernel exploded"):
        queue.finish()
    queue.finish()  # reported once
    with pytest.raises(cl.RuntimeError, match="EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"):
        evt.wait()


def test_fast_launches_have_profiling_times(ctx, fake_program):
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    prg = fake_program(pair())
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    evt = prg.k(queue, (1,), (1,), buf, np.int32(0))
    p = evt.profile
    assert p.queued <= p.submit <= p.start <= p.end == evt.get_profiling_info(cl.profiling_info.COMPLETE)


def test_a_two_device_context_takes_the_general_path(ctx, general_path):
    """Two cpu devices share the host's memory: nothing migrates, and commands of two
    queues are ordered by their events only (OpenCL orders nothing across queues)."""
    from oclpy.runtime.device import Device
    from oclpy.runtime.drivers.cpu import CpuDriver

    first, second = ctx.devices[0], Device(CpuDriver(workers=1), ctx.devices[0].platform)
    both = cl.Context([first, second])
    q1, q2 = cl.CommandQueue(both, first), cl.CommandQueue(both, second)
    src = "__kernel void add(__global int *x, int d) { x[get_global_id(0)] += d; }"
    knl = cl.Program(both, src).build().add
    buf = cl.Buffer(both, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.zeros(4, np.int32))
    first_add = knl(q1, (4,), None, buf, np.int32(1))
    second_add = knl(q2, (4,), None, buf, np.int32(10), wait_for=[first_add])
    out = np.empty(4, np.int32)
    cl.enqueue_copy(q1, out, buf, wait_for=[second_add])
    assert out.tolist() == [11] * 4
    assert general_path == ["add", "add"] and not knl._plans[id(q1)].fast


@pytest.mark.parametrize("count", [1, 2, 3])
def test_completion_callbacks_run_once_each_and_fresh_events_share_none(count):
    a, b = Event(), Event()
    ran = []
    for i in range(count):
        a.when_done(lambda e, i=i: ran.append((i, e)), lazy=True)
    a.set_callback(CES.COMPLETE, lambda s: ran.append(s))
    assert len(a._user_callbacks) == 1
    assert b._callbacks == () and b._user_callbacks == ()
    a.complete()
    assert ran == [(i, a) for i in range(count)] + [CES.COMPLETE]
    assert a._callbacks == () and a._keepalive == ()
    a.when_done(lambda e: ran.append("late"))  # done already: at once
    assert ran[-1] == "late"


def test_an_out_of_order_chain_runs_in_order_on_one_command_thread(ctx, fake_program):
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    ran = []
    prg = fake_program(pair("k", lambda knl, blob, group, launch: ran.append(
        (knl.scalar(blob, 1, "i"), threading.get_ident()))))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    evt = gate
    for i in range(50):
        evt = prg.k(queue, (1,), (1,), buf, np.int32(i), wait_for=[evt])
    gate.set_status(CES.COMPLETE)
    queue.finish()
    assert [i for i, _ in ran] == list(range(50))
    assert len({t for _, t in ran}) == 1 and ran[0][1] != threading.get_ident()


def test_a_failed_dependency_stops_an_out_of_order_fast_launch(ctx, fake_program):
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    ran = []
    prg = fake_program(pair("k", lambda *a: ran.append(1)))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    gate = cl.UserEvent(ctx)
    evt = prg.k(queue, (1,), (1,), buf, np.int32(0), wait_for=[gate])
    gate.set_status(-5)
    with pytest.raises(cl.RuntimeError, match="EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"):
        queue.finish()
    assert ran == [] and evt.command_execution_status == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST


def test_command_threads_give_every_waiting_job_a_thread():
    from oclpy.runtime.scheduler import CommandThreads

    pool = CommandThreads(3)
    meet = threading.Barrier(3, timeout=5)
    done = []

    def job():
        meet.wait()  # returns only when all three run at once
        done.append(1)

    events = [Event() for _ in range(3)]
    for evt in events:
        pool.submit(evt, job)
    for evt in events:
        evt.wait_done()
    assert done == [1, 1, 1] and all(e.command_execution_status == CES.COMPLETE for e in events)
    assert pool.threads == 3


def test_a_plain_launch_makes_few_python_calls(ctx, queue, fake_program):
    """The fast path's budget: the runtime's own calls per launch (the fake kernel's not counted)."""
    prg = fake_program(pair())
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl, one = prg.k, np.int32(1)
    knl(queue, (1,), (1,), buf, one)
    calls = []
    package = os.path.dirname(cl.__file__) + os.sep

    def count(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(package):
            calls.append(frame.f_code.co_name)

    sys.setprofile(count)
    for _ in range(10):
        knl(queue, (1,), (1,), buf, one)
    sys.setprofile(None)
    assert len(calls) / 10 <= 12, calls[:20]


def test_enqueue_nd_range_kernel_with_set_args_takes_the_fast_path(ctx, queue, fake_program, general_path):
    seen = []
    prg = fake_program(pair("k", lambda knl, blob, group, launch: seen.append(knl.scalar(blob, 1, "i"))))
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl = prg.k
    knl.set_args(buf, np.int32(7))
    evt = enqueue_nd_range_kernel(queue, knl, (2,), (1,))
    knl.set_arg(1, np.int32(9))
    enqueue_nd_range_kernel(queue, knl, (1,), (1,)).wait()
    assert seen == [7, 7, 9] and general_path == []
    assert evt.command_type == cl.command_type.NDRANGE_KERNEL and evt.command_queue is queue
    enqueue_nd_range_kernel(queue, knl, (1,), (1,), global_work_offset=(1,))
    assert general_path == ["k"]  # an offset: the general path


def test_enqueue_nd_range_kernel_errors_stay_the_general_paths(ctx, queue, fake_program):
    prg = fake_program(pair())
    buf = cl.Buffer(ctx, MF.READ_WRITE, 16)
    knl = prg.k
    knl.set_args(buf, np.int32(1))
    enqueue_nd_range_kernel(queue, knl, (2,), (1,)).wait()  # the plan exists now
    with pytest.raises(cl.LogicError, match="not divisible by local size") as info:
        enqueue_nd_range_kernel(queue, knl, (3,), (2,))
    assert info.value.code == cl.status_code.INVALID_WORK_GROUP_SIZE
    buf.release()
    with pytest.raises(cl.LogicError, match="the buffer was released") as info:
        enqueue_nd_range_kernel(queue, knl, (2,), (1,))
    assert info.value.code == cl.status_code.INVALID_MEM_OBJECT
    fresh = fake_program(pair()).k
    fresh.set_arg(0, cl.Buffer(ctx, MF.READ_WRITE, 16))
    with pytest.raises(cl.LogicError, match="argument.* n not set") as info:
        enqueue_nd_range_kernel(queue, fresh, (1,), (1,))
    assert info.value.code == cl.status_code.INVALID_KERNEL_ARGS
