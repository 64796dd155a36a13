"""tools/progen: the generator is deterministic per seed, and its programs build
and run on oclpy with the same results at -O0 and at the default level."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.progen import MODES, generate  # noqa: E402
from tools.progen.execute import run  # noqa: E402
from tools.progen.reduce import reduce_lines, units  # noqa: E402
from tools.progen.verdict import classify  # noqa: E402
from tools.progen.execute import Result  # noqa: E402

SEEDS = [(3, "basic"), (5, "barrier"), (6, "atomics"), (11, "all"), (17, "basic"),
         (19, "barrier"), (22, "atomics"), (27, "all"), (4, "float"), (5, "float")]


def test_generator_is_deterministic_per_seed_and_mode():
    assert generate(7, "all") == generate(7, "all")
    assert generate(7, "all") != generate(8, "all")
    assert generate(7, "basic") != generate(7, "barrier")


def test_every_mode_generates_a_kernel():
    for mode in MODES:
        src = generate(1, mode)
        assert "__kernel void entry(" in src and "out[gid] = crc;" in src
    assert "barrier(CLK_LOCAL_MEM_FENCE)" in generate(5, "barrier")
    assert "atomic_" in generate(6, "atomics")
    assert "#pragma OPENCL FP_CONTRACT OFF" in generate(2, "float") and "float v" in generate(4, "float")


@pytest.mark.parametrize("seed,mode", SEEDS)
def test_program_runs_the_same_at_O0_and_O2(seed, mode):
    src = generate(seed, mode)
    o0, o2 = run(src, "O0"), run(src, "O2")
    assert o0.status == "ok", o0.detail
    assert o2.status == "ok", o2.detail
    assert o0.outputs == o2.outputs


def test_classify_names_each_finding():
    ok = Result("ok", outputs=("a", "b"))
    other = Result("ok", outputs=("a", "c"))
    assert classify({"O0": ok, "O2": ok, "pocl": ok}) == "ok"
    assert classify({"O0": ok, "O2": other, "pocl": ok}) == "O0-vs-O2"
    assert classify({"O0": ok, "O2": ok, "pocl": other}) == "oclpy-vs-pocl"
    assert classify({"O0": Result("build", "x"), "O2": ok, "pocl": ok}) == "oclpy-build"
    assert classify({"O0": Result("crash", "x"), "O2": ok, "pocl": ok}) == "ice"
    assert classify({"O0": Result("timeout"), "O2": ok, "pocl": ok}) == "timeout"
    assert classify({"O0": Result("build"), "O2": Result("build"), "pocl": Result("build")}) == "invalid"
    assert classify({"O0": ok, "O2": ok, "pocl": Result("build", "x")}) == "pocl-build"


def test_reducer_keeps_the_interesting_line_and_whole_blocks():
    src = "a\nif (x) {\n  b\n  KEEP\n}\nc\nvoid f()\n{\n  d\n}\n"
    assert units(src.splitlines())[1] == (1, 5)
    assert units(src.splitlines())[7] == (6, 10)
    out = reduce_lines(src, lambda s: "KEEP" in s and s.count("{") == s.count("}"))
    assert out == "if (x) {\n  KEEP\n}\n"


def test_wide64_off_leaves_out_the_i130_builtins_and_keeps_the_default_stream():
    import re

    assert generate(5, "all", wide64=True) == generate(5, "all")
    for seed in range(1, 40):
        src = generate(seed, "basic", wide64=False)
        for name in ("add_sat", "sub_sat", "hadd", "mul_hi", "mad_hi", "mad_sat"):
            for m in re.finditer(rf"\b{name}\(\(\((u?long)\)", src):
                raise AssertionError(f"seed {seed}: {name} on {m.group(1)}")


def test_simt_vs_cpu_keeps_helpers_as_calls_and_names_verdicts():
    from tools.progen.simt_vs_cpu import verdict, with_calls

    src = with_calls(generate(3, "all"))
    assert "__attribute__((noinline)) void func_0(" in src and "noinline)) uint16 func_1(" in src
    ok = Result("ok", "", ("a",))
    assert verdict(ok, Result("ok", "", ("a",))) == "agree"
    assert verdict(ok, Result("ok", "", ("b",))) == "differ"
    assert verdict(ok, Result("build", "error: no")) == "build"
    assert verdict(ok, Result("crash", "Traceback")) == "internal"
    assert verdict(ok, Result("timeout")) == "timeout"
    assert verdict(Result("build"), ok) == "cpu-failed"

