"""split-entry-guard: take a kernel's entry guard (`if (gid < n)`) out of its body,
so the cpu can bound the work-item loop by it instead of branching per work-item.

Why
---
On the cpu, work-items run in a loop that LLVM vectorises. The most common
kernel shape, `if (get_global_id(0) < n) { ... }` (or `if (i >= n) return;`),
puts a divergent branch around the whole body. LLVM's loop vectoriser
if-converts it when the body is straight-line code, but a body with a loop of
its own (a Monte Carlo path loop, a dot product over a row) makes the
work-item loop an outer loop, and LLVM's outer-loop vectoriser
(`targets/llvm/cpu/outer.py`) has no masks: it declines any divergent branch,
so such kernels ran one work-item at a time.

What it does
------------
For a kernel without barriers whose body holds a loop, it looks for the
guard: a block P and the set R of blocks that run before it (every block
reachable from the entry without passing P), such that R is acyclic, has no
side effects (no store, atomic, alloca or impure call), is entered only from
R, and leaves only to P or to *quiet exits* (blocks that return without side
effects), at least once to a quiet exit. Running R decides, with no effect,
whether the work-item goes on to P (the guard holds) or does nothing. Then

- `@K.guard` (same parameters, returns i1) is R with its edges to P
  returning true and its edges to quiet exits returning false;
- `@K.unguarded` is K with every edge from R to a quiet exit removed (the
  branch goes the other way): for a work-item whose guard holds, it does
  exactly what K does, since K never takes those edges then;
- K becomes `if (@K.guard(...)) @K.unguarded(...)`, with
  `attrs["guard"]` and `attrs["unguarded"]` naming the two.

The cpu launcher (`targets/llvm/cpu/launcher.py`) then runs, per row of a
work-group, the longest run of work-items `[0, L)` whose guard holds (a scan
of the guard alone) through `@K.unguarded` in a loop with no divergent
branch, and the rest through K. Nothing assumes the guard is monotonic: the
scan checks it for each work-item it passes.

Requires: inlining done, runs before form-workgroups (kernels with barriers
or a divergent loop's step are left alone). Invalidates: K's CFG (replaced).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.loops import LoopInfo
from oclpy.ir.builder import Builder
from oclpy.ir.cfg import predecessors, reverse_post_order
from oclpy.ir.intrinsics import intrinsic_info
from oclpy.ir.types import I1, VOID, FunctionType
from oclpy.ir.values import Argument, Block, ConstInt, Function, Instr, Module, Value

from . import form_workgroups as fw
from .manager import register

GUARD_ATTR = "guard"
UNGUARDED_ATTR = "unguarded"


def _quiet(instr: Instr) -> bool:
    """No side effect: removable, and may run again or not at all."""
    if instr.op == "call":
        info = intrinsic_info(instr.attrs["callee"])
        return info is not None and info.pure and not info.convergent
    if instr.op == "alloca" or instr.info.writes_memory:
        return False
    return not instr.attrs.get("volatile")


def quiet_exits(fn: Function) -> set[Block]:
    """Blocks that return (void) without a side effect, directly or through such blocks."""
    found: set[Block] = set()
    changed = True
    while changed:
        changed = False
        for block in fn.blocks:
            term = block.terminator
            if block in found or term is None or not all(_quiet(i) for i in block.instrs[:-1]):
                continue
            if (term.op == "ret" and not term.operands) or (term.op == "br" and term.targets[0] in found):
                found.add(block)
                changed = True
    return found


def _before(fn: Function, p: Block, exits: set[Block]) -> list[Block] | None:
    """R for the body start `p` (module docstring), in reverse post-order; None when
    `p` does not qualify."""
    order = {b: n for n, b in enumerate(reverse_post_order(fn))}
    region, work = [], [fn.entry]
    seen = {fn.entry}
    while work:
        block = work.pop()
        region.append(block)
        for succ in block.successors():
            if succ is not p and succ not in exits and succ not in seen:
                seen.add(succ)
                work.append(succ)
    if p in seen or fn.entry is p:
        return None
    preds = predecessors(fn)
    to_exit = False
    for block in region:
        term = block.terminator
        if term is None or term.op not in ("br", "condbr", "switch"):
            return None
        if not all(_quiet(i) for i in block.instrs[:-1]):
            return None
        if any(pred not in seen for pred in preds.get(block, [])):
            return None
        for succ in block.successors():
            if succ in seen and order.get(succ, 0) <= order.get(block, 0):
                return None  # a cycle inside R
            to_exit |= succ in exits
    return sorted(region, key=lambda b: order.get(b, 0)) if to_exit else None


def find_guard(fn: Function) -> tuple[Block, list[Block], set[Block]] | None:
    """(P, R, quiet exits) of `fn`'s entry guard, the nearest P first; None if none."""
    exits = quiet_exits(fn)
    if not exits:
        return None
    for block in reverse_post_order(fn):
        term = block.terminator
        if term is None or term.op != "condbr":
            continue
        a, b = term.targets
        if (a in exits) == (b in exits):
            continue
        p = b if a in exits else a
        region = _before(fn, p, exits)
        if region is not None:
            return p, region, exits
    return None


def _new_function(module: Module, fn: Function, name: str, ret) -> Function:  # type: ignore[no-untyped-def]
    args = [Argument(a.type, a.name, a.index) for a in fn.args]
    new = Function(name, FunctionType(ret, tuple(a.type for a in fn.args)), args)
    module.functions.insert(module.functions.index(fn), new)
    return new


def _clone(blocks: list[Block], into: Function, vmap: dict[Value, Value]) -> dict[Block, Block]:
    bmap = {b: into.add_block(b.name) for b in blocks}
    for b in blocks:
        for instr in b.instrs:
            copy = Instr(instr.op, instr.type, list(instr.operands), dict(instr.attrs),
                         [bmap.get(t, t) for t in instr.targets], [bmap.get(p, p) for p in instr.blocks],
                         instr.name)
            copy.loc = instr.loc
            vmap[instr] = copy
            bmap[b].append(copy)
    for new in bmap.values():
        for instr in new.instrs:
            instr.operands = [vmap.get(v, v) for v in instr.operands]
    return bmap


def _build_guard(module: Module, fn: Function, p: Block, region: list[Block],
                 exits: set[Block]) -> Function:
    guard = _new_function(module, fn, f"{fn.name}.guard", I1)
    vmap: dict[Value, Value] = dict(zip(fn.args, guard.args))
    bmap = _clone(region, guard, vmap)
    for answer, targets in ((True, {p}), (False, exits)):
        ret_block = guard.add_block("holds" if answer else "fails")
        Builder(ret_block).ret(ConstInt(I1, int(answer)))
        for block in bmap.values():
            term = block.terminator
            assert term is not None
            term.targets = [ret_block if t in targets else t for t in term.targets]
    return guard


def _remove_exit_edges(fn: Function, region: set[Block], exits: set[Block]) -> None:
    """Send every branch of `region` with a quiet exit as one way the other way."""
    for block in region:
        term = block.terminator
        assert term is not None
        stays = [t for t in term.targets if t not in exits]
        if term.op == "condbr" and len(stays) == 1:
            term.erase()
            Builder(block).br(stays[0])
    _drop_unreachable(fn)


def _drop_unreachable(fn: Function) -> None:
    live = set(reverse_post_order(fn))
    dead = [b for b in fn.blocks if b not in live]
    for block in live:
        for phi in block.phis():
            keep = [(v, b) for v, b in phi.incoming() if b in live and block in b.successors()]
            phi.operands = [v for v, _ in keep]
            phi.blocks = [b for _, b in keep]
    for block in dead:
        block.erase_instrs()
    fn.blocks = [b for b in fn.blocks if b in live]


def split_entry_guard(fn: Function, module: Module) -> bool:
    """Split `fn` as the module docstring says; False when it has no guard to split."""
    if fw.has_barrier(fn) or fn.attrs.get(fw.DIVERGENT_ATTR) or GUARD_ATTR in fn.attrs:
        return False
    if not LoopInfo.compute(fn).top_level:
        return False  # straight-line bodies: LLVM if-converts the guard itself
    found = find_guard(fn)
    if found is None:
        return False
    p, region, exits = found
    guard = _build_guard(module, fn, p, region, exits)
    body = _new_function(module, fn, f"{fn.name}.unguarded", VOID)
    vmap: dict[Value, Value] = dict(zip(fn.args, body.args))
    bmap = _clone(fn.blocks, body, vmap)
    _remove_exit_edges(body, {bmap[b] for b in region}, {bmap[b] for b in exits})
    fn.erase_body()
    b = Builder(fn.add_block("entry"))
    run, done = fn.add_block("run"), fn.add_block("done")
    b.condbr(b.call(guard, list(fn.args)), run, done)
    Builder(run).call(body, list(fn.args))
    Builder(run).br(done)
    Builder(done).ret()
    fn.attrs[GUARD_ATTR], fn.attrs[UNGUARDED_ATTR] = guard.name, body.name
    return True


@register
@dataclass
class SplitEntryGuard:
    """Split a kernel's entry guard from its body (cpu: bound the work-item loop).
    Requires: inlining done, before form-workgroups. Invalidates: the kernel's CFG."""

    name: ClassVar[str] = "split-entry-guard"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in list(module.kernels()):
            if not fn.is_declaration and fw.FRAME_ATTR not in fn.attrs:
                changed |= split_entry_guard(fn, module)
        return changed
