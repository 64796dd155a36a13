"""include_digest: build caches see changes to included headers."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

import oclpy as cl
from oclpy.frontend.dependencies import include_digest

KERNEL = '#include "mine.h"\n__kernel void k(__global int *o) { o[0] = MINE; }\n'


def test_no_include_no_digest():
    assert include_digest("__kernel void k() {}", "") == ""


def test_digest_follows_header_contents_and_nested_includes(tmp_path: Path):
    (tmp_path / "mine.h").write_text('#include "inner.h"\n')
    (tmp_path / "inner.h").write_text("#define MINE 42\n")
    opts = f"-I {tmp_path}"
    first = include_digest(KERNEL, opts)
    assert first and include_digest(KERNEL, opts) == first
    (tmp_path / "inner.h").write_text("#define MINE 43\n")
    assert include_digest(KERNEL, opts) != first


def test_missing_header_and_include_cycles_are_fine(tmp_path: Path):
    (tmp_path / "a.h").write_text('#include "b.h"\n')
    (tmp_path / "b.h").write_text('#include "a.h"\n#include "nowhere.h"\n')
    assert include_digest('#include "a.h"\n', f"-I {tmp_path}")


def test_bundled_headers_are_found():
    with_header = include_digest("#include <pyopencl-complex.h>\n", "")
    assert with_header != include_digest("#include <no-such-header.h>\n", "")


def _run(ctx: cl.Context, opts: str) -> int:
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
    cl.Program(ctx, KERNEL).build(opts).k(queue, (1,), None, buf)
    out = np.zeros(1, np.int32)
    cl.enqueue_copy(queue, out, buf)
    return int(out[0])


def test_changed_header_rebuilds_in_process(tmp_path: Path):
    ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
    (tmp_path / "mine.h").write_text("#define MINE 42\n")
    assert _run(ctx, f"-I {tmp_path}") == 42
    (tmp_path / "mine.h").write_text("#define MINE 43\n")
    assert _run(ctx, f"-I {tmp_path}") == 43


def test_changed_header_rebuilds_in_a_new_process(tmp_path: Path):
    """The disk cache, which a new process reads, must miss too."""
    (tmp_path / "mine.h").write_text("#define MINE 42\n")
    script = textwrap.dedent(f"""
        import numpy as np, oclpy as cl
        ctx = cl.Context([cl.get_platforms()[0].get_devices()[0]])
        q = cl.CommandQueue(ctx)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4)
        cl.Program(ctx, {KERNEL!r}).build("-I {tmp_path}").k(q, (1,), None, buf)
        out = np.zeros(1, np.int32); cl.enqueue_copy(q, out, buf); print(int(out[0]))
    """)
    env = {"OCLPY_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}

    def run() -> str:
        return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, check=True, timeout=120).stdout.strip()
    assert run() == "42"
    (tmp_path / "mine.h").write_text("#define MINE 43\n")
    assert run() == "43"
