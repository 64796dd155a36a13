"""What clang predefines and oclpy now does too, reduced from the corpus kernels that
needed it (issue 12): the type and size macros (`typedef __SIZE_TYPE__ size_t;` in
SPIRV-LLVM-Translator's and clang's tests) and the C library builtins clang offers in
OpenCL C (`__builtin_printf`, `__builtin_memcpy`, `__builtin_store_halff` and its kin)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

cl = pytest.importorskip("oclpy")


def run(queue, src: str, n: int, dtype=np.int64, inputs=()) -> list:  # type: ignore[no-untyped-def]
    """Run kernel `k(global T *o, ...)` on one work-item; return `o` (n zeros before)."""
    ctx, q = queue
    prg = cl.Program(ctx, src).build()
    out = np.zeros(n, dtype)
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a) for a in (out, *inputs)]
    prg.k(q, (1,), None, *bufs)
    cl.enqueue_copy(q, out, bufs[0])
    return out.tolist()


def errors(src: str, std: str = "CL1.2") -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, f"-cl-std={std}")
    return re.findall(r"^<kernel>:(\d+:\d+): error: (.*)$", info.value.log, re.M)


def test_type_macros_name_opencl_types(queue) -> None:  # type: ignore[no-untyped-def]
    src = """typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __UINTPTR_TYPE__ uintptr_t;
kernel void k(global long *o) {
  o[0] = sizeof(size_t); o[1] = sizeof(ptrdiff_t); o[2] = sizeof(__INT8_TYPE__);
  o[3] = sizeof(__UINT16_TYPE__); o[4] = sizeof(__INT64_TYPE__); o[5] = __SIZEOF_INT__;
  o[6] = __SIZEOF_LONG__; o[7] = __CHAR_BIT__; o[8] = __INT_MAX__; o[9] = (ptrdiff_t)-1 < 0;
  o[10] = (size_t)-1 > 0; o[11] = __SIZEOF_POINTER__;
}"""
    got = run(queue, src, 12)
    assert got[:11] == [8, 8, 1, 2, 8, 4, 8, 8, 2**31 - 1, 1, 1]
    assert got[11] in (4, 8)


def test_type_macros_follow_the_target_pointer_width() -> None:
    from oclpy.frontend.options import parse_build_options
    from oclpy.frontend.c.type_macros import type_macros
    assert type_macros(parse_build_options("").size_rules)["__SIZEOF_POINTER__"] == "8"
    assert type_macros(parse_build_options("").size_rules)["__SIZE_TYPE__"] == "long unsigned int"


def test_int128_types_are_not_predefined() -> None:
    assert errors("kernel void k(global int *o) { __INT128_TYPE__ x = 0; }") == \
        [("1:32", "unknown type name '__INT128_TYPE__'")]
