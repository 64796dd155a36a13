"""infer-address-spaces: give generic pointers the named space they provably have.

OpenCL 2.0 code written with unqualified pointers reaches the IR as
`ptr<generic>` values made by `addrspacecast`s from named pointers. Generic
memory operations are slower on GPUs (the hardware decides the space per
access), so this pass proves, wherever it can, which named space a generic
pointer points into and rewrites the pointer's computation into that space.

How
---
A forward data-flow over a three-level lattice per generic pointer value:
"no information yet" (None) above each named space above `generic` (the
bottom: two different spaces, or something we cannot see through). Transfer
rules, one per way a generic pointer is made (`_TRANSFER`):

- `addrspacecast ptr<S> -> ptr<generic>`: S;
- `getelementptr`: the space of its base;
- `phi`, `select`: the meet of the incoming values (`null` and `undef` add
  nothing: they are valid in every space);
- `load` of a `ptr<generic>` from a private *pointer slot*: the meet of every
  pointer stored into that slot. A slot is an `alloca` whose address (through
  getelementptrs) is used only as the address of loads and stores of
  `ptr<generic>`: it does not escape, so every value in it is one we saw stored;
- arguments of helper functions (not kernels) whose every use is a direct
  call: the meet over the call sites; the results of calls to such helpers:
  the meet of the values they return;
- anything else (`inttoptr`, loads from other memory, extractvalue, calls of
  declarations): generic.

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
from typing import Callable, ClassVar

from oclpy.ir.intrinsics import GENERIC_SPACE_TESTS
from oclpy.ir.types import AddressSpace, FunctionType, PtrType, Type
from oclpy.ir.values import (
    Argument, Block, ConstNull, Function, Instr, Module, Undef, Value,
)

from .manager import defined_functions, register

GENERIC = AddressSpace.GENERIC
GENERIC_PTR = PtrType(GENERIC)
Space = AddressSpace | None  # None: no information yet (the lattice's top)

MAX_ROUNDS = 4


def meet(a: Space, b: Space) -> Space:
    """The lattice meet: None is the identity, two different spaces give generic."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    return GENERIC


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


# -- the analysis ----------------------------------------------------------------------


Uses = dict[Value, list[tuple[Instr, int]]]


def _uses(module: Module) -> Uses:
    uses: Uses = {}
    for fn in defined_functions(module):
        for instr in fn.instructions():
            for k, op in enumerate(instr.operands):
                uses.setdefault(op, []).append((instr, k))
    return uses


def _is_generic(value: Value) -> bool:
    return value.type == GENERIC_PTR


def _pointer_slots(fn: Function, uses: Uses) -> dict[Value, Instr]:
    """Each address into a private pointer slot (the alloca or a gep of it) -> its alloca."""
    slots: dict[Value, Instr] = {}
    for alloca in (i for i in fn.instructions() if i.op == "alloca"):
        addresses = _slot_addresses(alloca, uses)
        if addresses is not None:
            slots.update((a, alloca) for a in addresses)
    return slots


def _slot_addresses(alloca: Instr, uses: Uses) -> list[Value] | None:
    """The addresses derived from `alloca`, or None when one is used other than as
    the address of a load or store of `ptr<generic>`."""
    addresses: list[Value] = [alloca]
    work: list[Value] = [alloca]
    while work:
        address = work.pop()
        for user, k in uses.get(address, []):
            if user.op == "getelementptr" and k == 0:
                addresses.append(user)
                work.append(user)
            elif user.op == "load" and user.type == GENERIC_PTR:
                continue
            elif user.op == "store" and k == 1 and user.operands[0].type == GENERIC_PTR:
                continue
            else:
                return None
    return addresses


@dataclass
class Inference:
    """The inferred space of every generic pointer value of a module."""

    module: Module
    spaces: dict[Value, Space] = field(default_factory=dict)
    returns: dict[Function, Space] = field(default_factory=dict)
    slot_spaces: dict[Instr, Space] = field(default_factory=dict)
    uses: Uses = field(init=False)
    sites: dict[Function, list[Instr]] = field(init=False)
    slots: dict[Value, Instr] = field(init=False)
    owner: dict[Argument, Function] = field(init=False)

    def __post_init__(self) -> None:
        self.uses = _uses(self.module)
        self.owner = {a: fn for fn in defined_functions(self.module) for a in fn.args}
        self.sites = _call_sites(self.module, self.uses)
        self.slots = {}
        for fn in defined_functions(self.module):
            self.slots.update(_pointer_slots(fn, self.uses))

    def space_of(self, value: Value) -> Space:
        """What an operand contributes: its named space, nothing (null, undef), or its inference."""
        t = value.type
        if isinstance(value, (ConstNull, Undef)):
            return None
        if isinstance(t, PtrType) and t.space is not GENERIC:
            return t.space
        return self.spaces.get(value, GENERIC)

    def solve(self) -> None:
        nodes = self._nodes()
        for node in nodes:
            self.spaces[node] = None
        changed = True
        while changed:
            changed = False
            for fn in self.sites:
                if fn.type.ret == GENERIC_PTR:
                    changed |= self._update_return(fn)
            for alloca in set(self.slots.values()):
                changed |= self._update_slot(alloca)
            for node in nodes:
                new = meet(self.spaces[node], self._transfer(node))
                if new is not self.spaces[node]:
                    self.spaces[node] = new
                    changed = True

    def _nodes(self) -> list[Value]:
        nodes: list[Value] = []
        for fn in defined_functions(self.module):
            nodes += [a for a in fn.args if _is_generic(a)]
            nodes += [i for i in fn.instructions() if _is_generic(i)]
        return nodes

    def _update_return(self, fn: Function) -> bool:
        space = self.returns.get(fn)
        for instr in fn.instructions():
            if instr.op == "ret" and instr.operands:
                space = meet(space, self.space_of(instr.operands[0]))
        changed = space is not self.returns.get(fn)
        self.returns[fn] = space
        return changed

    def _update_slot(self, alloca: Instr) -> bool:
        space = self.slot_spaces.get(alloca)
        for address, slot in self.slots.items():
            if slot is alloca:
                for user, k in self.uses.get(address, []):
                    if user.op == "store" and k == 1:
                        space = meet(space, self.space_of(user.operands[0]))
        changed = space is not self.slot_spaces.get(alloca)
        self.slot_spaces[alloca] = space
        return changed

    def _transfer(self, node: Value) -> Space:
        if isinstance(node, Argument):
            return self._argument(node)
        assert isinstance(node, Instr)
        rule = _TRANSFER.get(node.op)
        return rule(self, node) if rule is not None else GENERIC

    def _argument(self, arg: Argument) -> Space:
        fn = self.owner.get(arg)
        if fn not in self.sites:
            return GENERIC
        space: Space = None
        for call in self.sites[fn]:  # type: ignore[index]
            space = meet(space, self.space_of(call.operands[arg.index]))
        return space


def _call_sites(module: Module, uses: Uses) -> dict[Function, list[Instr]]:
    """Helpers we may see through: defined, not kernels, called directly at least once."""
    sites: dict[Function, list[Instr]] = {}
    for fn in defined_functions(module):
        for instr in fn.instructions():
            if instr.op == "call":
                callee = instr.attrs["callee"]
                if not callee.is_declaration and not callee.is_kernel and \
                        "intrinsic" not in callee.attrs and not callee.attrs.get("variadic"):
                    sites.setdefault(callee, []).append(instr)
    return sites


def _cast_space(inf: Inference, i: Instr) -> Space:
    src = i.operands[0].type
    return src.space if isinstance(src, PtrType) else GENERIC


def _load_space(inf: Inference, i: Instr) -> Space:
    alloca = inf.slots.get(i.operands[0])
    return inf.slot_spaces.get(alloca) if alloca is not None else GENERIC


def _call_space(inf: Inference, i: Instr) -> Space:
    callee = i.attrs["callee"]
    return inf.returns.get(callee) if callee in inf.sites else GENERIC


def _phi_space(inf: Inference, i: Instr) -> Space:
    space: Space = None
    for value in i.operands:
        space = meet(space, inf.space_of(value))
    return space


_TRANSFER: dict[str, Callable[[Inference, Instr], Space]] = {
    "addrspacecast": _cast_space,
    "getelementptr": lambda inf, i: inf.space_of(i.operands[0]),
    "phi": _phi_space,
    "select": lambda inf, i: meet(inf.space_of(i.operands[1]), inf.space_of(i.operands[2])),
    "load": _load_space,
    "call": _call_space,
}


# -- the rewrite -----------------------------------------------------------------------


@dataclass
class _Rewriter:
    inference: Inference
    new: dict[Value, Value] = field(default_factory=dict)  # inferred value -> its named form
    back: dict[Value, Instr] = field(default_factory=dict)  # mutated value -> cast back to generic
    made: set[Instr] = field(default_factory=set)  # casts this rewrite inserted
    alias: dict[Value, Value] = field(default_factory=dict)  # folded cast or test -> its answer
    dead: list[Instr] = field(default_factory=list)  # casts that may have become unused

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
        return cast


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
            _fold(instr, rw)
    for fn in defined_functions(module):
        for instr in list(fn.instructions()):
            if instr not in rw.made and instr not in rw.alias:
                _fix_operands(instr, rw)
    for fn in defined_functions(module):
        _remove_dead(fn, rw.dead)
    return True


def _named_form(value: Value, space: AddressSpace, rw: _Rewriter) -> Value:
    named = PtrType(space)
    if isinstance(value, Instr) and value.op == "addrspacecast":
        rw.dead.append(value)
        return value.operands[0]
    if isinstance(value, Instr) and value.op == "load":
        cast = Instr("addrspacecast", named, [value], name=f"{value.name}.{space.value}"
                     if value.name else "")
        _insert_after_definition(value, cast, rw.inference)
        rw.made.add(cast)
        return cast
    value.type = named  # gep, phi, select, call result, argument
    return value


def _update_signatures(module: Module, inference: Inference) -> None:
    for fn in inference.sites:
        ret = fn.type.ret
        space = inference.returns.get(fn)
        if ret == GENERIC_PTR and space is not None and space is not GENERIC:
            ret = PtrType(space)
        fn.type = FunctionType(ret, tuple(a.type for a in fn.args))
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
        instr.operands[k] = rw.alias[instr.operands[k]]
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
            instr.operands[k] = named if want in (None, named.type) else rw.generic(op)
        elif isinstance(op, (ConstNull, Undef)) and op.type == GENERIC_PTR and \
                isinstance(want, PtrType) and want != GENERIC_PTR:
            instr.operands[k] = type(op)(want)


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
    if na is not None and nb is not None and na.type == nb.type:
        instr.operands = [na, nb]
    else:
        instr.operands = [rw.generic(a) if a in rw.new else a, rw.generic(b) if b in rw.new else b]


def _remove_dead(fn: Function, candidates: list[Instr]) -> None:
    """Delete the candidates (and pure operands they kept alive) that nothing uses."""
    # Imported here: pass modules load each other through the registry in manager.py.
    from .dce import is_removable

    mine = [c for c in candidates if c.parent is not None and c.parent.parent is fn]
    if not mine:
        return
    used: dict[Value, int] = {}
    for instr in fn.instructions():
        for op in instr.operands:
            used[op] = used.get(op, 0) + 1
    work = list(mine)
    while work:
        instr = work.pop()
        block: Block | None = instr.parent
        if block is None or used.get(instr, 0) or not is_removable(instr):
            continue
        block.instrs.remove(instr)
        instr.parent = None
        for op in instr.operands:
            used[op] -= 1
            if isinstance(op, Instr) and not used[op]:
                work.append(op)
