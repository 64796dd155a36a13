"""form-workgroups: make kernels that contain barriers resumable.

Why
---
A cpu runs the work-items of a work-group one after another on one thread.
`barrier()` says: no work-item of the group goes on until all have arrived.
So a work-item that reaches a barrier must *stop*, let the others run up to
the same barrier, and later *resume* where it stopped, with its private state
intact. This pass turns a kernel into a function that can do that; the target's
launcher (cpu: `targets/llvm/cpu_launcher.py`) drives it.

The encoding
------------
The kernel keeps its arguments and its `void` result and gets two more:

- `%wg.frame: ptr<private>` (`attrs["hidden"] = "frame"`): the work-group's
  *frames*, private memory the launcher owns: `attrs["wg_frame_size"]` bytes
  (possibly 0) per work-item, the block aligned to at least
  `attrs["wg_frame_align"]`, laid out slot by slot (below);
- `%wg.state: ptr<private>` (`attrs["hidden"] = "state"`): the work-group's
  resume state, one i32 the launcher owns and passes to every work-item of
  the group. The kernel reads it on entry and writes the next state before
  returning:

    state 0        start at the original entry block
    state i >= 1   resume right after barrier number i (numbered 1..n in
                   block order; `attrs["wg_barriers"] = n`)
    state -1       finished (the original `ret void` ran)

The launcher sets the state to 0 at the start of a work-group, then runs
rounds: each round calls every work-item of the group with the same state,
then reads the next state back. Since OpenCL requires every work-item of a
group to reach the same barrier (a mismatch is undefined behaviour), every
work-item writes the same next state, and one round takes the whole group
from one barrier to the next. One state per group rather than per work-item
keeps the work-item loops free of per-item bookkeeping, so they vectorise.

A kernel marked `attrs["wg_divergent"]` (by step-divergent-loops) is the
exception: some of its barriers are *steps* (`ocl.barrier(i32 -1)`,
`STEP_FLAGS`) of loops that work-items leave at different iterations, so
each work-item has its own state, in the first frame slot
(`ITEM_STATE_SLOT`, reserved here), and the launcher passes each work-item a
pointer to its own as `%wg.state`. `attrs["wg_steps"]` lists the states
that resume after a step (in a kernel without barriers of its own, all).

The transformation (per kernel with at least one `ocl.barrier` call)
--------------------------------------------------------------------
1. Split: each barrier ends its block; the instructions after it move to a
   new block `<block>.b<i>` (successor phis now name that block as their
   incoming block), and the barrier block falls through to it with `br`.
   On this CFG ordinary SSA liveness is exactly right: a value is "live
   across barrier i" iff it is live-in at `<block>.b<i>`.
2. Liveness (`analysis/liveness.py`): the demoted set is the union of the
   live-in sets of the resume blocks, restricted to instruction results
   (arguments are passed again on every call, so they survive by themselves).
   Every other value stays SSA: nothing changes for a value whose whole life
   lies between two barriers. Values computed from arguments, constants and
   work-item queries with constant operands by a few cheap pure operations
   (`(int)get_local_id(0) + 1`, `REMAT_BUDGET`) are not demoted but computed
   again before each use: their answer cannot change, recomputing is cheaper
   than a frame slot, and it keeps addresses such as `tile[l + 1]` visibly
   consecutive across work-items (a reloaded `l` would make them gathers).
3. Frame layout: every `alloca` of the kernel (private variables must survive
   barriers: their memory moves into the frame), then one slot per demoted
   value, each at an offset `o` of its DataLayout alignment within a
   work-item's `wg_frame_size` bytes. Slot by slot (structure of arrays): a
   slot of size `s` keeps work-item `i`'s element at
   `%wg.frame + o * items + i * s` (`i` = get_local_linear_id(), `items` =
   the group's work-item count), so one slot of consecutive work-items is
   consecutive memory, which a vectorised work-item loop reads with one
   vector load instead of a gather.
4. A new entry block `wg.entry` computes each slot's address (it dominates
   everything, so no slot address is ever itself live across a barrier),
   loads the state, and `switch`es to the original entry (default) or to
   `<block>.b<i>` (case i).
5. Allocas are replaced by their slot addresses. Each demoted value is stored
   to its slot right before each barrier it lives across and loaded back at
   the top of that barrier's resume block (`<name>.reload`); each use then
   gets whichever of the value and its reloads reaches it, with phis where
   they meet (through a temporary variable that mem2reg promotes). So the
   frame is touched only at barriers: a loop between two barriers keeps its
   values in registers, and the resume blocks use nothing that the `switch`
   edge bypasses.
6. Each barrier and its `br` become `store i32 i, state; ret void`; each
   original `ret void` becomes `store i32 -1, state; ret void`.

Limits: a barrier inside a function other than a kernel cannot be split this
way (its caller would have to be resumable too): such a call is an error
naming both functions, "run 'inline' first". Kernels without barriers, and
kernels already transformed (they have `wg_frame_size`), are left alone.

Requires: nothing (runs after inlining). Invalidates: the CFG, dominators and
liveness of transformed kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.analysis.liveness import compute_liveness
from oclpy.ir.builder import Builder, i32, i64
from oclpy.ir.cfg import reachable_blocks
from oclpy.ir.datalayout import CPU_LAYOUT, DataLayout
from oclpy.ir.intrinsics import WORK_ITEM_QUERIES, declare_intrinsic, intrinsic_info
from oclpy.ir.types import I8, I32, I64, AddressSpace, FunctionType, PtrType, Type
from oclpy.ir.values import Argument, Block, ConstInt, Function, Instr, Module, Undef, Value

from . import mem2reg  # a module, not its function: mem2reg imports the manager, which imports us
from .manager import PassError, register

FRAME_ATTR = "wg_frame_size"
FRAME_ALIGN_ATTR = "wg_frame_align"
BARRIERS_ATTR = "wg_barriers"
DIVERGENT_ATTR = "wg_divergent"  # some barriers are steps of divergent loops (step-divergent-loops)
STEPS_ATTR = "wg_steps"  # the resume states of those steps
STEP_FLAGS = -1  # a step is ocl.barrier(i32 STEP_FLAGS): no fence bit OpenCL defines
MAX_STEP_STATE = 62  # highest resume state of a kernel with barriers and steps (the cpu
                     # launcher keeps a bit per state in an i64; -1, finished, is bit 63)
ITEM_STATE_SLOT = 0  # where a divergent kernel's frame keeps each work-item's resume state
STATE_DONE = -1


def is_barrier(instr: Instr) -> bool:
    return instr.op == "call" and instr.attrs["callee"].attrs.get("intrinsic") == "barrier"


def is_step(instr: Instr) -> bool:
    """A step of step-divergent-loops, not a barrier of the kernel's own."""
    if not is_barrier(instr) or len(instr.operands) != 1:
        return False
    flags = instr.operands[0]
    return isinstance(flags, ConstInt) and flags.value == STEP_FLAGS & 0xFFFFFFFF


def has_barrier(fn: Function) -> bool:
    return any(is_barrier(i) for i in fn.instructions())


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _calls_with_barriers(fn: Function) -> list[tuple[Instr, Function]]:
    """Calls in `fn` to defined functions that (transitively) contain a barrier."""
    found: list[tuple[Instr, Function]] = []
    memo: dict[int, bool] = {}

    def reaches_barrier(f: Function, stack: set[int]) -> bool:
        if id(f) in memo:
            return memo[id(f)]
        if f.is_declaration or id(f) in stack:
            return False
        stack.add(id(f))
        result = has_barrier(f) or any(
            reaches_barrier(i.attrs["callee"], stack) for i in f.instructions() if i.op == "call")
        stack.discard(id(f))
        memo[id(f)] = result
        return result

    for instr in fn.instructions():
        if instr.op == "call" and reaches_barrier(instr.attrs["callee"], set()):
            found.append((instr, instr.attrs["callee"]))
    return found


def split_at_barriers(fn: Function) -> list[tuple[Instr, Block]]:
    """Step 1: end a block at each barrier; return (barrier, resume block) pairs."""
    pairs: list[tuple[Instr, Block]] = []
    reachable = reachable_blocks(fn)
    for block in fn.blocks:
        if block not in reachable:  # never runs: a resume edge would make it run
            block.erase_instrs({i for i in block.instrs if is_barrier(i)})
    work = [b for b in fn.blocks if b in reachable]
    while work:
        block = work.pop(0)
        for pos, instr in enumerate(block.instrs):
            if not is_barrier(instr):
                continue
            resume = Block(fn.unique_block_name(f"{block.name}.b{len(pairs) + 1}"), parent=fn)
            fn.blocks.insert(fn.blocks.index(block) + 1, resume)
            for moved in block.instrs[pos + 1:]:
                resume.append(moved)
            del block.instrs[pos + 1:]
            _retarget_phis(resume, old=block)
            Builder(block).br(resume)
            pairs.append((instr, resume))
            work.insert(0, resume)
            break
    return pairs


def _retarget_phis(resume: Block, old: Block) -> None:
    for succ in resume.successors():
        for phi in succ.phis():
            phi.blocks = [resume if b is old else b for b in phi.blocks]


@dataclass
class Frame:
    size: int = 0
    align: int = 1

    def slot(self, size: int, align: int) -> int:
        offset = _align(self.size, align)
        self.size = offset + max(size, 1)
        self.align = max(self.align, align)
        return offset


UseMap = dict[int, list[tuple[Instr, int]]]


def use_map(fn: Function) -> UseMap:
    """Every instruction result's uses as (user, operand index), computed once, in
    the order of the function's instructions (not the use-lists' order): the copies
    and reloads made for phis of one predecessor go there in that order."""
    uses: UseMap = {}
    for user in fn.instructions():
        for k, op in enumerate(user.operands):
            if isinstance(op, Instr):
                uses.setdefault(id(op), []).append((user, k))
    return uses


def _demote(value: Instr, slot: Value, uses: UseMap, crossings: list[tuple[Instr, Block]],
            entry: Block, reloads_end: dict[int, int]) -> None:
    """Keep `value` in its frame slot across the barriers it lives across: stored
    right before each such barrier, loaded at the top of that barrier's resume
    block. The uses are rewired through a temporary variable (an `alloca` in
    `entry`, written after the definition and by each reload, read at each
    use) that mem2reg then promotes, so each use gets the definition or the
    reload that reaches it, with phis where they meet; nothing touches the
    frame between two barriers. `reloads_end` keeps each resume block's
    reloads in the order the values are demoted."""
    temp = Builder(entry).alloca(value.type, name=value.name)
    block = value.parent
    assert block is not None
    b = Builder(block)
    b.index = len(block.phis()) if value.op == "phi" else block.instrs.index(value) + 1
    b.store(value, temp)
    for user, k in uses.get(id(value), []):
        b.position_before(user.blocks[k].instrs[-1] if user.op == "phi" else user)
        user.set_operand(k, b.load(value.type, temp))
    for barrier, resume in crossings:
        b.position_before(barrier)
        b.store(b.load(value.type, temp), slot)
        b = Builder(resume)
        b.index = reloads_end.get(id(resume), 0)
        b.store(b.load(value.type, slot, name=f"{value.name}.reload" if value.name else ""), temp)
        reloads_end[id(resume)] = b.index


REMAT_BUDGET = 8  # most instructions one rematerialised value may cost to recompute
_SLOW_OPS = frozenset({"sdiv", "udiv", "srem", "urem", "fdiv", "frem"})


def _is_fixed_query(v: Instr) -> bool:
    """A work-item query with constant or argument operands: its answer cannot change."""
    if v.op != "call":
        return False
    info = intrinsic_info(v.attrs["callee"])
    return (info is not None and info.base in WORK_ITEM_QUERIES
            and not any(isinstance(op, Instr) for op in v.operands))


def remat_cost(v: Value, budget: int = REMAT_BUDGET) -> int | None:
    """Instructions needed to compute `v` again from arguments, constants and
    fixed work-item queries through pure, cheap operations (no loads, phis or
    divisions); None when `v` is not such a value or costs more than `budget`."""
    if not isinstance(v, Instr):
        return 0
    if _is_fixed_query(v):
        return 1
    if v.op == "phi" or v.op in _SLOW_OPS or not v.info.pure:
        return None
    total = 1
    for op in v.operands:
        cost = remat_cost(op, budget - total)
        if cost is None or total + cost > budget:
            return None
        total += cost
    return total


def is_rematerializable(v: Instr) -> bool:
    """Cheaper to compute again after a barrier than to keep in the frame: a
    pure function of the work-item's ids and the kernel's arguments (`get_local_id(0)`,
    `(int)get_global_id(0) + 1`), whose answer cannot change between barriers."""
    return remat_cost(v) is not None


def _clone_tree(v: Value, b: Builder, copies: dict[int, Instr]) -> Value:
    if not isinstance(v, Instr):
        return v
    if id(v) not in copies:
        operands = [_clone_tree(op, b, copies) for op in v.operands]
        copies[id(v)] = b.insert(Instr(v.op, v.type, operands, dict(v.attrs), name=v.name))
    return copies[id(v)]


def _rematerialize(value: Instr, uses: UseMap) -> None:
    """Give every use of `value` outside its own block a fresh copy of its
    computation placed before it. The original stays for the uses in its own
    block (after the definition, before any barrier); left unused, it goes
    with dead code (`dce`, or LLVM's)."""
    b = Builder()
    for user, k in uses.get(id(value), []):
        if user.parent is value.parent and user.op != "phi":
            continue
        b.position_before(user.blocks[k].instrs[-1] if user.op == "phi" else user)
        user.set_operand(k, _clone_tree(value, b, {}))


def _replace_terminators(fn: Function, pairs: list[tuple[Instr, Block]], state: Value) -> None:
    """Step 6: `ret` records the finished state; barriers record their number and return."""
    for block in fn.blocks:
        term = block.terminator
        if term is not None and term.op == "ret":
            b = Builder(block)
            b.position_before(term)
            b.store(i32(STATE_DONE), state)
    for number, (barrier, _) in enumerate(pairs, start=1):
        block = barrier.parent
        assert block is not None
        for instr in block.instrs[block.instrs.index(barrier):]:
            instr.erase()
        b = Builder(block)
        b.store(i32(number), state)
        b.ret()


@dataclass
class SlotAddresses:
    """Builds, in `wg.entry`, the address of this work-item's element of each
    frame slot: `%wg.frame + offset * items + item * size` (see the docstring)."""

    b: Builder
    frame: Argument
    item: Value
    items: Value

    @classmethod
    def at_entry(cls, b: Builder, frame: Argument, module: Module) -> SlotAddresses:
        linear = declare_intrinsic(module, "get_local_linear_id", I64, [])
        local_size = declare_intrinsic(module, "get_local_size", I64, [I32])
        item = b.call(linear, [], name="wg.item")
        sizes = [b.call(local_size, [i32(d)]) for d in range(3)]
        items = b.binop("mul", b.binop("mul", sizes[0], sizes[1]), sizes[2], name="wg.items")
        return cls(b, frame, item, items)

    def slot(self, offset: int, size: int, name: str) -> Instr:
        b = self.b
        at = name and f"{name}.at"
        mine = b.binop("mul", self.item, i64(size), name="" if offset else at)
        if offset:
            mine = b.binop("add", b.binop("mul", self.items, i64(offset)), mine, name=at)
        return b.gep(I8, self.frame, [mine], inbounds=True, name=name)


def form_workgroups(fn: Function, module: Module, layout: DataLayout = CPU_LAYOUT) -> None:
    """Make kernel `fn` of `module` resumable at its barriers (see the module docstring)."""
    pairs = split_at_barriers(fn)
    steps = [n for n, (barrier, _) in enumerate(pairs, start=1) if is_step(barrier)]
    liveness = compute_liveness(fn)
    demoted: list[Instr] = []
    for _, resume in pairs:
        for v in liveness.live_in.get(resume, set()):
            if isinstance(v, Instr) and v.op != "alloca" and v not in demoted:
                demoted.append(v)
    order = {id(i): k for k, i in enumerate(fn.instructions())}
    demoted.sort(key=lambda v: order[id(v)])
    allocas = [i for i in fn.instructions() if i.op == "alloca"]
    frame_arg = Argument(PtrType(AddressSpace.PRIVATE), "wg.frame", len(fn.args),
                         attrs={"hidden": "frame"})
    state_arg = Argument(PtrType(AddressSpace.PRIVATE), "wg.state", len(fn.args) + 1,
                         attrs={"hidden": "state"})
    fn.args += [frame_arg, state_arg]
    fn.type = FunctionType(fn.type.ret, (*fn.type.params, frame_arg.type, state_arg.type))
    old_entry = fn.entry
    entry = Block(fn.unique_block_name("wg.entry"), parent=fn)
    fn.blocks.insert(0, entry)
    b = Builder(entry)
    frame = Frame()
    slots: list[SlotAddresses] = []  # made on first use: a kernel may need no frame
    if fn.attrs.get(DIVERGENT_ATTR):
        frame.slot(4, 4)  # ITEM_STATE_SLOT: the launcher's, one i32 per work-item

    def slot_address(size: int, align: int, name: str) -> Instr:
        if not slots:
            slots.append(SlotAddresses.at_entry(b, frame_arg, module))
        return slots[0].slot(frame.slot(size, align), size, name)

    for alloca in allocas:
        elem: Type = alloca.attrs["elem"]
        addr = slot_address(layout.size_of(elem), alloca.attrs.get("align") or layout.align_of(elem),
                            alloca.name)
        alloca.replace_all_uses_with(addr)
        alloca.erase()
    uses = use_map(fn)
    for value in [v for v in demoted if is_rematerializable(v)]:
        _rematerialize(value, uses)
        demoted.remove(value)
    reloads_end: dict[int, int] = {}
    for value in demoted:
        slot = slot_address(layout.size_of(value.type), layout.align_of(value.type),
                            f"{value.name}.slot" if value.name else "")
        crossings = [(barrier, resume) for barrier, resume in pairs
                     if value in liveness.live_in.get(resume, set())]
        _demote(value, slot, uses, crossings, entry, reloads_end)
    _replace_terminators(fn, pairs, state_arg)
    b.position_at_end(entry)
    current = b.load(I32, state_arg, name="wg.resume")
    b.switch(current, old_entry, [(n, resume) for n, (_, resume) in enumerate(pairs, start=1)])
    for phi in old_entry.phis():
        phi.add_incoming(Undef(phi.type), entry)
    mem2reg.promote_function(fn)  # the temporaries of `_demote` (the kernel's own allocas are gone)
    fn.attrs[FRAME_ATTR] = _align(frame.size, frame.align)
    fn.attrs[FRAME_ALIGN_ATTR] = frame.align
    fn.attrs[BARRIERS_ATTR] = len(pairs)
    if fn.attrs.get(DIVERGENT_ATTR):
        fn.attrs[STEPS_ATTR] = steps


@register
@dataclass
class FormWorkgroups:
    """Make kernels with barriers resumable (cpu work-group execution)."""

    name: ClassVar[str] = "form-workgroups"

    def run(self, module: Module) -> bool:
        changed = False
        for fn in module.kernels():
            if FRAME_ATTR in fn.attrs or fn.is_declaration:
                continue
            calls = _calls_with_barriers(fn)
            if calls:
                callee = calls[0][1]
                raise PassError(self.name, f"kernel @{fn.name} calls @{callee.name}, which "
                                           "contains a barrier: run 'inline' first")
            if has_barrier(fn):
                form_workgroups(fn, module)
                changed = True
        return changed
