"""Variables in scope, and random access paths into them.

An access path is the C text that reaches a scalar or vector inside a
variable (`s1.a[3].s2`, `p[(x) & 7]`), chosen at random among the paths whose
type satisfies a predicate. Array extents are powers of two so any index
expression masked by `n - 1` stays in bounds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from .types import ArrayType, CType, IntType, PtrType, RecordType, VecType

Pred = Callable[[CType], bool]


@dataclass
class Var:
    name: str
    type: CType
    readonly: bool = False
    space: str = ""          # "", "__local", "__global", "__constant"


def reaches(t: CType, pred: Pred) -> bool:
    if pred(t):
        return True
    if isinstance(t, VecType):
        return pred(t.elem)
    if isinstance(t, (ArrayType, PtrType)):
        return reaches(t.elem, pred)
    if isinstance(t, RecordType):
        return any(reaches(m, pred) for _, m in t.members)
    return False


class Scope:
    """A stack of blocks of variables."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.blocks: list[list[Var]] = [[]]

    def push(self) -> None:
        self.blocks.append([])

    def pop(self) -> list[Var]:
        return self.blocks.pop()

    def add(self, var: Var) -> Var:
        self.blocks[-1].append(var)
        return var

    def all(self) -> list[Var]:
        return [v for b in self.blocks for v in b]

    def candidates(self, pred: Pred, write: bool) -> list[Var]:
        return [v for v in self.all() if reaches(v.type, pred)
                and not (write and (v.readonly or v.space == "__constant"))]

    def access(self, pred: Pred, write: bool, index: Callable[[int], str]) -> tuple[str, CType] | None:
        """A random path to a value whose type satisfies `pred` (None if none)."""
        cands = self.candidates(pred, write)
        if not cands:
            return None
        var = self.rng.choice(cands)
        return self._descend(var.name, var.type, pred, index)

    def _descend(self, text: str, t: CType, pred: Pred, index: Callable[[int], str]) -> tuple[str, CType]:
        if pred(t) and (self.rng.random() < 0.7 or not _has_inner(t, pred)):
            return text, t
        if isinstance(t, VecType):
            return f"{text}.s{self.rng.randrange(t.n):x}", t.elem
        if isinstance(t, (ArrayType, PtrType)):
            n = t.n if isinstance(t, ArrayType) else t.extent
            return self._descend(f"{text}[{index(n)}]", t.elem, pred, index)
        assert isinstance(t, RecordType)
        name, mt = self.rng.choice([(n, m) for n, m in t.members if reaches(m, pred)])
        return self._descend(f"{text}.{name}", mt, pred, index)


def _has_inner(t: CType, pred: Pred) -> bool:
    if isinstance(t, VecType):
        return pred(t.elem)
    if isinstance(t, (ArrayType, PtrType)):
        return reaches(t.elem, pred)
    if isinstance(t, RecordType):
        return any(reaches(m, pred) for _, m in t.members)
    return False


def is_int(t: CType) -> bool:
    return isinstance(t, IntType)
