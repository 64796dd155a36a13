"""form-workgroups as a pass: registration, what it leaves alone, its encoding
(checked by running the transformed kernel by hand), and its errors.
FileCheck cases are in tests/filecheck/form-workgroups/."""

from __future__ import annotations

from oclpy.ir.parser import parse_module
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import verify_module
from oclpy.passes.form_workgroups import (
    BARRIERS_ATTR, FRAME_ALIGN_ATTR, FRAME_ATTR, STATE_DONE, FormWorkgroups, is_barrier,
)
from oclpy.passes.manager import PASSES, PassError, run_pipeline

import pytest

DECLS = """
declare i64 @ocl.get_local_id(i32)
declare void @ocl.barrier(i32)
"""

TWO = DECLS + """
kernel void @two(ptr<global> %a) {
entry:
  %v = load <3 x float>, ptr<global> %a
  %w = load i1, ptr<global> %a
  call void @ocl.barrier(i32 1)
  %x = fadd <3 x float> %v, %v
  call void @ocl.barrier(i32 2)
  %y = select i1 %w, <3 x float> %x, <3 x float> %v
  store <3 x float> %y, ptr<global> %a
  ret void
}
"""


def test_registered_under_its_name() -> None:
    assert PASSES["form-workgroups"] is FormWorkgroups


def test_frame_layout_and_attributes() -> None:
    m = parse_module(TWO)
    assert run_pipeline(m, "form-workgroups", verify_each=True)
    k = m.get_function("two")
    assert k is not None
    # v: <3 x float> at 0, 16 bytes | w: i1 at 16 | x: <3 x float> at 32
    assert k.attrs[FRAME_ATTR] == 48 and k.attrs[FRAME_ALIGN_ATTR] == 16
    assert k.attrs[BARRIERS_ATTR] == 2
    frame, state = k.args[-2:]
    assert frame.attrs == {"hidden": "frame"} and str(frame.type) == "ptr<private>"
    assert state.attrs == {"hidden": "state"} and str(state.type) == "ptr<private>"
    assert not any(is_barrier(i) for i in k.instructions())
    text = print_module(m)
    assert "i32 1, label %entry.b1\n" in text and "i32 2, label %entry.b1.b2\n" in text
    assert "%x = fadd <3 x float> %v.reload, %v.reload\n" in text  # one reload per user
    assert "%wg.resume = load i32, ptr<private> %wg.state\n" in text
    assert f"store i32 {STATE_DONE}, ptr<private> %wg.state" in text


def test_running_twice_changes_nothing() -> None:
    m = parse_module(TWO)
    run_pipeline(m, "form-workgroups")
    before = print_module(m)
    assert not FormWorkgroups().run(m)
    assert print_module(m) == before


def test_kernels_without_barriers_and_helpers_are_untouched() -> None:
    text = DECLS + """
define i64 @helper() {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  ret i64 %l
}
kernel void @plain(ptr<global> %a) {
entry:
  %l = call i64 @helper()
  store i64 %l, ptr<global> %a
  ret void
}
"""
    m = parse_module(text)
    before = print_module(m)
    assert not run_pipeline(m, "form-workgroups", verify_each=True)
    assert print_module(m) == before


def test_barrier_in_a_called_helper_needs_inlining() -> None:
    m = parse_module(DECLS + """
define void @deep() {
entry:
  call void @ocl.barrier(i32 1)
  ret void
}
define void @sync() {
entry:
  call void @deep()
  ret void
}
kernel void @k() {
entry:
  call void @sync()
  ret void
}
""")
    with pytest.raises(PassError, match="kernel @k calls @sync, which contains a barrier: "
                                        "run 'inline' first"):
        run_pipeline(m, "form-workgroups")


def test_inline_then_form_workgroups() -> None:
    m = parse_module(DECLS + """
define void @sync() {
entry:
  call void @ocl.barrier(i32 1)
  ret void
}
kernel void @k(ptr<global> %a) {
entry:
  %v = load i32, ptr<global> %a
  call void @sync()
  store i32 %v, ptr<global> %a
  ret void
}
""")
    run_pipeline(m, "inline,form-workgroups", verify_each=True)
    k = m.get_function("k")
    assert k is not None and k.attrs[BARRIERS_ATTR] == 1
    verify_module(m)
