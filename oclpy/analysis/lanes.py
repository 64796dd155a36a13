"""How values differ between consecutive work-items along x (for widening a kernel body
to a vector of work-items: `passes/widen_work_items.py`).

- `varying_values`: the instructions whose value may differ between the
  work-items of a row (from `get_global_id(0)`, `get_local_id(0)` or a linear
  id, through any operation, load or phi, and the phis where a branch on such
  a value joins); the rest are the same for every work-item of the row.
- `diamonds`: two-way branches whose arms are single blocks of arithmetic
  that may run whatever the condition, joining right after: a branch on a
  varying value there becomes selects.
- `lane_steps`: for varying integers and pointers, the constant step from one
  work-item to the next, when there is one (`gid`: 1; `&x[2 * gid]`: 8 bytes),
  and for pointers, the *origin*: the address computation whose lanes it
  offsets by a constant (`&p[gid].y` is `&p[gid]` plus 4).
- `access_groups`: loads (or stores) of one block at one origin and step whose
  offsets cover the step exactly (the four components of a `float4` in
  consecutive work-items): together they read (write) one run of memory,
  `lanes * k` elements, which a widened body accesses with one vector and
  shuffles.

Integer steps assume no wrap-around within a vector of work-items (as
`scalarize_policy.StepAnalysis` does).
"""

from __future__ import annotations

from dataclasses import dataclass

from oclpy.ir.cfg import predecessors, reverse_post_order
from oclpy.ir.datalayout import CPU_LAYOUT
from oclpy.ir.intrinsics import intrinsic_info
from oclpy.ir.types import StructType, Type
from oclpy.ir.values import Block, ConstInt, Function, Instr, Value

X_IDS = ("get_global_id", "get_local_id")
LINEAR_IDS = ("get_global_linear_id", "get_local_linear_id")


def query(instr: Instr) -> str | None:
    """The builtin `instr` calls (`get_global_id`, `exp`, ...), or None."""
    if instr.op != "call":
        return None
    info = intrinsic_info(instr.attrs["callee"])
    return info.base if info is not None else None


def x_query(instr: Instr) -> bool:
    """A work-item id that moves by one from one work-item to the next along x."""
    base = query(instr)
    if base in LINEAR_IDS:
        return True
    dim = instr.operands[0] if base in X_IDS else None
    return isinstance(dim, ConstInt) and dim.value == 0


_UNSAFE = ("sdiv", "udiv", "srem", "urem")  # may trap: not run for work-items that skip them


@dataclass
class Diamond:
    """`if (c) {T} else {F}` with arms of plain arithmetic meeting at `join`: `arms` are
    the blocks of the arms (none for an empty arm); `sides[k]` is the block the join's
    phis name for arm k (true, false)."""

    arms: list[Block]
    join: Block
    sides: tuple[Block, Block]


def diamonds(fn: Function) -> dict[Block, Diamond]:
    """Each block ending in a two-way branch whose arms are single blocks of arithmetic
    that may run whatever the condition (no memory access, no division, no impure or
    non-builtin call) and join right after."""
    preds = predecessors(fn)
    found: dict[Block, Diamond] = {}
    for block in fn.blocks:
        term = block.terminator
        if term is None or term.op != "condbr" or term.targets[0] is term.targets[1]:
            continue
        t, f = term.targets

        def arm_to(a: Block) -> Block | None:
            """The block arm `a` goes to, when it is a plain arm of `block`."""
            last = a.terminator
            if preds[a] != [block] or last is None or last.op != "br" or a.phis():
                return None
            if any(not pure_builtin(i) if i.op == "call" else
                   i.op in _UNSAFE or i.info.reads_memory or i.info.writes_memory for i in a.instrs[:-1]):
                return None
            return last.targets[0]

        for join, arms, sides in ((f, [t], (t, block)), (t, [f], (block, f))):
            if arm_to(arms[0]) is join:
                break
        else:
            join = arm_to(t)
            arms, sides = [t, f], (t, f)
            if join is None or arm_to(f) is not join:
                continue
        if sorted(preds[join], key=id) == sorted(set(sides), key=id) and join is not block:
            found[block] = Diamond(arms, join, sides)
    return found


def pure_builtin(instr: Instr) -> bool:
    info = intrinsic_info(instr.attrs["callee"])
    return info is not None and info.pure


def varying_values(fn: Function) -> set[Instr] | None:
    """The instructions whose value may differ between the work-items of a row; None
    when a work-item id's dimension is known only at run time."""
    varying: set[Instr] = set()
    joins = {d.join: b.terminator for b, d in diamonds(fn).items()}
    changed = True
    while changed:
        changed = False
        for instr in fn.instructions():
            if instr in varying:
                continue
            base = query(instr)
            if base in X_IDS and not isinstance(instr.operands[0], ConstInt):
                return None  # a run-time dimension
            branch = joins.get(instr.parent) if instr.op == "phi" else None  # type: ignore[arg-type]
            if x_query(instr) or any(isinstance(o, Instr) and o in varying for o in instr.operands) \
                    or (branch is not None and branch in varying):
                varying.add(instr)
                changed = True
    return varying



def signed(c: Value) -> int:
    """A ConstInt's value as a signed integer of its width."""
    bits = c.type.bits  # type: ignore[attr-defined]
    v = c.value  # type: ignore[attr-defined]
    return v - (1 << bits) if v >> (bits - 1) else v


@dataclass
class Steps:
    """`step[v]`: bytes (pointers) or units (integers) from one work-item to the next;
    `origin[p]`: (the pointer p offsets, that offset in bytes)."""

    step: dict[Value, int]
    origin: dict[Value, tuple[Value, int]]


def _int_step(instr: Instr, step: dict[Value, int], varying: set[Instr]) -> int | None:
    a = [step.get(o) if o in varying else 0 for o in instr.operands]
    const = [signed(o) if isinstance(o, ConstInt) else None for o in instr.operands]
    if instr.op in ("sext", "zext", "trunc"):
        return a[0]
    if instr.op in ("add", "sub") and None not in a:
        return a[0] + a[1] if instr.op == "add" else a[0] - a[1]  # type: ignore[operator]
    if instr.op == "mul" and a[0] is not None and const[1] is not None:
        return a[0] * const[1]
    if instr.op == "mul" and a[1] is not None and const[0] is not None:
        return a[1] * const[0]
    if instr.op == "shl" and a[0] is not None and const[1] is not None and 0 <= const[1] < 63:
        return a[0] << const[1]
    return None


def _pointer_step(instr: Instr, st: Steps, varying: set[Instr]) -> None:
    base, *indices = instr.operands
    step: int | None = st.step.get(base) if base in varying else 0
    offset: int | None = 0
    t: Type = instr.attrs.get("elem")  # type: ignore[assignment]
    for n, idx in enumerate(indices):
        if n:
            if isinstance(t, StructType):
                field = idx.value  # type: ignore[attr-defined]
                offset = None if offset is None else offset + CPU_LAYOUT.struct_layout(t).offsets[field]
                t = t.fields[field]
                continue
            t = t.elem  # type: ignore[attr-defined]
        size = CPU_LAYOUT.size_of(t)
        if idx in varying:
            s = st.step.get(idx)
            step = None if s is None or step is None else step + s * size
            offset = None
        elif isinstance(idx, ConstInt) and offset is not None:
            offset += signed(idx) * size
        else:
            offset = None
    if step is None:
        return
    st.step[instr] = step
    if offset is not None and base in st.origin:
        root, at = st.origin[base]
        st.origin[instr] = (root, at + offset)
    else:
        st.origin[instr] = (instr, 0)


def lane_steps(fn: Function, varying: set[Instr]) -> Steps:
    """The steps and origins of `fn`'s varying integers and pointers."""
    st = Steps({}, {})
    for block in reverse_post_order(fn):
        for instr in block.instrs:
            if instr not in varying:
                continue
            if x_query(instr):
                st.step[instr] = 1
            elif instr.op in ("getelementptr", "bitcast", "addrspacecast"):
                _pointer_step(instr, st, varying)
            else:
                s = _int_step(instr, st.step, varying)
                if s is not None:
                    st.step[instr] = s
    return st


@dataclass
class Group:
    """Loads or stores of one block that cover `k` elements of `type` per work-item:
    `members` in block order, the run starting `offset` bytes past `root`'s lanes;
    `origins` is `Steps.origin`, which says where each member's address is."""

    members: list[Instr]
    root: Value
    offset: int
    k: int
    type: Type
    origins: dict[Value, tuple[Value, int]]

    def position(self, member: Instr) -> int:
        """Which of the `k` elements `member` accesses."""
        address = member.operands[0 if member.op == "load" else 1]
        return (self.origins[address][1] - self.offset) // CPU_LAYOUT.size_of(self.type)


MAX_GROUP = 8  # elements per work-item a group may cover (a float8)


def access_groups(fn: Function, varying: set[Instr], st: Steps) -> dict[Instr, Group]:
    """Each member of an access group (module docstring) -> its group."""
    found: dict[Instr, Group] = {}
    for block in fn.blocks:
        keyed: dict[tuple, list[Instr]] = {}
        for instr in block.instrs:
            if instr.op not in ("load", "store") or instr.attrs.get("volatile"):
                continue
            address = instr.operands[0 if instr.op == "load" else 1]
            t = instr.type if instr.op == "load" else instr.operands[0].type
            if address not in varying or address not in st.origin:
                continue
            size, step = CPU_LAYOUT.size_of(t), st.step[address]
            if step <= size or step % size or step // size > MAX_GROUP:
                continue
            keyed.setdefault((instr.op, id(st.origin[address][0]), step, t), []).append(instr)
        for (op, _, step, t), members in keyed.items():
            size, k = CPU_LAYOUT.size_of(t), step // CPU_LAYOUT.size_of(t)
            offsets = [st.origin[m.operands[0 if op == "load" else 1]][1] for m in members]
            start = min(offsets)
            if sorted(set(offsets)) != [start + m * size for m in range(k)]:
                continue
            if op == "store" and len(offsets) != k:
                continue  # two stores to one element: their order matters
            first, last = block.instrs.index(members[0]), block.instrs.index(members[-1])
            between = [i for i in block.instrs[first:last + 1] if i not in members]
            if any(_touches_memory(i, op) for i in between):
                continue
            group = Group(members, st.origin[members[0].operands[0 if op == "load" else 1]][0], start, k, t,
                          st.origin)
            for m in members:
                found[m] = group
    return found


def _touches_memory(instr: Instr, op: str) -> bool:
    """Whether `instr`, between the members of a group of `op`s, may change what they
    access (a write) or, for stores moved to the last member, see it (any access)."""
    if instr.op == "call":
        return not pure_builtin(instr)
    return instr.info.writes_memory or (op == "store" and instr.info.reads_memory)
