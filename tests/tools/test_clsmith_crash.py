"""tools/clsmith/crash.py without PoCL: the comparison that keeps how PoCL dies through
a reduction (signal, last stderr line, a backtrace frame, a stack limit it survives)
and the reading of gdb's backtrace."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.clsmith.crash import CrashSignature, Death, backtrace_frames, crash_matches, last_line  # noqa: E402

ABORT = "Could not find a dominating alternative variable."

GDB = """Thread 3 "python" received signal SIGSEGV, Segmentation fault.
[Switching to Thread 0x7fffe97ff6c0 (LWP 8027)]
0x00007fffed34aae3 in llvm::Loop::getCanonicalInductionVariable() const () from /x/libpocl.so
#0  0x00007fffed34aae3 in llvm::Loop::getCanonicalInductionVariable() const () from /x/libpocl.so
#1  0x00007fffe9fa9e8b in pocl::VariableUniformityAnalysis::markInductionVariables(llvm::Function&, llvm::Loop&) () from /x/libpocl.so
#2  pocl_pthread_driver_thread (p=0x555555b64100) at pthread_scheduler.c:567
"""


def test_the_signal_must_be_the_same():
    want = CrashSignature(-6)
    assert crash_matches(want, Death(-6))
    assert not crash_matches(want, Death(-11))
    assert not crash_matches(want, Death(0))


def test_the_last_stderr_line_must_be_the_same_where_given():
    want = CrashSignature(-6, ABORT)
    assert crash_matches(want, Death(-6, ABORT))
    assert not crash_matches(want, Death(-6, "LLVM ERROR: Broken function found"))
    assert crash_matches(CrashSignature(-6), Death(-6, "anything"))


def test_a_frame_must_be_in_the_backtrace_where_given():
    want = CrashSignature(-11, frame="markInductionVariables")
    assert crash_matches(want, Death(-11, "", backtrace_frames(GDB)))
    assert not crash_matches(want, Death(-11, "", ("_pocl_kernel_entry_workgroup () from /tmp/entry.so",)))
    assert not crash_matches(want, Death(-11))


def test_a_stack_overflow_must_go_away_with_the_larger_stack():
    want = CrashSignature(-11, stack_kib=1 << 20)
    assert crash_matches(want, Death(-11), Death(0))
    assert not crash_matches(want, Death(-11), Death(-11))      # a crash of another kind
    assert not crash_matches(want, Death(-11), Death(124))      # no result with the larger stack either
    assert not crash_matches(want, Death(-11), None)
    assert not crash_matches(want, Death(0), Death(0))


def test_backtrace_lines_lose_their_numbers_and_nothing_else_is_read():
    frames = backtrace_frames(GDB)
    assert len(frames) == 3
    assert frames[0].startswith("0x00007fffed34aae3 in llvm::Loop::getCanonicalInductionVariable()")
    assert frames[2].startswith("pocl_pthread_driver_thread (")


def test_last_line_skips_blank_lines():
    assert last_line(f"warning: x\n{ABORT}\n\n") == ABORT
    assert last_line("") == ""
