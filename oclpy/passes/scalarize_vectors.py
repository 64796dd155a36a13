"""scalarize-vectors: rewrite vector-typed operations into per-element scalar ones.

On the cpu, each work-item loop is widened across work-items by LLVM's loop
vectoriser, which gives up on any loop holding a vector-typed value: a kernel
written with float2/float4/uchar4 would run one work-item at a time. After
this pass such a kernel is scalar code the vectoriser can widen (PoCL does the
same before its work-group function generation).

What is rewritten (each rule makes the elements of the result, before the
instruction):

- elementwise `add`...`frem`, `fneg`, `icmp`/`fcmp` (an `<N x i1>` becomes N
  `i1`s), `select` (a scalar condition applies to every element, a vector one
  element by element), every cast but `bitcast`, and `bitcast` between vectors
  of one element count; the instruction's flags (`nsw`, ...) are kept;
- `phi` of a vector: one phi per element;
- `load`/`store` of a vector of 8-, 16-, 32- or 64-bit integers or floats, not
  volatile: one access per element at `getelementptr inbounds elem, p, k`
  (a 3-element vector touches 3 elements; its fourth slot is never accessed),
  each with the alignment that the vector's alignment (the vector's size when
  unstated) gives its byte offset;
- `extractelement` (a constant index takes the element; a variable one a chain
  of selects), `insertelement` (variable index: one select per element) and
  `shufflevector` (the mask picks elements; -1 is `undef`);
- calls of the elementwise math intrinsics (`ocl.<fn>.v<N><t>`, `fn` in
  `MATH_FUNCTIONS`): one call of `ocl.<fn>.<t>` per element, with scalar
  arguments passed to each call as they are.

Everything else stays as it is (function arguments and returns, non-math
calls, aggregates, volatile accesses, vectors of `i1` in memory, bitcasts that
change the element count). Where such an instruction uses a rewritten vector,
the vector is rebuilt from its elements with `insertelement` where the old
instruction stood; where a rewritten instruction uses a vector that was kept,
its elements are taken with `extractelement` right after its definition.
Vectors longer than `max_elements` are left whole. Which functions are split
is measured policy (`scalarize_policy.py`: no gathered vectors);
`everywhere=true` splits every function.

Requires: nothing (best after `inline`, so helper arguments are not vectors).
Invalidates: nothing about the CFG (no edges change).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import gcd
from typing import Callable, ClassVar, Optional

from oclpy.ir.builder import Builder, add_incoming
from oclpy.ir.cfg import reverse_post_order
from oclpy.ir.datalayout import vector_size
from oclpy.ir.intrinsics import MATH_FUNCTIONS
from oclpy.ir.ops import OPS, Kind
from oclpy.ir.types import FloatType, FunctionType, IntType, PtrType, Type, VectorType
from oclpy.ir.values import (
    Argument, Block, ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Function,
    Instr, Module, Undef, Value,
)

from .manager import defined_functions, register
from .scalarize_policy import worth_splitting

_MEMORY_BITS = (8, 16, 32, 64)
_FLAG_KEYS = ("nsw", "nuw")
_MATH = frozenset(MATH_FUNCTIONS)
_SUFFIX = re.compile(r"v(\d+)([a-z]\d+)")

Elements = list[Value]


def zero_of(t: Type) -> Value:
    """The zero scalar of an element type."""
    if isinstance(t, IntType):
        return ConstInt(t, 0)
    if isinstance(t, FloatType):
        return ConstFloat(t, 0.0)
    if isinstance(t, PtrType):
        return ConstNull(t)
    return ConstZero(t)


def constant_element(v: Value, k: int) -> Optional[Value]:
    """Element k of a constant vector, or None when `v` is not a constant."""
    elem = v.type.elem  # type: ignore[attr-defined]
    if isinstance(v, ConstAggregate):
        return v.elements[k]
    if isinstance(v, ConstZero):
        return zero_of(elem)
    if isinstance(v, Undef):
        return Undef(elem)
    return None


def element_align(align: int, vector: VectorType, offset: int) -> int:
    """The alignment known at `offset` bytes into a vector aligned to `align` (0: its size,
    which no target's DataLayout changes)."""
    base = align or vector_size(vector)
    return base if offset == 0 else gcd(base, offset)


@dataclass
class Scalarizer:
    """Rewrites one function; `run` says whether anything changed."""

    fn: Function
    module: Module
    max_elements: int
    elems: dict[Instr, Elements] = field(default_factory=dict)  # rewritten vector results
    scalars: dict[Instr, Value] = field(default_factory=dict)  # rewritten extractelements
    removed: list[Instr] = field(default_factory=list)
    extracted: dict[tuple[int, int], Value] = field(default_factory=dict)
    phis: list[tuple[Instr, list[Instr]]] = field(default_factory=list)
    at_entry: int = 0  # where the next element of an argument is taken
    b: Builder = field(default_factory=Builder)
    # Where each visited instruction stood when visited: a lower bound of where it stands
    # now, since the rewrite only inserts until its end (a search from there is short,
    # where one from the block's start made long blocks quadratic).
    seen: dict[Instr, int] = field(default_factory=dict)

    # -- operands -----------------------------------------------------------
    def scalar(self, v: Value) -> Value:
        """A scalar operand, through a rewritten extractelement."""
        return self.scalars.get(v, v) if isinstance(v, Instr) else v

    def element(self, v: Value, k: int) -> Value:
        """Element k of vector `v`: rewritten, constant, or extracted after its definition."""
        if isinstance(v, Instr) and v in self.elems:
            return self.elems[v][k]
        const = constant_element(v, k)
        if const is not None:
            return const
        key = (id(v), k)
        if key not in self.extracted:
            self.extracted[key] = self._extract(v, k)
        return self.extracted[key]

    def _extract(self, v: Value, k: int) -> Value:
        """extractelement right after the definition of `v` (an argument: at entry)."""
        if isinstance(v, Argument):
            block, at = self.fn.entry, self.at_entry
            self.at_entry += 1
        elif isinstance(v, Instr) and v.parent is not None:
            block = v.parent
            at = _first_non_phi(block) if v.op == "phi" else self._position(block, v) + 1
            while at < len(block.instrs) and _extracts_from(block.instrs[at], v):
                at += 1  # after the elements taken before, in element order
        else:
            raise ValueError(f"cannot take elements of {v!r}")
        b = Builder()
        b.block, b.index = block, at
        if block is self.b.block and self.b.index is not None and at <= self.b.index:
            self.b.index += 1  # the rewrite in progress inserts after the new instruction
        return b.extractelement(v, ConstInt(IntType(32), k))

    def _position(self, block: Block, instr: Instr) -> int:
        at = block.instrs.index(instr, self.seen.get(instr, 0))
        self.seen[instr] = at
        return at

    def lanes(self, v: Value) -> int:
        t = v.type
        return t.count if isinstance(t, VectorType) else 0

    def fits(self, t: Type) -> bool:
        return isinstance(t, VectorType) and t.count <= self.max_elements

    # -- driver -------------------------------------------------------------
    def run(self) -> bool:
        for block in reverse_post_order(self.fn):
            at = 0  # where the next instruction is now: the rules insert before it
            for instr in list(block.instrs):
                if at >= len(block.instrs) or block.instrs[at] is not instr:
                    at = block.instrs.index(instr)  # a rule inserted elsewhere: look it up
                size = len(block.instrs)
                self.seen[instr] = at
                self._visit(instr, block, at)
                at += len(block.instrs) - size + 1
        for phi, parts in self.phis:
            for value, pred in phi.incoming():
                for k, part in enumerate(parts):
                    add_incoming(part, self.element(value, k), pred)
        self._rebuild_uses()
        gone = set(self.removed)  # out of their blocks at once: one by one was quadratic
        for block in {id(i.parent): i.parent for i in self.removed if i.parent is not None}.values():
            block.instrs[:] = [i for i in block.instrs if i not in gone]
        for instr in self.removed:
            instr.parent = None
            instr.operands = ()
        return bool(self.removed)

    def _visit(self, instr: Instr, block: Block, at: int) -> None:
        """Rewrite `instr`, which is block.instrs[at] (kept by the caller: looking the
        position up for each instruction made long blocks quadratic)."""
        rule = RULES.get(instr.op)
        if rule is None:
            return
        self.b.block, self.b.index = block, at
        result = rule(self, instr)
        if result is None:
            return
        if isinstance(result, list):
            self.elems[instr] = result
        elif result is not instr:
            self.scalars[instr] = result
        self.removed.append(instr)

    def _rebuild_uses(self) -> None:
        """Give every kept user of a rewritten value the value it used: a scalar,
        or the vector rebuilt from its elements where it stood (just before it; a phi's
        after the block's phis, before those rebuilt earlier). The rebuilt vectors join
        their blocks at the end, each block in one sweep."""
        gone = set(self.removed)
        before: dict[Instr, list[Instr]] = {}  # a rewritten instruction -> its rebuilt vector
        after_phis: dict[Block, list[list[Instr]]] = {}  # a block -> its phis' vectors, in order
        for instr in self.removed:
            kept = [user for user in instr.users if user not in gone]
            if not kept:
                continue
            if instr in self.scalars:
                new = self.scalars[instr]
            else:
                chain = self._build_vector(instr)
                if instr.op == "phi":
                    assert instr.parent is not None
                    after_phis.setdefault(instr.parent, []).append(chain)
                else:
                    before[instr] = chain
                new = chain[-1]
            for user in kept:
                user.replace_uses_of(instr, new)
        blocks = [i.parent for i in before if i.parent is not None] + list(after_phis)
        for block in {id(b): b for b in blocks}.values():
            _place_rebuilt(block, before, after_phis.get(block, []))

    def _build_vector(self, instr: Instr) -> list[Instr]:
        """The insertelements rebuilding the vector of a rewritten instruction (in no block
        yet: `_place_rebuilt` puts them in)."""
        b = Builder()
        b.block, b.index = Block("rebuilt"), None
        vec: Value = Undef(instr.type)
        for k, part in enumerate(self.elems[instr]):
            vec = b.insertelement(vec, part, ConstInt(IntType(32), k))
        return b.block.instrs


def _place_rebuilt(block: Block, before: dict[Instr, list[Instr]], after_phis: list[list[Instr]]) -> None:
    """Put the rebuilt vectors in `block`: each just before its instruction, the phis'
    after the phis, the last rebuilt first (as inserting each there in turn would)."""
    instrs = block.instrs
    head = _first_non_phi(block)
    out = instrs[:head]
    for chain in reversed(after_phis):
        out += chain
    for instr in instrs[head:]:
        out += before.get(instr, ())
        out.append(instr)
    for instr in out[head:]:
        instr.parent = block
    instrs[:] = out


def _extracts_from(instr: Instr, v: Value) -> bool:
    return instr.op == "extractelement" and instr.operands[0] is v


def _first_non_phi(block: Block) -> int:
    return next((i for i, ins in enumerate(block.instrs) if ins.op != "phi"), len(block.instrs))


def _copy_flags(src: Instr, dst: Instr) -> Instr:
    for key in _FLAG_KEYS:
        if src.attrs.get(key):
            dst.attrs[key] = True
    return dst


# -- rules: each returns the elements, a scalar replacement, [] for a store, or None ---------


def _binary(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    a, c = i.operands
    return [_copy_flags(i, s.b.binop(i.op, s.element(a, k), s.element(c, k)))
            for k in range(s.lanes(i))]


def _fneg(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    return [s.b.fneg(s.element(i.operands[0], k)) for k in range(s.lanes(i))]


def _compare(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    make = s.b.icmp if i.op == "icmp" else s.b.fcmp
    a, c = i.operands
    return [make(i.attrs["pred"], s.element(a, k), s.element(c, k)) for k in range(s.lanes(i))]


def _select(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    cond, a, c = i.operands
    vector_cond = isinstance(cond.type, VectorType)
    out: Elements = []
    for k in range(s.lanes(i)):
        ck = s.element(cond, k) if vector_cond else s.scalar(cond)
        out.append(s.b.select(ck, s.element(a, k), s.element(c, k)))
    return out


def _cast(s: Scalarizer, i: Instr) -> Optional[Elements]:
    src = i.operands[0]
    if not s.fits(i.type) or s.lanes(src) != s.lanes(i):
        return None
    elem = i.type.elem  # type: ignore[attr-defined]
    return [s.b.cast(i.op, s.element(src, k), elem) for k in range(s.lanes(i))]


def _phi(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    parts = [s.b.phi(i.type.elem) for _ in range(s.lanes(i))]  # type: ignore[attr-defined]
    s.phis.append((i, parts))
    return list(parts)


def _memory_vector(s: Scalarizer, t: Type, i: Instr) -> Optional[VectorType]:
    """The vector type of a load or store this pass may split, or None."""
    if not s.fits(t) or i.attrs.get("volatile"):
        return None
    elem = t.elem  # type: ignore[attr-defined]
    if not isinstance(elem, (IntType, FloatType)) or elem.bits not in _MEMORY_BITS:
        return None
    return t  # type: ignore[return-value]


def _element_pointer(s: Scalarizer, vt: VectorType, ptr: Value, align: int,
                     k: int) -> tuple[Value, int]:
    """The address of element k and the alignment it has."""
    at = ptr if k == 0 else s.b.gep(vt.elem, ptr, [ConstInt(IntType(64), k)], inbounds=True)
    return at, element_align(align, vt, k * (vt.elem.bits // 8))  # type: ignore[attr-defined]


def _load(s: Scalarizer, i: Instr) -> Optional[Elements]:
    vt = _memory_vector(s, i.type, i)
    if vt is None:
        return None
    out: Elements = []
    for k in range(vt.count):
        at, align = _element_pointer(s, vt, i.operands[0], i.attrs.get("align", 0), k)
        out.append(s.b.load(vt.elem, at, align=align))
    return out


def _store(s: Scalarizer, i: Instr) -> Optional[Elements]:
    value, ptr = i.operands
    vt = _memory_vector(s, value.type, i)
    if vt is None:
        return None
    for k in range(vt.count):
        at, align = _element_pointer(s, vt, ptr, i.attrs.get("align", 0), k)
        s.b.store(s.element(value, k), at, align=align)
    return []


def _is_split(s: Scalarizer, v: Value) -> bool:
    """Whether the elements of `v` are at hand without extractelement."""
    return (isinstance(v, Instr) and v in s.elems) or constant_element(v, 0) is not None


def _index_is(s: Scalarizer, idx: Value, k: int) -> Value:
    return s.b.icmp("eq", idx, ConstInt(idx.type, k))


def _extractelement(s: Scalarizer, i: Instr) -> Optional[Value]:
    vec, idx = i.operands[0], s.scalar(i.operands[1])
    if not _is_split(s, vec):
        return None
    n = s.lanes(vec)
    if isinstance(idx, ConstInt):
        return s.element(vec, idx.value) if idx.value < n else Undef(i.type)
    acc = s.element(vec, 0)
    for k in range(1, n):
        acc = s.b.select(_index_is(s, idx, k), s.element(vec, k), acc)
    return acc


def _insertelement(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    vec, elt, idx = i.operands[0], s.scalar(i.operands[1]), s.scalar(i.operands[2])
    n = s.lanes(i)
    if isinstance(idx, ConstInt):
        if idx.value >= n:
            return [Undef(elt.type)] * n
        return [elt if k == idx.value else s.element(vec, k) for k in range(n)]
    return [s.b.select(_index_is(s, idx, k), elt, s.element(vec, k)) for k in range(n)]


def _shufflevector(s: Scalarizer, i: Instr) -> Optional[Elements]:
    if not s.fits(i.type):
        return None
    a, c = i.operands
    n = s.lanes(a)
    elem = i.type.elem  # type: ignore[attr-defined]
    out: Elements = []
    for m in i.attrs["mask"]:
        if m < 0 or m >= 2 * n:
            out.append(Undef(elem))
        else:
            out.append(s.element(a, m) if m < n else s.element(c, m - n))
    return out


def _scalar_math(s: Scalarizer, callee: Function, n: int) -> Optional[Function]:
    """The per-element declaration of vector math intrinsic `callee`, or None."""
    base = callee.attrs.get("intrinsic")
    prefix = f"ocl.{base}."
    if base not in _MATH or not callee.name.startswith(prefix):
        return None
    match = _SUFFIX.fullmatch(callee.name[len(prefix):])
    if match is None or int(match.group(1)) != n:
        return None
    ret = callee.type.ret.scalar()
    params = tuple(p.scalar() for p in callee.type.params)
    ftype = FunctionType(ret, params)
    name = prefix + match.group(2)
    existing = s.module.get_function(name)
    if existing is not None:
        return existing if existing.type == ftype else None
    args = [Argument(p, f"a{k}", k) for k, p in enumerate(params)]
    return s.module.add_function(Function(name, ftype, args, attrs={"intrinsic": base}))


def _call(s: Scalarizer, i: Instr) -> Optional[Elements]:
    callee = i.attrs["callee"]
    if not s.fits(i.type) or not isinstance(callee, Function):
        return None
    n = s.lanes(i)
    if any(isinstance(a.type, VectorType) and s.lanes(a) != n for a in i.operands):
        return None
    scalar_fn = _scalar_math(s, callee, n)
    if scalar_fn is None:
        return None
    out: Elements = []
    for k in range(n):
        args = [s.element(a, k) if isinstance(a.type, VectorType) else s.scalar(a)
                for a in i.operands]
        call = s.b.call(scalar_fn, args)
        call.attrs.update({key: v for key, v in i.attrs.items() if key != "callee"})
        out.append(call)
    return out


Rule = Callable[[Scalarizer, Instr], object]

RULES: dict[str, Rule] = {
    **{op: _binary for op, info in OPS.items() if info.kind is Kind.BINARY},
    "fneg": _fneg,
    "icmp": _compare,
    "fcmp": _compare,
    "select": _select,
    **{op: _cast for op, info in OPS.items() if info.kind is Kind.CAST},
    "phi": _phi,
    "load": _load,
    "store": _store,
    "extractelement": _extractelement,
    "insertelement": _insertelement,
    "shufflevector": _shufflevector,
    "call": _call,
}


@register
@dataclass
class ScalarizeVectors:
    """Split vector operations into element operations (see the module docstring).
    Requires: nothing. Invalidates: nothing (the CFG is unchanged)."""

    name: ClassVar[str] = "scalarize-vectors"
    max_elements: int = 16
    everywhere: bool = False  # False: only functions `worth_splitting` (scalarize_policy.py)

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            if self.everywhere or worth_splitting(fn):
                changed |= Scalarizer(fn, module, self.max_elements).run()
        return changed
