"""Filling a brace initializer list the way C11 6.7.9 says: a cursor through
nested aggregates, moved by designators and by brace elision.

The cursor is a stack of frames, one per aggregate being filled: the list the
user wrote at the bottom, then the sub-aggregates entered by brace elision
(`{1, 2, 3, 4}` for `struct { int a[2]; int b[2]; }`) or by a designator path
(`.in.y = 5`, `[1][2] = 3`, `[0 ... 3] = 7`). Each frame fills an `InitList`,
written or synthesized, whose `slots` are (member index, initializer) pairs in
order: later pairs for one index override earlier ones, as C's last-wins rule.
A designator resets the cursor to the top list and walks its path; the items
after it continue from the designated member, in the innermost frame.
Designators name members of anonymous struct and union members directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from math import prod
from typing import Optional, Protocol

from ....diagnostics import DiagnosticEngine, SourceLocation
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..ast import start_loc
from ..c_types import CType

Designator = ast.Designator
MAX_RANGE = 1 << 16  # elements one `[lo ... hi]` designator may initialize


class Checker(Protocol):
    """How the filler checks an item: as an initializer of a member's type, or as a whole member."""

    @property
    def diags(self) -> DiagnosticEngine: ...

    def initializer(self, init: ast.Expr, t: CType, constant: bool) -> ast.Expr: ...
    def same_type_item(self, item: ast.Expr, mt: CType) -> bool: ...


def _kind(t: CType) -> str:
    if isinstance(t, ct.Struct):
        return "union" if t.definition.is_union else "struct"
    return "vector" if isinstance(t, ct.Vector) else "array"


def is_aggregate(t: CType) -> bool:
    return isinstance(t, (ct.Array, ct.Struct, ct.Vector))


@dataclass
class Frame:
    t: CType
    init: ast.InitList
    pos: int = 0
    filled: bool = False  # a union takes one member

    def full(self) -> bool:
        t = self.t
        if isinstance(t, ct.Struct):
            if t.definition.is_union:  # an empty union (a GNU extension) takes nothing
                return self.filled or not t.definition.fields
            return self.pos >= len(t.definition.fields or [])
        count = t.count if isinstance(t, (ct.Array, ct.Vector)) else 1
        return count is not None and self.pos >= count

    def member_type(self, index: int) -> CType:
        t = self.t
        if isinstance(t, ct.Array):
            return t.elem
        if isinstance(t, ct.Vector):
            return ct.Scalar(t.elem)
        assert isinstance(t, ct.Struct)
        return (t.definition.fields or [])[index].type


def new_list(loc: object, t: CType) -> ast.InitList:
    sub = ast.InitList(loc, [], [])  # type: ignore[arg-type]
    sub.slots = []
    sub.ctype = t.unqualified()
    return sub


class ListFiller:
    def __init__(self, checker: Checker, constant: bool) -> None:
        self.checker, self.diags, self.constant = checker, checker.diags, constant
        self.warned_excess = False
        self.overflowed: set[int] = set()  # the vector lists a vector item ran past the end of

    def fill(self, init: ast.InitList, t: CType) -> None:
        top = Frame(t, init)
        init.slots = []
        init.ctype = t.unqualified()
        stack = [top]
        designators = init.designators or [None] * len(init.items)
        all_locs = init.designator_locs or [None] * len(init.items)
        for item, path, locs in zip(init.items, designators, all_locs):
            if path:
                stack = self.designated(top, path, item, locs or [(item.loc, item.loc, item.loc)] * len(path))
            else:
                self.place(stack, item)
        vector_items = any(isinstance(i.ctype, ct.Vector) or isinstance(i, ast.VectorLiteral) for i in init.items)
        if isinstance(t, ct.Vector) and init.items and not any(designators) and top.pos < t.count \
                and not (vector_items and self.constant) and id(init) not in self.overflowed:
            self.diags.error(init.loc, f"too few elements in vector initialization "
                                       f"(expected {t.count} elements, have {top.pos})")

    # -- designators ---------------------------------------------------------------
    def designated(self, top: Frame, path: list[Designator], item: ast.Expr,
                   locs: list[tuple[SourceLocation, ...]]) -> list[Frame]:
        """Place `item` at each member `path` names; the cursor after it (the top list's
        unchanged after an error)."""
        options: list[list[list[int]]] = []
        t = top.t
        for d, where in zip(path, locs):
            steps = self.resolve(t, d, where)
            if steps is None:
                return [top]
            options.append(steps)
            t = self.step_type(t, steps[0])
        if prod(len(o) for o in options) > MAX_RANGE:
            self.diags.error(locs[0][0], "array designator range is too large")
            return [top]
        stack: list[Frame] = []
        for choice in product(*options):
            stack = self.walk(top, [i for steps in choice for i in steps])
            self.place(stack, item)
        return stack

    def resolve(self, t: CType, d: Designator, where: tuple[SourceLocation, ...]) -> Optional[list[list[int]]]:
        """The member index paths one designator stands for (a field inside anonymous members
        is a path of several; a range is many alternatives); None after reporting an error.
        `where`: the designator's '.' or '[', then its name or index (or both range ends)."""
        if isinstance(d, str):
            if not isinstance(t, ct.Struct):
                self.diags.error(where[0], f"field designator cannot initialize a non-struct, non-union type '{t}'")
                return None
            names = [f.name for f in t.definition.fields or []]
            if d in names:
                return [[names.index(d)]]
            return self.anonymous_path(t, d, where[1])
        if not isinstance(t, (ct.Array, ct.Vector)):
            self.diags.error(where[0], f"array designator cannot initialize non-array type '{t}'")
            return None
        lo, hi = d if isinstance(d, tuple) else (d, d)
        count = t.count if t.count is not None else 1 << 62
        for index, loc in zip((lo, hi), where[1:] + where[-1:]):
            if index < 0 or index >= count:
                self.diags.error(loc, f"array designator index ({index}) exceeds array bounds ({count})")
                return None
        if hi - lo >= MAX_RANGE:
            self.diags.error(where[0], f"array designator range is too large ({hi - lo + 1} elements)")
            return None
        return [[i] for i in range(lo, hi + 1)]

    def anonymous_path(self, t: ct.Struct, name: str, loc: SourceLocation) -> Optional[list[list[int]]]:
        path = t.definition.anonymous_path(name)
        if path is None:
            self.diags.error(loc, f"field designator '{name}' does not refer to any field in type '{t}'")
            return None
        indices, inner = [], t
        for anonymous in path:
            indices.append((inner.definition.fields or []).index(anonymous))
            inner = anonymous.type  # type: ignore[assignment]
        names = [f.name for f in inner.definition.fields or []]
        return [indices + [names.index(name)]]

    @staticmethod
    def step_type(t: CType, steps: list[int]) -> CType:
        """The member type at index path `steps` below `t`."""
        for index in steps:
            if isinstance(t, ct.Array):
                t = t.elem
            elif isinstance(t, ct.Vector):
                t = ct.Scalar(t.elem)
            else:
                assert isinstance(t, ct.Struct)
                t = (t.definition.fields or [])[index].type
        return t

    def walk(self, top: Frame, indices: list[int]) -> list[Frame]:
        """The cursor at member `indices` of the top list, entering (or re-entering) the
        sub-aggregates on the way."""
        stack = [top]
        for depth, index in enumerate(indices):
            frame = stack[-1]
            frame.pos, frame.filled = index, False
            if depth < len(indices) - 1:
                stack.append(self.enter(frame, index, reuse=True))
        return stack

    # -- placing items ------------------------------------------------------------
    def enter(self, frame: Frame, index: int, reuse: bool) -> Frame:
        """The frame of sub-aggregate `index` of `frame`: a synthesized list for it, or (when
        `reuse`) the one a previous designator made."""
        mt = frame.member_type(index)
        slots = frame.init.slots
        previous = next((s for i, s in reversed(slots) if i == index), None)
        if reuse and isinstance(previous, ast.InitList) and not previous.items:
            return Frame(mt, previous)
        sub = new_list(frame.init.loc, mt)
        slots[:] = [(i, s) for i, s in slots if i != index]
        slots.append((index, sub))
        return Frame(mt, sub)

    def place(self, stack: list[Frame], item: ast.Expr) -> None:
        """Put one item at the cursor (descending by brace elision, closing full frames); an
        item past the end is dropped with clang's warning (once per list)."""
        while True:
            frame = stack[-1]
            if frame.full():
                if len(stack) == 1 and self.vector_past_end(frame, item):
                    return
                if len(stack) == 1:
                    if not self.warned_excess:
                        self.diags.warning(start_loc(item), f"excess elements in {_kind(frame.t)} initializer")
                        self.warned_excess = True
                    return
                stack.pop()
                stack[-1].pos += 1
                stack[-1].filled = True
                continue
            mt = frame.member_type(frame.pos)
            if self.vector_part(frame, item):
                return
            if isinstance(frame.t, ct.Struct) and isinstance(mt, ct.Array) and mt.count is None:
                self.diags.error(start_loc(item), "initialization of flexible array member is not allowed")
                frame.pos += 1
                return
            if self.elides(item, mt):
                stack.append(self.enter(frame, frame.pos, reuse=False))
                continue
            frame.init.slots.append((frame.pos, self.checker.initializer(item, mt, self.constant)))
            frame.pos += 1
            frame.filled = True
            return

    def too_many(self, frame: Frame) -> None:
        """clang's error for a vector's list holding more elements than the vector, once a list."""
        if id(frame.init) in self.overflowed:
            return
        self.overflowed.add(id(frame.init))
        t = frame.t
        assert isinstance(t, ct.Vector)
        have = 0
        for i in frame.init.items:
            if not isinstance(i, ast.InitList):
                self.checker.same_type_item(i, t)
            have += i.ctype.count if isinstance(i.ctype, ct.Vector) else 1
        self.diags.error(frame.init.loc, f"too many elements in vector initialization "
                                         f"(expected {t.count} elements, have {have})")

    def vector_past_end(self, frame: Frame, item: ast.Expr) -> bool:
        """A vector item after a vector's list is full: clang's error."""
        if not isinstance(frame.t, ct.Vector) or self.constant or isinstance(item, ast.InitList):
            return False
        self.checker.same_type_item(item, frame.t)
        if not isinstance(item.ctype, ct.Vector):
            return False
        self.too_many(frame)
        return True

    def vector_part(self, frame: Frame, item: ast.Expr) -> bool:
        """A vector item in a vector's braces fills as many elements as it has (`float4 v =
        {p.xy, p.yx}`, as clang -x cl takes it): placed as one slot at its first element."""
        t = frame.t
        if not isinstance(t, ct.Vector) or self.constant or isinstance(item, ast.InitList):
            return False
        self.checker.same_type_item(item, t)  # gives the item its type
        it = item.ctype
        if not isinstance(it, ct.Vector):
            return False
        if it.elem != t.elem:
            return False
        if frame.pos + it.count > t.count:
            frame.pos = t.count
            self.too_many(frame)
            return True
        frame.init.slots.append((frame.pos, self.checker.initializer(item, it.unqualified(), self.constant)))
        frame.pos += it.count
        frame.filled = True
        return True

    def elides(self, item: ast.Expr, mt: CType) -> bool:
        """Does `item` start the elided braces of aggregate member type `mt`?"""
        if not is_aggregate(mt) or isinstance(item, ast.InitList) or st.is_error(mt):
            return False
        if isinstance(mt, ct.Vector):  # OpenCL C (as clang -x cl): a scalar item splats, a vector converts
            return False
        if isinstance(item, ast.StringLiteral) and isinstance(mt, ct.Array) and \
                st.scalar_kind(mt.elem) in (ct.ScalarKind.CHAR, ct.ScalarKind.UCHAR):
            return False
        return not self.checker.same_type_item(item, mt)
