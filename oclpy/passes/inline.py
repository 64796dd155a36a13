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
from typing import Callable, ClassVar

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
        graph = call_graph(module)
        counts = call_counts(module)
        barriers = functions_with_barriers(graph)
        recursive = _recursive(graph)
        changed = True
        while changed:  # a site may qualify once another inlining left its callee one call
            changed = False
            for caller in defined_functions(module):
                sites = _Sites(self, caller, counts, barriers, recursive)
                changed |= sites.run(inlined)
        # a helper reaching a barrier that nothing calls can be compiled nowhere: it goes too
        removed = remove_dead_helpers(module, inlined | functions_with_barriers(call_graph(module)))
        return bool(inlined) or removed

    def wants(self, callee: Function, counts: dict[Function, int], barriers: set[Function]) -> bool:
        return (counts.get(callee, 0) == 1 or callee in barriers
                or instruction_count(callee) < self.threshold)


class _Sites:
    """The inlining of one caller's call sites, in block order, in time linear in the
    caller's final size: the calls of one block are decided in order, then inlined
    last first (each split then moves a short tail), the uses of each call's result
    follow its use-list, and the new blocks are put in order once."""

    def __init__(self, policy: Inline, caller: Function, counts: dict[Function, int],
                 barriers: set[Function], recursive: dict[Function, int]) -> None:
        self.policy, self.caller, self.counts = policy, caller, counts
        self.barriers, self.recursive = barriers, recursive
        self.names = {b.name for b in caller.blocks}
        self.after: dict[int, list[Block]] = {}  # id(block) -> the blocks placed right after it
        self.allocas: list[list[Instr]] = []
        self.inlined: set[Function] = set()

    def run(self, inlined: set[Function]) -> bool:
        work = list(reversed(self.caller.blocks))
        while work:
            block = work.pop()
            calls = [i for i in block.instrs if i.op == "call" and self._take(i)]
            for call in reversed(calls):
                clones, cont = self._inline(call)
                self.after[id(block)] = clones + [cont] + self.after.get(id(block), [])
                work.extend(reversed(clones))  # their calls next, as a rescan would find them
        if not self.inlined:
            return False
        self._finish()
        inlined |= self.inlined
        return True

    def _take(self, call: Instr) -> bool:
        """Whether to inline `call`; the call counts are updated as if it were."""
        callee = call.attrs["callee"]
        if callee.is_declaration or "intrinsic" in callee.attrs or callee is self.caller:
            return False
        scc = self.recursive.get(callee)
        if scc is not None and (scc < 0 or scc == self.recursive.get(self.caller)):
            return False  # recursive
        if not self.policy.wants(callee, self.counts, self.barriers):
            return False
        self.counts[callee] -= 1
        for instr in callee.instructions():
            if instr.op == "call":
                self.counts[instr.attrs["callee"]] = self.counts.get(instr.attrs["callee"], 0) + 1
        self.inlined.add(callee)
        return True

    def _inline(self, call: Instr) -> tuple[list[Block], Block]:
        block = call.parent
        assert block is not None
        callee: Function = call.attrs["callee"]
        cont = self._block(f"{callee.name}.cont")
        at = block.instrs.index(call)
        cont.instrs = block.instrs[at + 1:]
        for instr in cont.instrs:
            instr.parent = cont
        del block.instrs[at:]
        for succ in {id(s): s for s in cont.successors()}.values():
            for phi in succ.phis():
                phi.blocks = [cont if b is block else b for b in phi.blocks]
        vmap: dict[Value, Value] = dict(zip(callee.args, call.operands))
        clones = clone_blocks(callee, vmap, lambda b: self._block(f"{callee.name}.{b.name}"))
        returns = _rewire_returns(clones, cont)
        block.append(Instr("br", VOID, targets=[clones[0]]))
        if call.type != VOID:  # its users, wherever they are: O(uses) with the use-lists
            call.replace_all_uses_with(_return_value(call, returns, cont))
        call.parent = None
        call.operands = ()
        self.allocas.append([i for b in clones for i in b.instrs if i.op == "alloca"])
        for b in clones:
            if any(i.op == "alloca" for i in b.instrs):
                b.instrs = [i for i in b.instrs if i.op != "alloca"]
        return clones, cont

    def _block(self, name: str) -> Block:
        unique, n = name, 1
        while unique in self.names:
            unique, n = f"{name}{n}", n + 1
        self.names.add(unique)
        return Block(unique, parent=self.caller)

    def _finish(self) -> None:
        """The new blocks in order, the hoisted allocas."""
        order, work = [], list(reversed(self.caller.blocks))
        while work:
            b = work.pop()
            order.append(b)
            work.extend(reversed(self.after.get(id(b), ())))
        self.caller.blocks = order
        entry = self.caller.entry
        hoisted = [a for group in reversed(self.allocas) for a in group]
        for a in hoisted:
            a.parent = entry
        entry.instrs[:0] = hoisted


def call_graph(module: Module) -> dict[Function, set[Function]]:
    """Each defined function -> the defined functions it calls."""
    graph: dict[Function, set[Function]] = {}
    for fn in defined_functions(module):
        graph[fn] = {i.attrs["callee"] for i in fn.instructions()
                     if i.op == "call" and not i.attrs["callee"].is_declaration}
    return graph


def functions_with_barriers(graph: dict[Function, set[Function]]) -> set[Function]:
    """The defined functions that call the barrier intrinsic, directly or through others."""
    found = {fn for fn in graph if any(i.op == "call" and i.attrs["callee"].attrs.get("intrinsic")
                                       == "barrier" for i in fn.instructions())}
    callers: dict[Function, list[Function]] = {}
    for fn, callees in graph.items():
        for callee in callees:
            callers.setdefault(callee, []).append(fn)
    work = list(found)
    while work:
        for caller in callers.get(work.pop(), ()):
            if caller not in found:
                found.add(caller)
                work.append(caller)
    return found


def _recursive(graph: dict[Function, set[Function]]) -> dict[Function, int]:
    """The functions on a cycle of calls: function -> the number of its cycle's strongly
    connected component; -1 for one that calls itself alone."""
    index: dict[Function, int] = {}
    low: dict[Function, int] = {}
    stack: list[Function] = []
    on_stack: set[Function] = set()
    out: dict[Function, int] = {}
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            fn, callees = work[-1]
            nxt = next(callees, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph.get(nxt, ()))))
                elif nxt in on_stack:
                    low[fn] = min(low[fn], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[fn])
            if low[fn] == index[fn]:
                members = []
                while True:
                    f = stack.pop()
                    on_stack.discard(f)
                    members.append(f)
                    if f is fn:
                        break
                if len(members) > 1:
                    out.update((m, index[fn]) for m in members)
                elif fn in graph.get(fn, ()):
                    out[fn] = -1
    return out


def call_counts(module: Module) -> dict[Function, int]:
    counts: dict[Function, int] = {}
    for fn in defined_functions(module):
        for i in fn.instructions():
            if i.op == "call":
                counts[i.attrs["callee"]] = counts.get(i.attrs["callee"], 0) + 1
    return counts


def instruction_count(fn: Function) -> int:
    return sum(len(b.instrs) for b in fn.blocks)


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


def clone_blocks(callee: Function, vmap: dict[Value, Value],
                 make: Callable[[Block], Block]) -> list[Block]:
    """Copies of `callee`'s blocks (made by `make`), operands mapped through `vmap`
    (the arguments to the call's operands; each instruction to its copy)."""
    bmap: dict[Block, Block] = {}
    for b in callee.blocks:
        bmap[b] = make(b)
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
