"""Which work-item loops go to LLVM's outer-loop vectoriser.

LLVM's loop vectoriser widens innermost loops only. A work-item loop whose
region holds a loop of its own (n-body's `j` loop, a matrix multiply's `k`
loop) is an outer loop, so it ran one work-item at a time. LLVM's
VPlan-native path (`-enable-vplan-native-path`, set in `binding.py`) widens such
a loop when its loop ID carries `llvm.loop.vectorize.enable`: the inner loop
then runs once for a whole vector of work-items. LLVM checks the control flow
(every branch of the region the same for all work-items but the inner loops'
own, inner trip counts the same for all work-items) and declines otherwise,
but it does not check memory: the hint is a promise. So `outer_regions`
gives it only where that promise holds and where widening pays:

- the work-item loop is marked parallel already (`reorder.reorder_safe`,
  checked by the caller): iterations are independent;
- no private variable is left in memory (`alloca`): after inlining LLVM puts
  it once for all iterations, and widened work-items would share it (kernels
  with barriers have none: their private memory is their own frame);
- no generic-address test (`to_private`, ...), whose stack query allocates;
- no struct or array value that the emitter keeps in memory (past the
  target's `indirect_aggregate_bytes`: `emit_indirect.py` gives it a slot, an
  `alloca` as above), in the kernel or in a function it calls;
- every branch out of the region's inner loops is uniform (LLVM would
  decline anyway; a divergent `if` it may take once it has become a select);
- every load and store inside the region's deepest inner loops is uniform
  or consecutive along x (`scalarize_policy.StepAnalysis`): a gather per
  element would cost more than the loop it replaces. Shallower loops may
  gather and scatter: their iterations are a factor of a trip count fewer
  (Hands On OpenCL's row-private multiply copies its row, `A[i*N+k]`, in a
  loop of N, then walks it in a nest of N x N: a gather per row element
  against a consecutive load per product).

Measured (python -m benchmarks, oclpy/PoCL kernel time): n-body 1.03 -> 0.47,
naive matrix multiply 1.12 -> 0.48, the helper-call polynomial 0.99 -> 0.14;
Loops whose trip count differs per work-item get no hint (LLVM would
decline): CSR SpMV's row loop stays scalar, and Mandelbrot's escape loop is
stepped instead (`passes/step_divergent_loops.py`).
"""

from __future__ import annotations

from typing import Callable

from oclpy.analysis.callgraph import functions_reached
from oclpy.analysis.loops import LoopInfo
from oclpy.ir.intrinsics import intrinsic_info
from oclpy.ir.types import Type
from oclpy.ir.values import Block, Function, Instr
from oclpy.ir.cfg import strongly_connected_components
from oclpy.passes.scalarize_policy import Step, StepAnalysis

from .generic import SPACE_TESTS


def region_starts(fn: Function) -> dict[int, Block]:
    """The first block of each region: state 0 is the kernel's entry; for a kernel
    made resumable by form-workgroups, state i is the target of case i of its
    entry `switch`."""
    entry = fn.entry
    term = entry.terminator
    if fn.args and fn.args[-1].attrs.get("hidden") == "state" and term is not None \
            and term.op == "switch":
        default, *cases = term.targets
        return {0: default, **{n: b for n, b in zip(term.attrs["cases"], cases)}}
    return {0: entry}


def _region(start: Block) -> tuple[list[Block], set[int]]:
    """The blocks of the region that begins at `start` (all it reaches), and the ids
    of those on a cycle."""
    reached: list[Block] = []
    cyclic: set[int] = set()
    for component in strongly_connected_components([start]):
        reached += component
        if len(component) > 1 or component[0] in component[0].successors():
            cyclic.update(id(b) for b in component)
    return reached, cyclic


def _may_take_hint(fn: Function, in_memory: Callable[[Type], bool]) -> bool:
    for f in functions_reached(fn):
        if not f.is_declaration and any(in_memory(i.type) for i in f.instructions()):
            return False
    for instr in fn.instructions():
        if instr.op == "alloca":
            return False
        if instr.op == "call":
            info = intrinsic_info(instr.attrs["callee"])
            if info is not None and info.base in SPACE_TESTS:
                return False
    return True


def outer_regions(fn: Function, in_memory: Callable[[Type], bool] = lambda t: False) -> set[int]:
    """The resume states whose work-item loop should carry the outer-loop hint;
    `in_memory` says which value types the emitter keeps in memory."""
    if fn.is_declaration or not _may_take_hint(fn, in_memory):
        return set()
    steps: StepAnalysis | None = None
    loops: LoopInfo | None = None
    chosen = set()
    for state, start in region_starts(fn).items():
        blocks, in_loops = _region(start)
        if not in_loops:
            continue
        steps = steps or StepAnalysis(fn)
        loops = loops or LoopInfo.compute(fn)
        looped = [b for b in blocks if id(b) in in_loops]
        deepest = max(loops.depth(b) for b in looped)
        if all(_leaves_alike(b, in_loops, steps) for b in looped) and all(
                _widens_well(i, steps, gathers=loops.depth(b) < deepest)
                for b in looped for i in b.instrs):
            chosen.add(state)
    return chosen


def _leaves_alike(block: Block, in_loops: set[int], steps: StepAnalysis) -> bool:
    """Every work-item leaves the inner loop at `block` alike: a branch out of
    the loop has a uniform condition (LLVM's outer-loop vectoriser has no
    masks: it declines an inner loop whose trip count differs between
    work-items). A divergent branch that stays inside the loop (an `if`, a
    `?:`) LLVM may still take once it has become a select."""
    term = block.terminator
    if term is None or term.op not in ("condbr", "switch"):
        return True
    stays = all(id(t) in in_loops for t in term.targets)
    return stays or steps.of(term.operands[0]) is Step.UNIFORM


def _widens_well(instr: Instr, steps: StepAnalysis, gathers: bool = False) -> bool:
    """`instr` widens well: no atomic, and a load or store at a uniform or consecutive
    address, or anywhere when `gathers` (a loop around which the region has deeper
    loops)."""
    if instr.op in ("load", "store"):
        address = instr.operands[0 if instr.op == "load" else 1]
        return gathers or steps.of(address) in (Step.UNIFORM, Step.CONSECUTIVE)
    return instr.op not in ("atomicrmw", "cmpxchg")
