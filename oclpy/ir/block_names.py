"""BlockNames: unique block names for many new blocks of one function at once."""

from __future__ import annotations

from .values import Function


class BlockNames:
    """`Function.unique_block_name` for many new blocks at once: the names taken are
    kept, and the next number to try for each name, so naming the blocks of the
    k-th inlined copy of a callee costs O(1), not O(blocks + k)."""

    def __init__(self, fn: Function) -> None:
        self.taken = {b.name for b in fn.blocks}
        self.next: dict[str, int] = {}

    def unique(self, name: str) -> str:
        if name in self.taken:
            n = self.next.get(name, 1)
            while f"{name}{n}" in self.taken:
                n += 1
            self.next[name] = n + 1
            name = f"{name}{n}"
        self.taken.add(name)
        return name
