"""inline: replace calls to defined helper functions with the callee's body.

Cost rule: a call is inlined when the callee is defined (not a declaration or
intrinsic), is not recursive (cannot reach the caller, or itself, in the call
graph), and either has a single call site in the module, has fewer than
`threshold` instructions, or reaches a barrier (`form-workgroups` can only
split barriers that are in the kernel itself, whatever the helper's size). Each inlined call:

1. splits the calling block after the call: the rest goes to a continuation
   block `<callee>.cont`, and the successors' phis follow it there (a block
   of many calls is first cut before each call, and the cuts joined again at
   the end, so that each split moves only the instructions up to the next
   call);
2. clones the callee's blocks with a value map (arguments -> call operands),
   remapping operands, branch targets and phi blocks;
3. turns each `ret` into `br <continuation>`; the call's value becomes the
   single returned value, or a phi of the returned values;
4. moves the clone's allocas to the top of the caller's entry block.

A helper marked `noinline` (`attrs["noinline"]`, from
`__attribute__((noinline))`) stays a call, unless it reaches a barrier.

Helper functions (not kernels) whose calls were all inlined are deleted, and
so are helpers that reach a barrier but that nothing calls (no target could
compile a barrier outside a kernel's work-group loops).

Requires: nothing. Invalidates: the CFG of callers, the call graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir.block_names import BlockNames
from oclpy.ir.types import VOID
from oclpy.ir.values import Block, Function, Instr, Module, Undef, Value

from .manager import defined_functions, register


@register
@dataclass
class Inline:
    """Inline calls to defined functions by size and call count; delete dead helpers.
    Requires: nothing. Invalidates: CFG, dominators, loops, call graph."""

    name: ClassVar[str] = "inline"
    threshold: int = 50

    def run(self, module: Module) -> bool:
        state = _CallSites(module)
        for caller in defined_functions(module):
            self._inline_into(caller, state)
        # a helper reaching a barrier that nothing calls can be compiled nowhere: it goes too
        removed = remove_dead_helpers(module, state.inlined | state.barriers)
        return bool(state.inlined) or removed

    def _inline_into(self, caller: Function, state: _CallSites) -> None:
        """Inline the sites of `caller` in order; a body inlined is scanned next, so its
        own calls are inlined too (the order of inlining the first site the rule takes,
        again and again: a site the rule refused stays refused, since sizes only grow
        and the recursive and barrier-reaching functions do not change)."""
        names = BlockNames(caller)
        joins: list[Instr] = []
        at_block = 0
        while at_block < len(caller.blocks):
            block, site = caller.blocks[at_block], None
            joins += split_before_calls(caller, at_block)
            for at, instr in enumerate(block.instrs):
                if instr.op == "call" and self._takes(instr.attrs.get("callee"), state):
                    site = at
                    break
            if site is not None:
                state.inline(block.instrs[site], caller, names, (at_block, site))
            at_block += 1  # the inlined body starts at the next block
        join_segments(caller, joins)

    def _takes(self, callee: Function | None, state: _CallSites) -> bool:
        if callee is None or callee.is_declaration or "intrinsic" in callee.attrs or callee in state.recursive:
            return False
        if callee.attrs.get("noinline") and callee not in state.barriers:
            return False
        return (state.counts.get(callee, 0) == 1 or callee in state.barriers
                or state.size(callee) < self.threshold)


class _CallSites:
    """What the inlining rule asks of the module, kept up to date as calls are inlined
    (computing it afresh for each site costs the module's size per site)."""

    def __init__(self, module: Module) -> None:
        graph = call_graph(module)
        self.counts = call_counts(module)
        self.barriers = functions_with_barriers(graph)
        self.recursive = {fn for fn in graph if _reaches(graph, fn, fn)}
        self.sizes: dict[Function, int] = {}
        self.inlined: set[Function] = set()

    def size(self, fn: Function) -> int:
        if fn not in self.sizes:
            self.sizes[fn] = instruction_count(fn)
        return self.sizes[fn]

    def inline(self, call: Instr, caller: Function, names: BlockNames, where: tuple[int, int]) -> None:
        callee: Function = call.attrs["callee"]
        self.inlined.add(callee)
        self.counts[callee] -= 1
        for instr in callee.instructions():
            if instr.op == "call":
                self.counts[instr.attrs["callee"]] = self.counts.get(instr.attrs["callee"], 0) + 1
        self.sizes.pop(caller, None)
        inline_call(call, names, where)


def call_graph(module: Module) -> dict[Function, set[Function]]:
    """Each defined function -> the defined functions it calls."""
    graph: dict[Function, set[Function]] = {}
    for fn in defined_functions(module):
        graph[fn] = {i.attrs["callee"] for i in fn.instructions()
                     if i.op == "call" and not i.attrs["callee"].is_declaration}
    return graph


def functions_with_barriers(graph: dict[Function, set[Function]]) -> set[Function]:
    """The defined functions that call the barrier intrinsic, directly or through others."""
    direct = {fn for fn in graph if any(i.op == "call" and i.attrs["callee"].attrs.get("intrinsic")
                                        == "barrier" for i in fn.instructions())}
    return direct | {fn for fn in graph if any(_reaches(graph, fn, b) for b in direct)}


def call_counts(module: Module) -> dict[Function, int]:
    counts: dict[Function, int] = {}
    for fn in defined_functions(module):
        for i in fn.instructions():
            if i.op == "call":
                counts[i.attrs["callee"]] = counts.get(i.attrs["callee"], 0) + 1
    return counts


def instruction_count(fn: Function) -> int:
    return sum(len(b.instrs) for b in fn.blocks)


def _reaches(graph: dict[Function, set[Function]], start: Function, goal: Function) -> bool:
    seen: set[Function] = set()
    work = [start]
    while work:
        fn = work.pop()
        for callee in graph.get(fn, ()):
            if callee is goal:
                return True
            if callee not in seen:
                seen.add(callee)
                work.append(callee)
    return False


def remove_dead_helpers(module: Module, candidates: set[Function]) -> bool:
    """Delete the non-kernel functions among `candidates` (those whose calls were
    inlined) that nothing calls any more."""
    counts = call_counts(module)
    dead = {f for f in candidates if not f.is_kernel and counts.get(f, 0) == 0}
    module.functions = [f for f in module.functions if f not in dead]
    for fn in dead:
        fn.erase_body()
    return bool(dead)


# -- the transformation ------------------------------------------------------------------


def inline_call(call: Instr, names: BlockNames | None = None, where: tuple[int, int] | None = None) -> None:
    """Replace `call` (to a defined function) with a copy of the callee's body.
    `names` and `where` (the indices of the call's block and of the call in it)
    spare the searches when inlining many calls."""
    block = call.parent
    assert block is not None and block.parent is not None
    caller: Function = block.parent
    callee: Function = call.attrs["callee"]
    names = names or BlockNames(caller)
    at_block, at = where or (caller.blocks.index(block), block.instrs.index(call))
    cont = _split_after(caller, (at_block, block), (at, call), names.unique(f"{callee.name}.cont"))
    vmap: dict[Value, Value] = dict(zip(callee.args, call.operands))
    clones = _clone_blocks(caller, callee, vmap, at_block + 1, names)
    returns = _rewire_returns(clones, cont)
    if call.type != VOID:
        call.replace_all_uses_with(_return_value(call, returns, cont))
    block.instrs.pop(at)
    call.parent = None
    call.operands = ()
    block.append(Instr("br", VOID, targets=[clones[0]]))
    _hoist_allocas(caller, clones)


def _split_after(fn: Function, block_at: tuple[int, Block], call_at: tuple[int, Instr], name: str) -> Block:
    """Move the instructions after the call into a new block placed after its block."""
    (index, block), (at, _) = block_at, call_at
    cont = Block(name, instrs=block.instrs[at + 1:], parent=fn)
    fn.blocks.insert(index + 1, cont)
    del block.instrs[at + 1:]
    for instr in cont.instrs:
        instr.parent = cont
    _follow_phis(block, cont)
    return cont


def split_before_calls(fn: Function, index: int) -> list[Instr]:
    """Split block `index` of `fn` before each call to a defined function but the
    first, into segments that follow it in order (the last one keeps the
    terminator, and the successors' phis follow it), and return the branches that
    join them. Inlining a call then moves only its segment's tail to the
    continuation block instead of the rest of the block: a block of n calls
    costs O(n), not O(n**2). `join_segments` undoes the splits afterwards."""
    block = fn.blocks[index]
    cuts = [at for at, instr in enumerate(block.instrs) if instr.op == "call"
            and not instr.attrs["callee"].is_declaration][1:]
    if not cuts:
        return []
    instrs = block.instrs
    bounds = [*cuts, len(instrs)]
    segments = [Block(block.name, instrs=instrs[bounds[k]:bounds[k + 1]], parent=fn)
                for k in range(len(cuts))]
    del instrs[cuts[0]:]
    for segment in segments:
        for instr in segment.instrs:
            instr.parent = segment
    _follow_phis(block, segments[-1])
    joins = []
    for prev, segment in zip([block, *segments], segments):
        joins.append(prev.append(Instr("br", VOID, targets=[segment])))
    fn.blocks[index + 1:index + 1] = segments
    return joins


def join_segments(fn: Function, joins: list[Instr]) -> None:
    """Merge each segment `split_before_calls` made back into the block that now
    branches to it (the block holding its join branch), in the order they were
    made, so the function's blocks are those inlining the unsplit blocks gives."""
    merged: set[int] = set()
    for join in joins:
        segment, pred = join.targets[0], join.parent
        assert pred is not None and pred.instrs[-1] is join
        pred.instrs.pop()
        join.parent = None
        for instr in segment.instrs:
            instr.parent = pred
        pred.instrs += segment.instrs
        segment.instrs = []
        _follow_phis(segment, pred)
        merged.add(id(segment))
    if merged:
        fn.blocks = [b for b in fn.blocks if id(b) not in merged]


def _follow_phis(old: Block, new: Block) -> None:
    """The terminator of `old` is now `new`'s: the phis of its successors follow."""
    for succ in {id(s): s for s in new.successors()}.values():
        for phi in succ.phis():
            phi.blocks = [new if b is old else b for b in phi.blocks]


def _clone_blocks(caller: Function, callee: Function, vmap: dict[Value, Value],
                  at: int, names: BlockNames) -> list[Block]:
    """Copies of the callee's blocks, placed in the caller from index `at` on."""
    bmap: dict[Block, Block] = {}
    for b in callee.blocks:
        bmap[b] = Block(names.unique(f"{callee.name}.{b.name}"), parent=caller)
    caller.blocks[at:at] = list(bmap.values())
    for b in callee.blocks:
        for instr in b.instrs:
            clone = Instr(instr.op, instr.type, list(instr.operands), dict(instr.attrs),
                          [bmap[t] for t in instr.targets], [bmap[p] for p in instr.blocks],
                          instr.name)
            clone.loc = instr.loc  # the inlined code keeps its source location
            vmap[instr] = clone
            bmap[b].append(clone)
    for new in bmap.values():
        for instr in new.instrs:
            instr.operands = [vmap.get(v, v) for v in instr.operands]
    return [bmap[b] for b in callee.blocks]


def _rewire_returns(clones: list[Block], cont: Block) -> list[tuple[Value | None, Block]]:
    returns: list[tuple[Value | None, Block]] = []
    for block in clones:
        term = block.terminator
        if term is not None and term.op == "ret":
            returns.append((term.operands[0] if term.operands else None, block))
            term.erase()
            block.append(Instr("br", VOID, targets=[cont]))
    return returns


def _return_value(call: Instr, returns: list[tuple[Value | None, Block]], cont: Block) -> Value:
    if not returns:
        return Undef(call.type)  # the callee never returns
    if len(returns) == 1:
        return returns[0][0] or Undef(call.type)
    phi = Instr("phi", call.type, [v or Undef(call.type) for v, _ in returns],
                blocks=[b for _, b in returns], name=call.name)
    cont.insert(0, phi)
    return phi


def _hoist_allocas(caller: Function, clones: list[Block]) -> None:
    allocas = [i for b in clones for i in b.instrs if i.op == "alloca"]
    for b in clones:
        b.instrs = [i for i in b.instrs if i.op != "alloca"]
    for alloca in allocas:
        alloca.parent = caller.entry
    caller.entry.instrs[0:0] = allocas
