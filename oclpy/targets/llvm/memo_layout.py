"""A DataLayout that answers for each type once, for one module's LLVM IR emission.

The emitter asks our DataLayout for sizes, alignments and struct layouts at
every `getelementptr`, `alloca`, load and store, and `DataLayout` computes a
struct's layout afresh each time, with every nested struct's inside it.
CLSmith's kernels keep their globals in one struct of nested structs and
arrays, addressed by thousands of `getelementptr`s: atomics 1000003 spent
most of its LLVM IR emission there. `MemoLayout` remembers each answer, by
type object first (types are immutable; the table keeps the object, so its
id is not reused) and by type value then; the recursion of `DataLayout`'s
methods goes through the memo too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

from ...ir.datalayout import DataLayout, StructLayout
from ...ir.types import StructType, Type


@dataclass(frozen=True)
class MemoLayout(DataLayout):
    """A DataLayout's answers, each computed once per type (`memoized`)."""

    by_id: dict[tuple[str, int], tuple[Type, Any]] = field(default_factory=dict, compare=False, repr=False)
    by_value: dict[tuple[str, Type], Any] = field(default_factory=dict, compare=False, repr=False)

    def _answer(self, question: str, t: Type, compute: Callable[[], Any]) -> Any:
        known = self.by_id.get((question, id(t)))
        if known is not None:
            return known[1]
        key = (question, t)
        if key in self.by_value:
            answer = self.by_value[key]
        else:
            answer = self.by_value[key] = compute()
        self.by_id[(question, id(t))] = (t, answer)
        return answer

    def size_of(self, t: Type) -> int:
        return self._answer("size", t, lambda: super(MemoLayout, self).size_of(t))

    def align_of(self, t: Type) -> int:
        return self._answer("align", t, lambda: super(MemoLayout, self).align_of(t))

    def struct_layout(self, t: StructType) -> StructLayout:
        return self._answer("struct", t, lambda: super(MemoLayout, self).struct_layout(t))


def memoized(layout: DataLayout) -> MemoLayout:
    """`layout` with a memo of its own (one per module emitted: the tables grow with it)."""
    return MemoLayout(**{f.name: getattr(layout, f.name) for f in fields(DataLayout) if f.init})
