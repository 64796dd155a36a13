"""A cpu kernel that faults fails its launch with KernelFault and the process lives on
(oclpy/targets/llvm/cpu/fault_guard.py); a fault outside a kernel is left to the
action the signal had before."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import oclpy as cl
from oclpy.targets.llvm.cpu import fault_guard, guarded_memory
from tests.test_filecheck import filecheck

pytestmark = pytest.mark.skipif(not fault_guard.supported(),
                                reason="the fault guard needs Linux on x86-64 or aarch64 with a C library's sigsetjmp")

MF = cl.mem_flags


@pytest.fixture()
def queue():
    cpu = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu")
    return cl.CommandQueue(cl.Context([cpu]))


def _fault_of(queue, source: str, global_size: tuple[int, ...], *args) -> str:
    prg = cl.Program(queue.context, source).build()
    prg.k(queue, global_size, None, *args)
    with pytest.raises(cl.RuntimeError) as info:
        queue.finish()
    return str(info.value)


def _still_computes(queue) -> None:
    buf = cl.Buffer(queue.context, MF.READ_WRITE, 4 * 4096)
    prg = cl.Program(queue.context, "kernel void k(global int *o) { o[get_global_id(0)] = get_global_id(0) * 3; }")
    prg.build().k(queue, (4096,), None, buf)
    out = np.empty(4096, np.int32)
    cl.enqueue_copy(queue, out, buf)
    assert (out == np.arange(4096) * 3).all()


def test_a_store_through_null_fails_the_launch(queue):
    buf = cl.Buffer(queue.context, MF.READ_WRITE, 16)
    message = _fault_of(queue, "kernel void k(global int *o) { global int *p = 0; p[get_global_id(0)] = 1; }",
                        (4,), buf)
    assert ("NDRANGE_KERNEL ended with status OUT_OF_RESOURCES: KernelFault: kernel 'k' stopped on a memory "
            "access at 0x0, where nothing is mapped (SIGSEGV), so its results are incomplete. An out-of-bounds "
            "index or a bad pointer? `oclpy check` runs the program on the simt device and names the line") in message
    _still_computes(queue)


def test_faults_on_every_worker_thread_fail_one_launch(queue):
    # 4,096 work-items in chunks on the calling thread and the workers, each storing far
    # past its buffer: one launch fails, the process and the workers live on
    buf = cl.Buffer(queue.context, MF.READ_WRITE, 4 * 4096)
    for _ in range(3):
        message = _fault_of(queue, "kernel void k(global int *o) { o[(long)get_global_id(0) << 34] = 1; }",
                            (4096,), buf)
        assert "KernelFault: kernel 'k' stopped on " in message and "(SIGSEGV)" in message
    _still_computes(queue)


def test_a_local_overflow_into_its_guard_page_fails_the_launch(queue):
    region = guarded_memory.acquire(256)  # the __local region of t[64], its slack included
    past = region.size // 4
    guarded_memory.release(region)
    buf = cl.Buffer(queue.context, MF.READ_WRITE, 16)
    prg = cl.Program(queue.context, "kernel void k(global int *o, int past) { local int t[64]; "
                                    "t[past + get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE); o[0] = t[0]; }")
    prg.build().k(queue, (64,), (64,), buf, np.int32(past))
    with pytest.raises(cl.RuntimeError) as info:
        queue.finish()
    assert "that its memory does not allow (SIGSEGV)" in str(info.value)


def test_a_blocking_read_behind_a_faulting_kernel_raises(queue):
    # the kernel's first launch runs on the cpu's stream (its event RUNNING until waited for),
    # and the read is issued behind it there: it learns of the kernel's failure as it completes
    buf = cl.Buffer(queue.context, MF.READ_WRITE | MF.COPY_HOST_PTR, hostbuf=np.arange(4, dtype=np.int32))
    prg = cl.Program(queue.context, "kernel void k(global int *o) { o[((long)get_global_id(0) + 1) << 34] = 7; }")
    prg = prg.build()
    prg.k(queue, (64,), None, buf)
    out = np.zeros(4, np.int32)
    with pytest.raises(cl.RuntimeError) as info:
        cl.enqueue_copy(queue, out, buf)
    assert info.value.code == cl.status_code.EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
    assert "READ_BUFFER failed, because NDRANGE_KERNEL ended with status OUT_OF_RESOURCES: KernelFault:" \
        in str(info.value)
    queue.finish()  # reported by the read: not again
    cl.enqueue_copy(queue, out, buf)
    assert out.tolist() == [0, 1, 2, 3]


def test_a_kernel_waiting_for_a_faulting_one_on_the_stream_fails(queue):
    # an out-of-order queue: no implicit order, only the wait list, whose event is still
    # RUNNING on the cpu's stream when the second launch is issued behind it there
    ooo = cl.CommandQueue(queue.context, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    buf = cl.Buffer(queue.context, MF.READ_WRITE, 16)
    bad = cl.Program(queue.context, "kernel void k(global int *o) { o[((long)get_global_id(0) + 1) << 34] = 7; }")
    good = cl.Program(queue.context, "kernel void k(global int *o) { o[get_global_id(0)] = 5; }").build()
    first = bad.build().k(queue, (64,), None, buf)
    second = good.k(ooo, (4,), None, buf, wait_for=[first])
    with pytest.raises(cl.RuntimeError) as info:
        second.wait()
    assert "NDRANGE_KERNEL " in str(info.value) and ", because NDRANGE_KERNEL ended with status " \
        "OUT_OF_RESOURCES: KernelFault: kernel 'k' stopped on " in str(info.value)
    with pytest.raises(cl.RuntimeError, match="KernelFault"):
        first.wait()


def test_faulting_and_correct_launches_interleave_on_threads(queue):
    # four threads, each with its own queue, launch kernels that fault in some work-items or in
    # none; every read behind a faulting launch raises, every other read is exact
    prg = cl.Program(queue.context, "kernel void k(global int *o, long far) { size_t i = get_global_id(0); "
                                    "o[i + far * (long)(i % 7 == 3)] = (int)i; }").build()
    outcomes: list[str] = []

    def worker(seed: int) -> None:
        rng = np.random.default_rng(seed)
        q = cl.CommandQueue(queue.context)
        buf = cl.Buffer(queue.context, MF.READ_WRITE, 4 * 4096)
        knl = cl.Kernel(prg, "k")
        for _ in range(150):
            fault, n = bool(rng.random() < 0.3), int(rng.choice([64, 1024, 4096]))
            knl(q, (n,), None, buf, np.int64(1 << 36 if fault else 0))
            out = np.zeros(n, np.int32)
            try:
                cl.enqueue_copy(q, out, buf)
                outcomes.append("exact" if not fault and (out == np.arange(n)).all() else "wrong")
            except cl.RuntimeError as exc:
                outcomes.append("raised" if fault and "KernelFault" in str(exc) else f"wrong: {exc}")

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 600 and set(outcomes) == {"exact", "raised"}, \
        [o for o in outcomes if o.startswith("wrong")][:3]


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)


def test_a_fault_outside_a_kernel_still_ends_the_process_as_before():
    done = _run("""
        import ctypes, faulthandler
        import numpy as np
        import oclpy as cl
        cpu = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu")
        queue = cl.CommandQueue(cl.Context([cpu]))
        buf = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, 16)
        cl.Program(queue.context, "kernel void k(global int *o) { o[0] = 1; }").build().k(queue, (1,), None, buf)
        queue.finish()  # the guard is installed
        faulthandler.enable()  # before it, as pytest's plugin is; here after: both orders end the same
        print("faulting", flush=True)
        ctypes.string_at(0)
        print("survived", flush=True)
    """)
    assert done.returncode == -signal.SIGSEGV, done.stderr[-2000:]
    assert done.stdout == "faulting\n"
    assert "Fatal Python error: Segmentation fault" in done.stderr


def test_a_fault_outside_a_kernel_reaches_the_handler_installed_before_the_guard():
    done = _run("""
        import ctypes, faulthandler
        faulthandler.enable()
        import oclpy as cl
        from oclpy.targets.llvm.cpu import fault_guard, guarded_memory
        fault_guard.guarded_launcher(0)  # installs the guard over faulthandler's handler
        ctypes.string_at(0)
    """)
    assert done.returncode == -signal.SIGSEGV
    assert "Fatal Python error: Segmentation fault" in done.stderr


@pytest.mark.parametrize("signum, code, address, expected", [
    (signal.SIGSEGV, fault_guard.SEGV_MAPERR, 0x10, "a memory access at 0x10, where nothing is mapped (SIGSEGV)"),
    (signal.SIGSEGV, fault_guard.SEGV_ACCERR, 0x7f0000001000,
     "a memory access at 0x7f0000001000 that its memory does not allow (SIGSEGV)"),
    (signal.SIGSEGV, fault_guard.SI_KERNEL, 0,
     "an invalid memory access, at an address the processor does not report (SIGSEGV)"),
    (signal.SIGBUS, 2, 0x1234, "a bus error at 0x1234 (SIGBUS)"),
    (signal.SIGILL, 2, 0x4000, "an illegal instruction at 0x4000 (SIGILL)"),
    (signal.SIGFPE, 1, 0x4000, "an arithmetic fault at 0x4000 (SIGFPE)"),
])
def test_each_fault_is_described(signum, code, address, expected):
    assert fault_guard.describe_fault(signum, code, address) == expected


TRAMPOLINE_CHECKS = """
; CHECK-LABEL: define i32 @oclpy_guarded_call(ptr %blob, ptr %context)
; CHECK-NEXT:  entry:
; CHECK-NEXT:    %launcher.at = getelementptr i8, ptr %context, i64 [[AT:[0-9]+]]
; CHECK-NEXT:    %launcher = load ptr, ptr %launcher.at
; CHECK:         call i32 @pthread_setspecific(i32 7, ptr %frame)
; CHECK-NEXT:    %signal = call i32 @__sigsetjmp(ptr %frame, i32 0) returns_twice
; CHECK:       run:
; CHECK-NEXT:    call void %launcher(ptr %blob, ptr %context)
; CHECK:       faulted:
; CHECK:         call i32 @pthread_setspecific(i32 9, ptr %address)
; CHECK-NEXT:    ret i32 %signal
; CHECK-LABEL: define void @oclpy_fault_handler(i32 %signal, ptr %info, ptr %ucontext)
; CHECK:         %frame = call ptr @pthread_getspecific(i32 7)
; CHECK:       jump:
; CHECK:         call void @siglongjmp(ptr %frame, i32 %answer)
; CHECK:       give_back:
; CHECK:         %action = getelementptr i8, ptr inttoptr (i64 4096 to ptr), i64 %offset
; CHECK-NEXT:    call i32 @sigaction(i32 %signal, ptr %action, ptr null)
; CHECK-NEXT:    ret void
"""


def test_the_trampoline_and_handler_ir(tmp_path):
    text = fault_guard.trampoline_ir("__sigsetjmp", 7, 9, 4096)
    assert filecheck(TRAMPOLINE_CHECKS, text, tmp_path) == 0
    assert f"ptr %context, i64 {fault_guard.LAUNCHER_AT}\n" in text  # after the launch context's slots
