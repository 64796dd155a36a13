"""rebase-loop-counters: count a loop from 0 when only its start differs between
work-items, so every work-item runs it the same number of times, visibly.

Why
---
`for (i = start; i < start + n; i++)` with `start` built from the work-item id
(Hands-On OpenCL's pi: `istart = gid * niters; iend = istart + niters`) runs n
times in every work-item, but its exit test compares two divergent values.
LLVM's outer-loop vectoriser (`targets/llvm/cpu/outer.py`) wants an inner loop
whose exit compares a counter from 0 against a value the same for all
work-items, and so does our own check of uniform exits; such loops ran one
work-item at a time.

What it does
------------
For each loop of a kernel with one latch and a header phi
`i = phi [s, outside], [i + c, latch]` (c a constant) whose exit test is a
signed or equality `icmp` of `i` (or `i + c`) against a value `e`, where `s` is divergent and `e - s` is uniform (both taken
apart as sums of constant multiples of values: `add`, `sub`, `mul` by a
constant), it adds a counter `k = phi [0, outside], [k + c, latch]` and
compares `k` (or `k + c`) against `n = e - s`, built before the loop. `i`
stays as it was for the body. The test is equivalent: `s + k < s + n`
exactly when `k < n` for C's signed integers, whose overflow is undefined
(the frontend's `nsw`); equality holds in any case. Unsigned tests (`ult`,
a `size_t` loop that may wrap) are left alone.

Loops with a uniform start other than `0, 1, 2...` (`for (i = 0; i < n;
i += 8)`, BEMAP's float8 Monte Carlo; `for (u = -r; u <= r; ++u)`, GEGL's
bilateral filter) already have a uniform trip count, but LLVM's outer-loop
vectoriser finds an inner loop uniform only through its *canonical*
induction variable (from 0, step 1; LoopVectorizationLegality's
`isUniformLoop`: "Canonical IV not found" otherwise), so such a kernel ran one
work-item at a time. For a constant step c >= 1 and a test `i < e` or
`i <= e` (`slt`/`sle`, or `sgt`/`sge` with the operands swapped) whose
`e - s` is uniform, the pass adds an i64 `k = phi [0, outside], [k + 1, latch]`
and tests `k < t` with `t = ceil(max(d, 0) / c)`, `d = e - s` (plus 1 for
`<=`) computed in i64 from sign-extended terms (2r may not fit an int), capped
at 2^bits (a `bits`-wide `i` takes no more values without overflowing, which
C leaves undefined; the cap gives LLVM's SCEV the bound it needs), the
number of iterations: iteration k has `i = s + k * c`,
and `s + k * c < e` exactly when `k < ceil((e - s) / c)`. The count is an
i64 so that LLVM's exit-test rewrite compares the counter's next value, the
form `isUniformLoop` wants (for an i32 it cannot prove that form safe).

Requires: uniformity of a kernel (arguments uniform). Invalidates: nothing
of the CFG (a phi, an add and the bound's arithmetic are added).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.loops import Loop, LoopInfo
from oclpy.analysis.uniformity import Uniformity, analyze_uniformity
from oclpy.ir.builder import Builder, const_int
from oclpy.ir.types import I64, IntType, Type
from oclpy.ir.values import ConstInt, Function, Instr, Module, Value

from .manager import register

EXACT_PREDICATES = ("slt", "sle", "sgt", "sge", "eq", "ne")
# (predicate, side of the counter) -> whether the bound is inclusive: `i < e`, `i <= e`
UPWARD_TESTS = {("slt", 0): False, ("sgt", 1): False, ("sle", 0): True, ("sge", 1): True}
Terms = dict[object, int]  # value -> coefficient; the key None holds the constant
MAX_DEPTH = 8


def linear(v: Value, depth: int = 0) -> Terms:
    """`v` as a sum of constant multiples of values (and a constant, key None)."""
    if isinstance(v, ConstInt):
        return {None: v.signed()}
    if isinstance(v, Instr) and depth < MAX_DEPTH:
        if v.op in ("add", "sub"):
            a, b = (linear(o, depth + 1) for o in v.operands)
            return _combine(a, b, 1 if v.op == "add" else -1)
        if v.op == "mul":
            a, b = v.operands
            if isinstance(b, ConstInt):
                return {k: c * b.signed() for k, c in linear(a, depth + 1).items()}
            if isinstance(a, ConstInt):
                return {k: c * a.signed() for k, c in linear(b, depth + 1).items()}
    return {v: 1}


def _combine(a: Terms, b: Terms, sign: int) -> Terms:
    out = dict(a)
    for k, c in b.items():
        out[k] = out.get(k, 0) + sign * c
    return {k: c for k, c in out.items() if c}


def _induction(loop: Loop, phi: Instr) -> tuple[Value, Instr, int] | None:
    """(start, next, step) of `phi` when it is `phi [start, outside], [phi + step, latch]`."""
    if len(loop.latches) != 1 or len(phi.operands) != 2:
        return None
    (a, block_a), (b, block_b) = phi.incoming()
    start, nxt = (a, b) if block_b in loop.blocks and block_a not in loop.blocks else (b, a)
    if not (isinstance(nxt, Instr) and nxt.op == "add" and nxt.operands[0] is phi
            and isinstance(nxt.operands[1], ConstInt)):
        return None
    return start, nxt, nxt.operands[1].signed()


def _outside(v: Value, loop: Loop) -> bool:
    return not isinstance(v, Instr) or v.parent not in loop.blocks


def _rebase(fn: Function, loop: Loop, uniformity: Uniformity) -> bool:
    preheaders = [p for p in _preds(fn, loop.header) if p not in loop.blocks]
    if len(preheaders) != 1:
        return False
    changed = False
    for phi in loop.header.phis():
        found = _induction(loop, phi)
        if found is None:
            continue
        start, nxt, step = found
        divergent = uniformity.is_divergent(start)
        counted = not divergent and step >= 1 and not (isinstance(start, ConstInt) and start.value == 0
                                                       and step == 1)
        if not (counted or divergent):
            continue
        for block in loop.exiting:
            cmp = block.terminator.operands[0] if block.terminator.op == "condbr" else None  # type: ignore[union-attr]
            if not (isinstance(cmp, Instr) and cmp.op == "icmp" and cmp.attrs["pred"] in EXACT_PREDICATES):
                continue
            for side in (0, 1):
                iv, bound = cmp.operands[side], cmp.operands[1 - side]
                if iv not in (phi, nxt):
                    continue  # `bound` may be computed in the loop (`i < a + n`): its terms may not
                if counted and (cmp.attrs["pred"], side) not in UPWARD_TESTS:
                    continue  # only `i < e` and `i <= e`: their iteration counts are divisions
                diff = _combine(linear(bound), linear(start), -1)
                terms = [t for t in diff if t is not None]
                if any(not _outside(t, loop) or uniformity.is_divergent(t) for t in terms):  # type: ignore[arg-type]
                    continue
                n = _difference(preheaders[0], I64 if counted else phi.type, diff)
                if counted:
                    bits = phi.type.bits if isinstance(phi.type, IntType) else 64
                    n = _trip_count(preheaders[0], n, step, UPWARD_TESTS[cmp.attrs["pred"], side], bits)
                    cmp.attrs["pred"] = "slt" if side == 0 else "sgt"
                counter, counter_next = _counter(loop, phi, nxt, preheaders[0],
                                                 1 if counted else step, n.type)
                cmp.set_operand(side, counter if iv is phi else counter_next)
                cmp.set_operand(1 - side, n)
                changed = True
                break
    return changed


def _trip_count(preheader, n: Value, step: int, inclusive: bool,  # type: ignore[no-untyped-def]
                bits: int) -> Value:
    """`ceil(max(d, 0) / step)` with `d = n` (`n + 1` when `inclusive`), `n` an i64, at the
    end of the preheader: how many `i < s + d` hold for `i = s, s + step, ...`. Written as
    `(max(d, 0) + step - 1) udiv step` on `d` made of sign-extended terms, whose range LLVM's
    scalar evolution can bound (an `sdiv` it cannot, and then it keeps the test on
    the counter's old value, which `isUniformLoop` rejects)."""
    b = Builder()
    b.position_before(preheader.terminator)
    d = n
    if inclusive:
        d = b.binop("add", d, const_int(I64, 1))
    count = b.select(b.icmp("sgt", d, const_int(I64, 0)), d, const_int(I64, 0))
    if step != 1:
        count = b.binop("udiv", b.binop("add", count, const_int(I64, step - 1)), const_int(I64, step))
    if bits < 64:  # an i<bits> counter takes at most 2^bits values: a bound SCEV sees
        cap = const_int(I64, 1 << bits)
        count = b.select(b.icmp("ugt", count, cap), cap, count)
    return count


def _preds(fn: Function, block) -> list:  # type: ignore[no-untyped-def]
    return [b for b in fn.blocks if block in b.successors()]


def _difference(preheader, ty: Type, diff: Terms) -> Value:  # type: ignore[no-untyped-def]
    """The bound minus the start, `diff`, built in `ty` at the end of the preheader
    (narrower terms sign-extended: in i64 the difference of two i32 cannot wrap)."""
    b = Builder()
    b.position_before(preheader.terminator)
    n: Value = const_int(ty, diff.get(None, 0))
    for key, coeff in diff.items():
        if not isinstance(key, Value):
            continue  # the constant, above
        term = key if key.type == ty else b.cast("sext", key, ty)
        scaled = term if coeff == 1 else b.binop("mul", term, const_int(ty, coeff))
        n = scaled if isinstance(n, ConstInt) and n.value == 0 else b.binop("add", n, scaled)
    return n


def _counter(loop: Loop, phi: Instr, nxt: Instr, preheader, step: int,  # type: ignore[no-untyped-def]
             ty: Type) -> tuple[Instr, Instr]:
    """The counter's phi (of type `ty`, from 0 by `step`) and its next value, right
    after `nxt`, which dominates every use of it."""
    b = Builder()
    latch = loop.latches[0]
    counter = Instr("phi", ty, [const_int(ty, 0)], blocks=[preheader], name=f"{phi.name}.count")
    loop.header.insert(0, counter)
    b.position_before(nxt)
    b.index += 1
    counter_next = b.binop("add", counter, const_int(ty, step))
    counter.add_incoming(counter_next, latch)
    return counter, counter_next


@register
@dataclass
class RebaseLoopCounters:
    """Count loops whose start alone diverges, or whose step is not 1, from 0 by 1
    (cpu: uniform trip counts LLVM's outer-loop vectoriser recognises).
    Requires: nothing. Invalidates: nothing of the CFG."""

    name: ClassVar[str] = "rebase-loop-counters"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.kernels():
            if fn.is_declaration:
                continue
            loops = LoopInfo.compute(fn).loops
            if not loops:
                continue
            uniformity = analyze_uniformity(fn)
            for loop in loops:
                changed |= _rebase(fn, loop, uniformity)
        return changed
