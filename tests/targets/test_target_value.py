"""The Target value travels to the code generator: the cpu target honours its level."""

from __future__ import annotations

import pytest

from oclpy.compiler import compile_program, host_target, resolve
from oclpy.targets.target import Target

SRC = "__kernel void k(__global float *x) { x[get_global_id(0)] *= 2.0f; }"


def _optimized(level: int) -> str:
    return compile_program(SRC, target=host_target().with_opt_level(level)).program.optimized_llvm_ir


def test_level_0_is_llvm_O0_and_level_2_vectorises() -> None:
    o0, o2 = _optimized(0), _optimized(2)
    assert 'call void @k(' in o0 and "x float>" not in o0  # nothing inlined, nothing widened
    assert 'call void @k(' not in o2 and "x float>" in o2


def test_the_options_decide_the_level_unless_the_target_does() -> None:
    assert resolve(Target("cpu"), "-cl-opt-disable").opt_level == 0
    assert resolve(Target("cpu"), "-O1").opt_level == 1
    assert resolve(Target("cpu"), "").opt_level == 2
    assert resolve(Target("cpu", opt_level=1), "-cl-opt-disable").opt_level == 1
    assert [Target("cpu", opt_level=n).llvm_opt_level for n in (0, 1, 2)] == [0, 1, 3]


def test_an_unknown_kind_is_no_target() -> None:
    with pytest.raises(ValueError, match="no compiler target for device 'simt'"):
        resolve(Target("simt"), "")
