"""benchmarks/simt_profile.py: the counters and the profile's parts on a small saxpy."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import cases_dense
from benchmarks.impl import oclpy_device, timed
from benchmarks.simt_profile import count_steps, main, part_of, profile_parts


def test_counts_agree_with_a_straight_line_kernel() -> None:
    """saxpy has no branch: every step runs every wave with every lane on, and the
    lane-instructions per work-item are the steps of one batch."""
    impl, why = oclpy_device("simt")
    assert impl is not None, why
    case = cases_dense.make_saxpy(1 << 14)
    p = impl.prepare(case)
    timed(impl, case, p)
    c = count_steps(impl, case, p)
    items = int(np.prod(case.global_size))
    assert c["batches"] == 1 and c["lanes"] == c["slots"] == c["waves"] * 32
    assert c["lanes"] == items * c["steps"]
    assert 0 < c["vmem"] < c["steps"]
    seconds, parts, calls = profile_parts(impl, case, p)
    assert seconds > 0 and calls > c["steps"]
    assert parts.get("vector memory", 0) > 0 and sum(parts.values()) <= seconds * 1.5


def test_parts_by_file_and_function() -> None:
    assert part_of("/x/oclpy/targets/simt/sim_memory.py", 1, "gather", 0) == "vector memory"
    assert part_of("/x/oclpy/targets/simt/simulator.py", 900, "run", 900) == "scheduler"
    assert part_of("/x/oclpy/targets/simt/lane_math.py", 1, "fma_f64", 0) == "ALU"
    assert part_of("/x/oclpy/targets/simt/simulator.py", 800, "__init__", 900, 800) == "batch set-up"
    assert part_of("/x/oclpy/targets/simt/simulator.py", 700, "__init__", 900, 800) == "vector memory"
    assert part_of("~", 0, "<built-in method _operator.add>", 0) == "ALU"
    assert part_of("~", 0, "<method 'astype' of 'numpy.ndarray' objects>", 0) == "NumPy (other)"


def test_an_unknown_kernel_is_refused_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["nope"])
    assert "unknown kernel(s) nope; known: saxpy, reduce" in capsys.readouterr().err
