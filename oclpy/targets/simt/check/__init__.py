"""The kernel checker: what `oclpy check` finds while the simulator runs a kernel.

One module per check family, each a set of functions the simulator calls on
lane vectors when a launch runs with a `Checker` (`check_session.py`):
`memory_checks.py` (out-of-bounds per address space, access modes, released
buffers), `barrier_checks.py` (barrier divergence, deadlock), `race_checks.py`
(data races on local and global memory), `uninit_checks.py` and
`defined_bytes.py` (uninitialised values), `value_checks.py` (integer division
by zero, generic-to-named casts). They report through `check_report.py`
(plain-data reports, deduplicated) and `check_render.py` (clang-style
diagnostics). docs/check.md describes the whole.
"""
