"""PyOpenCL's own image tests (test_wrapper.py's image, sampler and info tests,
test_enqueue_copy_array*) under `oclpy run -m pytest`, unchanged, from PyOpenCL's
source archive (OCLPY_PYOPENCL_SDIST, else the copy `python -m oclpy.cli.compat`
keeps in ~/.cache/oclpy/pyopencl); skipped with that reason where there is none."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("OCLPY_COMPAT_CACHE", Path.home() / ".cache" / "oclpy" / "pyopencl"))
SELECTION = "image or enqueue_copy_array or get_info"


def _sdist() -> Path | None:
    given = os.environ.get("OCLPY_PYOPENCL_SDIST")
    if given:
        return Path(given)
    found = sorted(CACHE.glob("pyopencl-*.tar.gz"))
    return found[-1] if found else None


def test_pyopencl_image_tests_pass_on_oclpy(tmp_path):
    sdist = _sdist()
    if sdist is None or not sdist.is_file():
        pytest.skip("PyOpenCL's source archive is not at hand: set OCLPY_PYOPENCL_SDIST, or run "
                    "`python -m oclpy.cli.compat` once to cache it")
    with tarfile.open(sdist) as tar:
        member = next(m for m in tar.getmembers() if m.name.endswith("/test/test_wrapper.py"))
        data = tar.extractfile(member)
        assert data is not None
        (tmp_path / "test_wrapper.py").write_bytes(data.read())
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYOPENCL_CTX", None)
    proc = subprocess.run([sys.executable, "-m", "oclpy.cli", "run", "-m", "pytest", "-v", "-p", "no:cacheprovider",
                           "-o", "addopts=", "test_wrapper.py", "-k", SELECTION],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    tail = proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.returncode == 0, tail
    assert " passed" in proc.stdout and "FAILED" not in proc.stdout, tail
    for name in ("test_image_2d", "test_image_3d", "test_enqueue_copy_array", "test_enqueue_copy_array_2",
                 "test_get_info", "test_nonempty_supported_image_formats"):
        assert re.search(rf"::{name}(\[[^\]]*\])? PASSED", proc.stdout), f"{name} did not pass:\n{tail}"
