"""`import pyopencl` answered by oclpy on request (`oclpy run`, `oclpy.as_pyopencl`),
and never without it: a real PyOpenCL, where installed, stays what `import pyopencl` gives."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import oclpy
import oclpy.array
from oclpy import as_pyopencl
from oclpy.cli.commands import main
from oclpy.cli.run import UsageError, parse

ROOT = Path(__file__).resolve().parent.parent
PROBE = ("import sys, pyopencl, pyopencl.array, pyopencl.tools, oclpy, oclpy.array, oclpy.tools\n"
         "assert pyopencl is oclpy and pyopencl.array is oclpy.array and pyopencl.tools is oclpy.tools\n"
         "assert sys.modules['pyopencl.array'] is oclpy.array and oclpy.__spec__.name == 'oclpy'\n"
         "print('answered', sys.argv[1:])\n")


def _oclpy(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "oclpy.cli", *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=300, stdin=subprocess.DEVNULL)


@pytest.fixture()
def clean_alias():
    """Leave this process as it was: no finder, no `pyopencl` names given out."""
    saved = {n: m for n, m in sys.modules.items() if as_pyopencl.oclpy_name(n) is not None}
    yield
    as_pyopencl.uninstall()
    sys.modules.update(saved)


def test_run_script_with_arguments(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(PROBE + "import os; assert sys.path[0] == os.path.dirname(os.path.abspath(__file__))\n"
                      "sys.exit(3)\n")
    proc = _oclpy("run", str(script), "a", "-b", cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert "answered ['a', '-b']" in proc.stdout


def test_run_module_resolves_submodules_to_the_same_objects(tmp_path):
    (tmp_path / "probe_mod.py").write_text(PROBE)
    proc = _oclpy("run", "-m", "probe_mod", "x", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "answered ['x']" in proc.stdout


def test_run_code(tmp_path):
    proc = _oclpy("run", "-c", PROBE, "y", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "answered ['y']" in proc.stdout


def test_run_m_pytest_runs_a_pyopencl_test_file(tmp_path):
    (tmp_path / "test_uses_pyopencl.py").write_text(
        "import numpy as np\nimport pyopencl as cl\nimport pyopencl.array as cla\n"
        "def test_add():\n"
        "    ctx = cl.create_some_context(interactive=False)\n    q = cl.CommandQueue(ctx)\n"
        "    a = cla.to_device(q, np.arange(4, dtype=np.float32))\n"
        "    assert type(a).__module__.startswith('oclpy.')\n"
        "    assert ((a + a).get() == 2 * np.arange(4)).all()\n")
    proc = _oclpy("run", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_uses_pyopencl.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_a_missing_pyopencl_module_fails_as_pyopencl_would(tmp_path):
    proc = _oclpy("run", "-c", "import pyopencl.no_such_module", cwd=tmp_path)
    assert proc.returncode == 1
    assert "ModuleNotFoundError: No module named 'pyopencl.no_such_module'" in proc.stderr
    assert "run.py" not in proc.stderr  # the traceback starts at the program


def test_run_errors(tmp_path):
    proc = _oclpy("run", str(tmp_path / "missing.py"), cwd=tmp_path)
    assert proc.returncode == 2
    assert f"oclpy run: error: can't open file '{tmp_path / 'missing.py'}': no such file" in proc.stderr
    proc = _oclpy("run", "-m", "no_such_module_here", cwd=tmp_path)
    assert proc.returncode == 1
    assert "oclpy run: error: no module named 'no_such_module_here'" in proc.stderr


def test_run_usage_errors(capsys):
    with pytest.raises(UsageError, match=r"^usage: oclpy run SCRIPT"):
        parse([])
    with pytest.raises(UsageError, match=r"^oclpy run: error: -m needs an argument"):
        parse(["-m"])
    with pytest.raises(UsageError, match=r"^oclpy run: error: unknown option --bogus"):
        parse(["--bogus"])
    assert main(["run"]) == 2
    assert "usage: oclpy run" in capsys.readouterr().err
    assert parse(["-c", "pass", "1"]) == ("code", "pass", ["-c", "1"])
    assert parse(["-m", "pytest", "-q"]) == ("module", "pytest", ["pytest", "-q"])


def test_without_the_request_pyopencl_is_not_answered(tmp_path):
    """No finder unless asked: `import pyopencl` is PyOpenCL where installed, else missing."""
    code = ("import importlib.util, oclpy, oclpy.array, oclpy.tools\n"
            "spec = importlib.util.find_spec('pyopencl')\n"
            "print('none' if spec is None else spec.origin)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, text=True, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "oclpy" not in proc.stdout.replace(str(ROOT), "")


@pytest.mark.skipif(importlib.util.find_spec("pyopencl") is None, reason="PyOpenCL is not installed")
def test_a_real_pyopencl_stays_importable_and_refuses_the_alias(tmp_path):
    code = ("import pyopencl, oclpy.as_pyopencl\nassert not pyopencl.__name__.startswith('oclpy')\n"
            "try:\n    oclpy.as_pyopencl.install()\nexcept RuntimeError as e:\n    print(e)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, text=True, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "pyopencl is already imported from " in proc.stdout
    assert "oclpy can answer 'import pyopencl' only before it is first imported" in proc.stdout


def test_in_process_install_and_uninstall(clean_alias):
    for name in [n for n in sys.modules if as_pyopencl.oclpy_name(n) is not None]:
        del sys.modules[name]
    with as_pyopencl.installed():
        assert as_pyopencl.is_installed()
        import pyopencl
        import pyopencl.array

        assert pyopencl is oclpy and pyopencl.array is oclpy.array
        assert oclpy.__spec__.name == "oclpy" and oclpy.array.__spec__.name == "oclpy.array"
    assert not as_pyopencl.is_installed()
    assert "pyopencl" not in sys.modules


def test_oclpy_name():
    assert as_pyopencl.oclpy_name("pyopencl") == "oclpy"
    assert as_pyopencl.oclpy_name("pyopencl.compyte.dtypes") == "oclpy.compyte.dtypes"
    assert as_pyopencl.oclpy_name("pyopencl_extra") is None
    assert as_pyopencl.oclpy_name("numpy") is None
