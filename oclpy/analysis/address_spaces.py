"""Address-space inference: the named space a generic pointer provably has.

A forward data-flow over a three-level lattice per `ptr<generic>` value of a
module: "no information yet" (None) above each named space above `generic`
(the bottom: two different spaces meet, or something we cannot see through).
Transfer rules, one per way a generic pointer is made (`_TRANSFER`):

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

`Inference(module).solve()` fills `spaces` (value -> space), `returns`
(helper -> space of its returned pointer) and `slot_spaces`. The
`infer-address-spaces` pass rewrites the module with it; a target may ask it
without rewriting.

Requires: nothing. Computed on demand; invalidated by any change to the module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from oclpy.ir.types import AddressSpace, PtrType
from oclpy.ir.values import Argument, ConstNull, Function, Instr, Module, Undef, Value

GENERIC = AddressSpace.GENERIC
GENERIC_PTR = PtrType(GENERIC)
Space = AddressSpace | None  # None: no information yet (the lattice's top)


def meet(a: Space, b: Space) -> Space:
    """The lattice meet: None is the identity, two different spaces give generic."""
    if a is None:
        return b
    if b is None or a is b:
        return a
    return GENERIC


def defined_functions(module: Module) -> list[Function]:
    """The functions of `module` with bodies."""
    return [fn for fn in module.functions if not fn.is_declaration]


def is_generic(value: Value) -> bool:
    return value.type == GENERIC_PTR


def _pointer_slots(fn: Function) -> dict[Value, Instr]:
    """Each address into a private pointer slot (the alloca or a gep of it) -> its alloca."""
    slots: dict[Value, Instr] = {}
    for alloca in (i for i in fn.instructions() if i.op == "alloca"):
        addresses = _slot_addresses(alloca)
        if addresses is not None:
            slots.update((a, alloca) for a in addresses)
    return slots


def _slot_addresses(alloca: Instr) -> list[Value] | None:
    """The addresses derived from `alloca`, or None when one is used other than as
    the address of a load or store of `ptr<generic>`."""
    addresses: list[Value] = [alloca]
    work: list[Value] = [alloca]
    while work:
        address = work.pop()
        for user, k in address.uses:
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
    sites: dict[Function, list[Instr]] = field(init=False)
    slots: dict[Value, Instr] = field(init=False)
    owner: dict[Argument, Function] = field(init=False)

    def __post_init__(self) -> None:
        self.owner = {a: fn for fn in defined_functions(self.module) for a in fn.args}
        self.sites = call_sites(self.module)
        self.slots = {}
        for fn in defined_functions(self.module):
            self.slots.update(_pointer_slots(fn))

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
        slot_stores: dict[Instr, list[Instr]] = {}
        for address, alloca in self.slots.items():
            slot_stores.setdefault(alloca, []).extend(
                user for user, k in address.uses if user.op == "store" and k == 1)
        changed = True
        while changed:
            changed = False
            for fn in self.sites:
                if fn.type.ret == GENERIC_PTR:
                    changed |= self._update_return(fn)
            for alloca, stores in slot_stores.items():
                changed |= self._update_slot(alloca, stores)
            for node in nodes:
                new = meet(self.spaces[node], self._transfer(node))
                if new is not self.spaces[node]:
                    self.spaces[node] = new
                    changed = True

    def _nodes(self) -> list[Value]:
        nodes: list[Value] = []
        for fn in defined_functions(self.module):
            nodes += [a for a in fn.args if is_generic(a)]
            nodes += [i for i in fn.instructions() if is_generic(i)]
        return nodes

    def _update_return(self, fn: Function) -> bool:
        space = self.returns.get(fn)
        for instr in fn.instructions():
            if instr.op == "ret" and instr.operands:
                space = meet(space, self.space_of(instr.operands[0]))
        changed = space is not self.returns.get(fn)
        self.returns[fn] = space
        return changed

    def _update_slot(self, alloca: Instr, stores: list[Instr]) -> bool:
        space = self.slot_spaces.get(alloca)
        for store in stores:
            space = meet(space, self.space_of(store.operands[0]))
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


def call_sites(module: Module) -> dict[Function, list[Instr]]:
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
