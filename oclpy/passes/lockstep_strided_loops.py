"""lockstep-strided-loops: run a strided loop (`for (i = gid; i < n; i += gsize)`)
one iteration at a time across the work-group, behind a barrier.

Why
---
On the cpu a work-group's work-items run one after another, each through its
whole kernel between barriers. A grid-stride or block-stride loop (CLBlast's
Xdot `while (id < n) { acc += x[id] * y[id]; id += WGS1 * num_groups; }`,
ViennaCL's `for (tid = gid; tid < size; tid += gsize)`) then walks the data
work-item by work-item: work-item 0 touches one element of every row of the
stride, work-item 1 the next element of the same rows, and so on, so once the
rows outgrow the cache every work-item fetches every line again (Xdot: 733 ms
for 2 x 64 MB, 44 ns an element; 325 ms in lockstep, at the same load). Its
trip count differs between work-items (by one at most for a grid-stride
loop), so no vectoriser takes it either, and in kernels with barriers
`step-divergent-loops` leaves it to this pass (`is_strided_loop`). A GPU runs the work-items of a group in
lockstep: iteration k of every work-item touches consecutive elements.

What it does
------------
For an innermost loop of a kernel (not stepped, `wg_divergent`) that every
work-item of a group enters alike (from one block outside the loop, which
every work-item runs, `Uniformity.runs_divergently`, and which leaves by a
uniform branch), with one latch, one way out (a `condbr` in the header on
`icmp i, e`), a header without memory accesses or calls, a body a round can
widen (no barrier, no call but pure intrinsics, no vector-typed load or
store: `_widens`), and a header phi `i = phi [s, pre], [i + S, latch]` (or
`trunc(ext(i) + S)`) whose start `s` differs between work-items but whose
step `S` and bound `e` are uniform (values from before the loop, or pure
instructions of those: `id += WGS1 * num_groups` computes its step in the
body), the pass:

1. copies the loop (the *lockstep copy*), entered from the preheader instead
   of the loop; the copy's header gains a uniform counter `k` from 0 and
   branches on `k < T` to a new block that calls `ocl.barrier(i32 0)` and then
   tests the loop's own condition: true runs the copied body, false skips it
   (a new latch block keeps every header value as it was, so a work-item whose
   condition failed stays out: its header recomputes the same test from the
   same values);
2. when `k` reaches `T`, a second barrier, then the original loop, entered
   with the copy's values: work-items not yet done finish there alone
   (usually none; any that are get exactly the iterations they had left).

The result is the original loop's, for any `T`: each work-item runs its
iterations in order, with the same values, and the barriers are reached by
every work-item the same number of times (`T` is uniform). `T` only decides
how much runs in lockstep: the trip count of the group's first work-item,
`ceil((e - s0) / S)` (plus 1 for `<=`) in i64, with `s0` the start computed
for that work-item (`get_local_id(d)` is 0 there and `get_global_id(d)` is
`get_group_id(d) * get_enqueued_local_size(d) + get_global_offset(d)`, which
the uniformity analysis knows to be uniform), and `T` = 0 when `S <= 0` or
`e <= s0` (the divisor is made positive first, so nothing traps) or when the
group has fewer than `MIN_GROUP` work-items (a region per iteration then costs
more than the order gains: measured below). In a
grid-stride loop the other work-items start above `s0`, so they have at most
that many iterations, and the original loop runs none for them.

`form-workgroups` then makes each lockstep iteration one region: a loop over
the work-items of the group (consecutive addresses in consecutive
work-items, which LLVM's loop vectoriser widens with masks where it can),
the values the loop carries in the work-items' frame slots.

Requires: inlining done (barriers in helpers are in the kernel); runs after
`step-divergent-loops`, before `form-workgroups`. Invalidates: the CFG (the
loop is copied and four blocks are added).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.loops import Loop, LoopInfo
from oclpy.analysis.uniformity import Uniformity, analyze_uniformity
from oclpy.ir.builder import Builder, const_int, i32
from oclpy.ir.intrinsics import declare_intrinsic, intrinsic_info
from oclpy.ir.types import I32, I64, VOID, VectorType
from oclpy.ir.values import Block, Function, Instr, Module, Value

from . import form_workgroups as fw  # a module: its import cycle runs through the pass manager
from .manager import register

# `i <pred> e` with i on the left -> (signed, inclusive); `e <pred> i` swaps the predicate
UPWARD = {"slt": (True, False), "sle": (True, True), "ult": (False, False), "ule": (False, True)}
SWAPPED = {"sgt": "slt", "sge": "sle", "ugt": "ult", "uge": "ule"}
MAX_LOOPS = 8  # lockstep loops per kernel
MAX_DEPTH = 12  # instructions followed back from a loop's start
# Work-items a group needs for lockstep to pay: each lockstep iteration is a region,
# whose dispatch costs about as much as a few work-items' iterations. The repo's
# own histogram (grid-stride, 1024 iterations a work-item), oclpy alone, with
# against without: local size 1: 1836 / 330 ms, 8: 336 / 230, 16: 296 / 211,
# 32: 207 / 307, 64: 220 / 333, 256: 134 / 201.
MIN_GROUP = 32


@dataclass
class Candidate:
    loop: Loop
    pre: Block          # the one block outside the loop that enters it
    iv: Instr           # i = phi [start, pre], [i + step, latch]
    start: Value
    step: Value
    bound: Value
    signed: bool
    inclusive: bool


def _widens(instr: Instr) -> bool:
    """An instruction a lockstep round's work-item loop can widen: no barrier or
    `ret`, no call but pure intrinsics (math), no vector-typed memory access
    (`scalarize-vectors` keeps gathered vectors, and LLVM's loop vectoriser
    refuses a loop holding them: the round would run one work-item at a time,
    and paying for the frames buys nothing; ViennaCL's float2 FFT got slower)."""
    if instr.op == "ret":
        return False
    if instr.op == "call":
        info = intrinsic_info(instr.attrs["callee"])
        return info is not None and info.pure
    if instr.op == "load":
        return not isinstance(instr.type, VectorType)
    if instr.op == "store":
        return not isinstance(instr.operands[0].type, VectorType)
    return True


def _pure_header(block: Block) -> bool:
    """The header computes without memory or calls: recomputed from the same
    values it gives the same answer."""
    for instr in block.instrs:
        if instr.op in ("phi", "condbr"):
            continue
        if not instr.info.pure or instr.op == "call":
            return False
    return True


def _candidate(fn: Function, loop: Loop, u: Uniformity) -> Candidate | None:
    header = loop.header
    term = header.terminator
    if loop.children or len(loop.latches) != 1 or loop.exiting != [header] or term is None \
            or term.op != "condbr" or not _pure_header(header):
        return None
    if not all(_widens(i) for block in loop.blocks for i in block.instrs):
        return None
    pres = [p for p in fn.blocks if header in p.successors() and p not in loop.blocks]
    cmp = term.operands[0]
    if len(pres) != 1 or not (isinstance(cmp, Instr) and cmp.op == "icmp"):
        return None
    if u.runs_divergently(pres[0]) or u.is_divergent_branch(pres[0]):
        return None  # some work-items of a group may not enter the loop
    pred = cmp.attrs["pred"]
    iv, bound = cmp.operands
    if pred in SWAPPED:
        pred, iv, bound = SWAPPED[pred], bound, iv
    if pred not in UPWARD or not (isinstance(iv, Instr) and iv.op == "phi" and iv.parent is header):
        return None
    if len(iv.operands) != 2 or u.is_divergent(bound) or _first_start(bound, loop, u) is None:
        return None
    (a, block_a), (b, block_b) = iv.incoming()
    start, nxt = (a, b) if block_a is pres[0] else (b, a)
    step = _step(iv, nxt)
    if step is None:
        return None
    if u.is_divergent(step) or not u.is_divergent(start):
        return None
    if _first_start(step, loop, u) is None or _first_start(start, loop, u) is None:
        return None
    signed, inclusive = UPWARD[pred]
    return Candidate(loop, pres[0], iv, start, step, bound, signed, inclusive)


def is_strided_loop(fn: Function, loop: Loop, u: Uniformity) -> bool:
    """This pass would run `loop` in lockstep (step-divergent-loops leaves it alone)."""
    return _candidate(fn, loop, u) is not None


def _step(iv: Instr, nxt: Value) -> Value | None:
    """S when `nxt` is `iv + S`, or `trunc(ext(iv) + S)` (C's `id += WG * get_num_groups(0)`
    on an int: the sum is made in size_t and converted back)."""
    if isinstance(nxt, Instr) and nxt.op == "trunc" and isinstance(nxt.operands[0], Instr):
        wide = nxt.operands[0]
        if wide.op == "add":
            for side in (0, 1):
                ext = wide.operands[side]
                if isinstance(ext, Instr) and ext.op in ("sext", "zext") and ext.operands[0] is iv:
                    return wide.operands[1 - side]
        return None
    if isinstance(nxt, Instr) and nxt.op == "add" and iv in nxt.operands:
        return nxt.operands[1] if nxt.operands[0] is iv else nxt.operands[0]
    return None


def _first_start(v: Value, c: Candidate | Loop, u: Uniformity, b: Builder | None = None,
                 module: Module | None = None, depth: int = 0) -> Value | None:
    """`v` as the group's first work-item computes it, at the end of the loop's
    preheader (built with `b`; with None only checked): uniform values from before
    the loop as they are, `get_local_id(d)` 0, `get_global_id(d)` the group's first
    id, pure instructions of those copied. None if `v` depends on anything else
    that differs between work-items or is made in the loop."""
    loop = c.loop if isinstance(c, Candidate) else c
    if not isinstance(v, Instr) or (v.parent not in loop.blocks and u.is_uniform(v)):
        return v
    if depth > MAX_DEPTH:
        return None
    if v.op == "call":
        info = intrinsic_info(v.attrs["callee"])
        if info is not None and info.pure and u.is_uniform(v):  # `i += get_local_size(0)` in the body
            args = [_first_start(o, loop, u, b, module, depth + 1) for o in v.operands]  # made in the body too
            if any(a is None for a in args):
                return None
            return v if b is None else b.insert(Instr("call", v.type, args, dict(v.attrs)))  # type: ignore[arg-type]
        if info is None or info.base not in ("get_local_id", "get_global_id") or v.parent in loop.blocks:
            return None
        if b is None:
            return v
        if info.base == "get_local_id":
            return const_int(v.type, 0)
        assert module is not None
        dim = v.operands[0]
        query = lambda name: b.call(declare_intrinsic(module, name, v.type, [I32]), [dim])  # noqa: E731
        return b.binop("add", b.binop("mul", query("get_group_id"), query("get_enqueued_local_size")),
                       query("get_global_offset"))
    if not v.info.pure or v.op == "phi" or v.is_terminator:
        return None
    ops = [_first_start(o, loop, u, b, module, depth + 1) for o in v.operands]
    if any(o is None for o in ops):
        return None
    if b is None:
        return v
    clone = Instr(v.op, v.type, ops, dict(v.attrs), name=f"{v.name}.first" if v.name else "")  # type: ignore[arg-type]
    return b.insert(clone)


def _trip_count(c: Candidate, u: Uniformity, module: Module) -> Value:
    """T at the end of the preheader (module docstring), an i64."""
    b = Builder()
    b.position_before(c.pre.terminator)  # type: ignore[arg-type]
    ext = "sext" if c.signed else "zext"
    wide = lambda v: v if v.type == I64 else b.cast(ext, v, I64)  # noqa: E731
    s0, bound, step_ = (_first_start(v, c, u, b, module) for v in (c.start, c.bound, c.step))
    assert s0 is not None and bound is not None and step_ is not None
    d = b.binop("sub", wide(bound), wide(s0))
    if c.inclusive:
        d = b.binop("add", d, const_int(I64, 1))
    step = wide(step_)
    positive = b.icmp("sgt", step, const_int(I64, 0))
    divisor = b.select(positive, step, const_int(I64, 1))
    n = b.binop("sdiv", b.binop("add", d, b.binop("sub", divisor, const_int(I64, 1))), divisor)
    ok = b.binop("and", positive, b.icmp("sgt", d, const_int(I64, 0)))
    local_size = declare_intrinsic(module, "get_local_size", I64, [I32])
    items = b.call(local_size, [i32(0)])
    for dim in (1, 2):
        items = b.binop("mul", items, b.call(local_size, [i32(dim)]))
    ok = b.binop("and", ok, b.icmp("uge", items, const_int(I64, MIN_GROUP)))
    return b.select(ok, n, const_int(I64, 0), name=f"{c.iv.name}.lockstep" if c.iv.name else "")


def _copy_loop(fn: Function, loop: Loop) -> tuple[dict[Block, Block], dict[Value, Value]]:
    """A copy of the loop's blocks (phis keep the original's incoming pairs, remapped)."""
    bmap = {b: Block(fn.unique_block_name(f"{b.name}.lockstep"), parent=fn)
            for b in fn.blocks if b in loop.blocks}
    fn.blocks.extend(bmap.values())
    vmap: dict[Value, Value] = {}
    for b, copy in bmap.items():
        for instr in b.instrs:
            clone = Instr(instr.op, instr.type, list(instr.operands), dict(instr.attrs),
                          list(instr.targets), list(instr.blocks),
                          f"{instr.name}.ls" if instr.name else "")
            clone.loc = instr.loc
            vmap[instr] = clone
            copy.append(clone)
    for copy in bmap.values():
        for clone in copy.instrs:
            clone.operands = [vmap.get(v, v) for v in clone.operands]
            clone.targets = [bmap.get(t, t) for t in clone.targets]
            clone.blocks = [bmap.get(p, p) for p in clone.blocks]
    return bmap, vmap


def lockstep(fn: Function, module: Module, c: Candidate, u: Uniformity) -> None:
    """Rewrite one candidate loop (module docstring)."""
    loop, header = c.loop, c.loop.header
    latch = loop.latches[0]
    count = _trip_count(c, u, module)
    bmap, vmap = _copy_loop(fn, loop)
    h2, latch2 = bmap[header], bmap[latch]
    barrier = declare_intrinsic(module, "barrier", VOID, [I32])
    gate = fn.add_block(f"{header.name}.gate")
    skip = fn.add_block(f"{header.name}.skip")
    join = fn.add_block(f"{header.name}.next")
    drain = fn.add_block(f"{header.name}.drain")

    # the copy's header: entered from the preheader, counts k, leaves for the gate or the drain
    term2 = h2.terminator
    assert term2 is not None
    cond2 = term2.operands[0]
    stays_true = term2.targets[0] in bmap.values()
    body_entry = term2.targets[0] if stays_true else term2.targets[1]
    term2.erase()
    k = Instr("phi", I64, [const_int(I64, 0)], blocks=[c.pre], name="lockstep.k")
    h2.insert(0, k)
    bh = Builder(h2)
    bh.condbr(bh.icmp("slt", k, count, name="lockstep.more"), gate, drain)

    # gate: a barrier, then the loop's own test; the body's back edge goes to `join`
    bg = Builder(gate)
    bg.call(barrier, [i32(0)])
    if stays_true:
        bg.condbr(cond2, body_entry if body_entry is not h2 else join, skip)
    else:
        bg.condbr(cond2, skip, body_entry if body_entry is not h2 else join)
    Builder(skip).br(join)
    back_from = gate if body_entry is h2 else latch2
    lterm = latch2.terminator
    assert lterm is not None
    if back_from is latch2:
        lterm.targets = [join if t is h2 else t for t in lterm.targets]
    bj = Builder(join)
    for phi in h2.phis():
        if phi is k:
            continue
        pairs = phi.incoming()
        init = next(v for v, p in pairs if p is c.pre)
        nxt = next(v for v, p in pairs if p is latch2)
        kept = bj.phi(phi.type, name=f"{phi.name}.kept" if phi.name else "")
        kept.add_incoming(nxt, back_from)
        kept.add_incoming(phi, skip)
        phi.operands, phi.blocks = [init, kept], [c.pre, join]
    k.add_incoming(bj.binop("add", k, const_int(I64, 1), name="lockstep.k1"), join)
    bj.br(h2)

    # drain: a second barrier, then the original loop with the copy's values
    bd = Builder(drain)
    bd.call(barrier, [i32(0)])
    bd.br(header)
    for phi in header.phis():
        phi.blocks = [drain if p is c.pre else p for p in phi.blocks]
        phi.operands = [vmap[phi] if p is drain else v for v, p in zip(phi.operands, phi.blocks)]
    pterm = c.pre.terminator
    assert pterm is not None
    pterm.targets = [h2 if t is header else t for t in pterm.targets]


def lockstep_loops(fn: Function, module: Module) -> bool:
    done: set[Block] = set()  # headers already rewritten: their loop is now the remainder
    for _ in range(MAX_LOOPS):
        loops = [loop for loop in LoopInfo.compute(fn).loops if loop.header not in done]
        if not loops:
            break
        u = analyze_uniformity(fn)
        found = next((c for c in (_candidate(fn, loop, u) for loop in loops) if c is not None), None)
        if found is None:
            break
        lockstep(fn, module, found, u)
        done.add(found.loop.header)
    return bool(done)


@register
@dataclass
class LockstepStridedLoops:
    """Run each strided loop of a kernel one iteration at a time across the
    work-group, behind barriers (cpu: cache-friendly order, vectorisable rounds).
    Requires: inlining done. Invalidates: the CFG."""

    name: ClassVar[str] = "lockstep-strided-loops"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.kernels():
            if not fn.is_declaration and fw.FRAME_ATTR not in fn.attrs \
                    and not fn.attrs.get(fw.DIVERGENT_ATTR):
                changed |= lockstep_loops(fn, module)
        return changed
