"""May the work-item loop of a kernel be marked parallel? (intra-work-item hazards)

`llvm.loop.parallel_accesses` (`cpu_loopmd.py`) says the iterations of the
work-item loop do not depend on each other, which is true of a race-free
kernel. But LLVM takes more from it than it says: for a loop annotated
parallel, LoopAccessAnalysis skips its dependence checks altogether, and the
loop vectoriser's interleaved-access groups then believe that no two
accesses of one iteration depend on each other either. A group of strided
stores is sunk to its last member and a group of strided loads hoisted to its
first, past a load or store of the same address *in the same work-item*:

    for (k = 0; k < 4; k++) ml[k] = k * lid - gx;   // strided stores ml[0..3]
    v = ml[sel & 3];                               // reads a store not yet made
    ml[0] = v;                                     // the group's last member

(found by tools/progen: `ml = lslot + lid * 4`, a work-group of 16 on AVX-512
read stale `__local` data). `reorder_safe(fn)` says whether no such hazard
can exist. A hazard needs three accesses to one memory object, in this
order on some path of one work-item's execution (loops included):

- two loads A ... C that may be members of one group (both addresses vary
  with the work-item: not a uniform `tile[0]`) and a store B between them
  that may touch C's bytes (C is hoisted to A, above B); or
- two stores A ... C that may be members of one group and any access B
  between them that may touch A's bytes (A is sunk to C, below B).

(`_independent` lets through the same pointer, and distinct constant
offsets from one base.) Objects are the roots the pointers derive from
(kernel arguments, `__local` variables, the work-item's frame slots, the
lane arrays of interleave-private-arrays); a
pointer of unknown root may be anything. Loads followed by stores
(`y[i] = a * x[i] + y[i]`) stay safe, and so do stores to a uniform address
after the work-item's own slot (`tile[l + 1] = ...; if (l == 0) tile[0] = ...`).
Kernels with a hazard keep their work-item loop unannotated: LLVM then checks
dependences itself (and still vectorises affine accesses, with run-time checks).
"""

from __future__ import annotations

from bisect import bisect_left

from ....analysis.callgraph import functions_reached
from ....ir.cfg import strongly_connected_components
from ....ir.datalayout import CPU_LAYOUT, DataLayout
from ....ir.types import AddressSpace, StructType
from ....ir.values import Argument, Block, ConstInt, Function, GlobalVar, Instr, Value
from ....passes.interleave_private_arrays import lane_array

SHARED = (AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.CONSTANT)
_THROUGH = ("getelementptr", "bitcast", "addrspacecast")
UNKNOWN = "unknown"


class _Roots:
    """The object each pointer of one function points into: an Argument, GlobalVar or
    alloca; a slot of the work-item frames (form-workgroups' `getelementptr` of the
    frame argument); UNKNOWN when it cannot be told. A pointer reloaded from a frame
    slot (kept across a barrier) has the roots of what was stored there."""

    def __init__(self, fn: Function) -> None:
        self.slot_values: dict[object, list[Value]] = {}
        for instr in fn.instructions():
            if instr.op == "store":
                slot = self._frame_slot(instr.operands[1])
                if slot is not None:
                    self.slot_values.setdefault(slot, []).append(instr.operands[0])

    @staticmethod
    def _frame_slot(v: Value) -> object:
        """The frame slot (or other private argument, or lane array) `v` points into;
        None otherwise."""
        lanes = lane_array(v)
        if lanes is not None:
            return ("slot", id(lanes))
        while isinstance(v, Instr) and v.op in _THROUGH:
            base = v.operands[0]
            if v.op == "getelementptr" and _is_private_argument(base):
                return ("slot", id(v))
            v = base
        return ("argument", id(v)) if _is_private_argument(v) else None

    def root(self, v: Value, seen: set[int] | None = None) -> object:
        seen = set() if seen is None else seen
        slot = self._frame_slot(v)
        if slot is not None:
            return slot
        while isinstance(v, Instr) and v.op in _THROUGH:
            v = v.operands[0]
        if isinstance(v, (Argument, GlobalVar)) or (isinstance(v, Instr) and v.op == "alloca"):
            return id(v)
        if not isinstance(v, Instr) or id(v) in seen:
            return None if isinstance(v, Instr) else UNKNOWN
        seen.add(id(v))
        if v.op in ("phi", "select"):
            sources = v.operands if v.op == "phi" else v.operands[1:]
        elif v.op == "load" and self._frame_slot(v.operands[0]) is not None:
            sources = self.slot_values.get(self._frame_slot(v.operands[0]), [])
        else:
            return UNKNOWN
        roots = {self.root(o, seen) for o in sources} - {None}
        return roots.pop() if len(roots) == 1 else UNKNOWN


def _is_private_argument(v: Value) -> bool:
    return isinstance(v, Argument) and getattr(v.type, "space", None) is AddressSpace.PRIVATE


def _accesses(fn: Function, frame: bool) -> list[tuple[Instr, object, bool]]:
    """(instruction, root, is_store) of each load and store the access group may hold."""
    roots, out = _Roots(fn), []
    for instr in fn.instructions():
        if instr.op not in ("load", "store"):
            continue
        ptr = instr.operands[0] if instr.op == "load" else instr.operands[1]
        space = getattr(ptr.type, "space", None)
        if space in SHARED or (frame and space is AddressSpace.PRIVATE) or lane_array(ptr) is not None:
            out.append((instr, roots.root(ptr), instr.op == "store"))
    return out


def _key(v: Value, depth: int = 0) -> object:
    """A structural key: equal keys mean equal values (pure operations of equal
    operands, work-item queries), so recomputed indices compare equal."""
    if isinstance(v, ConstInt):
        return ("const", v.value)
    if not isinstance(v, Instr) or depth > 6:
        return id(v)
    pure = v.info.pure and v.op != "phi"
    query = v.op == "call" and str(getattr(v.attrs.get("callee"), "name", "")).startswith("ocl.get_")
    if not (pure or query):
        return id(v)
    extra = getattr(v.attrs.get("callee"), "name", None) if query else v.attrs.get("pred")
    return (v.op, extra, tuple(_key(o, depth + 1) for o in v.operands))


def _index(v: Value) -> tuple[object, int]:
    """An index as (the id of its variable part or None, its constant part):
    `ext(x + 3)` is (id(x), 3), `5` is (None, 5)."""
    if isinstance(v, Instr) and v.op in ("sext", "zext"):
        v = v.operands[0]
    if isinstance(v, ConstInt):
        return None, v.value
    if isinstance(v, Instr) and v.op == "add" and isinstance(v.operands[1], ConstInt):
        return _key(v.operands[0]), v.operands[1].value
    return _key(v), 0


def _pointer(instr: Instr) -> Value:
    return instr.operands[0] if instr.op == "load" else instr.operands[1]


def _address(p: Value, layout: DataLayout) -> tuple[object, tuple, int]:
    """`p` as (base key, sorted variable terms, constant byte offset) through its chain
    of getelementptrs: `&s[x + 1].f` is (s, ((x, 16),), 16 + offset of f)."""
    terms: list[tuple[object, int]] = []
    offset = 0
    while isinstance(p, Instr) and p.op == "getelementptr":
        t = p.attrs["elem"]
        for n, idx in enumerate(p.operands[1:]):
            if n:
                if isinstance(t, StructType):
                    offset += layout.struct_layout(t).offsets[idx.value]  # type: ignore[attr-defined]
                    t = t.fields[idx.value]  # type: ignore[attr-defined]
                    continue
                t = t.elem  # type: ignore[attr-defined]
            var, const = _index(idx)
            size = layout.size_of(t)
            offset += const * size
            if var is not None:
                terms.append((var, size))
        p = p.operands[0]
    return _key(p), tuple(sorted(terms, key=repr)), offset


class _Access:
    """One load or store: where it is, what it touches, computed once."""

    __slots__ = ("instr", "index", "is_store", "cls", "offset", "size", "strided")

    def __init__(self, instr: Instr, index: int, layout: DataLayout) -> None:
        self.instr, self.index, self.is_store = instr, index, instr.op == "store"
        base, terms, self.offset = _address(_pointer(instr), layout)
        self.cls = (base, terms)  # accesses of one class differ only by a constant offset
        value_type = instr.type if instr.op == "load" else instr.operands[0].type
        self.size = layout.size_of(value_type)
        self.strided = bool(terms) or _private_base(instr)


def _private_base(instr: Instr) -> bool:
    base: Value = _pointer(instr)
    while isinstance(base, Instr) and base.op in _THROUGH:
        base = base.operands[0]
    return _is_private_argument(base)


def _independent(a: _Access, b: _Access) -> bool:
    """The two accesses cannot conflict in a way reordering breaks: the same address
    (LLVM forwards a store to a load of it long before vectorising, and two stores of
    one address never share an interleave group), or provably disjoint bytes of one
    base (`p[x + 1]` and `p[x + 2]`, two fields of `s[i]`, two lanes of `v[i]`)."""
    if a.cls != b.cls:
        return False
    if a.offset == b.offset:
        return a.size == b.size
    return a.offset + a.size <= b.offset or b.offset + b.size <= a.offset


def _later_sets(fn: Function, accesses: list[_Access]) -> list[int]:
    """For each access, the set (a bitset: bit k is accesses[k]) of the accesses that can
    run after it in one execution of `fn`: later in its block, or in a block reachable
    from its block's successors (loops included). `accesses` are in block order, then
    instruction order. Linear in the blocks and edges, through the strongly connected
    components of the CFG."""
    in_block: dict[int, int] = {}
    for a in accesses:
        key = id(a.instr.parent)
        in_block[key] = in_block.get(key, 0) | 1 << a.index
    reach = _reachable(fn.blocks, in_block)
    out = []
    for a in accesses:
        key = id(a.instr.parent)
        out.append(in_block[key] >> (a.index + 1) << (a.index + 1) | reach[key])
    return out


def _reachable(blocks: list[Block], bits: dict[int, int]) -> dict[int, int]:
    """id(block) -> the union of `bits` over the blocks reachable from its successors."""
    comp: dict[int, int] = {}
    full: list[int] = []  # per component: its blocks' bits and all it reaches
    reach: dict[int, int] = {}
    for k, members in enumerate(strongly_connected_components(blocks)):  # successors' components come first
        ids = {id(b) for b in members}
        own, after, cyclic = 0, 0, len(members) > 1
        for b in members:
            comp[id(b)] = k
            own |= bits.get(id(b), 0)
        for b in members:
            for s in b.successors():
                if id(s) in ids:
                    cyclic = True
                else:
                    after |= full[comp[id(s)]]
        if cyclic:
            after |= own
        full.append(own | after)
        for b in members:
            reach[id(b)] = after
    return reach


def _has_hazard(group: list[_Access], later: list[int]) -> bool:
    """A group member moving past a conflicting access of one object (module docstring):
    members A ... C of one kind (loads or stores, C after A) with an access B after A
    and before C, a store among A and B, that the moved member (a store A sunk to C, or
    a load C hoisted to A) is not independent of. Quadratic in the group's size."""
    bits = stores = 0
    for a in group:
        bits |= 1 << a.index
        stores |= a.is_store << a.index
    conflicts = {a.index: sum(1 << b.index for b in group if b is not a and not _independent(a, b))
                 for a in group}
    before = {c.index: sum(1 << b.index for b in group if later[b.index] >> c.index & 1) for c in group}
    members = [a for a in group if a.strided]
    for a in members:
        after_a = later[a.index] & bits & ~(1 << a.index)
        for c in members:
            if c is a or c.is_store != a.is_store or not after_a >> c.index & 1:
                continue
            moved = a if a.is_store else c
            between = after_a & before[c.index] & ~(1 << c.index)
            if not a.is_store:
                between &= stores
            if between & conflicts[moved.index]:
                return True
    return False


MAX_ACCESSES_PER_OBJECT = 64  # beyond this, the cheaper and stricter rule: no store followed by a conflict


def _store_then_conflict(group: list[_Access], later: list[int]) -> bool:
    """A store followed (in one work-item's execution) by an access it is not independent
    of: one of another address class, or of the same class at an overlapping but not
    identical byte range. Near-linear: bitsets by class and by (class, offset, size),
    and a search of the offsets that can overlap."""
    bits, by_class, by_range = 0, {}, {}  # type: ignore[var-annotated]
    for a in group:
        bits |= 1 << a.index
        by_class[a.cls] = by_class.get(a.cls, 0) | 1 << a.index
        key = (a.cls, a.offset, a.size)
        by_range[key] = by_range.get(key, 0) | 1 << a.index
    ranges: dict[object, list[tuple[int, int]]] = {}
    for cls, offset, size in by_range:
        ranges.setdefault(cls, []).append((offset, size))
    widest = {cls: max(size for _, size in found) for cls, found in ranges.items()}
    for found in ranges.values():
        found.sort()
    for s in group:
        after = later[s.index] & bits if s.is_store else 0
        if not after:
            continue
        if after & ~by_class[s.cls]:
            return True
        found = ranges[s.cls]
        k = bisect_left(found, (s.offset - widest[s.cls] + 1, 0))
        while k < len(found) and found[k][0] < s.offset + s.size:
            offset, size = found[k]
            if (offset, size) != (s.offset, s.size) and offset + size > s.offset \
                    and after & by_range[(s.cls, offset, size)]:
                return True
            k += 1
    return False


def reorder_safe(fn: Function, frame: bool = False, layout: DataLayout = CPU_LAYOUT) -> bool:
    """True when no access of `fn` can be moved past a conflicting one (see above);
    `layout` answers sizes and struct layouts (the cpu target's memoized one: an
    address walks nested structs, CLSmith's thousands of them)."""
    if any(f is not fn and not f.is_declaration for f in functions_reached(fn)):
        return False  # a call not inlined: its accesses are out of sight
    found = _accesses(fn, frame)
    unknown = any(root == UNKNOWN for _, root, _ in found)
    accesses = [_Access(instr, k, layout) for k, (instr, _, _) in enumerate(found)]
    by_root: dict[object, list[_Access]] = {}
    for access, (_, root, _) in zip(accesses, found):
        by_root.setdefault(UNKNOWN if unknown else root, []).append(access)
    later: list[int] | None = None
    for group in by_root.values():
        if len(group) < 2 or not any(a.is_store for a in group):
            continue
        if later is None:
            later = _later_sets(fn, accesses)
        if len(group) > MAX_ACCESSES_PER_OBJECT:
            if _store_then_conflict(group, later):
                return False
        elif _has_hazard(group, later):
            return False
    return True
