"""The emitter's DataLayout answers as ours does and computes each type's answer once."""

from __future__ import annotations

from oclpy.ir.datalayout import CPU_LAYOUT, DataLayout
from oclpy.ir.types import AddressSpace, ArrayType, I8, I16, I32, I64, F32, PtrType, StructType, VectorType
from oclpy.targets.llvm.memo_layout import memoized

INNER = StructType((I8, I64, VectorType(F32, 3)))
TYPES = [I8, I32, PtrType(AddressSpace.GLOBAL), INNER, ArrayType(INNER, 5),
         StructType((I16, ArrayType(INNER, 3), StructType((I8, INNER), packed=True), I8)),
         StructType((I8, I32), packed=True)]


def test_answers_are_the_layouts() -> None:
    memo = memoized(CPU_LAYOUT)
    for t in TYPES * 2:
        assert memo.size_of(t) == CPU_LAYOUT.size_of(t)
        assert memo.align_of(t) == CPU_LAYOUT.align_of(t)
        if isinstance(t, StructType):
            assert memo.struct_layout(t) == CPU_LAYOUT.struct_layout(t)
    assert memo.member_offset(TYPES[5], [2, 1, 1]) == CPU_LAYOUT.member_offset(TYPES[5], [2, 1, 1])
    assert memo.pointer_size(AddressSpace.LOCAL) == 8 and memo.name == "cpu"


def test_each_struct_is_laid_out_once(monkeypatch) -> None:
    laid_out = []
    original = DataLayout.struct_layout

    def counting(self, t):  # type: ignore[no-untyped-def]
        laid_out.append(t)
        return original(self, t)

    monkeypatch.setattr(DataLayout, "struct_layout", counting)
    memo = memoized(CPU_LAYOUT)
    outer = TYPES[5]
    for _ in range(3):
        memo.size_of(outer)
        memo.struct_layout(outer)
        memo.size_of(StructType(outer.fields))  # an equal type, another object
    assert sorted(map(str, laid_out)) == sorted(map(str, [outer, INNER, outer.fields[2]]))


NESTED = """struct In { char c; long l; };
struct Out { int i; struct In in[4]; struct In one; };
__kernel void k(__global struct Out *o, __global int *r) {
    int g = get_global_id(0);
    r[g] = o[g].in[1].c + o[g].in[2].l + o[g].one.c + o[g].i;
    o[g].in[3].l = r[g] * 2;
    o[g].one.l = o[g].in[0].c;
}
"""


def test_the_reorder_check_lays_each_struct_out_once_with_the_targets_layout(monkeypatch) -> None:
    from oclpy.compiler.toolchain import frontend_for, optimize
    from oclpy.targets.llvm.cpu.reorder import reorder_safe

    front = frontend_for(NESTED, "", "k.cl")
    optimize(front.module, 2, "cpu")
    [fn] = [f for f in front.module.functions if f.name == "k"]
    expected = reorder_safe(fn)
    laid_out = []
    original = DataLayout.struct_layout

    def counting(self, t):  # type: ignore[no-untyped-def]
        laid_out.append(t)
        return original(self, t)

    monkeypatch.setattr(DataLayout, "struct_layout", counting)
    assert reorder_safe(fn, layout=memoized(CPU_LAYOUT)) == expected
    assert laid_out and len(laid_out) == len(set(laid_out))
