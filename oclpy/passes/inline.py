"""inline: replace calls to defined helper functions with the callee's body.

Cost rule: a call is inlined when the callee is defined (not a declaration or
intrinsic), is not recursive (cannot reach the caller, or itself, in the call
graph), and either has a single call site in the module, has fewer than
`threshold` instructions, or reaches a barrier (`form-workgroups` can only
split barriers that are in the kernel itself, whatever the helper's size). Each inlined call:

1. splits the calling block after the call: the rest goes to a continuation
   block `<callee>.cont`, and the successors' phis follow it there;
2. clones the callee's blocks with a value map (arguments -> call operands),
   remapping operands, branch targets and phi blocks;
3. turns each `ret` into `br <continuation>`; the call's value becomes the
   single returned value, or a phi of the returned values;
4. moves the clone's allocas to the top of the caller's entry block.

Helper functions (not kernels) whose calls were all inlined are deleted, and
so are helpers that reach a barrier but that nothing calls (no target could
compile a barrier outside a kernel's work-group loops).

Requires: nothing. Invalidates: the CFG of callers, the call graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

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
        inlined: set[Function] = set()
        while True:
            site = self._next_site(module)
            if site is None:
                break
            inlined.add(site.attrs["callee"])
            inline_call(site)
        # a helper reaching a barrier that nothing calls can be compiled nowhere: it goes too
        removed = remove_dead_helpers(module, inlined | functions_with_barriers(call_graph(module)))
        return bool(inlined) or removed

    def _next_site(self, module: Module) -> Instr | None:
        graph = call_graph(module)
        counts = call_counts(module)
        barriers = functions_with_barriers(graph)
        for caller in defined_functions(module):
            for instr in caller.instructions():
                callee = instr.attrs.get("callee") if instr.op == "call" else None
                if callee is None or callee.is_declaration or "intrinsic" in callee.attrs:
                    continue
                if _reaches(graph, callee, callee) or _reaches(graph, callee, caller):
                    continue  # recursive
                if (counts.get(callee, 0) == 1 or callee in barriers
                        or instruction_count(callee) < self.threshold):
                    return instr
        return None


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


def inline_call(call: Instr) -> None:
    """Replace `call` (to a defined function) with a copy of the callee's body."""
    block = call.parent
    assert block is not None and block.parent is not None
    caller: Function = block.parent
    callee: Function = call.attrs["callee"]
    cont = _split_after(caller, block, call, f"{callee.name}.cont")
    vmap: dict[Value, Value] = dict(zip(callee.args, call.operands))
    clones = _clone_blocks(caller, callee, vmap, after=block)
    returns = _rewire_returns(clones, cont)
    if call.type != VOID:
        call.replace_all_uses_with(_return_value(call, returns, cont))
    call.erase()
    block.append(Instr("br", VOID, targets=[clones[0]]))
    _hoist_allocas(caller, clones)


def _split_after(fn: Function, block: Block, call: Instr, name: str) -> Block:
    """Move the instructions after `call` into a new block placed after `block`."""
    cont = Block(fn.unique_block_name(name), parent=fn)
    fn.blocks.insert(fn.blocks.index(block) + 1, cont)
    at = block.instrs.index(call)
    for instr in block.instrs[at + 1:]:
        cont.append(instr)
    del block.instrs[at + 1:]
    for succ in {id(s): s for s in cont.successors()}.values():
        for phi in succ.phis():
            phi.blocks = [cont if b is block else b for b in phi.blocks]
    return cont


def _clone_blocks(caller: Function, callee: Function, vmap: dict[Value, Value],
                  after: Block) -> list[Block]:
    bmap: dict[Block, Block] = {}
    for b in callee.blocks:
        bmap[b] = Block(caller.unique_block_name(f"{callee.name}.{b.name}"), parent=caller)
        caller.blocks.insert(caller.blocks.index(after) + len(bmap), bmap[b])
    for b in callee.blocks:
        for instr in b.instrs:
            clone = Instr(instr.op, instr.type, list(instr.operands), dict(instr.attrs),
                          [bmap[t] for t in instr.targets], [bmap[p] for p in instr.blocks],
                          instr.name)
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
    entry = caller.entry
    for k, alloca in enumerate(allocas):
        entry.insert(k, alloca)
