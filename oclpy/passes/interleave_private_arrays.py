"""interleave-private-arrays: lay a kernel's private arrays out element by element
across the work-items of its group, so a work-item loop that walks them widens.

Why
---
On the cpu the work-items of a group run in a loop that LLVM vectorises
(`targets/llvm/cpu/launcher.py`). A private array (`float Awrk[1024]`, Hands
On OpenCL's row-private matrix multiply) is an `alloca`, which after inlining
LLVM puts once for every iteration of that loop: widened work-items would
share it, so `cpu/outer.py` refuses the outer-loop hint to any kernel with
one, and the loop around the kernel's own loops runs one work-item at a time.
Giving each work-item its own copy one after another (`i * 4096 + k * 4`)
would not help: `Awrk[k]` of consecutive work-items would then be 4 KB apart,
a gather. Laid out element by element (structure of arrays, as Intel's
vectoriser lays out private arrays), element `k` of work-item `i` is at
`base + (k * items + i) * size`: for a `k` that is the same in every
work-item, consecutive work-items read consecutive memory, one vector load.

What it does
------------
In a kernel without barriers (kernels with barriers have their private memory
in form-workgroups' frames already) that no other function calls (the lane
arrays are sized by the launched kernel), each `alloca` of an array of at least
`MIN_ELEMENTS` integers or floats whose every use is the address of a plain
load or store of one element (directly, or through a `getelementptr` with one
index, or `0, index` into the array type) and is indexed by a value that
some use does not fix at a constant (a constant-indexed array LLVM promotes
to registers itself), and every index is the same for all work-items along x
(`StepAnalysis`; an array indexed by the work-item's own data would be
gathered either way), is replaced by a slice of the group's *lane arrays*
(up to `MAX_BYTES` per work-item; past that the largest arrays stay on the
stack, whose limits the launch checks): private memory the launcher owns (`ocl.private_lanes()`, the same memory
form-workgroups' frames use, `attrs["private_lanes_size"]` bytes per
work-item). Array `a` at offset `o` within a work-item's share keeps element
`k` of work-item `i` (`get_local_linear_id()`, `items` the product of the
local sizes) at `lanes + o * items + (k * items + i) * size`. Every other
array stays an `alloca`.

Requires: inlining done (a helper's arrays are the kernel's then), before
split-entry-guard (an `alloca` in the entry block hides the guard; the lane
arrays' addresses are pure). Invalidates: nothing but the rewritten accesses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from oclpy.ir.builder import Builder, i32, i64
from oclpy.ir.datalayout import CPU_LAYOUT
from oclpy.ir.intrinsics import declare_intrinsic, intrinsic_info
from oclpy.ir.types import I32, I64, AddressSpace, ArrayType, FloatType, IntType, PtrType
from oclpy.ir.values import ConstInt, Function, Instr, Module, Value
from oclpy.passes.scalarize_policy import Step, StepAnalysis

from . import form_workgroups as fw
from .manager import register

LANES_ATTR = "private_lanes_size"  # bytes of lane arrays per work-item
LANES_ALIGN = 64  # each array's offset within a work-item's share (a cache line)
LANES_INTRINSIC = "private_lanes"
MIN_ELEMENTS = 32  # smaller arrays LLVM may keep in registers once their loops unroll
MAX_BYTES = 1 << 16  # a work-item's share at most: larger arrays stay on its stack, whose
                     # limits the launch checks (OUT_OF_RESOURCES past the largest stack)


def lane_array(v: Value) -> Instr | None:
    """The lane array (the `getelementptr` of `ocl.private_lanes()` that starts it)
    that pointer `v` points into, or None."""
    while isinstance(v, Instr) and v.op == "getelementptr":
        base = v.operands[0]
        if isinstance(base, Instr) and base.op == "call":
            info = intrinsic_info(base.attrs["callee"])
            if info is not None and info.base == LANES_INTRINSIC:
                return v
        v = base
    return None


def _element_accesses(alloca: Instr) -> list[tuple[Instr, Value]] | None:
    """(access, element index) of every use of `alloca`, or None when some use is
    not a plain load or store of one element of its array."""
    array = alloca.attrs["elem"]
    found: list[tuple[Instr, Value]] = []

    def element_use(user: Instr, pointer: Value, index: Value) -> bool:
        if user.op == "load" and user.operands[0] is pointer:
            value_type = user.type
        elif user.op == "store" and user.operands[1] is pointer and user.operands[0] is not pointer:
            value_type = user.operands[0].type
        else:
            return False
        if value_type != array.elem or user.attrs.get("volatile"):
            return False
        found.append((user, index))
        return True

    for user in alloca.users:
        if user.op == "getelementptr" and user.operands[0] is alloca:
            elem, indices = user.attrs["elem"], user.operands[1:]
            if elem == array.elem and len(indices) == 1:
                index = indices[0]
            elif elem == array and len(indices) == 2 and isinstance(indices[0], ConstInt) \
                    and indices[0].value == 0:
                index = indices[1]
            else:
                return None
            if not all(element_use(u, user, index) for u in user.users):
                return None
        elif not element_use(user, alloca, i64(0)):
            return None
    return found


def _eligible(alloca: Instr, steps: StepAnalysis) -> list[tuple[Instr, Value]] | None:
    array = alloca.attrs["elem"]
    if not (isinstance(array, ArrayType) and isinstance(array.elem, (IntType, FloatType))
            and array.count >= MIN_ELEMENTS and alloca.attrs.get("space", AddressSpace.PRIVATE)
            is AddressSpace.PRIVATE):
        return None
    accesses = _element_accesses(alloca)
    if not accesses or all(isinstance(k, ConstInt) for _, k in accesses):
        return None
    if any(steps.of(k) is not Step.UNIFORM for _, k in accesses):
        return None
    return accesses


def interleave_private_arrays(fn: Function, module: Module) -> bool:
    """Move `fn`'s eligible private arrays into the lane arrays; False when none is."""
    if fw.has_barrier(fn) or fw.FRAME_ATTR in fn.attrs or LANES_ATTR in fn.attrs:
        return False
    steps = StepAnalysis(fn)
    chosen = [(a, acc) for a in fn.instructions() if a.op == "alloca"
              for acc in [_eligible(a, steps)] if acc is not None]
    total = sum(_share(a) for a, _ in chosen)
    while chosen and total > MAX_BYTES:  # the largest arrays stay allocas
        largest = max(chosen, key=lambda c: _share(c[0]))
        chosen.remove(largest)
        total -= _share(largest[0])
    if not chosen:
        return False
    entry = fn.entry
    b = Builder(entry)
    b.index = 0
    lanes = b.call(declare_intrinsic(module, LANES_INTRINSIC, PtrType(AddressSpace.PRIVATE), []), [],
                   name="lanes")
    item = b.call(declare_intrinsic(module, "get_local_linear_id", I64, []), [], name="lanes.item")
    local_size = declare_intrinsic(module, "get_local_size", I64, [I32])
    sizes = [b.call(local_size, [i32(d)]) for d in range(3)]
    items = b.binop("mul", b.binop("mul", sizes[0], sizes[1]), sizes[2], name="lanes.items")
    offset = 0
    for alloca, accesses in chosen:
        array = alloca.attrs["elem"]
        start = b.gep(IntType(8), lanes, [b.binop("mul", items, i64(offset))],
                      name=f"{alloca.name}.lanes" if alloca.name else "")
        mine = b.gep(array.elem, start, [item])
        for access, index in accesses:
            at = Builder(access.parent)
            at.position_before(access)
            if index.type != I64:
                index = at.cast("sext", index, I64)
            address = at.gep(array.elem, mine, [at.binop("mul", index, items)])
            access.set_operand(0 if access.op == "load" else 1, address)
        for user in alloca.users:  # the getelementptrs, now unused
            user.erase()
        alloca.erase()
        offset += _share(alloca)
    fn.attrs[LANES_ATTR] = offset
    return True


def _share(alloca: Instr) -> int:
    """The bytes array `alloca` takes of a work-item's share of the lane arrays."""
    return (CPU_LAYOUT.size_of(alloca.attrs["elem"]) + LANES_ALIGN - 1) // LANES_ALIGN * LANES_ALIGN


@register
@dataclass
class InterleavePrivateArrays:
    """Lay private arrays out element by element across a group's work-items (cpu).
    Requires: inlining done, before split-entry-guard. Invalidates: nothing."""

    name: ClassVar[str] = "interleave-private-arrays"

    def run(self, module: Module) -> bool:
        # a kernel another calls (not inlined) would use its caller's lane arrays
        called = {id(i.attrs["callee"]) for f in module.functions for i in f.instructions() if i.op == "call"}
        changed = False
        for fn in list(module.kernels()):
            if not fn.is_declaration and id(fn) not in called:
                changed |= interleave_private_arrays(fn, module)
        return changed
