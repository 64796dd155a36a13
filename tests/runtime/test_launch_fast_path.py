"""The launch fast path: cached launch shapes, and commands run at once on the calling thread."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime import kernel as kernel_module

from .fakes import FakeKernel

CES = cl.command_execution_status


def tiny(name: str, body=None) -> FakeKernel:
    return FakeKernel(name, [("x", "scalar", 4, "int")], body)


def test_a_repeated_shape_is_checked_once(queue, fake_program, monkeypatch):
    calls = []
    real = kernel_module.make_ndrange
    monkeypatch.setattr(kernel_module, "make_ndrange", lambda *a, **k: calls.append(a) or real(*a, **k))
    knl = fake_program(tiny("a")).a
    for _ in range(5):
        knl(queue, (4,), (2,), np.int32(0))
    knl(queue, [4], [2], np.int32(0))  # lists are not cached: checked each time
    knl(queue, [4], [2], np.int32(0))
    queue.finish()
    assert len(calls) == 3


def test_a_float_size_is_refused_after_the_same_int_size_was_cached(queue, fake_program):
    knl = fake_program(tiny("a")).a
    knl(queue, (4,), (2,), np.int32(0))
    with pytest.raises(cl.LogicError, match="global size must be a tuple of integers") as info:
        knl(queue, (4.0,), (2,), np.int32(0))
    assert info.value.code == cl.status_code.INVALID_VALUE


def test_a_cached_shape_still_checks_the_device(queue, fake_program):
    knl = fake_program(tiny("a")).a
    with pytest.raises(cl.LogicError, match="not divisible by local size") as info:
        knl(queue, (5,), (2,), np.int32(0))
    assert info.value.code == cl.status_code.INVALID_WORK_GROUP_SIZE
    with pytest.raises(cl.LogicError, match="not divisible by local size"):
        knl(queue, (5,), (2,), np.int32(0))  # an error is never cached as a shape


def test_in_order_launch_with_done_dependencies_runs_on_the_calling_thread(ctx, queue, fake_program):
    threads = []
    prg = fake_program(tiny("a", lambda *args: threads.append(threading.get_ident())))
    first = prg.a(queue, (1,), (1,), np.int32(0))
    done = cl.UserEvent(ctx)
    done.set_status(CES.COMPLETE)
    second = prg.a(queue, (1,), (1,), np.int32(0), wait_for=[first, done])
    assert first.command_execution_status == CES.COMPLETE == second.command_execution_status
    assert threads == [threading.get_ident()] * 2


def test_a_failed_dependency_still_stops_the_fast_path(ctx, queue, fake_program):
    ran = []
    prg = fake_program(tiny("a", lambda *args: ran.append(1)))
    bad = cl.UserEvent(ctx)
    bad.set_status(-5)
    evt = prg.a(queue, (1,), (1,), np.int32(0), wait_for=[bad])
    assert evt.command_execution_status == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert ran == []
    with pytest.raises(cl.RuntimeError, match="EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"):
        queue.finish()


def test_the_packer_lays_out_arguments_as_pack_blob_does(ctx):
    from types import SimpleNamespace as P

    from oclpy.runtime.arg_binding import ArgPacker, BoundArg, pack_blob

    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    driver = ctx.devices[0].driver
    params = [P(kind="scalar", offset=24, size=4), P(kind="global", offset=0, size=8),
              P(kind="local", offset=8, size=8), P(kind="global", offset=16, size=8)]
    bound = [BoundArg("value", data=b"\x01\x02\x03\x04"), BoundArg("mem", buffer=buf),
             BoundArg("local", nbytes=256), BoundArg("mem")]
    blob, keep = ArgPacker(params, 32).pack(bound, driver)
    expected, _ = pack_blob(params, bound, driver, 32)
    assert blob == bytes(expected) and len(blob) == 32 and len(keep) == 1
    assert int.from_bytes(blob[8:16], "little") == 256 and blob[16:24] == bytes(8)


def test_overlapping_arguments_fall_back_to_pack_blob(ctx):
    from types import SimpleNamespace as P

    from oclpy.runtime.arg_binding import ArgPacker, BoundArg

    params = [P(kind="scalar", offset=0, size=8), P(kind="scalar", offset=4, size=4)]
    packer = ArgPacker(params, 8)
    assert packer.struct is None
    blob, _ = packer.pack([BoundArg("value", data=bytes(range(8))), BoundArg("value", data=b"abcd")],
                          ctx.devices[0].driver)
    assert bytes(blob) == bytes(range(4)) + b"abcd"
