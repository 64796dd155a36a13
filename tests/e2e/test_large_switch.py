"""A switch of hundreds of cases (sparse, negative, at the ends of int's range,
falling through) gives what C says for every value: the cpu and cuda pipelines
split such switches into a search tree of small ones
(passes/split_large_switches.py), and this checks that no value lands in the
wrong case."""

from __future__ import annotations

import numpy as np

CASES = [k * 7 - 1500 for k in range(300)] + [5000, 5001, 5003, 77777, 2**31 - 1, -2**31]


def reference(x: int) -> int:
    """The kernel's switch in Python, wrapped to int: a case at an even position adds
    `x * 3 + 1` and falls through into the next one, which adds `x * 3` and breaks."""
    if x not in CASES:
        return -1
    r = x * 6 + 1 if CASES.index(x) % 2 == 0 else x * 3
    return (r + 2**31) % 2**32 - 2**31


def kernel_source() -> str:
    cases = "".join(f"    case {v}: r += x * 3 + 1;\n" if pos % 2 == 0 else f"    case {v}: r += x * 3; break;\n"
                    for pos, v in enumerate(CASES))
    return ("__kernel void k(__global const int *in, __global int *out) {\n"
            "    int x = in[get_global_id(0)], r = 0;\n"
            f"    switch (x) {{\n{cases}    default: r = -1;\n    }}\n"
            "    out[get_global_id(0)] = r;\n}\n")


def test_every_value_reaches_its_case(run_kernel) -> None:
    probes = {v + d for v in CASES for d in (-1, 0, 1)} | {0, 1, -1}
    xs = np.array(sorted(p for p in probes if -2**31 <= p < 2**31), dtype=np.int32)
    out = np.zeros_like(xs)
    run_kernel(kernel_source(), "k", (xs.size,), None, xs, out)
    expected = np.array([reference(int(x)) for x in xs], dtype=np.int64).astype(np.int32)
    assert (expected != -1).sum() == len(CASES)
    np.testing.assert_array_equal(out, expected)
