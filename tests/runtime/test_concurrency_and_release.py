"""Many host threads at once on one out-of-order queue; release frees what it owns."""

from __future__ import annotations

import gc
import threading
import time
import uuid
import weakref

import numpy as np
import pytest

import oclpy as cl
from oclpy.compiler import toolchain

THREADS = 8
ITERATIONS = 200
N = 16  # work-items per launch: small kernels, the point is the host-side traffic

SOURCES = [f"""
__kernel void axpb(__global const int *x, __global int *y, int a)
{{ int i = get_global_id(0); y[i] = a * x[i] + {b}; }}
""" for b in range(4)]


def test_eight_threads_build_launch_and_copy_on_one_out_of_order_queue(ctx):
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    errors: list[str] = []
    start = threading.Barrier(THREADS)

    def worker(t: int) -> None:
        start.wait()
        x = np.arange(N, dtype=np.int32) + t
        for i in range(ITERATIONS):
            b = (t + i) % len(SOURCES)
            prg = cl.Program(ctx, SOURCES[b]).build()  # races on the same sources
            knl = prg.axpb
            x_buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
            y_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, x.nbytes)
            z_buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, x.nbytes)
            knl.set_arg(2, np.int32(i))  # set_arg from many threads on shared kernels
            launch = knl(queue, (N,), None, x_buf, y_buf, np.int32(i))
            copy = cl.enqueue_copy(queue, z_buf, y_buf, wait_for=[launch])
            out = np.empty_like(x)
            cl.enqueue_copy(queue, out, z_buf, wait_for=[copy], is_blocking=False).wait()
            if not (out == i * x + b).all():
                errors.append(f"thread {t} iteration {i}: {out[:4]} != {(i * x + b)[:4]}")
                return

    began = time.perf_counter()
    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a worker thread hung"
    queue.finish()
    assert errors == []
    assert time.perf_counter() - began < 60


def test_racing_builds_compile_once(ctx, monkeypatch):
    calls: list[str] = []
    real = toolchain.compile_program

    def slow_build(source, *args):
        calls.append(source)
        time.sleep(0.05)  # let every thread arrive while the first compiles
        return real(source, *args)

    monkeypatch.setattr(toolchain, "compile_program", slow_build)
    source = SOURCES[0] + f"// racing builds {uuid.uuid4()}\n"  # in no cache yet
    shared = cl.Program(ctx, source)
    kernels: list = []
    compiled: list = []

    def build() -> None:
        own = cl.Program(ctx, source).build()  # its own Program: shares the compilation
        compiled.append(own.axpb._compiled[ctx.devices[0]])
        kernels.append(shared.build().axpb)  # one Program built by every thread

    threads = [threading.Thread(target=build) for _ in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert calls == [source]  # one compilation; the others waited for it
    assert len(kernels) == len(compiled) == THREADS
    assert len({id(k) for k in kernels}) == 1  # one Kernel object per name, whoever won
    assert len({id(c) for c in compiled}) == 1  # one compiled kernel


def _cycle(ctx: cl.Context, queue: cl.CommandQueue) -> tuple[weakref.ref, ...]:
    prg = cl.Program(ctx, SOURCES[1]).build()
    knl = prg.axpb
    x = np.arange(N, dtype=np.int32)
    x_buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    y_buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, x.nbytes)
    knl(queue, (N,), None, x_buf, y_buf, np.int32(2)).wait()
    refs = (weakref.ref(prg), weakref.ref(knl), weakref.ref(x_buf), weakref.ref(x_buf.storage),
            weakref.ref(y_buf.storage))
    prg.release()
    x_buf.release()
    y_buf.release()
    return refs


def test_released_objects_are_freed(ctx):
    queue = cl.CommandQueue(ctx)
    all_refs = [r for _ in range(50) for r in _cycle(ctx, queue)]
    gc.collect()
    alive = [r() for r in all_refs if r() is not None]
    assert alive == []


def test_context_release_releases_everything_it_made(ctx):
    own = cl.Context(ctx.devices)
    queue = cl.CommandQueue(own)
    refs = _cycle(own, queue)
    buf = cl.Buffer(own, cl.mem_flags.READ_WRITE, 64)
    storage = weakref.ref(buf.storage)
    prg = cl.Program(own, SOURCES[2]).build()
    knl = weakref.ref(prg.axpb)
    own.release()
    gc.collect()
    assert buf.released and storage() is None and knl() is None
    assert all(r() is None for r in refs)
    with pytest.raises(cl.LogicError, match="the context was released") as info:
        cl.Buffer(own, cl.mem_flags.READ_WRITE, 64)
    assert info.value.code == cl.status_code.INVALID_CONTEXT
    with pytest.raises(cl.LogicError) as info:
        cl.enqueue_marker(queue)
    assert info.value.code == cl.status_code.INVALID_COMMAND_QUEUE
