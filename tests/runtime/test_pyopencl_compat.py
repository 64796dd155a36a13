"""The PyOpenCL compatibility run (oclpy/compat.py): PyOpenCL's examples, unchanged but for the name.

The examples need PyOpenCL's source distribution: from OCLPY_PYOPENCL_SDIST,
from the cache folder of an earlier run, or downloaded with pip. Where none
of these is possible (no network, as on CI) the test is skipped, saying why,
within a few seconds. examples/transpose.py is a benchmark (matrices up to
7488 x 7488, minutes of run time): `python -m oclpy.cli.compat` runs it, this
test does not.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from oclpy.cli import compat

CACHE = Path(os.environ.get("OCLPY_COMPAT_CACHE", Path.home() / ".cache" / "oclpy" / "pyopencl"))


def _make_sdist(folder: Path, files: dict[str, bytes]) -> Path:
    path = folder / "pyopencl-0.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"pyopencl-0.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_rewrite_changes_only_the_package_name():
    text = "import pyopencl as cl\nfrom pyopencl.tools import x  # pyopencl_ext, mypyopencl\n"
    assert compat.rewrite(text) == ("import oclpy as cl\nfrom oclpy.tools import x  "
                                    "# pyopencl_ext, mypyopencl\n")


def test_unpack_runs_and_counts(tmp_path, monkeypatch):
    sdist = _make_sdist(tmp_path, {
        "examples/ok.py": b"import pyopencl as cl\nprint(cl.VERSION_TEXT)\n",
        "test/test_t.py": b"import pyopencl\ndef test_a(): pass\ndef test_b(): assert False\n",
    })
    monkeypatch.setenv("OCLPY_PYOPENCL_SDIST", str(sdist))
    assert compat.download_sdist(tmp_path / "unused") == sdist
    paths = compat.unpack(sdist, tmp_path / "src", ("examples/ok.py", "test/test_t.py"))
    assert "import oclpy as cl" in paths["examples/ok.py"].read_text()
    example = compat.run_example(paths["examples/ok.py"])
    assert example.ok and example.summary() == "examples/ok.py: ran OK"
    tests = compat.run_tests(paths["test/test_t.py"])
    assert tests.counts == {"failed": 1, "passed": 1}
    assert tests.summary() == "test/test_t.py: 1 failed, 1 passed"
    with pytest.raises(compat.Unavailable, match="has no examples/missing.py"):
        compat.unpack(sdist, tmp_path / "src", ("examples/missing.py",))


def test_a_file_past_its_time_limit_is_reported_and_the_run_goes_on(tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time\nprint('started', flush=True)\ntime.sleep(30)\n")
    result = compat.run_example(slow, timeout=2)
    assert not result.ok and result.returncode == compat.TIMED_OUT
    assert result.summary() == "examples/slow.py: TIMED OUT"
    assert "started" in result.output and "timed out after 2 s" in result.output


def test_missing_sdist_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("OCLPY_PYOPENCL_SDIST", str(tmp_path / "nope.tar.gz"))
    with pytest.raises(compat.Unavailable, match="is not a file"):
        compat.download_sdist(tmp_path)


def test_pyopencl_examples_run_unchanged(tmp_path):
    try:
        sdist = compat.download_sdist(CACHE)
    except compat.Unavailable as exc:
        pytest.skip(f"PyOpenCL's source distribution is not available here: {exc}")
    quick = tuple(e for e in compat.EXAMPLES if e != "examples/transpose.py")
    paths = compat.unpack(sdist, tmp_path, quick)
    failures = []
    for name, path in paths.items():
        result = compat.run_example(path, timeout=120)
        if not result.ok:
            failures.append(f"{name} (exit {result.returncode}):\n{result.output[-2000:]}")
    assert not failures, "\n\n".join(failures)
