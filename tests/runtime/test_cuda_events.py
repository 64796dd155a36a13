"""Truthful events of asynchronous cuda commands, on the fake driver (cuda_fake.py):
a launch's event is RUNNING until its CUDA event completes, wait() and status
queries ask the driver, commands on the same device are ordered with
cuStreamWaitEvent, profiling times are the device's, finish() waits for all."""

from __future__ import annotations

import time

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.device import Device
from oclpy.runtime.drivers import cuda_api
from oclpy.runtime.platform import Platform

from .cuda_fake import use_fake

CES = cl.command_execution_status
SRC = "__kernel void k(__global int *x) { x[get_global_id(0)] += 1; }"


@pytest.fixture()
def fake(monkeypatch, tmp_path):
    drv = use_fake(monkeypatch, tmp_path)
    monkeypatch.setenv("OCLPY_CUDA_ASYNC", "1")
    drv.param_count = 5  # x, then the hidden global offset (3) and work dimension
    return drv


def _setup(fake, properties=0):
    from oclpy.runtime.drivers.cuda import CudaDriver

    device = Device(CudaDriver(), Platform())
    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, properties=properties)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    return ctx, queue, cl.Program(ctx, SRC).build().k, buf


def _hold_next_event(fake):
    """Make the next CUDA event recorded report 'not ready' until released."""
    record = fake.cuEventRecord

    def held(event, stream):
        fake.cuEventRecord = record
        out = record(event, stream)
        fake.not_ready.add(event)
        return out

    fake.cuEventRecord = held


def test_a_launch_is_running_until_a_cuda_event_after_it_completes(fake):
    ctx, queue, knl, buf = _setup(fake)
    records = fake.calls.count("cuEventRecord")
    evt = knl(queue, (4,), (4,), buf)
    assert fake.calls.count("cuEventRecord") == records  # no CUDA event per launch: a ticket
    assert evt._marker is not None and evt._marker.seq > 0
    _hold_next_event(fake)
    assert evt.command_execution_status == CES.RUNNING  # the question records one, held
    assert fake.calls.count("cuEventRecord") == records + 1
    assert "cuStreamSynchronize" not in fake.calls  # nothing waited on the host
    fake.release_all()
    evt.wait()
    assert evt.command_execution_status == CES.COMPLETE
    assert "cuEventSynchronize" in fake.calls


def test_status_query_completes_the_event_once_the_gpu_is_done(fake):
    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    evt = knl(queue, (4,), (4,), buf)
    assert evt.command_execution_status == CES.RUNNING
    fake.release_all()
    assert evt.command_execution_status == CES.COMPLETE


def test_the_watcher_completes_events_nobody_waits_for(fake):
    ctx, queue, knl, buf = _setup(fake)
    done = []
    evt = knl(queue, (4,), (4,), buf)
    evt.set_callback(CES.COMPLETE, done.append)
    deadline = time.monotonic() + 5
    while not done and time.monotonic() < deadline:
        time.sleep(0.001)
    assert done == [CES.COMPLETE]


def test_dependent_commands_wait_on_the_device_not_the_host(fake):
    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    first = knl(queue, (4,), (4,), buf)
    second = knl(queue, (4,), (4,), buf, wait_for=[first])
    assert len(fake.launches) == 2  # issued while the first is still RUNNING
    assert fake.stream_waits == []  # one shared stream: its order is the queue's order
    driver = queue.device.driver
    other = driver._new_stream()
    driver._shared_stream, shared = other, driver._shared_stream  # as if issued from another stream
    third = knl(queue, (4,), (4,), buf, wait_for=[first])
    driver._shared_stream = shared
    assert [stream for stream, _ in fake.stream_waits] == [other]  # after a checkpoint
    assert len(fake.launches) == 3
    assert first.command_execution_status == CES.RUNNING
    fake.release_all()
    queue.finish()
    assert {first.command_execution_status, second.command_execution_status,
            third.command_execution_status} == {CES.COMPLETE}


def test_profiling_times_are_the_devices(fake):
    ctx, queue, knl, buf = _setup(fake, cl.command_queue_properties.PROFILING_ENABLE)
    evt = knl(queue, (4,), (4,), buf)
    evt.wait()
    driver = queue.device.driver
    anchor, host_ns = driver._anchor
    # the fake: every elapsed time is 0.25 ms, from the anchor to the start and over the command
    assert (evt.profile.start, evt.profile.end) == (host_ns + 250_000, host_ns + 500_000)
    begin, end = driver.begin(True), driver.completion(True)
    fake.elapsed[(anchor.handle, begin.handle)] = 1.0
    fake.elapsed[(begin.handle, end.handle)] = 0.5
    start, end = driver.device_times(begin, end)
    assert (start - host_ns, end - host_ns) == (1_000_000, 1_500_000)
    assert driver._anchor == (anchor, host_ns)  # a start 1 ms from the anchor keeps it
    assert driver.device_times(None, end) is None


def test_profiling_keeps_its_resolution_far_from_the_anchor(fake):
    """A command 40 s after the anchor: its 41.3 us are not rounded to float32's
    3.9 us steps at 40,000 ms, and its start becomes the next anchor."""
    ctx, queue, knl, buf = _setup(fake, cl.command_queue_properties.PROFILING_ENABLE)
    knl(queue, (4,), (4,), buf).wait()
    driver = queue.device.driver
    anchor, host_ns = driver._anchor
    begin, end = driver.begin(True), driver.completion(True)
    fake.elapsed[(anchor.handle, begin.handle)] = float(np.float32(40_000.0))
    fake.elapsed[(begin.handle, end.handle)] = float(np.float32(0.0413))
    start, stop = driver.device_times(begin, end)
    assert abs((stop - start) - 41_300) <= 1
    assert driver._anchor == (begin, start)


def test_synchronous_mode_completes_at_return(fake, monkeypatch):
    monkeypatch.setenv("OCLPY_CUDA_ASYNC", "0")
    ctx, queue, knl, buf = _setup(fake)
    evt = knl(queue, (4,), (4,), buf)
    assert evt._marker is None and evt.command_execution_status == CES.COMPLETE
    assert fake.calls.count("cuStreamSynchronize") >= 1


def test_a_failing_event_query_names_the_call(fake):
    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    evt = knl(queue, (4,), (4,), buf)
    fake.cuEventQuery = lambda event: (700,)
    with pytest.raises(cuda_api.CudaError, match="cuEventQuery failed: CUDA_ERROR_FAKE"):
        queue.device.driver.is_complete(evt._marker)
    fake.release_all()
    evt.wait()


def test_checkpoint_events_are_reused(fake):
    ctx, queue, knl, buf = _setup(fake)
    driver = queue.device.driver
    knl(queue, (4,), (4,), buf).wait()  # records a checkpoint, pooled again once passed
    assert len(driver._markers) == 1 and driver._checkpoints.pending() == 0
    created = fake.calls.count("cuEventCreate")
    knl(queue, (4,), (4,), buf).wait()
    assert fake.calls.count("cuEventCreate") == created and len(driver._markers) == 1


def test_one_checkpoint_answers_for_every_launch_before_it(fake):
    ctx, queue, knl, buf = _setup(fake)
    events = [knl(queue, (4,), (4,), buf) for _ in range(5)]
    records = fake.calls.count("cuEventRecord")
    events[-1].wait()
    assert all(e.command_execution_status == CES.COMPLETE for e in events)
    assert fake.calls.count("cuEventRecord") == records + 1
    assert fake.calls.count("cuEventSynchronize") == 1 and "cuEventQuery" not in fake.calls


def test_a_driver_failure_while_waiting_fails_the_event(fake):
    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    sync = fake.cuEventSynchronize
    fake.cuEventSynchronize = lambda event: (999, None)
    evt = knl(queue, (4,), (4,), buf)
    with pytest.raises(cl.RuntimeError, match="NDRANGE_KERNEL ended with status OUT_OF_RESOURCES: CudaError: .* failed: CUDA_ERROR_FAKE"):
        evt.wait()
    fake.cuEventSynchronize = sync
    assert evt.failed


def test_no_thread_watches_an_event_nobody_listens_to(fake):
    from oclpy.runtime import completion

    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    evt = knl(queue, (4,), (4,), buf)
    assert id(queue.device.driver) not in completion._watchers and not evt._watched
    time.sleep(0.01)
    assert evt.command_execution_status == CES.RUNNING
    fake.release_all()
    assert evt.command_execution_status == CES.COMPLETE


def test_a_callback_makes_the_event_complete_by_itself(fake):
    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    evt = knl(queue, (4,), (4,), buf)
    seen = []
    evt.set_callback(CES.COMPLETE, seen.append)
    assert evt._watched
    deadline = time.monotonic() + 5  # the watcher records a checkpoint (held) and waits on it
    while not queue.device.driver._checkpoints.pending() and time.monotonic() < deadline:
        time.sleep(0.001)
    assert seen == []
    fake.release_all()
    deadline = time.monotonic() + 5
    while not seen and time.monotonic() < deadline:
        time.sleep(0.001)
    assert seen == [CES.COMPLETE]


def test_finish_synchronises_once_and_asks_no_event(fake):
    ctx, queue, knl, buf = _setup(fake)
    events = [knl(queue, (4,), (4,), buf) for _ in range(20)]
    fake.calls.clear()
    queue.finish()
    assert all(e.command_execution_status == CES.COMPLETE for e in events)
    assert fake.calls == ["cuCtxSynchronize"]


def test_many_launches_complete_the_oldest_events_as_they_go(fake, monkeypatch):
    from oclpy.runtime import completion

    monkeypatch.setattr(completion, "TRACK_HIGH", 8)
    monkeypatch.setattr(completion, "TRACK_LOW", 4)
    ctx, queue, knl, buf = _setup(fake)
    events = [knl(queue, (4,), (4,), buf) for _ in range(9)]
    assert [e.is_done for e in events] == [True] * 5 + [False] * 4
    assert fake.calls.count("cuEventQuery") == 1  # the newest of those, for all of them
    queue.finish()


def test_a_still_running_event_stops_the_sweep(fake, monkeypatch):
    from oclpy.runtime import completion

    monkeypatch.setattr(completion, "TRACK_HIGH", 2)
    monkeypatch.setattr(completion, "TRACK_LOW", 1)
    ctx, queue, knl, buf = _setup(fake)
    first = knl(queue, (4,), (4,), buf)
    first.wait()
    _hold_next_event(fake)
    second = knl(queue, (4,), (4,), buf)
    third = knl(queue, (4,), (4,), buf)  # the sweep asks about `second`: a new checkpoint, held
    assert first.is_done and not second.is_done and not third.is_done
    fake.release_all()
    queue.finish()
    assert second.is_done and third.is_done


def test_the_next_launch_goes_after_a_running_one_on_the_same_stream(fake):
    ctx, queue, knl, buf = _setup(fake)
    _hold_next_event(fake)
    first = knl(queue, (4,), (4,), buf)
    second = knl(queue, (4,), (4,), buf)
    assert first.command_execution_status == CES.RUNNING  # still held
    assert len(fake.launches) == 2 and fake.stream_waits == []  # queued at once, no wait
    assert fake.launches[0]["stream"] == fake.launches[1]["stream"]
    fake.release_all()
    queue.finish()
    assert first.is_done and second.is_done


def test_an_out_of_order_queue_launches_on_the_calling_thread(fake):
    ctx, queue, knl, buf = _setup(fake, cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    evt = knl(queue, (4,), (4,), buf)
    assert len(fake.launches) == 1 and evt._marker is not None  # no hand-off to a thread
    queue.finish()
    assert evt.command_execution_status == CES.COMPLETE


def test_a_failed_event_record_fails_the_command(fake):
    ctx, queue, knl, buf = _setup(fake)
    fake.cuEventRecord = lambda event, stream: (999,)
    evt = knl(queue, (4,), (4,), buf)
    with pytest.raises(cl.RuntimeError, match="OUT_OF_RESOURCES: CudaError: cuEventRecord failed: CUDA_ERROR_FAKE"):
        evt.wait()


def test_a_waiter_on_another_thread_wakes_when_the_event_completes(fake):
    import threading

    ctx, queue, knl, buf = _setup(fake)
    user = cl.UserEvent(ctx)
    evt = knl(queue, (4,), (4,), buf, wait_for=[user])
    woke = []
    waiter = threading.Thread(target=lambda: (evt.wait(), woke.append(evt.command_execution_status)))
    waiter.start()
    time.sleep(0.01)
    assert not woke
    user.set_status(CES.COMPLETE)
    waiter.join(5)
    assert woke == [CES.COMPLETE]
