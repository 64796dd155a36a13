"""Control flow: the block layout, phis, and branches as scalar jumps or exec-mask code.

The layout
----------
Blocks are laid out in a topological order of the CFG without its back edges in
which every loop is contiguous, header first (`block_layout`): each block comes
after the blocks that dominate it, every block of a divergent region comes before
the region's immediate post-dominator, and a loop's exits come after the loop.
A loop is followed by a *loop end* item. An irreducible CFG is a build error.

Uniform functions
-----------------
A function without a divergent branch (uniformity analysis) never touches exec:
a uniform `condbr` is `s_cmp` then `s_cbranch_scc0/1`, a `switch` a chain of
compares, `ret` a jump to the function's one exit block. Phi copies go on the
edge, in an edge block when the predecessor has several successors.

Divergent functions: exec-mask code
-----------------------------------
A function with a divergent branch runs every block under a mask, the doc's rule
(docs/simt.md, section 4) realised as *mask linearisation*: each block `B` but the
entry has a lane mask register `M_B` (the lanes waiting to run `B`, all zero on
entry to the function). Walking the layout in order:

- at the top of `B`: `exec = M_B` (and `M_B = 0` inside a loop, ready for the next
  iteration), then `s_cbranch_execz` to the next item when no lane is waiting;
- a branch does not jump: it adds lanes to its successors' masks. A divergent
  `condbr c` sends `exec & c` (`v_cmp`) to one side and `exec & ~c` to the other;
  a uniform one tests `scc` and adds all of exec to one side (a scalar branch
  between the two mask updates); a `switch` compares per case; then control falls
  through to the next block of the layout, so both sides of an if run one after
  the other, each with its own lanes, and the lanes meet again at the first block
  they all wait for: the immediate post-dominator, which the layout puts after
  the whole region;
- a loop end tests its header's mask (`s_cmp_ne_u64 M_H, 0`) and jumps back while
  some lane goes round again (`s_cbranch_scc1`). Lanes that leave the loop wait in
  the masks of the exit blocks, all laid out after the loop: when the last lane
  stops iterating, each exit block runs with the lanes that took it (the flow
  block of the doc, with one mask per exit);
- `ret` adds nothing: the lanes just stop; the exit block restores the exec the
  function was entered with.

A block that only falls through from the block before it by `br` keeps that
block's exec and needs no mask. A block holding a barrier is never skipped, so
every wave reaches every barrier (a wave whose lanes are all off walks through);
since scalar moves ignore exec, the scalar phi copies such a block makes are
`s_cselect`s on `exec != 0`, so a wave walking it with no lane on keeps the
value that its lanes' own edge wrote.

Phi copies are made on the edge under the edge's lanes (`s_and_saveexec_b64`),
so lanes taking another edge keep their values. Values of a loop that are used
after it are *temporal divergent*: a vector register keeps, in each lane, the
value of the lane's last iteration; a uniform value in a scalar register gets a
vector *shadow* written after its definition, and the uses outside the loop read
the shadow (`Ctx.shadows`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...analysis.loops import Loop, LoopInfo
from ...ir.cfg import predecessors, reachable_blocks, successors
from ...ir.types import IntType, PtrType
from ...ir.values import Block, Function, Instr, Undef, Value
from .isel_arith import cond_mask, cond_scc, narrow
from .isel_context import Ctx, SelectError, bits_of, is_reg, leaves, reg_width
from .machine import EXEC, Imm, Label, MBlock, Operand, VReg

Item = tuple[str, object]  # ("block", Block) or ("loop_end", Loop)
PLAIN_LABEL = re.compile(r"[A-Za-z_.][\w.]*\Z")


# -- the layout --------------------------------------------------------------------------------

def block_layout(fn: Function, loops: LoopInfo) -> list[Item]:
    reachable = reachable_blocks(fn)
    blocks = [b for b in fn.blocks if b in reachable]
    index = {b: k for k, b in enumerate(blocks)}
    return order_region(set(blocks), None, None, loops, index)


def order_region(blocks: set[Block], header: Block | None, level: Loop | None, loops: LoopInfo,
                 index: dict[Block, int]) -> list[Item]:
    def rep(b: Block) -> object:
        loop, outer = loops.loop_for(b), None
        while loop is not None and loop is not level:
            outer, loop = loop, loop.parent
        return outer if outer is not None else b

    nodes: dict[object, int] = {}
    for b in blocks:
        r = rep(b)
        nodes[r] = min(nodes.get(r, index[b]), index[b])
    edges: dict[object, set[object]] = {n: set() for n in nodes}
    indegree = {n: 0 for n in nodes}
    for b in blocks:
        for s in successors(b):
            if s not in blocks or s is header:
                continue
            a, z = rep(b), rep(s)
            if a is not z and z not in edges[a]:
                edges[a].add(z)
                indegree[z] += 1
    ready = sorted((n for n in nodes if indegree[n] == 0), key=lambda n: nodes[n])
    order: list[object] = []
    while ready:
        n = ready.pop(0)
        order.append(n)
        for z in edges[n]:
            indegree[z] -= 1
            if indegree[z] == 0:
                ready.append(z)
        ready.sort(key=lambda n: nodes[n])
    if len(order) != len(nodes) or (header is not None and order[0] is not header):
        raise SelectError("irreducible control flow is not supported on simt")
    items: list[Item] = []
    for n in order:
        if isinstance(n, Block):
            items.append(("block", n))
        else:
            assert isinstance(n, Loop)
            items += order_region(n.blocks & blocks, n.header, n, loops, index)
            items.append(("loop_end", n))
    return items


def label_for(block: Block, taken: set[str]) -> str:
    name = block.name if PLAIN_LABEL.match(block.name or "") else "bb"
    return unique_label(f"b.{name}", taken)


def unique_label(name: str, taken: set[str]) -> str:
    label, n = name, 0
    while label in taken:
        n += 1
        label = f"{name}.{n}"
    taken.add(label)
    return label


# -- the state of one function's control flow ----------------------------------------------------

@dataclass
class Flow:
    """What the control-flow patterns know of the function being selected."""

    masked: bool  # exec-mask code (the function has a divergent branch)
    items: list[Item]
    loops: LoopInfo
    labels: dict[object, str] = field(default_factory=dict)  # block, loop (its end), "exit" -> label
    next_label: dict[object, str] = field(default_factory=dict)  # block or loop -> the label after it
    masks: dict[Block, VReg] = field(default_factory=dict)
    barrier_blocks: set[Block] = field(default_factory=set)
    retval: list[Operand] = field(default_factory=list)
    exec0: Operand | None = None


def plan_flow(ctx: Ctx, loops: LoopInfo, barrier_blocks: set[Block]) -> Flow:
    items = block_layout(ctx.fn, loops)
    flow = Flow(bool(ctx.uni.divergent_branches), items, loops, barrier_blocks=barrier_blocks)
    taken: set[str] = set()
    for kind, obj in items:
        flow.labels[obj] = label_for(obj, taken) if kind == "block" else unique_label(
            f"{flow.labels[obj.header]}.loop", taken)  # type: ignore[attr-defined]
    flow.labels["exit"] = unique_label("b.exit", taken)
    placed = [obj for kind, obj in items if kind == "block" or flow.masked]  # loop ends: code in mask mode
    for k, obj in enumerate(placed):
        flow.next_label[obj] = flow.labels[placed[k + 1]] if k + 1 < len(placed) else flow.labels["exit"]
    if flow.masked:
        previous: object = None
        preds = predecessors(ctx.fn)
        for kind, obj in items:
            if kind == "block" and obj is not ctx.fn.entry and not falls_through(preds[obj], previous):  # type: ignore
                flow.masks[obj] = ctx.new("s", 64)  # type: ignore[index]
            previous = obj
    return flow


def falls_through(preds: list[Block], previous: object) -> bool:
    """Whether a block of these predecessors is entered only from the block laid out just before it, by `br`."""
    if len(preds) != 1 or preds[0] is not previous:
        return False
    term = preds[0].terminator
    return term is not None and term.op == "br"


# -- phis ------------------------------------------------------------------------------------------

def allocate_phis(ctx: Ctx) -> None:
    """A register per leaf of every phi: scalar for a uniform integer or pointer phi."""
    for block in ctx.fn.blocks:
        for phi in block.phis():
            parts: list[Operand] = []
            for t, _ in leaves(phi.type, ctx.layout):
                file = "s" if ctx.uniform(phi) and isinstance(t, (IntType, PtrType)) else "v"
                parts.append(ctx.new(file, reg_width(t, ctx.layout)))
            ctx.set(phi, parts)


def phi_copies(ctx: Ctx, pred: Block, succ: Block, guard: bool = False) -> None:
    """The parallel copy of `succ`'s phis for the edge from `pred`. With `guard` (a block
    walked even when no lane is on), scalar destinations keep their value unless some lane
    is on: a scalar move ignores exec, and a wave walking the block with every lane off must
    not overwrite the value that the edge its lanes took wrote."""
    moves: list[tuple[Operand, Operand]] = []
    for phi in succ.phis():
        value = phi.operands[phi.blocks.index(pred)]
        if isinstance(value, Undef):
            continue
        moves += [(d, s) for d, s in zip(ctx.values[phi], ctx.parts(value)) if d != s]
    targets = {d for d, _ in moves}
    if any(s in targets for _, s in moves):  # a phi reads another's old value: through temporaries
        staged = []
        for d, s in moves:
            t = ctx.new(d.file, d.width)  # type: ignore[union-attr]
            ctx.copy(t, s)
            staged.append((d, t))
        moves = staged
    if guard and any(is_reg(d, "s") for d, _ in moves):
        guarded_copies(ctx, moves)
        return
    for d, s in moves:
        ctx.copy(d, s)


def guarded_copies(ctx: Ctx, moves: list[tuple[Operand, Operand]]) -> None:
    """The copies, a scalar one only when exec is not empty (`s_cselect` on `exec != 0`)."""
    staged = []
    for d, s in moves:
        if is_reg(d, "s"):
            t = ctx.new("s", d.width)  # type: ignore[union-attr]
            ctx.copy(t, s)
            staged.append((d, t))
        else:
            ctx.copy(d, s)
    ctx.emit("s_cmp_ne_u64", EXEC, Imm(0))
    for d, t in staged:  # uniform phis are integers or pointers: 32 or 64 bits
        ctx.emit(f"s_cselect_b{d.width}", d, t, d)  # type: ignore[union-attr]


def has_phis(block: Block) -> bool:
    return bool(block.phis())


# -- shadows of values used after their loop --------------------------------------------------------

def make_shadow(ctx: Ctx, flow: Flow, value: Instr) -> None:
    """Give a uniform value defined in a loop and used outside it a vector copy (mask mode)."""
    if not flow.masked or value.parent is None:
        return
    loop = flow.loops.loop_for(value.parent)
    parts = ctx.values.get(value)
    if loop is None or not parts or not any(is_reg(p, "s") for p in parts):
        return
    if all(u.parent in loop.blocks for u in value.users if u.op != "phi") and all(
            all(b in loop.blocks for v, b in u.incoming() if v is value) for u in value.users if u.op == "phi"):
        return
    shadow: list[Operand] = []
    for p in parts:
        if is_reg(p, "s"):
            v = ctx.new("v", p.width)  # type: ignore[union-attr]
            ctx.emit("p_copy", v, p)
            shadow.append(v)
        else:
            shadow.append(p)
    ctx.shadows[value] = shadow
    ctx.shadow_loops[value] = loop.blocks


# -- block starts ----------------------------------------------------------------------------------

def begin_block(ctx: Ctx, flow: Flow, block: Block) -> None:
    """The top of a block: its mask (mask mode), the skip when no lane waits, phi shadows."""
    if not flow.masked:
        return
    mask = flow.masks.get(block)
    if mask is not None:
        ctx.emit("s_mov_b64", EXEC, mask)
        if flow.loops.loop_for(block) is not None:
            ctx.emit("s_mov_b64", mask, Imm(0))
    if block is not ctx.fn.entry and block not in flow.barrier_blocks:
        ctx.emit("s_cbranch_execz", Label(flow.next_label[block]))
    for phi in block.phis():
        make_shadow(ctx, flow, phi)


def loop_end(ctx: Ctx, flow: Flow, loop: Loop) -> None:
    """Mask mode: go round again while some lane waits at the header."""
    if flow.masked:
        ctx.emit("s_cmp_ne_u64", flow.masks[loop.header], Imm(0))
        ctx.emit("s_cbranch_scc1", Label(flow.labels[loop.header]))


# -- terminators -------------------------------------------------------------------------------------

def select_terminator(ctx: Ctx, flow: Flow, instr: Instr, mblocks: list[MBlock]) -> None:
    """`instr` ends ctx.ir_block; extra machine blocks it needs are appended to `mblocks`."""
    block = ctx.ir_block
    assert block is not None
    if instr.op == "ret":
        ret_copies(ctx, flow, instr)
        if not flow.masked:
            jump(ctx, flow, block, flow.labels["exit"])
        return
    if instr.op == "unreachable":
        if not flow.masked:
            ctx.emit("s_trap", Imm(1))
        return
    if flow.masked:
        masked_terminator(ctx, flow, instr, mblocks)
    else:
        uniform_terminator(ctx, flow, instr, mblocks)


def ret_copies(ctx: Ctx, flow: Flow, instr: Instr) -> None:
    if instr.operands:
        for d, s in zip(flow.retval, ctx.parts(instr.operands[0])):
            ctx.copy(d, s)


def jump(ctx: Ctx, flow: Flow, block: Block, label: str) -> None:
    """An unconditional jump, left out when the target comes next."""
    if flow.next_label[block] != label:
        ctx.emit("s_branch", Label(label))


def edge_target(ctx: Ctx, flow: Flow, block: Block, succ: Block, mblocks: list[MBlock], name: str) -> str:
    """The label to branch to for the edge block -> succ: an edge block holding the phi copies
    when succ has phis."""
    if not has_phis(succ):
        return flow.labels[succ]
    taken = {b.name for b in ctx.mfn.blocks} | {b.name for b in mblocks}
    edge = MBlock(unique_label(f"{flow.labels[block]}.{name}", taken))
    mblocks.append(edge)
    saved = ctx.block
    ctx.start_block(edge)
    phi_copies(ctx, block, succ)
    ctx.emit("s_branch", Label(flow.labels[succ]))
    ctx.start_block(saved)
    return edge.name


def uniform_terminator(ctx: Ctx, flow: Flow, instr: Instr, mblocks: list[MBlock]) -> None:
    block = ctx.ir_block
    assert block is not None
    if instr.op == "br":
        succ = instr.targets[0]
        phi_copies(ctx, block, succ)
        jump(ctx, flow, block, flow.labels[succ])
        return
    if instr.op == "condbr":
        t, f = instr.targets
        fixed = cond_scc(ctx, instr.operands[0]) if t is not f else True
        if fixed is not None:
            succ = t if fixed else f
            phi_copies(ctx, block, succ)
            jump(ctx, flow, block, flow.labels[succ])
            return
        t_label = edge_target(ctx, flow, block, t, mblocks, "t")
        f_label = edge_target(ctx, flow, block, f, mblocks, "f")
        if t_label == flow.next_label[block] and not mblocks:
            ctx.emit("s_cbranch_scc0", Label(f_label))
        else:
            ctx.emit("s_cbranch_scc1", Label(t_label))
            if f_label != flow.next_label[block] or mblocks:
                ctx.emit("s_branch", Label(f_label))
        return
    if instr.op == "switch":
        uniform_switch(ctx, flow, instr, mblocks)
        return
    raise ctx.error(f"terminator {instr.op} is not supported on simt")


def uniform_switch(ctx: Ctx, flow: Flow, instr: Instr, mblocks: list[MBlock]) -> None:
    block = ctx.ir_block
    assert block is not None
    width = reg_width(instr.operands[0].type, ctx.layout)
    value = ctx.sreg(switch_value(ctx, instr, scalar=True), width)
    bits = bits_of(instr.operands[0].type, ctx.layout)
    labels: dict[Block, str] = {}
    for k, succ in enumerate(dict.fromkeys(instr.targets)):
        labels[succ] = edge_target(ctx, flow, block, succ, mblocks, f"s{k}")
    for case, succ in zip(instr.attrs["cases"], instr.targets[1:]):
        ctx.emit(f"s_cmp_eq_u{width}", value, Imm(case_bits(case_value(case), bits)))
        ctx.emit("s_cbranch_scc1", Label(labels[succ]))
    ctx.emit("s_branch", Label(labels[instr.targets[0]]))


def switch_value(ctx: Ctx, instr: Instr, scalar: bool) -> Operand:
    """The switch's operand, a narrow integer zero-extended (its cases are compared as unsigned)."""
    value = ctx.part(instr.operands[0])
    bits = bits_of(instr.operands[0].type, ctx.layout)
    return narrow(ctx, value, bits, "z", scalar and not is_reg(value, "v"))


def case_value(case: object) -> int:
    value = getattr(case, "value", case)
    return int(value)  # type: ignore[arg-type]


def case_bits(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def masked_terminator(ctx: Ctx, flow: Flow, instr: Instr, mblocks: list[MBlock]) -> None:
    block = ctx.ir_block
    assert block is not None
    if instr.op == "br":
        send(ctx, flow, block, instr.targets[0], EXEC)
        return
    if instr.op == "condbr":
        t, f = instr.targets
        cond = instr.operands[0]
        if t is f:
            send(ctx, flow, block, t, EXEC)
        elif ctx.uni.is_divergent_branch(block):
            m = cond_mask(ctx, cond)
            send(ctx, flow, block, t, m)
            send(ctx, flow, block, f, ctx.op("s_andn2_b64", "s", 64, EXEC, m))
        else:
            uniform_masked_branch(ctx, flow, block, cond, t, f, mblocks)
        return
    if instr.op == "switch":
        masked_switch(ctx, flow, instr)
        return
    raise ctx.error(f"terminator {instr.op} is not supported on simt")


def send(ctx: Ctx, flow: Flow, block: Block, succ: Block, lanes: Operand) -> None:
    """Mask mode: the lanes `lanes` (of exec) go to `succ`: phi copies under them, then into
    succ's mask."""
    if isinstance(lanes, Imm):
        return
    if has_phis(succ):
        if lanes is EXEC:
            phi_copies(ctx, block, succ, guard=block in flow.barrier_blocks)
        else:
            # what the copies compute under the edge's lanes (a uniform value read from
            # the first lane on) holds only there: none of it is reused after the edge
            outside = dict(ctx.block_cache)
            saved = ctx.op("s_and_saveexec_b64", "s", 64, lanes)
            phi_copies(ctx, block, succ)
            ctx.emit("s_mov_b64", EXEC, saved)
            ctx.block_cache = outside
    mask = flow.masks.get(succ)
    if mask is not None:
        ctx.emit("s_or_b64", mask, mask, lanes)


def uniform_masked_branch(ctx: Ctx, flow: Flow, block: Block, cond: Value, t: Block, f: Block,
                          mblocks: list[MBlock]) -> None:
    """A uniform branch in exec-mask code: every lane on goes the same way; scc says which."""
    fixed = cond_scc(ctx, cond)
    if fixed is not None:
        send(ctx, flow, block, t if fixed else f, EXEC)
        return
    taken = {b.name for b in ctx.mfn.blocks} | {b.name for b in mblocks}
    true_side = MBlock(unique_label(f"{flow.labels[block]}.t", taken))
    false_side = MBlock(unique_label(f"{flow.labels[block]}.f", taken))
    ctx.emit("s_cbranch_scc0", Label(false_side.name))
    mblocks += [true_side, false_side]
    ctx.start_block(true_side)
    send(ctx, flow, block, t, EXEC)
    ctx.emit("s_branch", Label(flow.next_label[block]))
    ctx.start_block(false_side)
    send(ctx, flow, block, f, EXEC)


def masked_switch(ctx: Ctx, flow: Flow, instr: Instr) -> None:
    block = ctx.ir_block
    assert block is not None
    value = switch_value(ctx, instr, scalar=False)
    width = reg_width(instr.operands[0].type, ctx.layout)
    bits = bits_of(instr.operands[0].type, ctx.layout)
    per_target: dict[Block, Operand] = {}
    taken: Operand = Imm(0)
    for case, succ in zip(instr.attrs["cases"], instr.targets[1:]):
        hit = ctx.op(f"v_cmp_eq_u{width}", "s", 64, value, Imm(case_bits(case_value(case), bits)))
        per_target[succ] = hit if succ not in per_target else ctx.op("s_or_b64", "s", 64, per_target[succ], hit)
        taken = hit if isinstance(taken, Imm) else ctx.op("s_or_b64", "s", 64, taken, hit)
    default = EXEC if isinstance(taken, Imm) else ctx.op("s_andn2_b64", "s", 64, EXEC, taken)
    d = instr.targets[0]
    per_target[d] = default if d not in per_target else ctx.op("s_or_b64", "s", 64, per_target[d], default)
    for succ, lanes in per_target.items():
        send(ctx, flow, block, succ, lanes)


