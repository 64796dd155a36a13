"""read_source_file: regular files only, never past the size limit, never blocking."""

from __future__ import annotations

import os

import pytest

from oclpy.frontend.source_files import SourceFileError, read_source_bytes, read_source_file


def test_reads_a_regular_file_as_utf8_text(tmp_path):
    path = tmp_path / "k.cl"
    path.write_bytes("// π\n__kernel void k() {}\n".encode() + b"\xff")
    assert read_source_file(str(path)) == "// π\n__kernel void k() {}\n\ufffd"
    assert read_source_bytes(str(path), limit=path.stat().st_size) == path.read_bytes()


@pytest.mark.parametrize("make, what", [
    (lambda d: "/dev/zero", "a character device"),
    (lambda d: d, "a folder"),
    (lambda d: os.mkfifo(os.path.join(d, "f")) or os.path.join(d, "f"), "a FIFO"),
])
def test_refuses_what_is_not_a_regular_file(tmp_path, make, what):
    with pytest.raises(SourceFileError) as info:
        read_source_file(make(str(tmp_path)))
    assert info.value.strerror == f"not a regular file ({what})"


def test_refuses_a_file_over_the_limit(tmp_path):
    path = tmp_path / "big.cl"
    path.write_bytes(b"x" * 101)
    with pytest.raises(SourceFileError, match=r"file too large \(the limit is 100 bytes\)"):
        read_source_bytes(str(path), limit=100)
    assert read_source_bytes(str(path), limit=101) == b"x" * 101
