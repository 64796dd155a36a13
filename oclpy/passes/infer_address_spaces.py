"""infer-address-spaces: give generic pointers the named space they provably have.

OpenCL 2.0 code written with unqualified pointers reaches the IR as
`ptr<generic>` values made by `addrspacecast`s from named pointers. Generic
memory operations are slower on GPUs (the hardware decides the space per
access), so this pass proves, wherever it can, which named space a generic
pointer points into and rewrites the pointer's computation into that space.

How
---
`analysis/address_spaces.py` infers, for every generic pointer value, the
named space it provably points into (through casts, getelementptr, phis,
selects, private pointer slots, and helper arguments and results).

The rewrite then changes the type of each inferred getelementptr, phi,
select, argument and call result in place to `ptr<S>` (a helper's signature
follows its arguments and result); an inferred cast is replaced by its
source; an inferred load gets a cast `generic -> S` right after it. Every use
that still needs a generic pointer (a store of the pointer, `ptrtoint`, a
call of a declaration, a phi that stays generic) gets a cast back, made once,
right after the definition. `addrspacecast generic -> S` of a pointer now in
S disappears, and so do the casts this made dead. `icmp` of two pointers
inferred into the same space compares them there. The OpenCL 2.0 tests
`ocl.to_global/to_local/to_private(p)` of a pointer inferred into a named space
fold: to the pointer itself when the spaces agree, to null otherwise.

The whole thing repeats while it changes something (a rewrite can turn an
escaping alloca into a pointer slot).

Requires: best after `inline` and `mem2reg` (fewer calls and memory round
trips hide less). Invalidates: nothing about the CFG; helper signatures may change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from oclpy.analysis.address_spaces import GENERIC, GENERIC_PTR, Inference
from oclpy.ir.intrinsics import GENERIC_SPACE_TESTS
from oclpy.ir.types import AddressSpace, FunctionType, PtrType, Type
from oclpy.ir.values import (
    Argument, ConstNull, Function, Instr, Module, Undef, Value,
)

from .manager import defined_functions, register
from .dce import is_removable

MAX_ROUNDS = 4


@register
@dataclass
class InferAddressSpaces:
    """Rewrite generic pointers into the named space they provably point to.
    Requires: best after inline and mem2reg. Invalidates: helper signatures (not the CFG)."""

    name: ClassVar[str] = "infer-address-spaces"

    def run(self, module: Module) -> bool:
        changed = False
        for _ in range(MAX_ROUNDS):
            inference = Inference(module)
            inference.solve()
            if not rewrite(module, inference):
                break
            changed = True
        return changed


# -- the rewrite -----------------------------------------------------------------------


@dataclass
class _Rewriter:
    inference: Inference
    new: dict[Value, Value] = field(default_factory=dict)  # inferred value -> its named form
    back: dict[Value, Instr] = field(default_factory=dict)  # mutated value -> cast back to generic
    made: set[Instr] = field(default_factory=set)  # casts this rewrite inserted
    alias: dict[Value, Value] = field(default_factory=dict)  # folded cast or test -> its answer
    dead: list[Instr] = field(default_factory=list)  # casts that may have become unused
    changed: bool = False

    def named(self, value: Value) -> Value | None:
        return self.new.get(value)

    def generic(self, value: Value) -> Value:
        """The generic pointer `value` stood for before the rewrite."""
        if value.type == GENERIC_PTR or isinstance(value, (ConstNull, Undef)):
            return value
        cast = self.back.get(value)
        if cast is None:
            cast = Instr("addrspacecast", GENERIC_PTR, [value], name=f"{value.name}.gen"
                         if value.name else "")
            _insert_after_definition(value, cast, self.inference)
            self.back[value] = cast
            self.made.add(cast)
            self.changed = True
        return cast

    def set_operand(self, instr: Instr, k: int, value: Value) -> None:
        if instr.operands[k] is not value:
            instr.set_operand(k, value)
            self.changed = True


def rewrite(module: Module, inference: Inference) -> bool:
    """Apply `inference` to `module`; return whether anything changed."""
    inferred = {v: s for v, s in inference.spaces.items() if s is not None and s is not GENERIC}
    if not inferred:
        return False
    rw = _Rewriter(inference)
    for value, space in inferred.items():
        rw.new[value] = _named_form(value, space, rw)
    _update_signatures(module, inference)
    for fn in defined_functions(module):
        for instr in fn.instructions():
            if instr not in rw.made:
                _fold(instr, rw)
    for fn in defined_functions(module):
        for instr in list(fn.instructions()):
            if instr not in rw.made and instr not in rw.alias:
                _fix_operands(instr, rw)
    for fn in defined_functions(module):
        rw.changed |= _remove_dead(fn, rw.dead)
    return rw.changed


def _named_form(value: Value, space: AddressSpace, rw: _Rewriter) -> Value:
    named = PtrType(space)
    if isinstance(value, Instr) and value.op == "addrspacecast":
        rw.dead.append(value)
        return value.operands[0]
    if isinstance(value, Instr) and value.op == "load":
        cast = _existing_cast(value, named, rw.inference)
        if cast is None:
            cast = Instr("addrspacecast", named, [value], name=f"{value.name}.{space.value}"
                         if value.name else "")
            _insert_after_definition(value, cast, rw.inference)
            rw.changed = True
        rw.made.add(cast)
        return cast
    value.type = named  # gep, phi, select, call result, argument
    rw.changed = True
    return value


def _existing_cast(load: Instr, named: PtrType, inference: Inference) -> Instr | None:
    """A cast of `load` to `named` made by an earlier round, right after the load."""
    block = load.parent
    if block is None:
        return None
    at = block.instrs.index(load) + 1
    after = block.instrs[at] if at < len(block.instrs) else None
    if after is not None and after.op == "addrspacecast" and after.type == named and \
            after.operands[0] is load:
        return after
    return None


def _update_signatures(module: Module, inference: Inference) -> None:
    for fn in inference.sites:
        ret = fn.type.ret
        space = inference.returns.get(fn)
        if ret == GENERIC_PTR and space is not None and space is not GENERIC:
            ret = PtrType(space)
        new_type = FunctionType(ret, tuple(a.type for a in fn.args))
        if new_type != fn.type:
            fn.type = new_type
            for call in inference.sites[fn]:
                call.type = ret


def _insert_after_definition(value: Value, cast: Instr, inference: Inference) -> None:
    if isinstance(value, Argument):
        inference.owner[value].entry.insert(0, cast)
        return
    assert isinstance(value, Instr) and value.parent is not None
    block = value.parent
    at = block.instrs.index(value) + 1
    if value.op == "phi":
        at = len(block.phis())
    block.insert(at, cast)


def _fold(instr: Instr, rw: _Rewriter) -> None:
    """Record what a cast `generic -> S` or a test `ocl.to_<S>` of an inferred pointer
    answers: the pointer in S, or (a test of another space) null."""
    if not instr.operands or rw.named(instr.operands[0]) is None:
        return
    named = rw.named(instr.operands[0])
    assert named is not None
    if instr.op == "addrspacecast" and instr.type == named.type:
        rw.alias[instr] = named
    elif instr.op == "call" and \
            instr.attrs["callee"].attrs.get("intrinsic") in GENERIC_SPACE_TESTS:
        rw.alias[instr] = named if named.type == instr.type else ConstNull(instr.type)
    else:
        return
    rw.dead.append(instr)


def _fix_operands(instr: Instr, rw: _Rewriter) -> None:
    """Give each operand of `instr` the named form where `instr` accepts it, else a generic
    one; operands that were folded casts or tests take their answer (same type)."""
    aliased = {k for k, op in enumerate(instr.operands) if op in rw.alias}
    for k in aliased:
        rw.set_operand(instr, k, rw.alias[instr.operands[k]])
    if instr.op == "icmp":
        if not aliased:  # else both sides had the aliased one's named type already
            _fix_icmp(instr, rw)
        return
    for k, op in enumerate(instr.operands):
        if k in aliased:
            continue
        want = _wanted_type(instr, k)
        named = rw.named(op)
        if named is not None:
            rw.set_operand(instr, k, named if want in (None, named.type) else rw.generic(op))
        elif isinstance(op, (ConstNull, Undef)) and op.type == GENERIC_PTR and \
                isinstance(want, PtrType) and want != GENERIC_PTR:
            rw.set_operand(instr, k, type(op)(want))


def _wanted_type(instr: Instr, k: int) -> Type | None:
    """The pointer type operand `k` of `instr` must have; None: any pointer will do."""
    if (instr.op, k) in _ADDRESS_OPERANDS:
        return None
    if instr.op in ("phi", "select") or (instr.op, k) == ("getelementptr", 0):
        return instr.type
    if instr.op == "call":
        params = instr.attrs["callee"].type.params
        return params[k] if k < len(params) else GENERIC_PTR
    if instr.op == "ret":
        fn = instr.parent.parent if instr.parent is not None else None
        return fn.type.ret if fn is not None else GENERIC_PTR
    return GENERIC_PTR


_ADDRESS_OPERANDS = {("load", 0), ("store", 1), ("atomicrmw", 0), ("cmpxchg", 0)}


def _fix_icmp(instr: Instr, rw: _Rewriter) -> None:
    a, b = instr.operands
    na, nb = rw.named(a), rw.named(b)
    if na is not None and nb is None and isinstance(b, (ConstNull, Undef)):
        nb = type(b)(na.type)
    if nb is not None and na is None and isinstance(a, (ConstNull, Undef)):
        na = type(a)(nb.type)
    if na is None or nb is None or na.type != nb.type:
        na = rw.generic(a) if a in rw.new else a
        nb = rw.generic(b) if b in rw.new else b
    rw.set_operand(instr, 0, na)
    rw.set_operand(instr, 1, nb)


def _remove_dead(fn: Function, candidates: list[Instr]) -> bool:
    """Delete the candidates (and pure operands they kept alive) that nothing uses;
    return whether any was."""
    # Imported here: pass modules load each other through the registry in manager.py.

    work = [c for c in candidates if c.parent is not None and c.parent.parent is fn]
    removed = False
    while work:
        instr = work.pop()
        if instr.parent is None or instr.users or not is_removable(instr):
            continue
        operands = instr.operands
        instr.erase()
        removed = True
        work += [op for op in operands if isinstance(op, Instr) and not op.users]
    return removed
