"""DataLayout: two layouts give different sizes, offsets and nulls for the same
module (a cpu-like one, and an NVPTX-like one with 32-bit local and private
pointers whose null is all ones), and the verifier asks the layout where
allocas live."""

from __future__ import annotations

import pytest

from oclpy.ir.datalayout import CPU_LAYOUT, DataLayout
from oclpy.ir.parser import parse_module
from oclpy.ir.types import (
    F32, I8, I32, I64, AddressSpace, ArrayType, FunctionType, StructType, VectorType, ptr,
)
from oclpy.ir.values import Module
from oclpy.ir.verifier import module_problems

S = AddressSpace
NARROW = DataLayout(
    "narrow",
    pointer_bits={S.GENERIC: 64, S.GLOBAL: 64, S.CONSTANT: 64, S.LOCAL: 32, S.PRIVATE: 32},
    null_value={S.GENERIC: 0, S.GLOBAL: 0, S.CONSTANT: 0, S.LOCAL: 0xFFFFFFFF, S.PRIVATE: 0xFFFFFFFF},
)

MODULE = """
@k.nodes = addrspace(local) global [4 x {ptr<local>, i8, ptr<global>}], align 8
@k.links = addrspace(local) global [8 x ptr<private>], align 8

kernel void @k(ptr<global> %out) {
entry:
  %frame = alloca {i8, ptr<private>, <3 x float>}, align 16
  %slot = getelementptr {i8, ptr<private>, <3 x float>}, ptr<private> %frame, i64 0, i32 1
  store ptr<private> null, ptr<private> %slot
  ret void
}
"""


def _sizes(module: Module, layout: DataLayout) -> dict[str, int]:
    sizes = {g.name: layout.size_of(g.value_type) for g in module.globals}
    for fn in module.functions:
        for instr in fn.instructions():
            if instr.op == "alloca":
                sizes[instr.name] = layout.size_of(instr.attrs["elem"])
    return sizes


def test_same_module_two_layouts_different_sizes():
    module = parse_module(MODULE)
    assert _sizes(module, CPU_LAYOUT) == {"k.nodes": 4 * 24, "k.links": 8 * 8, "frame": 32}
    # {ptr<local> 4, i8 at 4, ptr<global> 8 at 8} = 16; [8 x 4]; {i8, ptr<private> 4 at 4, <3 x float> 16 at 16} = 32
    assert _sizes(module, NARROW) == {"k.nodes": 4 * 16, "k.links": 8 * 4, "frame": 32}


def test_struct_offsets_follow_pointer_widths():
    t = StructType((I8, ptr("private"), ptr("global"), I8))
    cpu, narrow = CPU_LAYOUT.struct_layout(t), NARROW.struct_layout(t)
    assert (cpu.offsets, cpu.size, cpu.align) == ((0, 8, 16, 24), 32, 8)
    assert (narrow.offsets, narrow.size, narrow.align) == ((0, 4, 8, 16), 24, 8)
    packed = StructType((I8, ptr("local")), packed=True)
    assert CPU_LAYOUT.size_of(packed) == 9 and NARROW.size_of(packed) == 5


def test_null_values_per_space():
    assert {s: CPU_LAYOUT.null_value[s] for s in S} == {s: 0 for s in S}
    assert NARROW.null_value[S.LOCAL] == NARROW.null_value[S.PRIVATE] == 0xFFFFFFFF
    assert NARROW.null_value[S.GLOBAL] == 0
    # A null pointer's bytes: as wide as the space's pointers, with the layout's value.
    for layout, space, want in [(CPU_LAYOUT, S.PRIVATE, b"\0" * 8), (NARROW, S.PRIVATE, b"\xff" * 4),
                                (NARROW, S.GLOBAL, b"\0" * 8)]:
        size = layout.pointer_size(space)
        assert layout.null_value[space].to_bytes(size, "little") == want


@pytest.mark.parametrize("t, size, align", [
    (I8, 1, 1), (I32, 4, 4), (I64, 8, 8), (F32, 4, 4), (VectorType(F32, 3), 16, 16),
    (VectorType(I8, 4), 4, 4), (ArrayType(VectorType(F32, 3), 2), 32, 16),
])
def test_sizes_not_involving_pointers_agree(t, size, align):
    for layout in (CPU_LAYOUT, NARROW):
        assert (layout.size_of(t), layout.align_of(t)) == (size, align)


def test_types_without_size():
    with pytest.raises(ValueError, match="has no size"):
        CPU_LAYOUT.size_of(FunctionType(I32, ()))
    with pytest.raises(ValueError, match="has no alignment"):
        CPU_LAYOUT.align_of(FunctionType(I32, ()))


def test_alloca_space_is_the_layouts():
    module = parse_module(MODULE)
    assert module_problems(module, CPU_LAYOUT) == []
    generic_stack = DataLayout("generic-stack", alloca_space=S.GENERIC)
    problems = module_problems(module, generic_stack)
    assert len(problems) == 1 and "alloca in address space private; the generic-stack target " \
        "allocates in generic" in problems[0]


def _nested(depth: int) -> StructType:
    """{i8, [2 x {i8, [2 x ... {i8, i32} ...]}], i64}: structs in arrays, `depth` deep."""
    t = StructType((I8, I32))
    for _ in range(depth):
        t = StructType((I8, ArrayType(t, 2), I64))
    return t


def test_nested_struct_layouts_are_the_sum_of_their_fields() -> None:
    inner = StructType((I8, I32))  # 8 bytes, align 4
    outer = StructType((I8, ArrayType(inner, 2), I64))  # 1 -> 4, 4 + 16 = 20 -> 24, + 8
    assert CPU_LAYOUT.struct_layout(outer).offsets == (0, 4, 24)
    assert (CPU_LAYOUT.size_of(outer), CPU_LAYOUT.align_of(outer)) == (32, 8)
    packed = StructType((I8, ArrayType(outer, 3), I8), packed=True)
    assert CPU_LAYOUT.struct_layout(packed) == CPU_LAYOUT.struct_layout(packed)
    assert (CPU_LAYOUT.struct_layout(packed).offsets, CPU_LAYOUT.size_of(packed)) == ((0, 1, 97), 98)
    assert CPU_LAYOUT.size_of(_nested(3)) == 2 * CPU_LAYOUT.size_of(_nested(2)) + 16


def test_a_struct_nested_deep_is_laid_out_once_per_level(monkeypatch) -> None:
    """Each nested struct's layout gives its size and its alignment both (asking
    each apart laid out a struct n deep 2**n times: CLSmith's structs, 35 s)."""
    calls = []
    layout = DataLayout.struct_layout

    def counted(self: DataLayout, t: StructType):
        calls.append(t)
        return layout(self, t)

    size = CPU_LAYOUT.size_of(_nested(12))
    monkeypatch.setattr(DataLayout, "struct_layout", counted)
    fresh = DataLayout("fresh")
    assert fresh.size_of(_nested(12)) == size
    assert len(calls) == 13  # each level once
    fresh.align_of(_nested(12))
    assert len(calls) == 14  # kept: no level laid out again


def test_layouts_are_kept_per_data_layout() -> None:
    """A struct's layout is the DataLayout's own: pointer widths differ between them."""
    t = StructType((ptr(S.PRIVATE), I8))
    assert (CPU_LAYOUT.size_of(t), NARROW.size_of(t)) == (16, 8)
    assert CPU_LAYOUT.struct_layout(t) is CPU_LAYOUT.struct_layout(t)


def test_a_layout_made_from_another_keeps_no_layout_of_it() -> None:
    """`dataclasses.replace` makes a DataLayout with layouts of its own (its pointers may differ)."""
    from dataclasses import replace

    t = StructType((ptr(S.PRIVATE), I8))
    assert CPU_LAYOUT.size_of(t) == 16
    narrow = replace(CPU_LAYOUT, name="narrow", pointer_bits={s: 32 for s in S})
    assert narrow.layouts == {} and narrow.size_of(t) == 8
