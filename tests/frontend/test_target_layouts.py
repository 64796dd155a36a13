"""The frontend lays types out with the target's DataLayout: `sizeof`/`alignof` of
pointers per address space, of structs holding them, `offsetof`, array sizes made of
`sizeof`, and a null pointer in a constant, on each target (the null pointers a kernel
computes: tests/e2e/test_target_layouts.py).

The expected numbers are what clang says for the matching triple (`clang-14 -x cl
-O1 -emit-llvm`, the constants the kernel stores): x86_64 for cpu, nvptx64 for cuda,
amdgcn-amd-amdhsa for simt (whose memory model is AMDGPU's: private and local pointers
are 32-bit, their null is all ones). When clang-14 is installed the test asks it too.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from oclpy.compiler.toolchain import BACKENDS
from oclpy.diagnostics import CompileError
from oclpy.frontend.c.lower.const_bytes import from_bytes, reinterpret, to_bytes
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.types import I32, AddressSpace, PtrType
from oclpy.ir.values import ConstInt, ConstNull, ConstZero
from oclpy.ir.printer import print_module
from oclpy.passes.manager import PIPELINES, run_pipeline

SIZES = """
typedef struct { int *p; int x; } S;
typedef struct { local int *p; char c; } L;
typedef struct { global int *p; char c; } G;
typedef struct { char c; private int *p; } P;
kernel void k(global ulong *out) {
  out[0] = sizeof(int*); out[1] = sizeof(local int*); out[2] = sizeof(global int*);
  out[3] = sizeof(S); out[4] = __alignof__(S); out[5] = __builtin_offsetof(S, x);
  out[6] = sizeof(L); out[7] = sizeof(G); out[8] = sizeof(P); out[9] = __alignof__(P);
  out[10] = sizeof(constant int*); out[11] = __alignof__(local int*);
  int a[sizeof(private int *)]; out[12] = sizeof(a);
}
"""

TRIPLES = {"cpu": "x86_64-unknown-linux-gnu", "cuda": "nvptx64-nvidia-cuda", "simt": "amdgcn-amd-amdhsa"}
WIDE = [8, 8, 8, 16, 8, 8, 16, 16, 16, 8, 8, 8, 32]
# (target, -cl-std) -> the stores, in order; an unqualified pointee is private before
# OpenCL C 2.0 and generic (64-bit on simt) from 2.0
EXPECTED = {
    ("cpu", "CL1.2"): WIDE, ("cpu", "CL2.0"): WIDE,
    ("cuda", "CL1.2"): WIDE, ("cuda", "CL2.0"): WIDE,
    ("simt", "CL1.2"): [4, 4, 8, 8, 4, 4, 8, 16, 8, 4, 8, 4, 16],
    ("simt", "CL2.0"): [8, 4, 8, 16, 8, 8, 8, 16, 8, 4, 8, 4, 16],
}
STORE = re.compile(r"store i64 (-?\d+), ptr(?:<global>| addrspace\(1\)\*)")


def our_stores(source: str, target: str, std: str) -> list[int]:
    module = compile_to_ir(source, f"-cl-std={std}", layout=BACKENDS[target].layout).module
    run_pipeline(module, PIPELINES["O2"], verify_each=True, layout=BACKENDS[target].layout)
    return [int(v) for v in STORE.findall(print_module(module))]


@pytest.mark.parametrize("target,std", sorted(EXPECTED))
def test_pointer_and_struct_sizes_are_the_targets(target: str, std: str) -> None:
    assert our_stores(SIZES, target, std) == EXPECTED[target, std]


@pytest.mark.skipif(shutil.which("clang-14") is None, reason="clang-14 is not installed")
@pytest.mark.parametrize("target,std", sorted(EXPECTED))
def test_the_expected_sizes_are_clangs(target: str, std: str) -> None:
    ir = subprocess.run(["clang-14", "-x", "cl", f"-cl-std={std}", f"--target={TRIPLES[target]}", "-nogpulib",
                         "-O1", "-S", "-emit-llvm", "-o", "-", "-"], input=SIZES, capture_output=True,
                        text=True, check=True).stdout
    assert [int(v) for v in re.findall(r"store i64 (-?\d+), i64", ir)] == EXPECTED[target, std]


def test_a_null_pointer_constant_has_its_spaces_null_bits() -> None:
    """const_bytes (a union's constant initializer) writes a null as the layout's null."""
    simt, cpu = BACKENDS["simt"].layout, BACKENDS["cpu"].layout
    for space, simt_bits in [(AddressSpace.LOCAL, 0xFFFFFFFF), (AddressSpace.PRIVATE, 0xFFFFFFFF),
                             (AddressSpace.GLOBAL, 0)]:
        null = ConstNull(PtrType(space))
        assert to_bytes(null, simt) == simt_bits.to_bytes(simt.pointer_size(space), "little")
        assert to_bytes(null, cpu) == bytes(8)
        word = reinterpret(null, I32, simt)
        assert isinstance(word, ConstInt) and word.value == simt_bits if simt_bits else isinstance(word, ConstZero)
        back = from_bytes(simt_bits.to_bytes(8, "little"), PtrType(space), simt)
        assert isinstance(back, ConstNull) and back.type == PtrType(space)


def test_a_struct_of_private_pointers_is_laid_out_with_32_bit_pointers_on_simt() -> None:
    source = """
    typedef struct { char c; private int *p; char d; } T;
    kernel void k(global ulong *out) {
      out[0] = sizeof(T); out[1] = __builtin_offsetof(T, p); out[2] = __builtin_offsetof(T, d);
    }
    """
    assert our_stores(source, "simt", "CL1.2") == [12, 4, 8]
    assert our_stores(source, "cpu", "CL1.2") == [24, 8, 16]


def test_a_static_assert_on_pointer_size_follows_the_target() -> None:
    source = "_Static_assert(sizeof(private int *) == 4, \"32-bit private pointers\");\n" \
             "kernel void k(global int *o) { o[0] = 1; }\n"
    compile_to_ir(source, "", layout=BACKENDS["simt"].layout)
    with pytest.raises(CompileError) as err:
        compile_to_ir(source, "", layout=BACKENDS["cpu"].layout)
    assert "static_assert failed" in err.value.log and "32-bit private pointers" in err.value.log
