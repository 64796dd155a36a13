"""step-divergent-loops: let work-items run a divergent loop in lockstep, one
iteration per round, so the cpu can vectorise it across work-items.

Why
---
On the cpu, work-items run in a loop that LLVM's loop vectoriser widens. A
loop inside the kernel whose trip count differs between work-items (a
Mandelbrot escape loop, `while (err > tol)`) stops that: LLVM widens only
innermost loops, and its outer-loop vectoriser (`cpu_outer.py`) needs the
inner trip count to be the same for every work-item. So such kernels ran
one work-item at a time.

What it does
------------
For a kernel without barriers and without private memory (`alloca`), the
first top-level loop (`analysis/loops.py`) with no loop inside, whose exit
differs between work-items (a divergent exiting branch,
`analysis/uniformity.py`) and whose body vectorises well (pure operations and
math, loads and stores at uniform or consecutive addresses:
`scalarize_policy.StepAnalysis`) gets
an `ocl.barrier(i32 0)` right after the phis of its header, and the kernel
gets `attrs["wg_divergent"] = true`. `form-workgroups` then makes the
kernel resumable there as at any barrier: the values the loop carries live
in the work-item's frame slots between iterations. The mark changes what the
barrier means: it is a *step*, not a barrier. Work-items do not wait for
each other there (they need not all arrive: some leave the loop sooner), so
each work-item has its own resume state, and the launcher
(`cpu_launcher._run_steps`) runs the kernel's start for every work-item, then
rounds of one loop iteration for every work-item still in the loop, until
none is. Each round is a loop over work-items whose body is the loop's body
under a per-work-item condition, which LLVM vectorises with masks.

Requires: inlining done (runs in the cpu pipeline right before
form-workgroups). Invalidates: nothing of the CFG (one call is added).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.loops import Loop, LoopInfo
from oclpy.analysis.uniformity import Uniformity, analyze_uniformity
from oclpy.ir.builder import Builder, i32
from oclpy.ir.intrinsics import declare_intrinsic, intrinsic_info
from oclpy.ir.types import VOID, I32
from oclpy.ir.values import Function, Module

from . import form_workgroups as fw  # a module: its import cycle runs through the pass manager
from .manager import register
from .scalarize_policy import Step, StepAnalysis

_STEPS_OK = (Step.UNIFORM, Step.CONSECUTIVE)


def _steps_well(loop: Loop, uniformity: Uniformity, steps: StepAnalysis) -> bool:
    """The loop diverges (a way out of it differs between work-items) and each
    of its instructions widens without a gather, a scatter or a call per lane."""
    if loop.children or not any(uniformity.is_divergent_branch(b) for b in loop.exiting):
        return False
    for block in loop.blocks:
        for instr in block.instrs:
            if instr.op == "load" and steps.of(instr.operands[0]) not in _STEPS_OK:
                return False
            if instr.op == "store" and steps.of(instr.operands[1]) not in _STEPS_OK:
                return False
            if instr.op in ("atomicrmw", "cmpxchg"):
                return False
            if instr.op == "call":
                info = intrinsic_info(instr.attrs["callee"])
                if info is None or not info.pure:
                    return False
    return True


def step_divergent_loop(fn: Function, module: Module) -> bool:
    """Mark `fn`'s first suitable divergent loop (module docstring); False if none."""
    if fw.has_barrier(fn) or any(i.op == "alloca" for i in fn.instructions()):
        return False
    loops = LoopInfo.compute(fn).top_level
    if not loops:
        return False
    uniformity, steps = analyze_uniformity(fn), StepAnalysis(fn)
    for loop in loops:
        if _steps_well(loop, uniformity, steps):
            barrier = declare_intrinsic(module, "barrier", VOID, [I32])
            b = Builder(loop.header)
            b.index = len(loop.header.phis())
            b.call(barrier, [i32(0)])
            fn.attrs[fw.DIVERGENT_ATTR] = True
            return True
    return False


@register
@dataclass
class StepDivergentLoops:
    """Run a kernel's divergent loop one iteration per round (cpu vectorisation).
    Requires: inlining done. Invalidates: nothing of the CFG."""

    name: ClassVar[str] = "step-divergent-loops"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.kernels():
            if not fn.is_declaration and fw.FRAME_ATTR not in fn.attrs:
                changed |= step_divergent_loop(fn, module)
        return changed
