"""Launches that used to take the process down or hold it hostage (issue 13), each run
in a child process: a kernel with an 8 MB private array, 128 work-items writing a
64-element `__local` array, a runaway kernel interrupted with Ctrl-C (waited for on the cpu,
running on the calling thread on simt)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import oclpy as cl

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRELUDE = """
import sys, numpy as np, oclpy as cl
ctx = cl.Context(dev_type=cl.device_type.CPU)
queue = cl.CommandQueue(ctx)
def buffer(n):
    return cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR,
                     hostbuf=np.zeros(n, np.int32))
def read(buf, n):
    out = np.zeros(n, np.int32)
    cl.enqueue_copy(queue, out, buf)
    return out
"""


def _child(body: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


def _run(body: str, timeout: float = 300) -> tuple[int, str, str]:
    child = _child(body)
    out, err = child.communicate(timeout=timeout)
    return child.returncode, out, err


@pytest.mark.parametrize("megabytes", [8, 32])
def test_a_kernel_with_a_large_private_array_runs(megabytes):
    n = megabytes << 18  # ints
    rc, out, err = _run(f"""
        src = '''__kernel void k(__global int *o) {{
            int big[{n}];
            int i = get_global_id(0);
            for (int j = 0; j < {n}; j++) big[j] = j + i;
            o[i] = big[{n} - 1 - i];
        }}'''
        buf = buffer(64)
        cl.Program(ctx, src).build().k(queue, (64,), None, buf)
        print(read(buf, 64)[:3].tolist())
    """)
    assert rc == 0, err[-2000:]
    assert out.strip() == f"[{n - 1}, {n - 1}, {n - 1}]"


def test_private_arrays_beyond_any_stack_are_out_of_resources(ctx, queue):
    arrays = range(20)  # 20 arrays of 2**24 ints: 1.25 GiB, past the largest stack
    body = "".join(f"int a{k}[16777216]; a{k}[o[1]] = {k}; s += a{k}[o[2]];" for k in arrays)
    src = f"__kernel void k(__global int *o) {{ int s = 0; {body} o[0] = s; }}"
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    prg = cl.Program(ctx, src).build()
    with pytest.raises(cl.Error, match="OUT_OF_RESOURCES") as info:
        prg.k(queue, (1,), None, buf)
        queue.finish()
    assert f"private arrays take {20 << 26} bytes per work-item" in str(info.value)


def test_a_kernel_failing_on_the_stream_fails_its_event_and_finish(ctx, queue, monkeypatch):
    from oclpy.targets.llvm.cpu.compiled import CompiledKernel

    src = "__kernel void k(__global int *o) { o[get_global_id(0)] = 1; }"
    prg = cl.Program(ctx, src).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 8192)

    def fail(self, *args):
        raise ValueError("the native launch failed")

    monkeypatch.setattr(CompiledKernel, "launch", fail)
    evt = prg.k(queue, (8192, 3), None, buf)  # a shape never run: queued on the stream
    with pytest.raises(cl.RuntimeError, match="the native launch failed"):
        queue.finish()
    assert evt.command_execution_status < 0


def test_writing_past_a_local_array_does_not_corrupt_the_heap():
    rc, out, err = _run("""
        src = '''__kernel void k(__global int *o) {
            __local int t[64];
            int l = get_local_id(0);
            t[l] = l;                        /* 128 work-items: t[64..127] overflow */
            barrier(CLK_LOCAL_MEM_FENCE);
            o[get_global_id(0)] = t[l % 64];
        }'''
        prg = cl.Program(ctx, src).build()
        buf = buffer(1024)
        for _ in range(200):
            prg.k(queue, (1024,), (128,), buf)
        queue.finish()
        garbage = [bytearray(1000) for _ in range(10000)]  # the allocator still works
        print("ok", read(buf, 1024)[:2].tolist())
    """)
    assert rc == 0, err[-2000:]
    assert out.strip() == "ok [0, 1]"


@pytest.mark.parametrize("wait", ["queue.finish()", "event.wait()", "read(buf, 4)"])
def test_ctrl_c_interrupts_a_wait_on_a_runaway_kernel(wait):
    child = _child("""
        import time
        src = "__kernel void k(__global volatile int *o) { while (o[0] == 0) { o[1] += 1; } }"
        prg = cl.Program(ctx, src).build()
        buf = buffer(4)
        start = time.perf_counter()
        event = prg.k(queue, (1,), None, buf)
        print("enqueued in %.3f s" % (time.perf_counter() - start), flush=True)
        try:
            {wait}
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
    """.replace("{wait}", wait), preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = child.stdout.readline()
        assert line.startswith("enqueued in "), line + child.stderr.read()
        assert float(line.split()[2]) < 5  # the enqueue returned: the kernel runs elsewhere
        time.sleep(0.5)
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
        assert child.returncode == 3, err[-2000:]  # and the process exits, the kernel abandoned
        assert out.strip() == "interrupted"
        assert time.perf_counter() - sent < 10
    finally:
        if child.poll() is None:
            child.kill()


def test_copies_after_a_queued_kernel_see_its_results(ctx, queue):
    """The first launch of a shape runs on the stream: what follows on the queue waits for it."""
    src = "__kernel void k(__global int *o, int v) { o[get_global_id(0)] = v + (int)get_global_id(0); }"
    prg = cl.Program(ctx, src).build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 4096)
    out = np.zeros(4096, np.int32)
    for v in range(3):
        prg.k(queue, (4096,), None, buf, np.int32(v * 100))
        cl.enqueue_copy(queue, out, buf)
        assert (out == np.arange(4096) + v * 100).all()
    evt = prg.k(queue, (4096,), None, buf, np.int32(7))
    mapped, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ, 0, (4096,), np.int32)
    assert (mapped == np.arange(4096) + 7).all()
    mapped.base.release()
    evt.wait()


def test_quick_shapes_run_on_the_calling_thread_and_slow_ones_go_back_to_the_stream(ctx, queue, monkeypatch):
    """The main thread's first launch of a shape goes to the stream; once quick, the
    shape runs at once on the calling thread (no hand-off); a launch of it that took
    QUICK_SECONDS or more sends the next one to the stream again."""
    import threading

    from oclpy.runtime.drivers import cpu
    from oclpy.targets.llvm.cpu.compiled import CompiledKernel

    threads = []
    real = CompiledKernel.launch

    def launch(self, *args):
        threads.append(threading.current_thread().name)
        real(self, *args)

    prg = cl.Program(ctx, "__kernel void k(__global int *o) { o[get_global_id(0)] += 1; }").build()
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.zeros(8, np.int32))
    prg.k(queue, (8,), None, buf)  # the native code is made at the first launch: not this shape's
    queue.finish()
    monkeypatch.setattr(CompiledKernel, "launch", launch)
    monkeypatch.setattr(cpu, "QUICK_SECONDS", 1.0)  # quick even on a loaded machine
    size = (4,)
    for _ in range(3):
        prg.k(queue, size, None, buf)
        queue.finish()
    assert threads == ["oclpy-cpu-stream", "MainThread", "MainThread"]
    monkeypatch.setattr(cpu, "QUICK_SECONDS", 0.0)  # every launch now counts as slow
    for _ in range(2):
        prg.k(queue, size, None, buf)
        queue.finish()
    assert threads[3:] == ["MainThread", "oclpy-cpu-stream"]
    out = np.zeros(4, np.int32)
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [6] * 4


@pytest.mark.parametrize("interruption", ["KeyboardInterrupt", "Timeout"])
def test_an_interrupted_simt_launch_raises_in_its_caller(interruption):
    # pytest-timeout's signal method raises its Timeout from a SIGALRM handler, as here: a
    # launch that swallowed it ended part done, and the copy behind it read a partial result
    rc, out, err = _run("""
        import signal
        class Timeout(BaseException):
            pass
        def handler(signum, frame):
            raise {interruption}("interrupted")
        simt = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt")
        ctx = cl.Context([simt])
        queue = cl.CommandQueue(ctx)
        src = "__kernel void k(__global volatile int *o) { while (o[0] == 0) { o[1] += 1; } }"
        prg = cl.Program(ctx, src).build()
        buf = buffer(4)
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        try:
            prg.k(queue, (1,), None, buf)
            print("the launch returned")
        except {interruption}:
            print("interrupted")
        try:
            queue.finish()
        except cl.Error as exc:
            print("finish:", exc.code == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        print("then", read(buf, 4)[:1].tolist())
    """.replace("{interruption}", interruption))
    assert rc == 0, err[-2000:]
    assert out.split("\n")[:3] == ["interrupted", "finish: True", "then [0]"]
