"""widen-work-items: a copy of a kernel's body that runs `lanes` consecutive
work-items along x at once, in vector values (whole-function vectorisation).

Why
---
The cpu runs a group's work-items in a loop that LLVM vectorises
(`targets/llvm/cpu/launcher.py`). When the kernel has loops of its own, that
loop is an outer loop, and LLVM's outer-loop vectoriser (VPlan's native path,
`cpu/outer.py`) widens every load and store in it as a gather or scatter:
it has no analysis of which addresses are the same for all work-items or
consecutive. So `B[k * N + j]` (one address for the whole vector) and
`Awrk[k]` (consecutive) each became a 16-lane `llvm.masked.gather` per
iteration (Hands On OpenCL's row-private multiply, GEGL's bilateral filter,
BEMAP's Monte Carlo: visible in the optimised IR), where Intel's runtime
loads a vector or one scalar. Here the widened copy is built on our IR, where
the work-item ids are known: a value the same for every work-item stays one
scalar, a load from such an address is one scalar load, and an address that
moves by the element's size from one work-item to the next is one vector load
or store.

What it does
------------
For a kernel without barriers (nor steps) whose launched body (`@K`, or
`@K.unguarded` after split-entry-guard) has a loop, every branch of which is
the same for all work-items, and whose deepest loops access memory at
uniform or consecutive addresses (`StepAnalysis`, as `cpu/outer.py` asks),
it adds `@<body>.wide`: the same parameters; it runs work-items
`get_local_id(0) + 0 .. lanes - 1` of the row (the launcher calls it with the
first one's id, every `lanes` work-items, and the body itself for the rest).
Each value that may differ between work-items (`analysis/lanes.py`: from
`get_global_id(0)`, `get_local_id(0)` or a linear id, through any operation,
load or phi) becomes a vector of `lanes`; the rest stay as they were. A
branch on such a value whose arms are plain arithmetic (`?:`, a short `if`)
runs both arms and selects. Integer values and pointers that move by a
constant step per work-item keep that step: a load or store whose address
moves by its value's size is one vector access; loads (stores) of one block
that together cover a run of `lanes * k` elements (`p[gid].x`, `.y`, `.z`,
`.w`) are one vector load and `k` shuffles (`k` shuffles into one vector
store, at the last of them); other varying addresses are one access per
lane, and a uniform address one scalar access (a store of a varying value
there stores the last lane's, as running the work-items in order would).
Math builtins are called on vectors (the target's vector bodies). The
kernel records the function in `attrs["wide"]` and the width in
`attrs["wide_lanes"]`.

Left alone (the body runs as before): allocas (private arrays not made lane
arrays by interleave-private-arrays), atomics, vector-typed values, calls to
anything but pure builtins and `mem_fence`, generic-space tests, aggregates
that differ between work-items, pointers that differ between work-items in a
phi, a select, a compare, an integer cast or memory, any other branch on a
value that differs (a loop whose trip count differs, an arm with a memory
access or a division), and bodies whose only loops count between constants a
few steps apart (LLVM unrolls those, then vectorises the work-item loop with
interleaved accesses: CLBlast's Xaxpy measured 12 -> 58 ms widened).

Requires: split-entry-guard and form-workgroups done (it widens what the
launcher runs). Invalidates: nothing (adds a function).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.lanes import (Diamond, Group, access_groups, diamonds, lane_steps, query, signed, varying_values,
                                  x_query)
from oclpy.analysis.loops import Loop, LoopInfo
from oclpy.ir.builder import Builder, add_incoming, const_int
from oclpy.ir.cfg import reverse_post_order
from oclpy.ir.datalayout import CPU_LAYOUT
from oclpy.ir.intrinsics import MATH_FUNCTIONS, declare_intrinsic, intrinsic_info
from oclpy.ir.types import I8, I32, I64, FunctionType, PtrType, Type, VectorType
from oclpy.ir.values import Argument, ConstInt, Function, Instr, Module, Undef, Value
from oclpy.passes.scalarize_policy import Step, StepAnalysis

from . import form_workgroups as fw
from .manager import PassError, register
from .split_entry_guard import UNGUARDED_ATTR

WIDE_ATTR = "wide"
LANES_ATTR = "wide_lanes"
_LANEWISE = ("add", "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr", "ashr", "and", "or",
             "xor", "fadd", "fsub", "fmul", "fdiv", "frem", "fneg", "icmp", "fcmp", "select",
             "sext", "zext", "trunc", "fptosi", "fptoui", "sitofp", "uitofp", "fpext", "fptrunc")


def _widenable_call(call: Instr) -> bool:
    """A call of a builtin that the widened body can make: a math function,
    mem_fence, or another pure builtin but the address-space casts."""
    info = intrinsic_info(call.attrs["callee"])
    if info is None:
        return False
    base = info.base
    return base in MATH_FUNCTIONS or base == "mem_fence" or \
        (info.pure and base not in ("to_global", "to_local", "to_private"))


def _widenable(fn: Function, varying: set[Instr]) -> bool:
    branches = {b.terminator for b in diamonds(fn)}
    for instr in fn.instructions():
        op, t = instr.op, instr.type
        if op in ("alloca", "atomicrmw", "cmpxchg") or isinstance(t, VectorType) or instr.attrs.get("volatile"):
            return False
        if any(isinstance(o.type, VectorType) for o in instr.operands):
            return False
        if op == "call":
            if not _widenable_call(instr):
                return False
            continue
        if instr not in varying or instr in branches:  # a diamond's branch becomes selects
            continue
        if op in ("condbr", "switch", "ret", "extractvalue", "insertvalue", "ptrtoint", "inttoptr"):
            return False  # a divergent branch, or a value kept out of vectors
        if isinstance(t, PtrType) and op not in ("getelementptr", "bitcast", "addrspacecast"):
            return False  # a pointer that differs per work-item only through address arithmetic
        if op == "store" and isinstance(instr.operands[0].type, PtrType):
            return False
        if op not in _LANEWISE + ("load", "store", "getelementptr", "bitcast", "addrspacecast", "phi"):
            return False
        if op in ("icmp", "select", "phi") and any(isinstance(o.type, PtrType) for o in instr.operands):
            return False
    return True


SHORT_TRIP = 8  # loops of at most this many iterations, counted by constants, LLVM unrolls


def _short(loop: Loop) -> bool:
    """The loop's counter runs between constants a few steps apart (CLBlast's `for (_w = 0;
    _w < WPT; ...)` with WPT 1): LLVM unrolls it whole, and the work-item loop around it
    then widens with its own vectoriser, interleaved accesses included."""
    for block in loop.exiting:
        term = block.terminator
        cond = term.operands[0] if term is not None and term.op == "condbr" else None
        if not (isinstance(cond, Instr) and cond.op == "icmp"):
            continue
        values = [_constant(o) for o in cond.operands]
        if values.count(None) != 1:
            continue
        bound = next(v for v in values if v is not None)
        counter = cond.operands[values.index(None)]  # a parameter, when the test is `n != 0`
        if isinstance(counter, Instr) and counter.op == "add" and isinstance(counter.operands[1], ConstInt):
            counter = counter.operands[0]
        if not (isinstance(counter, Instr) and counter.op == "phi" and counter.parent is loop.header):
            continue
        starts = [v for v, b in counter.incoming() if b not in loop.blocks]
        if len(starts) == 1 and isinstance(starts[0], ConstInt) and abs(bound - signed(starts[0])) <= SHORT_TRIP:
            return True
    return False


_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
         "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b,
         "sge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}


def _constant(v: Value, depth: int = 0) -> int | None:
    """`v`'s value when it is computed from constants alone (rebase-loop-counters' trip
    count of a loop with constant bounds: `select (icmp sgt 7, 0), 7, 0`), else None;
    unsigned comparisons only of non-negative values."""
    if isinstance(v, ConstInt):
        return signed(v)
    if not isinstance(v, Instr) or depth > 8:
        return None
    known = [_constant(o, depth + 1) for o in v.operands]
    args = [a for a in known if a is not None]
    if len(args) < len(known):
        return None
    if v.op == "select":
        return args[1] if args[0] else args[2]
    if v.op in ("sext", "zext", "trunc"):
        return args[0]
    pred = v.attrs.get("pred", "") if v.op == "icmp" else v.op
    if pred.startswith("u") and pred[1:] in ("lt", "le", "gt", "ge") and min(args) >= 0:
        pred = "s" + pred[1:]
    fold = _FOLD.get(pred)
    return None if fold is None else int(fold(*args))


def _deepest_loops_widen(fn: Function) -> bool:
    """Some loop LLVM does not unroll whole, and in the deepest loops every access
    uniform or consecutive (a gather per element there would cost what the widening
    saves: `cpu/outer.py`'s rule)."""
    loops = LoopInfo.compute(fn)
    if all(_short(lp) for lp in loops.loops):
        return False
    deepest = max(lp.depth for lp in loops.loops)
    steps = StepAnalysis(fn)
    for block in fn.blocks:
        if loops.depth(block) != deepest:
            continue
        for instr in block.instrs:
            if instr.op in ("load", "store"):
                address = instr.operands[0 if instr.op == "load" else 1]
                if steps.of(address) not in (Step.UNIFORM, Step.CONSECUTIVE):
                    return False
    return True


class _Widener:
    """Builds `@<fn>.wide` from `fn`, block by block in the same shape."""

    def __init__(self, module: Module, fn: Function, varying: set[Instr], lanes: int) -> None:
        self.module, self.fn, self.varying, self.lanes = module, fn, varying, lanes
        args = [Argument(a.type, a.name, a.index, dict(a.attrs)) for a in fn.args]
        self.wide = Function(f"{fn.name}.wide", FunctionType(fn.type.ret, tuple(a.type for a in args)), args,
                             attrs={})
        module.functions.insert(module.functions.index(fn) + 1, self.wide)
        self.values: dict[Value, Value] = dict(zip(fn.args, args))
        self.lane_ptrs: dict[Value, list[Value]] = {}  # varying pointer -> its lanes
        lanes_of = lane_steps(fn, varying)
        self.steps = lanes_of.step  # varying int or pointer -> its step per lane (bytes for pointers)
        self.groups = access_groups(fn, varying, lanes_of)
        self.diamonds = {b: d for b, d in diamonds(fn).items() if b.terminator in varying}
        arms = {a for d in self.diamonds.values() for a in d.arms}
        self.selected = {p for d in self.diamonds.values() for p in d.join.phis()}  # phis made selects
        self.order = [b for b in reverse_post_order(fn) if b not in arms]  # definitions before uses
        reached = set(self.order)
        self.blocks = {b: self.wide.add_block(b.name) for b in fn.blocks if b in reached}
        self.b = Builder(self.blocks[fn.entry])
        self.iota = self._iota()

    def vec(self, t: Type) -> VectorType:
        return VectorType(t, self.lanes)

    def _iota(self) -> Value:
        v: Value = Undef(self.vec(I64))
        for i in range(self.lanes):
            v = self.b.make("insertelement", [v, const_int(I64, i), const_int(I32, i)])
        return v

    def splat(self, v: Value, b: Builder) -> Value:
        one = b.make("insertelement", [Undef(self.vec(v.type)), v, const_int(I32, 0)])
        return b.make("shufflevector", [one, Undef(self.vec(v.type))], mask=(0,) * self.lanes)

    def operand(self, v: Value, b: Builder, wide: bool) -> Value:
        """`v` in the wide function: a vector when `wide` (a uniform value splat)."""
        new = self.values.get(v, v)
        if wide and not isinstance(new.type, VectorType):
            return self.splat(new, b)
        return new

    def run(self) -> Function:
        for block in self.order:
            self.b.position_at_end(self.blocks[block])
            for instr in block.instrs:
                if instr.op == "phi" and instr in self.selected:
                    continue  # its select is made already, at the branch
                if block in self.diamonds and instr is block.terminator:
                    self._if_convert(self.diamonds[block], instr)
                else:
                    self.widen(instr)
        for block in self.order:  # phi incomings, now that every value exists
            for phi in block.phis():
                if phi in self.selected:
                    continue
                new = self.values[phi]
                wide = isinstance(new.type, VectorType)
                for v, pred in phi.incoming():
                    if pred not in self.blocks:
                        continue  # an edge that never runs
                    at = Builder(self.blocks[pred])
                    at.position_before(self.blocks[pred].instrs[-1])
                    add_incoming(new, self.operand(v, at, wide), self.blocks[pred])  # type: ignore[arg-type]
        return self.wide

    def _if_convert(self, d: Diamond, branch: Instr) -> None:
        """Run both arms, then pick each of the join's values by the condition."""
        b = self.b
        for arm in d.arms:
            for instr in arm.instrs[:-1]:
                self.widen(instr)
        cond = self.values[branch.operands[0]]
        for phi in d.join.phis():
            chosen = [next(v for v, p in phi.incoming() if p is side) for side in d.sides]
            wide = [self.operand(v, b, True) for v in chosen]
            self.values[phi] = b.select(cond, wide[0], wide[1], name=phi.name)
        b.br(self.blocks[d.join])

    def widen(self, instr: Instr) -> None:
        b = self.b
        if instr not in self.varying:
            ops = [self.values.get(o, o) for o in instr.operands]
            copy = Instr(instr.op, instr.type, ops if instr.op != "phi" else [], dict(instr.attrs),
                         [self.blocks[t] for t in instr.targets], [], instr.name)
            copy.loc = instr.loc
            self.values[instr] = b.insert(copy)
            return
        op = instr.op
        if op == "call":
            self.values[instr] = self._call(instr)
        elif op == "phi":
            self.values[instr] = b.make("phi", [], instr.name, type=self.vec(instr.type))
        elif op == "load":
            self.values[instr] = self._load(instr)
        elif op == "store":
            self._store(instr)
        elif op in ("getelementptr", "bitcast", "addrspacecast"):
            self._pointer(instr)
        else:
            ops = [self.operand(o, b, True) for o in instr.operands]
            self.values[instr] = b.make(op, ops, instr.name, type=self.vec(instr.type), **instr.attrs)

    def _call(self, instr: Instr) -> Value:
        b = self.b
        if x_query(instr):  # the first lane's id, plus 0, 1, 2...
            first = b.call(instr.attrs["callee"], list(instr.operands), name=instr.name)
            return b.binop("add", self.splat(first, b), self.iota)  # the ids are i64
        base = query(instr)
        ret = self.vec(instr.type)
        params = [self.vec(o.type) for o in instr.operands]
        math = declare_intrinsic(self.module, base, ret, params, overload=ret)  # type: ignore[arg-type]
        return b.call(math, [self.operand(o, b, True) for o in instr.operands], name=instr.name)

    def _pointer(self, instr: Instr) -> None:
        """A varying address: its first lane when it has a step, else all its lanes."""
        b = self.b

        def lane(i: int) -> Value:
            ops = [self.lane(o, i, b) if o in self.varying else self.values.get(o, o) for o in instr.operands]
            if instr.op == "getelementptr":
                return b.gep(instr.attrs["elem"], ops[0], ops[1:], instr.attrs.get("inbounds", False))
            return b.cast(instr.op, ops[0], instr.type)

        if instr in self.steps:
            self.values[instr] = lane(0)
        else:
            self.lane_ptrs[instr] = [lane(i) for i in range(self.lanes)]
            self.values[instr] = self.lane_ptrs[instr][0]

    def lane(self, v: Value, i: int, b: Builder) -> Value:
        """Lane `i` of varying value `v` (a pointer's own lane, or an element)."""
        if v in self.lane_ptrs:
            return self.lane_ptrs[v][i]
        if isinstance(v.type, PtrType):  # a pointer with a step
            first = self.values[v]
            return first if i == 0 else b.gep(I8, first, [const_int(I64, i * self.steps[v])])
        return b.make("extractelement", [self.values[v], const_int(I32, i)])

    def _consecutive(self, address: Value, t: Type) -> bool:
        return address not in self.lane_ptrs and self.steps.get(address) == CPU_LAYOUT.size_of(t)

    def _run(self, group: Group) -> Value:
        """The address of a group's run of `lanes * k` elements."""
        return self.b.gep(I8, self.values[group.root], [const_int(I64, group.offset)])

    def _load_group(self, group: Group) -> None:
        """One vector load of the group's run; each member's lanes are every k-th element."""
        b, k = self.b, group.k
        run = b.load(VectorType(group.type, self.lanes * k), self._run(group), CPU_LAYOUT.align_of(group.type))
        undef = Undef(run.type)
        for m in group.members:
            j = group.position(m)
            self.values[m] = b.make("shufflevector", [run, undef], m.name,
                                    mask=tuple(i * k + j for i in range(self.lanes)))

    def _store_group(self, group: Group) -> None:
        """The members' values interleaved into the group's run, one vector store."""
        b, k = self.b, group.k
        parts: list[Value] = [Undef(self.vec(group.type))] * k
        for m in group.members:
            parts[group.position(m)] = self.operand(m.operands[0], b, True)
        n = self.lanes  # each part's length
        while len(parts) > 1:  # concatenate pairwise: k is a power of two or padded below
            if len(parts) % 2:
                parts.append(Undef(parts[0].type))
            parts = [b.make("shufflevector", [parts[i], parts[i + 1]], mask=tuple(range(2 * n)))
                     for i in range(0, len(parts), 2)]
            n *= 2
        whole = parts[0]  # member j's lane i at j * lanes + i; the run wants it at i * k + j
        mask = tuple(j * self.lanes + i for i in range(self.lanes) for j in range(k))
        mixed = b.make("shufflevector", [whole, Undef(whole.type)], mask=mask)
        b.store(mixed, self._run(group), CPU_LAYOUT.align_of(group.type))

    def _load(self, instr: Instr) -> Value:
        b, address, t = self.b, instr.operands[0], instr.type
        align = instr.attrs.get("align", 0)
        group = self.groups.get(instr)
        if group is not None:
            if instr is group.members[0]:
                self._load_group(group)
            return self.values[instr]
        if address not in self.varying:  # a uniform address: one load, then every lane has it
            return b.load(t, self.values.get(address, address), align, name=instr.name)
        if self._consecutive(address, t):
            return b.load(self.vec(t), self.values[address], align or CPU_LAYOUT.align_of(t),
                          name=instr.name)
        v: Value = Undef(self.vec(t))
        for i in range(self.lanes):
            v = b.make("insertelement", [v, b.load(t, self.lane(address, i, b), align), const_int(I32, i)])
        return v

    def _store(self, instr: Instr) -> None:
        b, (value, address) = self.b, instr.operands
        t, align = value.type, instr.attrs.get("align", 0)
        group = self.groups.get(instr)
        if group is not None:
            if instr is group.members[-1]:
                self._store_group(group)
        elif address not in self.varying:  # every work-item stores here: the last one's value stays
            last = self.lane(value, self.lanes - 1, b) if value in self.varying else self.values.get(value, value)
            b.store(last, self.values.get(address, address), align)
        elif self._consecutive(address, t):
            b.store(self.operand(value, b, True), self.values[address], align or CPU_LAYOUT.align_of(t))
        else:
            for i in range(self.lanes):
                lane = self.lane(value, i, b) if value in self.varying else self.values.get(value, value)
                b.store(lane, self.lane(address, i, b), align)


def widen_work_items(fn: Function, module: Module, lanes: int) -> bool:
    """Add `fn`'s widened body as the module docstring says; False when it is left alone."""
    if fw.has_barrier(fn) or fw.FRAME_ATTR in fn.attrs or WIDE_ATTR in fn.attrs:
        return False
    body = module.get_function(fn.attrs.get(UNGUARDED_ATTR, fn.name))
    if body is None or body.is_declaration or not _deepest_loops_widen(body):
        return False
    varying = varying_values(body)
    if varying is None or not _widenable(body, varying):
        return False
    wide = _Widener(module, body, varying, lanes).run()
    fn.attrs[WIDE_ATTR], fn.attrs[LANES_ATTR] = wide.name, lanes
    return True


@register
@dataclass
class WidenWorkItems:
    """Add a copy of each kernel body that runs `lanes` work-items at once in vectors (cpu).
    Requires: split-entry-guard, form-workgroups. Invalidates: nothing."""

    name: ClassVar[str] = "widen-work-items"
    lanes: int = 16

    def run(self, module: Module) -> bool:
        if self.lanes < 2 or self.lanes & (self.lanes - 1):
            raise PassError(self.name, f"lanes must be a power of two, at least 2, not {self.lanes}")
        changed = False
        for fn in list(module.kernels()):
            if not fn.is_declaration:
                changed |= widen_work_items(fn, module, self.lanes)
        return changed
