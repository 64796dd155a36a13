"""OpenCL C 2.0's predefined types as clang sees them: a program may not define the language's
`enum memory_order` again (clang's CodeGenOpenCL/atomic-ops.cl), and the device-side enqueue
types oclpy does not offer are unknown type names even in an unnamed parameter
(SemaOpenCL/queue_t_overload.cl)."""

from __future__ import annotations

from oclpy.frontend.driver import compile_to_ir
from tests.frontend.sema_helpers import build_errors

ENUM = """typedef enum memory_order {
  memory_order_relaxed = __ATOMIC_RELAXED,
  memory_order_seq_cst = __ATOMIC_SEQ_CST
} memory_order;
kernel void k(global int *o) { o[0] = memory_order_seq_cst; }"""


def test_memory_order_may_not_be_defined_again_from_opencl_c_2_0() -> None:
    assert build_errors(ENUM, "CL2.0") == [("1:14", "redefinition of 'memory_order'")]


def test_before_opencl_c_2_0_a_program_may_define_memory_order() -> None:
    """with clang's predefined `__ATOMIC_*` orders, which every OpenCL C version has"""
    compile_to_ir(ENUM, "-cl-std=CL1.2")


def test_an_unnamed_queue_t_parameter_is_an_unknown_type_name() -> None:
    src = "void foo(queue_t, __local char *);\nkernel void k() { }"
    assert build_errors(src, "CL2.0") == [("1:10", "unknown type name 'queue_t'")]
    assert build_errors(src, "CL1.2") == [("1:10", "expected parameter declarator")]  # clang: K&R's identifier list
