"""The native launcher of one cpu kernel, emitted as LLVM IR next to the kernel.

    void @"<kernel>.launch"(ptr blob, ptr ctx)

reads the kernel's arguments out of the argument blob once, computes the
`__local` argument pointers (static `__local` variables first, then each local
argument at a 16-byte aligned offset in this call's local memory), then runs
work-groups `[ctx.group_begin, ctx.group_end)` (linear ids, x fastest). Per
work-group:

- a kernel without barriers: a triple loop over local ids (x fastest) calling
  the kernel body, which LLVM inlines; the x loop is marked parallel
  (`cpu_loopmd.py`);
- a resumable kernel (made by `form-workgroups`, whose docstring defines the
  encoding): rounds, one per region between barriers; the group's state
  (0 at the start, then what the work-items wrote back after each round;
  OpenCL makes it the same for every work-item) picks which of the
  specialised work-item loops runs next, until it is "finished" (-1); see
  `_run_regions`;
- a kernel whose one barrier is the step of a divergent loop
  (`step-divergent-loops`): a resume state per work-item, and rounds of one
  loop iteration for the work-items still in the loop; see `_run_steps`;
- a kernel with barriers of its own and steps: regions as above, each
  followed by step rounds until every work-item has reached the next
  barrier; see `_run_mixed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator
from contextlib import contextmanager

from llvmlite import ir as ll

from . import workitem as wi
from .generic import CTX_SLOTS
from .loopmd import LoopMetadata
from ....passes.form_workgroups import MAX_STEP_STATE

LOCAL_ALIGN = 16  # each `__local` argument's offset in a work-group's local memory

I8, I32, I64 = ll.IntType(8), ll.IntType(32), ll.IntType(64)


@dataclass(frozen=True)
class LaunchArg:
    """How the launcher gets one argument: loaded from the blob, its address in the
    blob (`by_address`: a large struct, which the kernel takes by pointer; the blob
    does not change during a launch), or a local pointer."""

    lltype: ll.Type
    offset: int
    align: int
    is_local: bool
    by_address: bool = False


@contextmanager
def counted_loop(b: ll.IRBuilder, start: ll.Value, stop: ll.Value, name: str,
                 on_latch: Callable[[ll.Instruction], None] | None = None) -> Iterator[ll.Value]:
    """for (i = start; i < stop; ++i) { body } with the builder left after the loop;
    `on_latch` sees the back-edge branch (to attach loop metadata)."""
    fn = b.function
    pre = b.block
    head = fn.append_basic_block(f"{name}.head")
    body = fn.append_basic_block(f"{name}.body")
    done = fn.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64, name=name)
    i.add_incoming(start, pre)
    b.cbranch(b.icmp_unsigned("<", i, stop), body, done)
    b.position_at_end(body)
    yield i
    i.add_incoming(b.add(i, ll.Constant(I64, 1)), b.block)
    latch = b.branch(head)
    if on_latch is not None:
        on_latch(latch)
    b.position_at_end(done)


def _align_up(b: ll.IRBuilder, v: ll.Value, align: int) -> ll.Value:
    bumped = b.add(v, ll.Constant(I64, align - 1))
    return b.and_(bumped, ll.Constant(I64, -align))


def _load_args(b: ll.IRBuilder, blob: ll.Value, ctx: ll.Value, args: list[LaunchArg],
               static_local: int) -> list[ll.Value]:
    local_base = b.inttoptr(wi.ctx_load(b, ctx, wi.CTX_LOCAL_MEM), ll.PointerType())
    offset: ll.Value = ll.Constant(I64, (static_local + LOCAL_ALIGN - 1) // LOCAL_ALIGN * LOCAL_ALIGN)
    values = []
    for arg in args:
        field = b.gep(blob, [ll.Constant(I64, arg.offset)], source_etype=I8)
        if arg.by_address:
            values.append(field)
            continue
        if not arg.is_local:
            values.append(b.load(field, typ=arg.lltype, align=arg.align))
            continue
        size = b.load(field, typ=I64, align=8)
        offset = _align_up(b, offset, LOCAL_ALIGN)
        values.append(b.gep(local_base, [offset], source_etype=I8))
        offset = b.add(offset, size)
    return values


def emit_launcher(llmod: ll.Module, kernel: ll.Function, args: list[LaunchArg],
                  static_local: int, frame_size: int | None,
                  loop_md: LoopMetadata | None = None, barriers: int = 0,
                  outer: frozenset[int] = frozenset(), divergent: bool = False,
                  guarded: tuple[ll.Function, ll.Function] | None = None,
                  scalar: LoopMetadata | None = None,
                  steps: tuple[int, ...] = (1,),
                  wide: tuple[ll.Function, int] | None = None) -> ll.Function:
    """Add `@"<kernel>.launch"` to `llmod`; `frame_size` None means no barriers,
    `divergent` that the resume states `steps` are steps of divergent loops
    (step-divergent-loops; all of its `barriers` when it has no barrier of its
    own), `guarded` the kernel's (guard, unguarded body)
    when split-entry-guard split it (see `_run_guarded`).

    Given `loop_md`, each x loop over work-items is marked parallel, and the
    loops of the regions (resume states) in `outer` ask for outer-loop
    vectorisation (`outer.py`); given `scalar` (the module's loop metadata), the
    x loops are marked not to be vectorised instead (a kernel too large for LLVM's
    loop vectoriser), parallel still when `loop_md` is given. Given `wide` (the
    body widened to `lanes` work-items by widen-work-items, and `lanes`), each row
    runs it for every `lanes` work-items from the first and the body for the rest
    (`_run_wide`)."""
    fnty = ll.FunctionType(ll.VoidType(), [ll.PointerType(), ll.PointerType()])
    fn = ll.Function(llmod, fnty, launcher_name(kernel.name))
    blob, ctx = fn.args
    # the launch context: always readable, aliased by nothing the kernel writes,
    # so its loads may be hoisted even out of code that runs conditionally
    ctx.attributes.dereferenceable = 8 * CTX_SLOTS
    ctx.attributes.align = 8
    ctx.attributes.add("noalias")
    b = ll.IRBuilder(fn.append_basic_block("entry"))
    state = b.alloca(I32, name="state")
    values = _load_args(b, blob, ctx, args, static_local)
    frames = b.inttoptr(wi.ctx_load(b, ctx, wi.CTX_FRAMES), ll.PointerType())
    begin, end = (wi.ctx_load(b, ctx, s) for s in (wi.CTX_GROUP_BEGIN, wi.CTX_GROUP_END))
    ngx, ngy = (wi.ctx_load(b, ctx, wi.CTX_NUM_GROUPS + d) for d in (0, 1))
    sizes = [wi.ctx_load(b, ctx, wi.CTX_LOCAL_SIZE + d) for d in range(3)]

    def on_latch(state: int) -> Callable[[ll.Instruction], None] | None:
        if scalar is not None:
            return lambda latch: scalar.mark_parallel(latch, parallel=loop_md is not None, vectorize=False)
        if loop_md is None:
            return None
        return lambda latch: loop_md.mark_parallel(latch, outer=state in outer)

    with counted_loop(b, begin, end, "group") as g:
        t = b.udiv(g, ngx)
        group = [b.urem(g, ngx), b.urem(t, ngy), b.udiv(t, ngy)]
        if frame_size is None and guarded is not None:
            _run_guarded(b, kernel, guarded, values + [ctx, *group], sizes, on_latch(0), wide)
        elif frame_size is None and wide is not None:
            zero = ll.Constant(I64, 0)
            with counted_loop(b, zero, sizes[2], "lz") as lz:
                with counted_loop(b, zero, sizes[1], "ly") as ly:
                    _run_wide(b, kernel, wide, values + [ctx, *group], zero, sizes[0], ly, lz)
        elif frame_size is None:
            run = lambda lid: b.call(kernel, values + [ctx, *group, *lid])  # noqa: E731
            _run_items(b, sizes, run, on_latch(0))
        elif divergent and len(steps) < barriers:  # `state`: the group's next region
            more = b.alloca(I64, name="more")
            items = _Items(b, kernel, values, ctx, group, sizes, frames, loop_md)
            _run_mixed(items, barriers, steps, state, more, on_latch)
        elif divergent:  # no group state: its i32 says whether any work-item still loops
            items = _Items(b, kernel, values, ctx, group, sizes, frames, loop_md)
            _run_steps(items, state, on_latch)
        else:
            _run_regions(b, kernel, values, ctx, group, sizes, frames, barriers, state,
                         on_latch)
    b.ret_void()
    return fn


def _run_items(b: ll.IRBuilder, sizes: list[ll.Value], call,  # type: ignore[no-untyped-def]
               on_x_latch: Callable[[ll.Instruction], None] | None = None) -> None:
    zero = ll.Constant(I64, 0)
    with counted_loop(b, zero, sizes[2], "lz") as lz:
        with counted_loop(b, zero, sizes[1], "ly") as ly:
            with counted_loop(b, zero, sizes[0], "lx", on_x_latch) as lx:
                call([lx, ly, lz])


def _run_wide(b: ll.IRBuilder, body: ll.Function, wide: tuple[ll.Function, int], args: list[ll.Value],
              start: ll.Value, stop: ll.Value, ly: ll.Value, lz: ll.Value) -> None:
    """Work-items [start, stop) of a row: `wide` for each whole vector of `lanes` of
    them from `start`, then `body` for each of the rest (fewer than `lanes`)."""
    lanes = wide[1]
    whole = b.udiv(b.sub(stop, start), ll.Constant(I64, lanes))
    with counted_loop(b, ll.Constant(I64, 0), whole, "lw") as k:
        b.call(wide[0], args + [b.add(start, b.mul(k, ll.Constant(I64, lanes))), ly, lz])
    rest = b.add(start, b.mul(whole, ll.Constant(I64, lanes)))
    with counted_loop(b, rest, stop, "lr") as lx:
        b.call(body, args + [lx, ly, lz])


def _run_guarded(b: ll.IRBuilder, kernel: ll.Function, guarded: tuple[ll.Function, ll.Function],
                 args: list[ll.Value], sizes: list[ll.Value],
                 on_x_latch: Callable[[ll.Instruction], None] | None,
                 wide: tuple[ll.Function, int] | None = None) -> None:
    """Run a group of a kernel split by split-entry-guard, row by row: the longest
    run `[0, L)` of work-items whose guard holds (found by calling the guard alone,
    one work-item after another) through the unguarded body, in the x loop that
    is marked parallel (no divergent branch left in it: LLVM's outer-loop
    vectoriser can take it), then `[L, size)` through the kernel itself (guard and
    body: exact for any guard), in a loop left to LLVM."""
    guard, body = guarded
    fn = b.function
    zero, one = ll.Constant(I64, 0), ll.Constant(I64, 1)
    with counted_loop(b, zero, sizes[2], "lz") as lz:
        with counted_loop(b, zero, sizes[1], "ly") as ly:
            pre = b.block
            head = fn.append_basic_block("scan.head")
            test = fn.append_basic_block("scan.test")
            done = fn.append_basic_block("scan.done")
            b.branch(head)
            b.position_at_end(head)
            n = b.phi(I64, name="scan")
            n.add_incoming(zero, pre)
            b.cbranch(b.icmp_unsigned("<", n, sizes[0]), test, done)
            b.position_at_end(test)
            holds = b.call(guard, args + [n, ly, lz])
            n.add_incoming(b.add(n, one), test)
            b.cbranch(holds, head, done)
            b.position_at_end(done)
            if wide is not None:
                _run_wide(b, body, wide, args, zero, n, ly, lz)
            else:
                with counted_loop(b, zero, n, "lx", on_x_latch) as lx:
                    b.call(body, args + [lx, ly, lz])
            with counted_loop(b, n, sizes[0], "rest") as lx:
                b.call(kernel, args + [lx, ly, lz])


def _run_regions(b: ll.IRBuilder, kernel: ll.Function, values: list[ll.Value], ctx: ll.Value,
                 group: list[ll.Value], sizes: list[ll.Value], frames: ll.Value,
                 barriers: int, state: ll.Value,
                 on_x_latch: Callable[[int], Callable[[ll.Instruction], None] | None]) -> None:
    """Run the group region by region: one loop over all work-items per resume state.

    OpenCL makes every work-item of a group reach the same barriers in the same
    order, so all work-items are in the same state between rounds. The launcher
    keeps that state (`state`, one i32 of this function's frame, which every
    work-item reads on entry and writes before returning) and switches on it
    *outside* the work-item loops; each case stores its constant state right
    before calling the kernel, so once LLVM inlines the kernel the resume
    `switch` folds away and each loop holds exactly one barrier-free region
    (PoCL's work-item loops, by specialisation). `state` never escapes, so
    LLVM keeps it in a register."""

    fn = b.function
    round_block = fn.append_basic_block("round")
    done = fn.append_basic_block("round.done")
    b.store(ll.Constant(I32, 0), state)
    b.branch(round_block)
    b.position_at_end(round_block)
    dispatch = b.switch(b.load(state, typ=I32), done)  # default: finished (-1)
    for k in range(barriers + 1):
        region = fn.append_basic_block(f"region.{k}")
        dispatch.add_case(ll.Constant(I32, k), region)
        b.position_at_end(region)

        def step(lid: list[ll.Value], k: int = k) -> None:
            b.store(ll.Constant(I32, k), state, align=4)
            b.call(kernel, values + [frames, state, ctx, *group, *lid])

        _run_items(b, sizes, step, on_x_latch(k))
        b.branch(round_block)
    b.position_at_end(done)


STEP_CHUNK = 128  # work-items that run their loop's rounds together (see _run_steps)


@dataclass(frozen=True)
class _Items:
    """The work-items of one group of a resumable kernel whose work-items keep
    their own resume states (`_item_state`), as the step rounds run them: what
    each call of the kernel takes but the work-item's id and state. The states
    are in the work-item loops' access group (`loop_md`): each work-item
    touches only its own."""

    b: ll.IRBuilder
    kernel: ll.Function
    values: list[ll.Value]
    ctx: ll.Value
    group: list[ll.Value]
    sizes: list[ll.Value]
    frames: ll.Value
    loop_md: LoopMetadata | None

    def grouped(self, access: ll.Instruction) -> ll.Instruction:
        """`access` (to a work-item's state) put in the loops' access group."""
        if self.loop_md is not None:
            access.set_metadata("llvm.access.group", self.loop_md.group)
        return access


def _resume_item(items: _Items, lid: list[ll.Value], k: int, only_stopped: bool) -> ll.Value:
    """Run work-item `lid` from resume state `k`, stored as its own state before
    the call; with `only_stopped`, only when it stopped at `k` (the others are
    skipped). Returns the address of its state, which the call updated."""
    b = items.b
    mine = _item_state(b, items.frames, items.sizes, lid)
    k_value = ll.Constant(I32, k)

    def call() -> None:
        items.grouped(b.store(k_value, mine, align=4))
        b.call(items.kernel, items.values + [items.frames, mine, items.ctx, *items.group, *lid])

    if only_stopped:
        go = b.icmp_signed("==", items.grouped(b.load(mine, typ=I32, align=4)), k_value)
        with b.if_then(go):
            call()
    else:
        call()
    return mine


def _run_steps(items: _Items, more: ll.Value,
               on_x_latch: Callable[[int], Callable[[ll.Instruction], None] | None]) -> None:
    """Run a group of a kernel whose barrier is a divergent loop's step (state 1).

    Each work-item keeps its own resume state, an i32 in the first frame slot
    (`form_workgroups.ITEM_STATE_SLOT`, at `frames + 4 * linear id`). The
    work-items are taken in chunks of about `STEP_CHUNK` (a run along x, or
    whole rows when a row is shorter; the kernel has no barrier: they need
    not wait for each other). For each chunk, one loop
    runs the kernel from its start (state 0); then, while some work-item
    stopped at the step (state 1), one loop runs the next iteration of every
    work-item of the chunk still in the loop; the others (state -1) are
    skipped. A round costs as much as the chunk's slowest work-item, as a
    GPU's warp does, not the whole group's. Each loop also ORs together
    "stopped at the step" (`more`, which LLVM keeps in a register: a
    reduction it vectorises). The item states are in the loops' access group
    (`_Items.loop_md`)."""
    b, sizes = items.b, items.sizes
    fn = b.function
    i32 = lambda v: ll.Constant(I32, v)  # noqa: E731
    chunk = ll.Constant(I64, STEP_CHUNK)

    def step(k: int, lid: list[ll.Value]) -> None:
        mine = _resume_item(items, lid, k, only_stopped=k != 0)
        now = items.grouped(b.load(mine, typ=I32, align=4))
        stopped = b.zext(b.icmp_signed("==", now, i32(1)), I32)
        b.store(b.or_(b.load(more, typ=I32), stopped), more)

    def rounds(xs: tuple[ll.Value, ll.Value], ys: tuple[ll.Value, ll.Value], lz: ll.Value) -> None:
        check = fn.append_basic_block("steps.check")
        again = fn.append_basic_block("steps.again")
        done = fn.append_basic_block("steps.done")
        for k, block in ((0, None), (1, again)):
            if block is not None:
                b.position_at_end(block)
            b.store(i32(0), more)
            with counted_loop(b, *ys, f"sy{k}") as ly:
                with counted_loop(b, *xs, f"sx{k}", on_x_latch(k)) as lx:
                    step(k, [lx, ly, lz])
            b.branch(check)
        b.position_at_end(check)
        b.cbranch(b.icmp_signed("!=", b.load(more, typ=I32), i32(0)), again, done)
        b.position_at_end(done)

    def umin(x: ll.Value, y: ll.Value) -> ll.Value:
        return b.select(b.icmp_unsigned("<", x, y), x, y)

    def span(index: ll.Value, extent: ll.Value, size: ll.Value) -> tuple[ll.Value, ll.Value]:
        lo = b.mul(index, extent)
        return lo, umin(b.add(lo, extent), size)

    zero, one = ll.Constant(I64, 0), ll.Constant(I64, 1)
    width = umin(sizes[0], chunk)  # a chunk: `width` work-items along x times `rows` along y
    rows = b.udiv(chunk, width)
    across = b.udiv(b.add(sizes[0], b.sub(width, one)), width)
    down = b.udiv(b.add(sizes[1], b.sub(rows, one)), rows)
    with counted_loop(b, zero, sizes[2], "lz") as lz:
        with counted_loop(b, zero, down, "cy") as cy:
            with counted_loop(b, zero, across, "cx") as cx:
                rounds(span(cx, width, sizes[0]), span(cy, rows, sizes[1]), lz)


def _item_state(b: ll.IRBuilder, frames: ll.Value, sizes: list[ll.Value],
                lid: list[ll.Value]) -> ll.Value:
    """The work-item's resume state: slot offset 0, its array starts at `frames`."""
    linear = b.add(b.mul(b.add(b.mul(lid[2], sizes[1]), lid[1]), sizes[0]), lid[0])
    return b.gep(frames, [b.mul(linear, ll.Constant(I64, 4))], source_etype=I8)


def _run_mixed(items: _Items, barriers: int, steps: tuple[int, ...], state: ll.Value,
               more: ll.Value,
               on_x_latch: Callable[[int], Callable[[ll.Instruction], None] | None]) -> None:
    """Run a group of a kernel with barriers of its own and steps (`steps`, resume
    states of divergent loops' steps): a resume state per work-item, as in
    `_run_steps`, in the first frame slot.

    The group's region `state` (0 first) runs for every work-item, each storing
    that state as its own before its call; then, while some work-item stopped at
    a step, each step state in turn runs, as long as some work-item is stopped
    there, a loop over the group that runs those work-items once (one iteration
    of a loop, or from a loop's exit to the next step or barrier), the others
    skipped. So the group waits at a loop's exit until every work-item has
    left the loop, and what follows the loop (the histogram's `__local`
    atomic, which stays scalar) runs once for all of them rather than in every
    round for the few that left last. Every such loop records in `more`, a
    bit per step state, where the work-items stopped. When none did, every
    work-item waits at the same barrier (OpenCL requires it) or has finished:
    work-item 0's state is the group's next region. Each round is a work-item
    loop, vectorised as any region's."""
    b, sizes, frames = items.b, items.sizes, items.frames
    fn = b.function
    i32 = lambda v: ll.Constant(I32, v)  # noqa: E731
    zero = ll.Constant(I64, 0)
    assert max(steps) <= MAX_STEP_STATE  # a bit of `more` per state
    mask = sum(1 << s for s in steps)

    def note_stopped(mine: ll.Value) -> None:
        """more |= the bit of the work-item's state, when a step's: a shift, not a
        chain of compares of one value (LLVM makes those a `switch`, and a
        work-item loop holding a `switch` does not vectorise)."""
        now = items.grouped(b.load(mine, typ=I32, align=4))
        bit = b.shl(ll.Constant(I64, 1), b.zext(b.and_(now, i32(63)), I64))
        bits = b.and_(bit, ll.Constant(I64, mask))
        b.store(b.or_(b.load(more, typ=I64), bits), more)

    def run(k: int, only_stopped: bool) -> None:
        b.store(zero, more)

        def item(lid: list[ll.Value]) -> None:
            note_stopped(_resume_item(items, lid, k, only_stopped))

        _run_items(b, sizes, item, on_x_latch(k))

    round_block = fn.append_basic_block("round")
    stepping = fn.append_basic_block("steps")
    settled = fn.append_basic_block("steps.settled")
    done = fn.append_basic_block("round.done")
    b.store(i32(0), state)
    b.branch(round_block)
    b.position_at_end(round_block)
    dispatch = b.switch(b.load(state, typ=I32), done)  # default: finished (-1)
    for k in [k for k in range(barriers + 1) if k not in steps]:
        region = fn.append_basic_block(f"region.{k}")
        dispatch.add_case(i32(k), region)
        b.position_at_end(region)
        run(k, only_stopped=False)
        b.branch(stepping)
    b.position_at_end(stepping)
    again = fn.append_basic_block("steps.again")
    b.cbranch(b.icmp_signed("!=", b.load(more, typ=I64), zero), again, settled)
    b.position_at_end(again)
    for k in steps:  # each loop's `more` covers every work-item
        check = fn.append_basic_block(f"steps.{k}")
        body = fn.append_basic_block(f"steps.{k}.round")
        after = fn.append_basic_block(f"steps.{k}.done")
        b.branch(check)
        b.position_at_end(check)
        bit = b.and_(b.load(more, typ=I64), ll.Constant(I64, 1 << k))
        b.cbranch(b.icmp_signed("!=", bit, zero), body, after)
        b.position_at_end(body)
        run(k, only_stopped=True)
        b.branch(check)
        b.position_at_end(after)
    b.branch(stepping)
    b.position_at_end(settled)
    first = _item_state(b, frames, sizes, [zero, zero, zero])
    b.store(b.load(first, typ=I32, align=4), state)
    b.branch(round_block)
    b.position_at_end(done)


def launcher_name(kernel: str) -> str:
    """The symbol of `kernel`'s launcher in the native code: ASCII, as the JIT's lookup
    wants; a kernel name's UTF-8 letters are written `.uXX.` (no C name holds a '.')."""
    if not kernel.isascii():
        kernel = "".join(c if c.isascii() else f".u{ord(c):x}." for c in kernel)
    return f"{kernel}.launch"


def only_launcher(text: str, kernel: str, kernels: list[str]) -> str:
    """The module `text` with every launcher but `kernel`'s made internal, so LLVM's
    pipeline drops the others and what only they reach (a kernel compiled on its
    own, at its first launch). Works on the text llvmlite printed for
    `emit_launcher`'s definitions; a definition not found is a ValueError."""
    for other in kernels:
        if other == kernel:
            continue
        head = f'define void @"{launcher_name(other)}"('
        if text.count(head) != 1:
            raise ValueError(f"the launcher of '{other}' is not defined once in the module")
        text = text.replace(head, f'define internal void @"{launcher_name(other)}"(')
    return text
