"""Hostile input to the host API (issue 13): every case is a clean OpenCL error
at the call (its name and message checked) or the fixed behaviour, never a
traceback from inside the runtime, a file written where it should not be, or
a crash of the process."""

from __future__ import annotations

import os
import tempfile

import pytest

import oclpy as cl
from oclpy.runtime.linking import MAGIC

KERNEL = "__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }"


@pytest.fixture()
def private_tmp(tmp_path, monkeypatch):
    """The system temporary folder, for this test alone (others write to /tmp meanwhile)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return str(folder)


def _raises(kind, code, match, fn, *args, **kwargs):
    with pytest.raises(kind, match=match) as info:
        fn(*args, **kwargs)
    assert info.value.code == code
    return info.value


@pytest.mark.parametrize("name", ["{tmp}/abs.h", "../up.h", "inc/../../up.h", "", "inc/", "a\0b.h"])
def test_header_names_cannot_leave_their_folder(ctx, name, private_tmp):
    name = name.format(tmp=private_tmp)
    header = cl.Program(ctx, "#define PWNED 1\n")
    main = cl.Program(ctx, f'#include "{name}"\n__kernel void k() {{}}\n')
    before = set(os.listdir(private_tmp))
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "not a relative include name",
            main.compile, headers=[(name, header)])
    assert set(os.listdir(private_tmp)) == before


def test_header_in_a_subfolder_is_still_found(ctx):
    header = cl.Program(ctx, "#define VALUE 3\n")
    main = cl.Program(ctx, '#include "sub/v.h"\n__kernel void k(__global int *a) { a[0] = VALUE; }')
    main.compile(headers=[("sub/v.h", header)])
    assert main.get_build_info(ctx.devices[0], cl.program_build_info.BINARY_TYPE) == 1


def test_failed_builds_leave_nothing_in_the_temp_folder(ctx, private_tmp):
    before = set(os.listdir(private_tmp))
    for i in range(3):
        with pytest.raises(cl.RuntimeError, match="BUILD_PROGRAM_FAILURE"):
            cl.Program(ctx, f"__kernel void k{i}() {{ undeclared_{i} = 1; }}").build()
    with pytest.raises(cl.RuntimeError, match="COMPILE_PROGRAM_FAILURE"):
        cl.Program(ctx, "void f( {").compile(headers=[("h.h", cl.Program(ctx, "int x;"))])
    assert set(os.listdir(private_tmp)) == before


@pytest.mark.parametrize("source", ["__kernel void k() {}\n//\udcff\n", "__kernel void k() { \udcff }"])
def test_lone_surrogates_in_source_are_invalid_value(ctx, source):
    err = _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "not valid Unicode text",
                  cl.Program, ctx, source)
    assert err.routine == "clCreateProgramWithSource"


def test_lone_surrogates_in_a_header_are_invalid_value(ctx):
    header = cl.Program(ctx, "int x;")
    header._source = "int \udcff;"  # a Program that slipped past the check
    _raises(cl.LogicError, cl.status_code.INVALID_VALUE, "not valid Unicode text",
            cl.Program(ctx, KERNEL).compile, headers=[("h.h", header)])


@pytest.mark.parametrize("header, message", [
    (b'{"type": "executable", "device": "cpu", "options": ["-O2"]}', "'options' is not a string"),
    (b'{"type": "executable", "device": 3, "options": ""}', "'device' is not a string"),
    (b'[1, 2]', "not an object"),
    (b"[" * 100_000 + b"]" * 100_000, "corrupt oclpy program binary"),
])
def test_binary_header_fields_are_checked(ctx, header, message):
    data = MAGIC + header + b"\n" + KERNEL.encode()
    _raises(cl.LogicError, cl.status_code.INVALID_BINARY, message,
            cl.Program, ctx, ctx.devices, [data])


@pytest.mark.parametrize("source, options", [
    ("__kernel void k(__global ulong *a) { a[0] = 18446744073709551616; }", ""),
    ("__kernel void k(__global ulong *a) { a[0] = X; }", "-D X=" + "9" * 5000),
])
def test_too_large_integer_literal_is_a_build_error(ctx, source, options):
    err = _raises(cl.RuntimeError, cl.status_code.BUILD_PROGRAM_FAILURE,
                  "error: integer literal is too large to be represented in any integer type",
                  cl.Program(ctx, source).build, options)
    assert "internal compiler error" not in str(err)
