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
a step (below) right after the phis of its header, and the kernel
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

A step is `ocl.barrier(i32 -1)` (`STEP_FLAGS`: no fence bit OpenCL defines,
so never a barrier of the kernel's own; a kernel that has one is left alone).

Kernels with barriers
---------------------
In a kernel with barriers of its own (the Khronos SDK's histogram: a binary
search per element, inside a uniform loop, between two barriers), each
innermost loop gets steps when a way out of it depends on what it computes
(an escape loop with a cap, `n < max`, included), or when every exit compares
a counter moved by a uniform step against a uniform bound and the loop
carries a sum (ViennaCL's gemv, `for (col = lid; col < cols; col += lsize)`:
1.3 times faster stepped; a counted loop with a per-work-item bound, `for (j
= row[i]; j < row[i + 1]; j++)`, clSPARSE's csrmv, and one carrying nothing,
the SDK's reduce's copy loop, measured 1.2 and 2 times slower stepped and
are left alone; a grid-stride loop is lockstep-strided-loops' business), it
holds no barrier, and its body has no store but at uniform or consecutive
addresses, no atomic and no impure call; its loads may gather (`levels[mid]`:
run scalar, the loop costs one work-item at a time). It gets a step at its header, one on each edge out of
it (a block of its own), and each loop around it (up to one holding a
barrier) a step at its header. So no round holds a loop, and each round
widens, but the one that runs what follows the loop up to the next step (the
histogram's `__local` atomic, which no vectoriser widens). The launcher
(`_run_mixed`) runs each region between barriers for the whole group, then
step rounds until every work-item has reached the next barrier (or the end).
At most `form_workgroups.MAX_STEP_STATE` resume states (barriers and steps;
the launcher keeps a bit per state): a kernel that would need more is left
alone.

Measured (oclpy alone, CPU seconds of the launch, loaded 2-core VM): the
SDK histogram (16M floats, 256 bins) 0.86 s -> 0.55 s with steps at the
search only (its rounds widened, the round after the exit, holding the
element loop, did not) -> 0.19 s with the element loop's header stepped too.

Requires: inlining done (runs in the cpu pipeline right before
form-workgroups). Invalidates: the CFG of kernels with barriers (a block on
each exit edge of a stepped loop); nothing else (calls are added).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.loops import Loop, LoopInfo
from oclpy.analysis.uniformity import Uniformity, analyze_uniformity
from oclpy.ir.builder import Builder, i32
from oclpy.ir.intrinsics import declare_intrinsic, intrinsic_info
from oclpy.ir.types import VOID, I32
from oclpy.ir.values import Block, Function, Instr, Module, Value

from . import form_workgroups as fw  # a module: its import cycle runs through the pass manager
from .lockstep_strided_loops import is_strided_loop
from .manager import register
from .scalarize_policy import Step, StepAnalysis

_STEPS_OK = (Step.UNIFORM, Step.CONSECUTIVE)


def _steps_well(loop: Loop, uniformity: Uniformity, steps: StepAnalysis,
                gathers: bool = False) -> bool:
    """The loop diverges (a way out of it differs between work-items) and each
    of its instructions widens without a scatter or a call per lane (nor a
    gather, unless `gathers`)."""
    if loop.children or not any(uniformity.is_divergent_branch(b) for b in loop.exiting):
        return False
    for block in loop.blocks:
        for instr in block.instrs:
            if instr.op == "load" and not gathers and steps.of(instr.operands[0]) not in _STEPS_OK:
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


def _uncast(v: Value) -> Value:
    while isinstance(v, Instr) and v.op in ("zext", "sext", "trunc"):
        v = v.operands[0]
    return v


def _moved(v: Value, by: Value, uniformity: Uniformity) -> bool:
    """`v` is `by` plus or minus a uniform amount (casts aside)."""
    v = _uncast(v)
    if not (isinstance(v, Instr) and v.op in ("add", "sub")):
        return False
    a, b = v.operands
    return (_uncast(a) is by and not uniformity.is_divergent(b)) or \
        (v.op == "add" and _uncast(b) is by and not uniformity.is_divergent(a))


def _induction(v: Value, loop: Loop, uniformity: Uniformity) -> bool:
    """`v` is a counter of `loop` (a header phi that each iteration moves by a
    uniform step), or such a counter plus a uniform amount, casts aside."""
    v = _uncast(v)
    if isinstance(v, Instr) and v.op in ("add", "sub") and not uniformity.is_divergent(v.operands[1]):
        v = _uncast(v.operands[0])
    if not (isinstance(v, Instr) and v.op == "phi" and v.parent is loop.header):
        return False
    return all(_moved(value, v, uniformity) for value, block in v.incoming() if block in loop.blocks)


def _counted(loop: Loop, uniformity: Uniformity) -> bool:
    """Every way out of `loop` compares a counter (`for (j = row[i]; j < row[i + 1]; j++)`):
    its trip count is set on entry, not by what the loop computes (an escape loop
    with a cap, `while (|z| < 2 && n < max)`, is not counted)."""
    for block in loop.exiting:
        term = block.terminator
        cond = term.operands[0] if term is not None and term.op == "condbr" else None
        if not (isinstance(cond, Instr) and cond.op == "icmp"
                and any(_induction(v, loop, uniformity) for v in cond.operands)):
            return False
    return True


def _block_strided(loop: Loop, uniformity: Uniformity) -> bool:
    """A counted loop whose bounds are uniform (only where the work-items start
    differs: ViennaCL's `for (col = lid; col < cols; col += lsize)`) and that
    carries a value besides its counters (a sum: work in every round)."""
    for block in loop.exiting:
        term = block.terminator
        cond = term.operands[0] if term is not None else None
        assert isinstance(cond, Instr)  # a counted loop's exits are `condbr`s on an `icmp`
        bounds = [v for v in cond.operands if not _induction(v, loop, uniformity)]
        if any(uniformity.is_divergent(v) for v in bounds):
            return False
    return any(not _induction(phi, loop, uniformity) for phi in loop.header.phis())


def _add_step(module: Module, block: Block, index: int) -> None:
    barrier = declare_intrinsic(module, "barrier", VOID, [I32])
    b = Builder(block)
    b.index = index
    b.call(barrier, [i32(fw.STEP_FLAGS)])


def _exit_edges(loop: Loop) -> list[tuple[Block, Block]]:
    """(exiting block, target outside the loop), each edge once."""
    return [(exiting, target) for exiting in loop.exiting
            for target in dict.fromkeys(t for t in exiting.successors() if t not in loop.blocks)]


def _step_exits(fn: Function, module: Module, loop: Loop) -> None:
    """A block holding a step on each edge out of `loop`."""
    for exiting, target in _exit_edges(loop):
        term = exiting.terminator
        assert term is not None
        edge = Block(fn.unique_block_name(f"{exiting.name}.step"), parent=fn)
        fn.blocks.insert(fn.blocks.index(target), edge)
        _add_step(module, edge, 0)
        Builder(edge).br(target)
        term.targets = [edge if t is target else t for t in term.targets]
        for phi in target.phis():
            phi.blocks = [edge if p is exiting else p for p in phi.blocks]


def _has_step_flags(fn: Function) -> bool:
    return any(fw.is_step(i) for i in fn.instructions())


def step_divergent_loop(fn: Function, module: Module) -> bool:
    """Mark `fn`'s first suitable divergent loop (module docstring); False if none."""
    if _has_step_flags(fn):
        return False
    if fw.has_barrier(fn):
        return _step_loops_between_barriers(fn, module)
    if any(i.op == "alloca" for i in fn.instructions()):
        return False
    loops = LoopInfo.compute(fn).top_level
    if not loops:
        return False
    uniformity, steps = analyze_uniformity(fn), StepAnalysis(fn)
    for loop in loops:
        if _steps_well(loop, uniformity, steps):
            _add_step(module, loop.header, len(loop.header.phis()))
            fn.attrs[fw.DIVERGENT_ATTR] = True
            return True
    return False


def _has_barrier(loop: Loop) -> bool:
    return any(fw.is_barrier(i) for block in loop.blocks for i in block.instrs)


def _step_loops_between_barriers(fn: Function, module: Module) -> bool:
    """Steps at the header and on the exits of every suitable innermost divergent
    loop of a kernel with barriers (module docstring)."""
    uniformity, steps = analyze_uniformity(fn), StepAnalysis(fn)
    chosen = [loop for loop in LoopInfo.compute(fn).loops
              if _steps_well(loop, uniformity, steps, gathers=True)
              and (not _counted(loop, uniformity) or _block_strided(loop, uniformity))
              and not is_strided_loop(fn, loop, uniformity)
              and not _has_barrier(loop)]
    headers: list[Block] = []
    for loop in chosen:
        outer = loop.parent
        while outer is not None and not _has_barrier(outer):
            headers.append(outer.header)
            outer = outer.parent
    headers = list(dict.fromkeys(headers))
    states = sum(1 for i in fn.instructions() if fw.is_barrier(i)) + len(headers) \
        + sum(1 + len(_exit_edges(loop)) for loop in chosen)
    if states > fw.MAX_STEP_STATE:
        return False  # the launcher keeps a bit per resume state
    for loop in chosen:
        _add_step(module, loop.header, len(loop.header.phis()))
        _step_exits(fn, module, loop)
    for header in headers:  # each round then holds no loop: it can widen
        _add_step(module, header, len(header.phis()))
    if chosen:
        fn.attrs[fw.DIVERGENT_ATTR] = True
    return bool(chosen)


@register
@dataclass
class StepDivergentLoops:
    """Run a kernel's divergent loop one iteration per round (cpu vectorisation).
    Requires: inlining done. Invalidates: the CFG of kernels with barriers."""

    name: ClassVar[str] = "step-divergent-loops"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.kernels():
            if not fn.is_declaration and fw.FRAME_ATTR not in fn.attrs:
                changed |= step_divergent_loop(fn, module)
        return changed
