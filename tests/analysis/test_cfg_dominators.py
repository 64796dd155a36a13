"""CFG and dominator analyses on small hand-written graphs."""

from oclpy.analysis.dominators import dominance_frontiers, iterated_frontier, post_dominators
from oclpy.ir.cfg import CFG, predecessors, reachable_blocks, reverse_post_order, successors
from oclpy.ir.dominance import DomTree
from oclpy.ir.parser import parse_module
from oclpy.ir.values import Block, Function

DIAMOND = """
define void @f(i1 %c) {
entry:
  condbr i1 %c, label %a, label %b
a:
  %x = add i32 1, 2
  %y = add i32 %x, 3
  br label %join
b:
  br label %join
join:
  ret void
}
"""

LOOP = """
define void @f(i1 %c) {
entry:
  br label %head
head:
  condbr i1 %c, label %body, label %exit
body:
  br label %head
exit:
  ret void
dead:
  br label %exit
}
"""

# Two entries into the cycle a <-> b: irreducible.
IRREDUCIBLE = """
define void @f(i1 %c) {
entry:
  condbr i1 %c, label %a, label %b
a:
  condbr i1 %c, label %b, label %exit
b:
  condbr i1 %c, label %a, label %exit
exit:
  ret void
}
"""


def fn_of(text: str) -> Function:
    return parse_module(text).functions[0]


def blocks(fn: Function) -> dict[str, Block]:
    return {b.name: b for b in fn.blocks}


def names(bs) -> list[str]:
    return [b.name for b in bs]


def test_successors_predecessors_diamond():
    fn = fn_of(DIAMOND)
    b = blocks(fn)
    assert names(successors(b["entry"])) == ["a", "b"]
    preds = predecessors(fn)
    assert names(preds[b["join"]]) == ["a", "b"]
    assert preds[b["entry"]] == []


def test_successors_are_distinct():
    fn = fn_of("define void @f(i1 %c) {\nentry:\n  condbr i1 %c, label %x, label %x\nx:\n  ret void\n}\n")
    assert names(successors(fn.entry)) == ["x"]
    assert names(predecessors(fn)[blocks(fn)["x"]]) == ["entry"]


def test_rpo_and_reachability():
    fn = fn_of(LOOP)
    rpo = names(reverse_post_order(fn))
    assert rpo[0] == "entry" and rpo[1] == "head"
    assert set(rpo) == {"entry", "head", "body", "exit"}
    assert "dead" not in names(reachable_blocks(fn))
    cfg = CFG.compute(fn)
    assert cfg.reachable(blocks(fn)["exit"]) and not cfg.reachable(blocks(fn)["dead"])


def test_dominator_tree_diamond():
    fn = fn_of(DIAMOND)
    b = blocks(fn)
    dt = DomTree.compute(fn)
    assert dt.idom[b["join"]] is b["entry"]
    assert dt.idom[b["a"]] is b["entry"] and dt.idom[b["entry"]] is None
    assert dt.dominates(b["entry"], b["join"])
    assert not dt.dominates(b["a"], b["join"])
    assert dt.dominates(b["a"], b["a"]) and not dt.strictly_dominates(b["a"], b["a"])
    assert names(dt.preorder())[0] == "entry"


def test_instruction_dominance():
    fn = fn_of(DIAMOND)
    b = blocks(fn)
    x, y = b["a"].instrs[0], b["a"].instrs[1]
    ret = b["join"].instrs[0]
    dt = DomTree.compute(fn)
    assert dt.dominates(x, y) and not dt.dominates(y, x)
    assert not dt.dominates(x, x)
    assert not dt.dominates(x, ret)
    assert dt.dominates(fn.entry.instrs[0], ret)


def test_dominates_rejects_mixed_arguments():
    fn = fn_of(DIAMOND)
    dt = DomTree.compute(fn)
    try:
        dt.dominates(fn.entry, fn.entry.instrs[0])
    except TypeError as exc:
        assert "two blocks or two instructions" in str(exc)
    else:
        raise AssertionError("expected TypeError")


def test_unreachable_block_convention():
    fn = fn_of(LOOP)
    b = blocks(fn)
    dt = DomTree.compute(fn)
    assert not dt.contains(b["dead"])
    assert dt.dominates(b["body"], b["dead"])  # everything dominates unreachable code
    assert not dt.dominates(b["dead"], b["exit"])


def test_frontiers():
    fn = fn_of(DIAMOND)
    b = blocks(fn)
    df = dominance_frontiers(fn)
    assert df[b["a"]] == {b["join"]} and df[b["b"]] == {b["join"]}
    assert df[b["entry"]] == set() and df[b["join"]] == set()
    loop = fn_of(LOOP)
    lb = blocks(loop)
    ldf = dominance_frontiers(loop)
    assert ldf[lb["body"]] == {lb["head"]}
    assert ldf[lb["head"]] == {lb["head"]}
    assert iterated_frontier(ldf, [lb["body"]]) == {lb["head"]}


def test_irreducible_dominators():
    fn = fn_of(IRREDUCIBLE)
    b = blocks(fn)
    dt = DomTree.compute(fn)
    assert dt.idom[b["a"]] is b["entry"] and dt.idom[b["b"]] is b["entry"]
    assert dt.idom[b["exit"]] is b["entry"]
    df = dominance_frontiers(fn)
    assert df[b["a"]] == {b["b"], b["exit"]}


def test_post_dominators():
    fn = fn_of(DIAMOND)
    b = blocks(fn)
    pdt = post_dominators(fn)
    assert pdt.idom[b["a"]] is b["join"] and pdt.idom[b["entry"]] is b["join"]
    assert pdt.idom[b["join"]] is None  # the virtual exit
    assert pdt.dominates(b["join"], b["entry"])
    assert not pdt.dominates(b["a"], b["entry"])


def test_post_dominators_skip_infinite_loops():
    text = "define void @f() {\nentry:\n  br label %spin\nspin:\n  br label %spin\n}\n"
    fn = fn_of(text)
    pdt = post_dominators(fn)
    assert not pdt.contains(blocks(fn)["spin"])
