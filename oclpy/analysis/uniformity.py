"""Uniformity: which values are the same for every work-item of a work-group.

A value is *uniform* when every work-item of a work-group (hence of each
sub-group) that computes it gets the same result, and *divergent* otherwise;
a branch is divergent when its condition is. The cpu target may vectorise
with it and the simt target picks scalar or vector registers by it.

Sources of divergence (`_QUERY_UNIFORMITY`, `_divergent_source`):
- `get_local_id`, `get_global_id`, `get_local_linear_id`,
  `get_global_linear_id`, in every dimension (the local size in a dimension may
  be larger than 1, so we do not assume otherwise);
- results of atomics, and of calls to declarations that are not pure (printf);
- loads, unless from `ptr<constant>` (constant memory cannot be written while
  the kernel runs, so a uniform address gives a uniform value); loads from
  private, local, global or generic memory are divergent, since another
  work-item or this one may have written there (conservative);
- `alloca`s: each work-item has its own copy, at its own address;
- arguments of helper functions analysed on their own (`uniform_args=False`).

Uniform: kernel arguments, constants, globals' addresses, the other work-item
queries (`get_group_id`, `get_local_size`, `get_num_groups`,
`get_global_size`, `get_global_offset`, `get_work_dim`, ...), pure operations
and pure intrinsics of uniform operands, and calls to defined helpers whose
arguments are uniform when the helper, analysed with uniform arguments,
returns a uniform value.

Control dependence: a divergent branch in block B makes the phis divergent at
every block where paths leaving B by different successors meet again before
(and including) B's immediate post-dominator: its *join blocks*. Each such
phi may receive different values in different work-items even from uniform
operands (sync dependence). Temporal divergence: a value defined inside a
loop with a divergent exit and used outside the loop is divergent at that use
(work-items left the loop in different iterations), so its users there are
divergent.

Everything propagates to a fixpoint (values only move from uniform to divergent).
`Uniformity.divergent_blocks` then holds the blocks that only some work-items
of a group may run (those a divergent branch controls, up to its immediate
post-dominator): where a SIMT target needs an execution mask.

Requires: nothing (computes dominators, post-dominators and loops itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from oclpy.ir.cfg import predecessors, reachable_blocks, successors
from oclpy.ir.intrinsics import intrinsic_info
from oclpy.ir.types import AddressSpace, PtrType
from oclpy.ir.values import Block, Function, Instr, Value

from .dominators import post_dominators
from .loops import LoopInfo

# Work-item queries: True when the query is uniform across a work-group.
_QUERY_UNIFORMITY: dict[str, bool] = {
    "get_global_id": False, "get_local_id": False, "get_global_linear_id": False,
    "get_local_linear_id": False, "get_group_id": True, "get_local_size": True,
    "get_num_groups": True, "get_global_size": True, "get_global_offset": True,
    "get_work_dim": True, "get_enqueued_local_size": True,
}

# Opcodes whose result is divergent whatever their operands.
_ALWAYS_DIVERGENT = {"atomicrmw", "cmpxchg", "alloca"}


@dataclass
class Uniformity:
    """The result of `analyze_uniformity(fn)`."""

    fn: Function
    divergent: set[Value] = field(default_factory=set)
    divergent_branches: set[Block] = field(default_factory=set)  # blocks whose terminator diverges
    # Blocks some work-items of a group may skip while others run them: those
    # reachable from a divergent branch before its immediate post-dominator.
    divergent_blocks: set[Block] = field(default_factory=set)

    def is_divergent(self, value: Value) -> bool:
        """Whether `value` may differ between work-items of a group (constants never do)."""
        return value in self.divergent

    def is_uniform(self, value: Value) -> bool:
        return value not in self.divergent

    def is_divergent_branch(self, block: Block) -> bool:
        """Whether `block`'s terminator sends work-items of one group different ways."""
        return block in self.divergent_branches

    def runs_divergently(self, block: Block) -> bool:
        """Whether only some work-items of a group may execute `block`."""
        return block in self.divergent_blocks


def analyze_uniformity(fn: Function, uniform_args: bool | None = None) -> Uniformity:
    """Uniformity of every value and branch of `fn`. Arguments are uniform for a
    kernel; for a helper, as `uniform_args` says (default: divergent)."""
    return _Analysis(fn, fn.is_kernel if uniform_args is None else uniform_args, {}).run()


@dataclass
class _Analysis:
    fn: Function
    uniform_args: bool
    summaries: dict[Function, bool | None]  # helper -> returns uniform (None: being analysed)
    result: Uniformity = field(init=False)

    def __post_init__(self) -> None:
        self.result = Uniformity(self.fn)

    def run(self) -> Uniformity:
        fn = self.fn
        if not self.uniform_args:
            self.result.divergent.update(fn.args)
        if fn.is_declaration:
            return self.result
        reachable = reachable_blocks(fn)
        blocks = [b for b in fn.blocks if b in reachable]
        loops = LoopInfo.compute(fn)
        escaping = _values_used_outside_their_loop(blocks, loops)
        joins = _JoinFinder(fn)
        changed = True
        while changed:
            changed = False
            for block in blocks:
                for instr in block.instrs:
                    if instr not in self.result.divergent and self._diverges(instr, escaping):
                        self.result.divergent.add(instr)
                        changed = True
                if block not in self.result.divergent_branches and self._branch_diverges(block):
                    self.result.divergent_branches.add(block)
                    self._mark_joins(joins.joins(block))
                    self._mark_loop_exits(block, loops, escaping)
                    changed = True
        for block in self.result.divergent_branches:
            self.result.divergent_blocks |= joins.region(block)
        return self.result

    def _diverges(self, instr: Instr, escaping: dict[Instr, set[Instr]]) -> bool:
        if any(self.result.is_divergent(op) for op in instr.operands):
            return True
        if instr.op in _ALWAYS_DIVERGENT:
            return True
        if instr.op == "load":
            space = instr.operands[0].type
            return not (isinstance(space, PtrType) and space.space is AddressSpace.CONSTANT)
        if instr.op == "call":
            return self._call_diverges(instr)
        return False

    def _call_diverges(self, call: Instr) -> bool:
        callee: Function = call.attrs["callee"]
        info = intrinsic_info(callee)
        base = callee.attrs.get("intrinsic")
        if base in _QUERY_UNIFORMITY:
            return not _QUERY_UNIFORMITY[base]
        if info is not None:
            return not info.pure
        if callee.is_declaration:
            return True
        return not self._helper_returns_uniform(callee)

    def _helper_returns_uniform(self, callee: Function) -> bool:
        if callee in self.summaries:
            return bool(self.summaries[callee])  # None: recursion, be conservative
        self.summaries[callee] = None
        inner = _Analysis(callee, True, self.summaries).run()
        uniform = not any(i.op == "ret" and i.operands and inner.is_divergent(i.operands[0])
                          for i in callee.instructions())
        self.summaries[callee] = uniform
        return uniform

    def _branch_diverges(self, block: Block) -> bool:
        term = block.terminator
        return term is not None and term.op in ("condbr", "switch") and \
            self.result.is_divergent(term.operands[0]) and len(successors(block)) > 1

    def _mark_joins(self, joins: set[Block]) -> None:
        for block in joins:
            self.result.divergent.update(block.phis())

    def _mark_loop_exits(self, block: Block, loops: LoopInfo,
                         escaping: dict[Instr, set[Instr]]) -> None:
        """A divergent branch that leaves loops: values defined in those loops and
        used outside them differ between work-items at those uses."""
        loop = loops.loop_for(block)
        while loop is not None:
            if any(s not in loop.blocks for s in successors(block)):
                for definition, users in escaping.items():
                    if definition.parent in loop.blocks:
                        self.result.divergent.update(u for u in users if u.parent not in loop.blocks)
            loop = loop.parent


def _values_used_outside_their_loop(blocks: list[Block], loops: LoopInfo) -> dict[Instr, set[Instr]]:
    """Instructions defined inside a loop -> their users in blocks outside that loop."""
    out: dict[Instr, set[Instr]] = {}
    for block in blocks:
        for user in block.instrs:
            for op in user.operands:
                if not isinstance(op, Instr) or op.parent is None:
                    continue
                loop = loops.loop_for(op.parent)
                if loop is not None and block not in loop.blocks:
                    out.setdefault(op, set()).add(user)
    return out


class _JoinFinder:
    """Join blocks of a branch: where paths from two different successors meet,
    up to and including the branch block's immediate post-dominator."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.pdom = post_dominators(fn)
        self.preds = predecessors(fn)

    def region(self, block: Block) -> set[Block]:
        """The blocks a branch in `block` controls: reachable from its successors
        without reaching its immediate post-dominator."""
        stop = self._stop(block)
        found: set[Block] = set()
        for succ in successors(block):
            found |= self._region(succ, stop)
        found.discard(stop)  # type: ignore[arg-type]
        return found

    def _stop(self, block: Block) -> Block | None:
        return self.pdom.idom.get(block) if self.pdom.contains(block) else None

    def joins(self, block: Block) -> set[Block]:
        stop = self._stop(block)
        reached: dict[Block, set[int]] = {}
        for k, succ in enumerate(successors(block)):
            for b in self._region(succ, stop):
                reached.setdefault(b, set()).add(k)
        return {b for b, ks in reached.items() if len(ks) > 1 and len(self.preds.get(b, [])) > 1}

    def _region(self, start: Block, stop: Block | None) -> set[Block]:
        """Blocks reachable from `start` without going past `stop` (which is included)."""
        seen = {start}
        work = [start] if start is not stop else []
        while work:
            b = work.pop()
            for s in successors(b):
                if s not in seen:
                    seen.add(s)
                    if s is not stop:
                        work.append(s)
        return seen
