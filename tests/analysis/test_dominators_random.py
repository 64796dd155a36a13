"""Dominators, frontiers and loops on random CFGs, checked against brute force."""

from hypothesis import given, settings
from hypothesis import strategies as st

from oclpy.ir.cfg import predecessors, reachable_blocks, successors
from oclpy.analysis.dominators import post_dominators
from oclpy.ir.dominance import DomTree
from oclpy.analysis.loops import LoopInfo
from oclpy.ir.builder import Builder
from oclpy.ir.types import I1, VOID, FunctionType
from oclpy.ir.values import Argument, Block, Function


@st.composite
def cfgs(draw) -> Function:
    n = draw(st.integers(1, 8))
    fn = Function("f", FunctionType(VOID, (I1,)), [Argument(I1, "c", 0)])
    blocks = [fn.add_block(f"b{i}") for i in range(n)]
    b = Builder()
    for block in blocks:
        b.position_at_end(block)
        kind = draw(st.sampled_from(["ret", "br", "condbr"]))
        if kind == "ret":
            b.ret()
        elif kind == "br":
            b.br(blocks[draw(st.integers(1, n - 1))] if n > 1 else block)
        else:
            targets = [blocks[draw(st.integers(1, n - 1))] if n > 1 else block for _ in range(2)]
            b.condbr(fn.args[0], *targets)
    return fn


def reachable_without(fn: Function, removed: Block) -> set[Block]:
    if fn.entry is removed:
        return set()
    seen, work = {fn.entry}, [fn.entry]
    while work:
        for s in successors(work.pop()):
            if s is not removed and s not in seen:
                seen.add(s)
                work.append(s)
    return seen


@settings(max_examples=150, deadline=None)
@given(cfgs())
def test_dominance_matches_brute_force(fn: Function) -> None:
    dt = DomTree.compute(fn)
    live = reachable_blocks(fn)
    for a in live:
        without = reachable_without(fn, a)
        for b in live:
            assert dt.dominates(a, b) == (a is b or b not in without)


@settings(max_examples=150, deadline=None)
@given(cfgs())
def test_frontier_definition(fn: Function) -> None:
    dt = DomTree.compute(fn)
    preds = predecessors(fn)
    df = dt.frontiers(preds)
    live = reachable_blocks(fn)
    for a in live:
        want = {b for b in live
                if any(p in live and dt.dominates(a, p) for p in preds[b])
                and not dt.strictly_dominates(a, b)}
        assert df[a] == want


@settings(max_examples=100, deadline=None)
@given(cfgs())
def test_loops_are_well_formed(fn: Function) -> None:
    dt = DomTree.compute(fn)
    info = LoopInfo.compute(fn, dt)
    preds = predecessors(fn)
    for loop in info.loops:
        assert all(dt.dominates(loop.header, b) for b in loop.blocks)
        assert all(loop.header in successors(lat) for lat in loop.latches)
        for b in loop.blocks - {loop.header}:  # entered only through the header
            assert all(p in loop.blocks for p in preds[b] if p in dt.idom)
        if loop.parent is not None:
            assert loop.blocks < loop.parent.blocks


@settings(max_examples=100, deadline=None)
@given(cfgs())
def test_post_dominance_matches_brute_force(fn: Function) -> None:
    pdt = post_dominators(fn)
    exits = {b for b in fn.blocks if not successors(b)}

    def reaches_exit_avoiding(start: Block, avoid: Block) -> bool:
        seen, work = {start}, [start]
        while work:
            x = work.pop()
            if x in exits:
                return True
            for s in successors(x):
                if s is not avoid and s not in seen:
                    seen.add(s)
                    work.append(s)
        return False

    for a in fn.blocks:
        for b in fn.blocks:
            if pdt.contains(a) and pdt.contains(b) and a is not b:
                assert pdt.dominates(a, b) == (not reaches_exit_avoiding(b, a))
