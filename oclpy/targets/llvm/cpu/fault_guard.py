"""A cpu kernel that faults fails its launch instead of killing the process.

A kernel's native code that stores far past a buffer, through a null or
garbage pointer, or into a guard page of its `__local` memory
(`guarded_memory.py`) takes SIGSEGV (or SIGBUS, SIGILL, SIGFPE), which kills a
native OpenCL runtime's host process, and with it the user's Python session.
Here every launcher call goes through a small native trampoline,
`oclpy_guarded_call(blob, context)`, compiled once per process: it records a
`sigsetjmp` point in a pthread key and calls the launcher whose address
follows the launch context's slots (`compiled.py` puts it there, so the call
takes no third argument: ctypes converts each argument, about 0.1 us). The
handler installed for those signals finds the point of the faulting thread and
`siglongjmp`s back to it, so the trampoline returns the signal's number (its
si_code in the byte above); the launch then raises `KernelFault`, naming the
fault and its address, and its event fails like any failed command. The
handler runs with SA_NODEFER, so the signal is not blocked while it runs and
the jump, which restores no signal mask (no system call per launch to save
one), leaves the mask as it was.

A fault on a thread with no guarded call running (Python, NumPy, the user's
own ctypes code) is not ours: the handler puts back the action the signal had
before (the default, or Python's faulthandler) and returns, the instruction
faults again, and that action runs as if the guard were not there.

What a fault leaves behind: the work-groups that ran before it wrote their
results; the others of that chunk did not run (chunks on other threads run to
their end or to a fault of their own). Process state is sound, as the
kernel's code holds no lock and allocates nothing, with one exception: a fault
inside the C library's printf (a `%s` of a bad pointer) may leave C's stdout
locked. A stack overflow is not caught (the handler would need the stack that
is gone); the driver sizes its threads' stacks for the kernel's private
arrays (drivers/cpu.py).

Linux only (glibc's or musl's setjmp, Linux's `sigaction` and `siginfo_t`
layouts on 64-bit targets); elsewhere `guarded_launcher` returns the plain
launcher and a fault kills the process as before.
"""

from __future__ import annotations

import ctypes
import functools
import platform
import signal
import struct
import sys
import threading
from typing import Any, Callable

from .. import binding
from .generic import CTX_SLOTS

SIGNALS = (signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE)
SIGACTION_BYTES = 152  # struct sigaction on 64-bit Linux: handler, 128-byte mask, flags, restorer
SA_FLAGS_OFFSET = 136
SA_SIGINFO, SA_ONSTACK, SA_NODEFER = 0x4, 0x08000000, 0x40000000
FRAME_BYTES = 512  # the trampoline's frame: sigjmp_buf (glibc: 200 bytes on x86-64, 312 on aarch64) ...
FAULT_ADDRESS_AT = 504  # ... and the faulting address, which the handler stores here
SI_CODE_OFFSET, SI_ADDR_OFFSET = 8, 16  # siginfo_t's si_code and si_addr on 64-bit Linux
LAUNCHER_AT = 8 * CTX_SLOTS  # the launcher's address in the launch context
SEGV_MAPERR, SEGV_ACCERR, SI_KERNEL = 1, 2, 0x80  # si_code: nothing mapped, no access, no address

_LAUNCH = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)  # the launcher: (blob, context)
_GUARDED = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)  # (blob, context)


class KernelFault(RuntimeError):
    """A cpu kernel's native code faulted: the launch failed, the process lives on."""


@functools.cache
def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.pthread_getspecific.restype = ctypes.c_void_p
    libc.pthread_getspecific.argtypes = [ctypes.c_uint]
    libc.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    return libc


def _setjmp_symbol() -> str | None:
    """The C library's sigsetjmp function (glibc's macro calls `__sigsetjmp`), or None."""
    libc = _libc()
    for name in ("__sigsetjmp", "sigsetjmp"):
        if hasattr(libc, name):
            return name
    return None


def supported() -> bool:
    """Whether this process can have the guard: Linux on a 64-bit x86 or Arm with sigsetjmp."""
    return (sys.platform.startswith("linux") and platform.machine() in ("x86_64", "aarch64")
            and ctypes.sizeof(ctypes.c_void_p) == 8 and _setjmp_symbol() is not None)


def trampoline_ir(setjmp: str, jump_key: int, fault_key: int, previous: int) -> str:
    """The LLVM IR of the trampoline and the signal handler. `jump_key` and `fault_key`
    are pthread keys (the running call's frame; the last fault's address), `previous`
    the address of the signal actions the handler replaced, indexed by signal number."""
    return f"""
declare ptr @pthread_getspecific(i32)
declare i32 @pthread_setspecific(i32, ptr)
declare i32 @{setjmp}(ptr, i32) returns_twice
declare void @siglongjmp(ptr, i32) noreturn
declare i32 @sigaction(i32, ptr, ptr)

define i32 @oclpy_guarded_call(ptr %blob, ptr %context) noinline {{
entry:
  %launcher.at = getelementptr i8, ptr %context, i64 {LAUNCHER_AT}
  %launcher = load ptr, ptr %launcher.at
  %frame = alloca [{FRAME_BYTES} x i8], align 16
  %outer = alloca ptr, align 8
  %was = call ptr @pthread_getspecific(i32 {jump_key})
  store volatile ptr %was, ptr %outer
  call i32 @pthread_setspecific(i32 {jump_key}, ptr %frame)
  %signal = call i32 @{setjmp}(ptr %frame, i32 0) returns_twice
  %ran = icmp eq i32 %signal, 0
  br i1 %ran, label %run, label %faulted
run:
  call void %launcher(ptr %blob, ptr %context)
  %back = load volatile ptr, ptr %outer
  call i32 @pthread_setspecific(i32 {jump_key}, ptr %back)
  ret i32 0
faulted:
  %back.f = load volatile ptr, ptr %outer
  call i32 @pthread_setspecific(i32 {jump_key}, ptr %back.f)
  %slot = getelementptr i8, ptr %frame, i64 {FAULT_ADDRESS_AT}
  %address = load volatile ptr, ptr %slot
  call i32 @pthread_setspecific(i32 {fault_key}, ptr %address)
  ret i32 %signal
}}

define void @oclpy_fault_handler(i32 %signal, ptr %info, ptr %ucontext) {{
entry:
  %frame = call ptr @pthread_getspecific(i32 {jump_key})
  %ours = icmp ne ptr %frame, null
  br i1 %ours, label %jump, label %give_back
jump:
  %at = getelementptr i8, ptr %info, i64 {SI_ADDR_OFFSET}
  %address = load ptr, ptr %at
  %slot = getelementptr i8, ptr %frame, i64 {FAULT_ADDRESS_AT}
  store volatile ptr %address, ptr %slot
  %code.at = getelementptr i8, ptr %info, i64 {SI_CODE_OFFSET}
  %code = load i32, ptr %code.at
  %code.byte = and i32 %code, 255
  %code.high = shl i32 %code.byte, 8
  %answer = or i32 %code.high, %signal
  call void @siglongjmp(ptr %frame, i32 %answer)
  unreachable
give_back:
  %index = sext i32 %signal to i64
  %offset = mul i64 %index, {SIGACTION_BYTES}
  %action = getelementptr i8, ptr inttoptr (i64 {previous} to ptr), i64 %offset
  call i32 @sigaction(i32 %signal, ptr %action, ptr null)
  ret void
}}
"""


class _Guard:
    """The process's trampoline and handler, and the state they share."""

    def __init__(self) -> None:
        libc = _libc()
        keys = [ctypes.c_uint(), ctypes.c_uint()]
        for key in keys:
            if libc.pthread_key_create(ctypes.byref(key), None) != 0:
                raise OSError(ctypes.get_errno(), "pthread_key_create failed")
        self.fault_key = keys[1].value
        self.previous = (ctypes.c_char * (SIGACTION_BYTES * (max(SIGNALS) + 1)))()
        text = trampoline_ir(_setjmp_symbol() or "", keys[0].value, self.fault_key,
                             ctypes.addressof(self.previous))
        self.jit = binding.compile_ir(text, opt_level=1)
        self.call = _GUARDED(self.jit.address_of("oclpy_guarded_call"))
        action = (ctypes.c_char * SIGACTION_BYTES)()
        struct.pack_into("<Q", action, 0, self.jit.address_of("oclpy_fault_handler"))
        struct.pack_into("<i", action, SA_FLAGS_OFFSET, SA_SIGINFO | SA_ONSTACK | SA_NODEFER)
        for sig in SIGNALS:
            slot = ctypes.addressof(self.previous) + SIGACTION_BYTES * sig
            if libc.sigaction(int(sig), action, slot) != 0:
                raise OSError(ctypes.get_errno(), f"sigaction({sig.name}) failed")

    def fault_address(self) -> int:
        """The address of this thread's last fault."""
        return _libc().pthread_getspecific(self.fault_key) or 0


_lock = threading.Lock()
_guard: _Guard | None = None


def _the_guard() -> _Guard | None:
    global _guard
    with _lock:
        if _guard is None and supported():
            _guard = _Guard()
    return _guard


def guarded_launcher(address: int) -> Callable[[Any, Any], int | None]:
    """The native launcher at `address` as a ctypes call (blob, context) that answers a
    signal number when the kernel faulted (0 or None when it ran to its end). Through
    the guard, the context must hold the launcher's address at LAUNCHER_AT."""
    guard = _the_guard()
    if guard is None:
        return _LAUNCH(address)
    return guard.call


def fault_error(kernel: str, answer: int) -> KernelFault:
    """The error of a launch of `kernel` whose guarded call answered `answer` (the signal
    number, and the signal's si_code in the byte above it)."""
    guard = _the_guard()
    address = guard.fault_address() if guard is not None else 0
    return KernelFault(f"kernel '{kernel}' stopped on {describe_fault(answer & 0xFF, answer >> 8, address)}, "
                       f"so its results are incomplete. An out-of-bounds index or a bad pointer? "
                       f"`oclpy check` runs the program on the simt device and names the line")


def describe_fault(signum: int, code: int, address: int) -> str:
    if signum == signal.SIGSEGV:
        if code == SEGV_MAPERR:
            return f"a memory access at {address:#x}, where nothing is mapped (SIGSEGV)"
        if code == SEGV_ACCERR:
            return f"a memory access at {address:#x} that its memory does not allow (SIGSEGV)"
        return "an invalid memory access, at an address the processor does not report (SIGSEGV)"
    what = {signal.SIGBUS: "a bus error", signal.SIGILL: "an illegal instruction",
            signal.SIGFPE: "an arithmetic fault"}.get(signum, "a fault")
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return f"{what} at {address:#x} ({name})"
