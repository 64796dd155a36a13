"""expand-atomics: atomics a target has no instruction for, as ordinary IR.

Two kinds, as LLVM's AtomicExpand does them:

- **Private memory** belongs to one work-item, so an atomic on a `ptr<private>` is a
  plain read-modify-write: `load`, the operation (`binop`, or a `select` for
  min/max/xchg and for `cmpxchg`'s compare), `store`; its result is the loaded value.
- **8- and 16-bit atomics** on shared memory become a compare-and-swap loop on the
  aligned 32-bit word that holds them: the word's address is the pointer less its low
  two bits (a `getelementptr i8` by the negated remainder), the part sits at `8 *
  remainder` bits (little-endian); each iteration computes the new part from the word
  last seen, merges it into the word, and `cmpxchg`es the word, until the swap sees
  the word it computed from. Lanes hitting one word retry until each has had its turn.
  The result is the part of the word the successful swap replaced.

`width` (option `{width=N}`, default 32) is the narrowest atomic the target has.

Requires: nothing. Invalidates: the CFG (the loops are new blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir import types as ir
from oclpy.ir.builder import Builder
from oclpy.ir.values import Block, ConstInt, Function, Instr, Module, Value

from .manager import defined_functions, register

SELECTS = {"max": "sgt", "min": "slt", "umax": "ugt", "umin": "ult"}


def combine(b: Builder, binop: str, old: Value, value: Value) -> Value:
    """What `atomicrmw binop` stores, from the old value and its operand."""
    if binop == "xchg":
        return value
    if binop in SELECTS:
        return b.select(b.icmp(SELECTS[binop], old, value), old, value)
    return b.binop(binop, old, value)


def stored(b: Builder, atomic: Instr, old: Value) -> Value:
    """The value `atomic` writes where the memory held `old`."""
    if atomic.op == "cmpxchg":
        _, expected, new = atomic.operands
        return b.select(b.icmp("eq", old, expected), new, old)
    return combine(b, atomic.attrs["binop"], old, atomic.operands[1])


def value_type(atomic: Instr) -> ir.Type:
    return atomic.operands[-1].type


def expand_private(atomic: Instr) -> None:
    """A private atomic as load, operation, store."""
    b = Builder(atomic.parent)  # type: ignore[arg-type]
    b.position_before(atomic)
    t, ptr = value_type(atomic), atomic.operands[0]
    size = max(1, getattr(t, "bits", 32) // 8)
    old = b.load(t, ptr, size)
    b.store(stored(b, atomic, old), ptr, size)
    atomic.replace_all_uses_with(old)
    atomic.erase()


def split_after(fn: Function, block: Block, instr: Instr, name: str) -> Block:
    """Move what follows `instr` in `block` into a new block placed after it; successors'
    phis then name the new block."""
    tail = Block(fn.unique_block_name(name), parent=fn)
    fn.blocks.insert(fn.blocks.index(block) + 1, tail)
    at = block.instrs.index(instr)
    for moved in block.instrs[at + 1:]:
        tail.append(moved)
    del block.instrs[at + 1:]
    for succ in {id(s): s for s in tail.successors()}.values():
        for phi in succ.phis():
            phi.blocks = [tail if p is block else p for p in phi.blocks]
    return tail


def expand_partword(fn: Function, atomic: Instr) -> None:
    """An 8- or 16-bit atomic as a 32-bit compare-and-swap loop on its word."""
    block = atomic.parent
    assert block is not None
    t, ptr = value_type(atomic), atomic.operands[0]
    mask = (1 << t.bits) - 1  # type: ignore[attr-defined]
    done = split_after(fn, block, atomic, f"{block.name}.atomic.done")
    loop = Block(fn.unique_block_name(f"{block.name}.atomic.loop"), parent=fn)
    fn.blocks.insert(fn.blocks.index(done), loop)
    b = Builder(block)
    b.position_before(atomic)
    rem = b.binop("and", b.cast("ptrtoint", ptr, ir.I64), ConstInt(ir.I64, 3))
    word_ptr = b.gep(ir.I8, ptr, [b.binop("sub", ConstInt(ir.I64, 0), rem)])
    shift = b.cast("trunc", b.binop("shl", rem, ConstInt(ir.I64, 3)), ir.I32)
    keep = b.binop("xor", b.binop("shl", ConstInt(ir.I32, mask), shift), ConstInt(ir.I32, -1))
    first = b.load(ir.I32, word_ptr, 4)
    b.br(loop)
    b.position_at_end(loop)
    seen = b.phi(ir.I32)
    old = b.cast("trunc", b.binop("lshr", seen, shift), t)
    part = b.binop("shl", b.cast("zext", stored(b, atomic, old), ir.I32), shift)
    word = b.binop("or", b.binop("and", seen, keep), part)
    swapped = b.cmpxchg(word_ptr, seen, word, atomic.attrs["ordering"], atomic.attrs["scope"])
    seen.add_incoming(first, block)
    seen.add_incoming(swapped, loop)
    b.condbr(b.icmp("eq", swapped, seen), done, loop)
    atomic.replace_all_uses_with(old)
    atomic.erase()  # it followed the `br loop` built before it


def needs_expansion(instr: Instr, width: int) -> str | None:
    if instr.op not in ("atomicrmw", "cmpxchg"):
        return None
    space = instr.operands[0].type.space  # type: ignore[attr-defined]
    if space is ir.AddressSpace.PRIVATE:
        return "private"
    t = value_type(instr)
    if isinstance(t, ir.IntType) and t.bits < width:
        return "partword"
    return None


def expand_atomics(fn: Function, width: int) -> bool:
    todo = [(i, kind) for i in fn.instructions() if (kind := needs_expansion(i, width))]
    for atomic, kind in todo:
        if kind == "private":
            expand_private(atomic)
        else:
            expand_partword(fn, atomic)
    return bool(todo)


@register
@dataclass
class ExpandAtomics:
    """Private atomics as read-modify-writes; atomics narrower than `width` bits as a
    compare-and-swap loop on their 32-bit word.
    Requires: nothing. Invalidates: the CFG."""

    name: ClassVar[str] = "expand-atomics"
    width: int = 32

    def run(self, module: Module) -> bool:
        changed = False
        for fn in defined_functions(module):
            changed |= expand_atomics(fn, self.width)
        return changed
