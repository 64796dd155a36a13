"""FileCheck tests of simt's machine CSE (`machine_cse.py`): tests/targets/simt_cse/*.s.

Each file starts with `; RUN: simt-cse`, then cases separated by `; -----`: machine code
in virtual registers and `; CHECK...` lines. The runner parses a case, runs
`machine_cse.cse_module`, prints the result, which must parse back, and matches it with
the `filecheck` package. Below, the pass on a whole kernel: fewer instructions, the same
bits as without it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from oclpy.targets.simt import simt_target
from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.machine_cse import cse_function, cse_module
from tests.targets.simt_cl_harness import compile_cl, run_cl, sim_config
from tests.test_filecheck import filecheck

ROOT = Path(__file__).parent / "simt_cse"
SEPARATOR = re.compile(r"^;\s*-----\s*$", re.MULTILINE)


def collect() -> list:
    params = []
    for path in sorted(ROOT.glob("*.s")):
        first, _, rest = path.read_text().partition("\n")
        assert first.strip() == "; RUN: simt-cse", f"{path}: first line must be '; RUN: simt-cse'"
        cases = [c for c in SEPARATOR.split(rest) if c.strip()]
        params += [pytest.param(case, id=f"{path.name}:{k}") for k, case in enumerate(cases)]
    return params


@pytest.mark.parametrize("case", collect())
def test_cse_filecheck(case: str, tmp_path: Path) -> None:
    assert "CHECK" in case, "a FileCheck case without CHECK lines tests nothing"
    module = parse_asm(case)
    cse_module(module)
    output = format_module(module)
    print(output)
    assert format_module(parse_asm(output)) == output
    assert filecheck(case, output, tmp_path) == 0


def test_counts_what_it_removes() -> None:
    module = parse_asm(ROOT.joinpath("cse.s").read_text().split("; -----")[0])
    fn = module.functions[0]
    before = sum(len(b.instrs) for b in fn.blocks)
    assert cse_function(fn) == 3  # v_abs_f64, v_cmp_oge_f64, p_split
    assert sum(len(b.instrs) for b in fn.blocks) == before - 3
    assert cse_function(fn) == 0  # nothing left to find


SINCOS = """
__kernel void k(__global const float *x, __global float *out) {
    size_t i = get_global_id(0);
    float v = x[i];  /* one load: a store to out may change x[i] */
    out[2 * i] = sin(v);
    out[2 * i + 1] = cos(v);
}
"""


def instructions(program) -> int:  # type: ignore[no-untyped-def]
    return sum(len(b.instrs) for fn in program.module.functions for b in fn.blocks)


@pytest.mark.parametrize("regs", ["default", "tiny"])
def test_sin_and_cos_share_their_reduction_and_keep_their_bits(regs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """sin(x) and cos(x) expand to the same reduction and kernels: CSE leaves little more
    than one of them, and the kernel gives the same bits with and without it."""
    x = np.concatenate([np.linspace(-10, 10, 200), [0.0, -0.0, 1e6, -3e7, 1e30, np.inf, np.nan]]).astype(np.float32)
    programs, outs = {}, {}
    for cse in (True, False):
        if not cse:
            monkeypatch.setattr(simt_target, "cse_module", lambda module: 0)
        programs[cse] = compile_cl(SINCOS, regs=regs)
        (_, out), _ = run_cl(SINCOS, "k", [x, np.zeros(2 * len(x), np.float32)], (len(x),), (len(x),),
                             program=programs[cse], config=sim_config(regs))
        outs[cse] = out
    assert outs[True].tobytes() == outs[False].tobytes()
    with np.errstate(invalid="ignore"):  # NumPy's sin(inf) is NaN, as OpenCL's
        want_sin, want_cos = np.sin(x.astype(np.float64)), np.cos(x.astype(np.float64))
    assert np.allclose(outs[True][0::2], want_sin, atol=1e-6, equal_nan=True)
    assert np.allclose(outs[True][1::2], want_cos, atol=1e-6, equal_nan=True)
    # the reduction is selected once (`reduce_any`, per IR block); CSE then shares the kernels
    assert instructions(programs[True]) < instructions(programs[False]) - 25
    text = format_module(programs[True].module)
    assert text.count("s_cbranch_execz") == 1, "one huge-argument region for both"


@pytest.mark.parametrize("regs", ["default", "tiny"])
def test_huge_arguments_run_their_reduction_only_in_waves_that_have_them(
        regs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Payne-Hanek runs under the lanes with |x| >= 2^19 and a wave without any branches
    around it (`Lanes.rarely`): the same bits as the straight-line formula computing it in
    every lane, in fewer wave-instructions. Wave 0: small arguments only; wave 1: mixed;
    wave 2: huge only."""
    from oclpy.targets.simt.math_lanes import Lanes

    rng = np.random.default_rng(7)
    small = rng.uniform(-1000, 1000, 32)
    mixed = np.where(np.arange(32) % 5 == 0, rng.uniform(1e6, 1e30, 32), rng.uniform(-10, 10, 32))
    huge = rng.uniform(-1e30, -6e5, 32)
    x = np.concatenate([small, mixed, huge]).astype(np.float32)
    outs, stats = {}, {}
    for branch in (True, False):
        if not branch:
            monkeypatch.setattr(Lanes, "rarely", lambda self, mask, compute, widths: list(compute()))
        program = compile_cl(SINCOS, regs=regs)
        (_, out), st = run_cl(SINCOS, "k", [x, np.zeros(2 * len(x), np.float32)], (len(x),), (len(x),),
                              program=program, config=sim_config(regs))
        outs[branch], stats[branch] = out, st
    assert outs[True].tobytes() == outs[False].tobytes()
    assert np.allclose(outs[True][0::2], np.sin(x.astype(np.float64)), atol=1e-6)
    assert stats[True].wave_instructions < stats[False].wave_instructions
