"""What a compiled cuda program is at run time: its PTX and its kernels' ABI facts.

`PtxProgram` holds the PTX the cuda driver loads and, per kernel
(`PtxKernel`), the argument blob's layout, `reqd_work_group_size`, the static
shared memory and where `cuLaunchKernel`'s parameters lie (nvptx_target.py
says how the entry point takes them). `ptx_record` / `ptx_from_record` turn a
program into JSON data plus the PTX and back (the build cache,
`compiler/cache.py`), checking every field on the way back. Kept apart from
`nvptx_target.py` so that loading a cached program imports no code generator.

A program with writable program-scope variables (`variables`: OpenCL C 2.0
`global int g;`) keeps them in its CUDA module's data, so each build runs a
`program_instance` of its own: the same PTX (and cubin) under a `module_key` of
its own, for which the cuda driver loads a module of its own.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...kernel_abi import (KernelArg, align_up, arg_record, args_from_record, checked_dict, checked_int,
                           checked_str, reqd_from_record, MAX_BLOB_BYTES, MAX_MEMORY_BYTES)

LOCAL_ALIGN = 16  # each __local argument's start in dynamic shared memory


@dataclass
class PtxKernel:
    """One kernel of a PtxProgram: what the runtime and the cuda driver need."""

    name: str
    args: list[KernelArg]
    blob_size: int
    reqd_work_group_size: tuple[int, int, int] | None
    static_local_bytes: int
    program: PtxProgram = field(repr=False, default=None)  # type: ignore[assignment]

    @cached_property
    def hidden_offset(self) -> int:
        """Where the hidden parameters follow the blob in the launch's parameter copy."""
        return align_up(self.blob_size, 8)

    @cached_property
    def param_offsets(self) -> tuple[int, ...]:
        """Each entry parameter's offset: the arguments', then the hidden ones
        (global offset, group base and number of groups, x, y, z, as i64, then the
        work dimension as i32: nvvm_intrinsics.HIDDEN_NAMES)."""
        h = self.hidden_offset
        return tuple(a.offset for a in self.args) + tuple(h + 8 * i for i in range(10))

    def dynamic_local_bytes(self, blob: bytes) -> int:
        """The dynamic shared memory a launch with argument blob `blob` needs."""
        total = 0
        for arg in self.args:
            if arg.kind == "local":
                size = int.from_bytes(blob[arg.offset:arg.offset + 8], "little")
                total = align_up(total, LOCAL_ALIGN) + size
        return total


@dataclass
class PtxProgram:
    kernels: dict[str, PtxKernel]
    ptx: str
    llvm_ir: str
    optimized_llvm_ir: str
    arch: str
    key: str  # identifies the PTX (cache key of the driver's cubin)
    variables: bool = False  # writable program-scope variables: each build loads its own module
    instance: int = 0  # which build's copy of a program with variables (0: the build cache's)

    @property
    def module_key(self) -> str:
        """What the cuda driver keys this program's loaded module by: the PTX's `key`,
        shared by every build, unless the program has variables (then each instance's own)."""
        return f"{self.key}#{self.instance}" if self.instance else self.key

    def asm(self) -> str:
        return self.ptx


_instances = itertools.count(1)  # next() on it is atomic under the GIL


def program_instance(program: PtxProgram) -> PtxProgram:
    """`program` as one build's own: `program` itself without writable program-scope
    variables (every build shares the driver's module); else a copy with a `module_key` of
    its own, so the driver loads a module, and variables starting from their
    initializers, for it alone (the cubin cache, keyed by `key`, still serves it)."""
    if not program.variables:
        return program
    own = PtxProgram({}, program.ptx, program.llvm_ir, program.optimized_llvm_ir, program.arch,
                     program.key, True, next(_instances))
    for name, k in program.kernels.items():
        own.kernels[name] = PtxKernel(k.name, k.args, k.blob_size, k.reqd_work_group_size,
                                      k.static_local_bytes, own)
    return own


def ptx_key(ptx: str, arch: str) -> str:
    """What identifies a program's PTX (the cuda driver keys its cubins on it, and the
    modules of programs without variables: `PtxProgram.module_key`)."""
    return hashlib.sha256(f"{arch}\0{ptx}".encode()).hexdigest()[:32]


# -- the build cache's view of a program (compiler/cache.py) --------------------------

KERNEL_KEYS = ("args", "blob_size", "reqd", "static_local_bytes")


def ptx_record(program: PtxProgram) -> tuple[dict[str, Any], bytes]:
    """(JSON data, the PTX) that `ptx_from_record` turns back into `program`."""
    kernels = {name: {"args": [arg_record(a) for a in k.args], "blob_size": k.blob_size,
                      "reqd": list(k.reqd_work_group_size or ()) or None,
                      "static_local_bytes": k.static_local_bytes}
               for name, k in program.kernels.items()}
    return {"kernels": kernels, "arch": program.arch, "variables": program.variables}, program.ptx.encode()


def ptx_from_record(record: Any, ptx: bytes) -> PtxProgram:
    """The PtxProgram `ptx_record` described; ValueError when any field is out of bounds."""
    data = checked_dict(record, ("kernels", "arch", "variables"), "program record")
    arch = checked_str(data["arch"], "arch", 64)
    text = ptx.decode("utf-8")
    if type(data["kernels"]) is not dict:
        raise ValueError("program record: kernels is not an object")
    if type(data["variables"]) is not bool:
        raise ValueError("program record: variables is not a bool")
    program = PtxProgram({}, text, "", "", arch, ptx_key(text, arch), data["variables"])
    for name, k in data["kernels"].items():
        k = checked_dict(k, KERNEL_KEYS, f"kernel {str(name)[:40]!r}")
        blob_size = checked_int(k["blob_size"], 0, MAX_BLOB_BYTES, "blob size")
        program.kernels[checked_str(name, "kernel name")] = PtxKernel(
            name, args_from_record(k["args"], blob_size), blob_size, reqd_from_record(k["reqd"]),
            checked_int(k["static_local_bytes"], 0, MAX_MEMORY_BYTES, "static local bytes"), program)
    return program
