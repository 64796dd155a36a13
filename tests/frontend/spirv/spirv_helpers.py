"""Test inputs for the SPIR-V frontend without external tools.

`from_llvm(text)` compiles LLVM IR written as clang writes OpenCL C
(`spir_kernel`, addrspace(1) global, 3 local, 2 constant, 4 generic,
Itanium-mangled builtins) with LLVM's SPIR-V backend (llvmlite), once: the
binary is kept under `llvm_spirv/`, named by a digest of the text, because that
backend does not always number ids the same way from one process to the next
(once it gave a block label the id of an instruction). `assemble`
writes a module word by word from (opcode name, operands) records, for inputs
no producer makes (malformed or unsupported ones).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from oclpy.frontend.spirv.binary import MAGIC
from oclpy.frontend.spirv.grammar import OP

HEADER = "target triple = \"spirv64-unknown-unknown\"\n"
LLVM_SPIRV = Path(__file__).with_name("llvm_spirv")


@lru_cache(maxsize=None)
def from_llvm(text: str) -> bytes:
    """The SPIR-V binary of `text`, from `llvm_spirv/` or, for new text, made and kept there."""
    kept = LLVM_SPIRV / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.spv"
    if kept.exists():
        return kept.read_bytes()
    binary = _compile_llvm(text)
    LLVM_SPIRV.mkdir(exist_ok=True)
    kept.write_bytes(binary)
    return binary


def _compile_llvm(text: str) -> bytes:
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(HEADER + text)
    target = llvm.Target.from_triple("spirv64-unknown-unknown").create_target_machine()
    return target.emit_object(module)


def string_words(text: str) -> list[int]:
    raw = text.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return [int.from_bytes(raw[k:k + 4], "little") for k in range(0, len(raw), 4)]


def assemble(instrs: list[tuple[str, list[int | str]]], bound: int = 100,
             version: int = 0x00010000) -> bytes:
    """A module from (name without 'Op', operands) records; str operands are literal strings."""
    words = [MAGIC, version, 0, bound, 0]
    for name, ops in instrs:
        body: list[int] = []
        for op in ops:
            body += string_words(op) if isinstance(op, str) else [op]
        words.append(((len(body) + 1) << 16) | OP[name])
        words += body
    return b"".join(w.to_bytes(4, "little") for w in words)


# A minimal valid kernel module: `kernel void k(global int *p) { *p = 7; }`
PRELUDE: list[tuple[str, list[int | str]]] = [
    ("Capability", [4]), ("Capability", [5]), ("Capability", [6]), ("Capability", [11]),
    ("MemoryModel", [2, 2]),
    ("EntryPoint", [6, 10, "k"]),
]
TYPES: list[tuple[str, list[int | str]]] = [
    ("TypeVoid", [1]), ("TypeInt", [2, 32, 0]), ("TypePointer", [3, 5, 2]),
    ("TypeFunction", [4, 1, 3]), ("Constant", [2, 5, 7]),
]


def kernel_module(body: list[tuple[str, list[int | str]]] | None = None,
                  prelude: list | None = None, types: list | None = None) -> bytes:
    """PRELUDE + TYPES + `void k(global int *%11)` whose entry block (label %12) runs `body`."""
    body = body if body is not None else [("Store", [11, 5]), ("Return", [])]
    fn = [("Function", [1, 10, 0, 4]), ("FunctionParameter", [3, 11]), ("Label", [12]),
          *body, ("FunctionEnd", [])]
    return assemble((prelude if prelude is not None else PRELUDE) + (types if types is not None else TYPES) + fn)


def pyopencl_spv(name: str) -> bytes:
    """One of the .spv files in PyOpenCL's source distribution (real producer output), from
    the archive OCLPY_PYOPENCL_SDIST names; the test is skipped, saying why, without it."""
    import os
    import tarfile

    import pytest

    archive = os.environ.get("OCLPY_PYOPENCL_SDIST")
    if not archive or not os.path.exists(archive):
        pytest.skip(f"{name}: set OCLPY_PYOPENCL_SDIST to a PyOpenCL source archive to test it")
    with tarfile.open(archive) as tar:
        member = next((m for m in tar.getmembers() if m.name.endswith(f"/test/{name}")), None)
        if member is None:
            pytest.skip(f"{name} is not in {archive}")
        return tar.extractfile(member).read()  # type: ignore[union-attr]
