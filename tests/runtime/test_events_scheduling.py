"""Events and scheduling: in-order serialisation, out-of-order concurrency,
wait_for, user events, failures, markers/barriers, profiling."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import oclpy as cl

from .fakes import FakeKernel, buffer_of, make_vadd

CES = cl.command_execution_status


def recorder(log: list, name: str, delay: float = 0.0):
    """A fake kernel body that logs (name, start, end) around a short sleep."""
    def body(knl, blob, group, launch):
        start = time.perf_counter()
        time.sleep(delay)
        log.append((name, start, time.perf_counter()))
    return body


def tiny(name: str, body=None) -> FakeKernel:
    return FakeKernel(name, [("x", "scalar", 4, "int")], body)


def test_in_order_queue_serialises(ctx, queue, fake_program):
    log: list = []
    prg = fake_program(tiny("a", recorder(log, "a", 0.03)), tiny("b", recorder(log, "b")))
    prg.a(queue, (1,), (1,), np.int32(0))
    prg.b(queue, (1,), (1,), np.int32(0))
    queue.finish()
    (n1, s1, e1), (n2, s2, e2) = log
    assert (n1, n2) == ("a", "b") and s2 >= e1


def test_out_of_order_queue_runs_independent_commands_concurrently(ctx, ooo_queue, fake_program):
    meet = threading.Barrier(2, timeout=5)
    met = []

    def body(knl, blob, group, launch):
        meet.wait()  # only returns if both kernels run at the same time
        met.append(knl.name)

    prg = fake_program(tiny("a", body), tiny("b", body))
    e1 = prg.a(ooo_queue, (1,), (1,), np.int32(0))
    e2 = prg.b(ooo_queue, (1,), (1,), np.int32(0))
    cl.wait_for_events([e1, e2])
    assert sorted(met) == ["a", "b"]


def test_wait_for_is_honoured_out_of_order(ctx, ooo_queue, fake_program):
    log: list = []
    prg = fake_program(tiny("a", recorder(log, "a")), tiny("b", recorder(log, "b")))
    gate = cl.UserEvent(ctx)
    ea = prg.a(ooo_queue, (1,), (1,), np.int32(0), wait_for=[gate])
    eb = prg.b(ooo_queue, (1,), (1,), np.int32(0), wait_for=[ea])
    time.sleep(0.05)
    assert log == [] and ea.command_execution_status == CES.QUEUED
    gate.set_status(CES.COMPLETE)
    eb.wait()
    assert [n for n, _, _ in log] == ["a", "b"]
    assert ea.command_execution_status == CES.COMPLETE


def test_failed_wait_list_event_stops_the_command(ctx, queue, fake_program):
    ran = []
    prg = fake_program(tiny("a", lambda *a: ran.append(1)))
    gate = cl.UserEvent(ctx)
    evt = prg.a(queue, (1,), (1,), np.int32(0), wait_for=[gate])
    gate.set_status(cl.status_code.OUT_OF_RESOURCES)
    with pytest.raises(cl.RuntimeError) as info:
        evt.wait()
    assert evt.command_execution_status == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert info.value.code == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert str(info.value).startswith("clWaitForEvents failed: EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST")
    assert ran == []
    queue.finish()  # already reported by wait(): not raised again


def test_a_failing_command_is_reported_by_finish_once(ctx, queue, fake_program):
    def boom(*args):
        raise ValueError("kernel exploded")

    after = []
    prg = fake_program(tiny("bad", boom), tiny("good", lambda *a: after.append(1)))
    evt = prg.bad(queue, (1,), (1,), np.int32(0))
    behind = prg.good(queue, (1,), (1,), np.int32(0))  # in-order, behind an unreported failure
    with pytest.raises(cl.RuntimeError) as info:
        queue.finish()
    assert "NDRANGE_KERNEL ended with status OUT_OF_RESOURCES: ValueError: kernel exploded" in str(info.value)
    assert evt.command_execution_status == cl.status_code.OUT_OF_RESOURCES
    assert behind.command_execution_status == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert after == []
    queue.finish()  # reported once: the kernel kept from running is not reported again
    prg.good(queue, (1,), (1,), np.int32(0)).wait()  # and the queue goes on
    assert after == [1]


def test_user_event_rules(ctx):
    evt = cl.UserEvent(ctx)
    assert evt.command_execution_status == CES.SUBMITTED
    assert evt.command_type == cl.command_type.USER and evt.context is ctx
    with pytest.raises(cl.LogicError, match="can only be set to COMPLETE or a negative error code"):
        evt.set_status(CES.RUNNING)
    evt.set_status(CES.COMPLETE)
    with pytest.raises(cl.LogicError) as info:
        evt.set_status(CES.COMPLETE)
    assert info.value.code == cl.status_code.INVALID_OPERATION
    evt.wait()


def test_wait_list_type_errors(ctx, queue, fake_program):
    prg = fake_program(tiny("a"))
    with pytest.raises(cl.LogicError) as info:
        prg.a(queue, (1,), (1,), np.int32(0), wait_for=["not an event"])
    assert info.value.code == cl.status_code.INVALID_EVENT_WAIT_LIST
    with pytest.raises(cl.LogicError) as info:
        cl.wait_for_events([42])
    assert info.value.code == cl.status_code.INVALID_EVENT
    other = cl.UserEvent(cl.Context(dev_type=cl.device_type.CPU))
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_marker(queue, wait_for=[other])
    assert info.value.code == cl.status_code.INVALID_CONTEXT


def test_barrier_holds_back_later_commands(ctx, ooo_queue, fake_program):
    log: list = []
    prg = fake_program(tiny("a", recorder(log, "a")), tiny("b", recorder(log, "b")))
    gate = cl.UserEvent(ctx)
    prg.a(ooo_queue, (1,), (1,), np.int32(0), wait_for=[gate])
    barrier = cl.enqueue_barrier(ooo_queue)
    eb = prg.b(ooo_queue, (1,), (1,), np.int32(0))
    time.sleep(0.05)
    assert log == [] and barrier.command_execution_status != CES.COMPLETE
    gate.set_status(CES.COMPLETE)
    eb.wait()
    assert [n for n, _, _ in log] == ["a", "b"]


def test_marker_waits_for_everything_before_it(ctx, ooo_queue, fake_program):
    log: list = []
    prg = fake_program(tiny("a", recorder(log, "a", 0.02)))
    prg.a(ooo_queue, (1,), (1,), np.int32(0))
    marker = cl.enqueue_marker(ooo_queue)
    marker.wait()
    assert len(log) == 1
    assert marker.command_type == cl.command_type.MARKER


def test_profiling_times(ctx, ooo_queue, fake_program):
    prg = fake_program(tiny("a", recorder([], "a", 0.01)))
    evt = prg.a(ooo_queue, (1,), (1,), np.int32(0))
    evt.wait()
    p = evt.profile
    assert p.queued <= p.submit <= p.start < p.end
    assert p.end - p.start >= 5_000_000  # the 10 ms sleep, in ns
    assert evt.get_profiling_info(cl.profiling_info.COMPLETE) == p.end


def test_profiling_not_enabled(ctx, queue, fake_program):
    prg = fake_program(tiny("a"))
    evt = prg.a(queue, (1,), (1,), np.int32(0))
    evt.wait()
    with pytest.raises(cl.RuntimeError) as info:
        evt.profile.start
    assert info.value.code == cl.status_code.PROFILING_INFO_NOT_AVAILABLE
    with pytest.raises(AttributeError):
        evt.profile.nonsense


def test_callbacks(ctx):
    seen = []
    evt = cl.UserEvent(ctx)
    evt.set_callback(CES.COMPLETE, seen.append)
    assert seen == []
    evt.set_status(CES.COMPLETE)
    assert seen == [CES.COMPLETE]
    evt.set_callback(CES.COMPLETE, seen.append)  # already complete: called at once
    assert seen == [CES.COMPLETE, CES.COMPLETE]


def test_queue_properties_and_context_manager(ctx, fake_program):
    with pytest.raises(cl.LogicError) as info:
        cl.CommandQueue(ctx, properties=cl.command_queue_properties.ON_DEVICE)
    assert info.value.code == cl.status_code.INVALID_QUEUE_PROPERTIES
    with pytest.raises(cl.LogicError) as info:
        cl.CommandQueue("ctx")
    assert info.value.code == cl.status_code.INVALID_CONTEXT
    log: list = []
    prg = fake_program(tiny("a", recorder(log, "a", 0.02)))
    with cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE) as q:
        assert q.get_info(cl.command_queue_info.PROPERTIES) == cl.command_queue_properties.PROFILING_ENABLE
        prg.a(q, (1,), (1,), np.int32(0))
    assert len(log) == 1  # __exit__ finished the queue
    with pytest.raises(cl.LogicError, match="used after its `with` block ended") as info:
        cl.enqueue_marker(q)  # PyOpenCL warns and goes on (deprecated since 2023)
    assert info.value.code == cl.status_code.INVALID_COMMAND_QUEUE
    q.release()
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_marker(q)
    assert info.value.code == cl.status_code.INVALID_COMMAND_QUEUE


def test_threads_enqueueing_on_one_out_of_order_queue(ctx, ooo_queue, fake_program):
    """Several host threads share one kernel object and one queue: every launch
    gets its own arguments and every result is right."""
    prg = fake_program(make_vadd())
    knl = prg.vadd
    n, threads = 4096, 8
    results: dict[int, tuple] = {}
    errors: list = []

    def work(t: int) -> None:
        try:
            a = np.full(n, t, np.float32)
            b = np.arange(n, dtype=np.float32)
            da, db = buffer_of(ctx, a), buffer_of(ctx, b)
            dout = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
            evt = knl(ooo_queue, (n,), (64,), da, db, dout, np.int32(n))
            out = np.empty_like(a)
            cl.enqueue_copy(ooo_queue, out, dout, wait_for=[evt])
            results[t] = (out, a + b)
        except Exception as exc:  # collected for the assertion below
            errors.append(exc)

    pool = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    ooo_queue.finish()
    assert errors == []
    assert len(results) == threads
    for out, want in results.values():
        assert (out == want).all()


def test_a_long_chain_behind_a_user_event_does_not_recurse(ctx, queue, fake_program):
    """Commands queued behind a user event run on command threads once it completes,
    not nested inside set_status (which would overflow the stack)."""
    count = []
    prg = fake_program(tiny("a", lambda *a: count.append(1)))
    gate = cl.UserEvent(ctx)
    prg.a(queue, (1,), (1,), np.int32(0), wait_for=[gate])
    for _ in range(1500):
        prg.a(queue, (1,), (1,), np.int32(0))
    gate.set_status(CES.COMPLETE)
    queue.finish()
    assert len(count) == 1501


def test_eager_in_order_commands_complete_on_return(ctx, queue, fake_program):
    prg = fake_program(tiny("a"))
    evt = prg.a(queue, (1,), (1,), np.int32(0))
    assert evt.command_execution_status == CES.COMPLETE


def test_a_raising_user_callback_does_not_block_dependents(ctx, queue, fake_program):
    ran = []
    prg = fake_program(tiny("a", lambda *a: ran.append(1)))
    gate = cl.UserEvent(ctx)

    def bad(status):
        raise KeyError("callback bug")

    gate.set_callback(CES.COMPLETE, bad)
    evt = prg.a(queue, (1,), (1,), np.int32(0), wait_for=[gate])
    with pytest.warns(RuntimeWarning, match="exception in an event callback ignored: KeyError"):
        gate.set_status(CES.COMPLETE)
    evt.wait()
    assert ran == [1]
