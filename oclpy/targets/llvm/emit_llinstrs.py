"""LLVM instructions llvmlite cannot spell: atomics with `syncscope(...)`, and
volatile loads and stores. Each subclasses llvmlite's own and only changes
the text it prints."""

from __future__ import annotations

from llvmlite import ir as ll


class AtomicRMWScoped(ll.instructions.AtomicRMW):
    """`atomicrmw` with an optional `syncscope("...")` (llvmlite has none)."""

    def __init__(self, parent, op, ptr, val, ordering, scope, name):  # type: ignore[no-untyped-def]
        super().__init__(parent, op, ptr, val, ordering, name)
        self.scope = scope

    def descr(self, buf: list[str]) -> None:
        ptr, val = self.operands
        scope = f' syncscope("{self.scope}")' if self.scope else ""
        buf.append(f"atomicrmw {self.operation} {ptr.type} {ptr.get_reference()}, "
                   f"{val.type} {val.get_reference()}{scope} {self.ordering}\n")


class CmpXchgScoped(ll.instructions.CmpXchg):
    """`cmpxchg` with an optional `syncscope("...")`."""

    def __init__(self, parent, ptr, cmp, val, ordering, failordering, scope, name):  # type: ignore[no-untyped-def]
        super().__init__(parent, ptr, cmp, val, ordering, failordering, name)
        self.scope = scope

    def descr(self, buf: list[str]) -> None:
        ptr, cmp, val = self.operands
        scope = f' syncscope("{self.scope}")' if self.scope else ""
        buf.append(f"cmpxchg {ptr.type} {ptr.get_reference()}, {cmp.type} "
                   f"{cmp.get_reference()}, {val.type} {val.get_reference()}{scope} "
                   f"{self.ordering} {self.failordering}\n")


class VolatileLoad(ll.instructions.LoadInstr):
    """`load volatile` (llvmlite's LoadInstr has no volatile flag)."""

    def descr(self, buf: list[str]) -> None:
        inner: list[str] = []
        super().descr(inner)
        buf.append(inner[0].replace("load ", "load volatile ", 1))


class VolatileStore(ll.instructions.StoreInstr):
    """`store volatile`."""

    def descr(self, buf: list[str]) -> None:
        inner: list[str] = []
        super().descr(inner)
        buf.append(inner[0].replace("store ", "store volatile ", 1))
