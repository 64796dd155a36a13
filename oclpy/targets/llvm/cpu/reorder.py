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
(kernel arguments, `__local` variables, the work-item's frame slots); a
pointer of unknown root may be anything. Loads followed by stores
(`y[i] = a * x[i] + y[i]`) stay safe, and so do stores to a uniform address
after the work-item's own slot (`tile[l + 1] = ...; if (l == 0) tile[0] = ...`).
Kernels with a hazard keep their work-item loop unannotated: LLVM then checks
dependences itself (and still vectorises affine accesses, with run-time checks).
"""

from __future__ import annotations

from ....analysis.callgraph import functions_reached
from ....ir.datalayout import CPU_LAYOUT
from ....ir.types import AddressSpace, StructType
from ....ir.values import Argument, Block, ConstInt, Function, GlobalVar, Instr, Value

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
        """The frame slot (or other private argument) `v` points into; None otherwise."""
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
        if space in SHARED or (frame and space is AddressSpace.PRIVATE):
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


def _address(p: Value) -> tuple[object, tuple, int]:
    """`p` as (base key, sorted variable terms, constant byte offset) through its chain
    of getelementptrs: `&s[x + 1].f` is (s, ((x, 16),), 16 + offset of f)."""
    terms: list[tuple[object, int]] = []
    offset = 0
    while isinstance(p, Instr) and p.op == "getelementptr":
        t = p.attrs["elem"]
        for n, idx in enumerate(p.operands[1:]):
            if n:
                if isinstance(t, StructType):
                    offset += CPU_LAYOUT.struct_layout(t).offsets[idx.value]  # type: ignore[attr-defined]
                    t = t.fields[idx.value]  # type: ignore[attr-defined]
                    continue
                t = t.elem  # type: ignore[attr-defined]
            var, const = _index(idx)
            size = CPU_LAYOUT.size_of(t)
            offset += const * size
            if var is not None:
                terms.append((var, size))
        p = p.operands[0]
    return _key(p), tuple(sorted(terms, key=repr)), offset


def _size(instr: Instr) -> int:
    return CPU_LAYOUT.size_of(instr.type if instr.op == "load" else instr.operands[0].type)


def _independent(a: Instr, b: Instr) -> bool:
    """The two accesses cannot conflict in a way reordering breaks: the same address
    (LLVM forwards a store to a load of it long before vectorising, and two stores of
    one address never share an interleave group), or provably disjoint bytes of one
    base (`p[x + 1]` and `p[x + 2]`, two fields of `s[i]`, two lanes of `v[i]`)."""
    (base_a, terms_a, off_a), (base_b, terms_b, off_b) = _address(_pointer(a)), _address(_pointer(b))
    if base_a != base_b or terms_a != terms_b:
        return False
    if off_a == off_b:
        return _size(a) == _size(b)
    return off_a + _size(a) <= off_b or off_b + _size(b) <= off_a


def _after(instr: Instr) -> set[int]:
    """Ids of the instructions that can run after `instr` in one execution of its function."""
    block = instr.parent
    assert block is not None
    found = {id(i) for i in block.instrs[block.instrs.index(instr) + 1:]}
    work, seen = list(block.successors()), set()
    while work:
        b: Block = work.pop()
        if id(b) in seen:
            continue
        seen.add(id(b))
        found.update(id(i) for i in b.instrs)
        work.extend(b.successors())
    return found


def _may_be_strided(instr: Instr) -> bool:
    """Whether the access's address may move with the work-item (so LLVM may put
    it in an interleave group): it has a variable index, or it is in the
    work-item's own frame (a private pointer argument)."""
    base: Value = _pointer(instr)
    while isinstance(base, Instr) and base.op in _THROUGH:
        base = base.operands[0]
    return _is_private_argument(base) or bool(_address(_pointer(instr))[1])


def _has_hazard(accesses: list[Instr]) -> bool:
    """A group member moving past a conflicting access of one object (module docstring)."""
    after = {id(a): _after(a) for a in accesses}
    members = [a for a in accesses if _may_be_strided(a)]
    for a in members:
        for c in members:
            if c is a or c.op != a.op or id(c) not in after[id(a)]:
                continue
            moved = a if a.op == "store" else c
            for b in accesses:
                if (b is a or b is c or id(b) not in after[id(a)] or id(c) not in after[id(b)]
                        or "store" not in (a.op, b.op)):
                    continue
                if not _independent(moved, b):
                    return True
    return False


MAX_ACCESSES_PER_OBJECT = 64  # beyond this, the cheaper and stricter rule: no store followed by a conflict


def _store_then_conflict(accesses: list[Instr]) -> bool:
    for instr in accesses:
        if instr.op == "store":
            later = _after(instr)
            if any(id(o) in later and not _independent(instr, o) for o in accesses):
                return True
    return False


def reorder_safe(fn: Function, frame: bool = False) -> bool:
    """True when no access of `fn` can be moved past a conflicting one (see above)."""
    if any(f is not fn and not f.is_declaration for f in functions_reached(fn)):
        return False  # a call not inlined: its accesses are out of sight
    accesses = _accesses(fn, frame)
    if any(root == UNKNOWN for _, root, _ in accesses):
        accesses = [(i, UNKNOWN, s) for i, _, s in accesses]
    by_root: dict[object, list[Instr]] = {}
    for instr, root, _ in accesses:
        by_root.setdefault(root, []).append(instr)
    for group in by_root.values():
        if not any(i.op == "store" for i in group) or len(group) < 2:
            continue
        if len(group) > MAX_ACCESSES_PER_OBJECT:
            if _store_then_conflict(group):
                return False
        elif _has_hazard(group):
            return False
    return True
