"""Telling SPIR-V from OpenCL C text: the magic number in either byte order, never an error."""

from __future__ import annotations

import pytest

from oclpy import compiler, tools
from oclpy.frontend.spirv.spirv_driver import is_spirv

MAGIC_LE = b"\x03\x02\x23\x07"


@pytest.mark.parametrize("data, expected", [
    (MAGIC_LE + b"\x00" * 16, True),
    (MAGIC_LE[::-1] + b"\x00" * 16, True),
    ((MAGIC_LE + b"\x00" * 16).decode("latin-1"), True),
    (b"__kernel void k() {}", False),
    ("__kernel void k() {}", False),
    ("//日本語\n__kernel void k() {}", False),  # not Latin-1: must not raise
    ("", False),
    (b"", False),
])
def test_is_spirv(data, expected):
    assert is_spirv(data) is expected


def test_source_starting_with_non_latin1_text_builds():
    result = compiler.compile_program("//日本語\n__kernel void k(__global int *a) { a[0] = 1; }")
    assert "k" in result.program.kernels


def test_tools_is_spirv_takes_bytes_only_as_pyopencl_does():
    assert tools.is_spirv(MAGIC_LE + b"\x00" * 16)
    assert not tools.is_spirv((MAGIC_LE + b"\x00" * 16).decode("latin-1"))
    assert not tools.is_spirv(b"__kernel")
