"""`oclpy check python app.py` and `OCLPY_CHECK=1`, run as a user would, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

APP = """
import numpy as np
import oclpy as cl
SRC = '''__kernel void k(__global const int *a, __global int *out) {
    int i = get_global_id(0);
    out[i + OFFSET] = a[i];
}
'''
ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
a = np.arange(64, dtype=np.int32)
da = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
dout = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
prg = cl.Program(ctx, SRC.replace("OFFSET", sys.argv[1])).build()
prg.k(q, (64,), (32,), da, dout)
q.finish()
print("device", ctx.devices[0].kind)
"""


def oclpy(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    if "OCLPY_CHECK" not in (env or {}):
        full.pop("OCLPY_CHECK", None)
    return subprocess.run([sys.executable, "-m", "oclpy.cli", *args], capture_output=True, text=True,
                          env=full, cwd=cwd, timeout=600)


@pytest.fixture()
def app(tmp_path: Path) -> Path:
    path = tmp_path / "app.py"
    path.write_text("import sys\n" + APP)
    return path


def test_check_reports_as_found_summarises_and_fails(app: Path) -> None:
    done = oclpy("check", "python", str(app), "1")
    assert done.returncode == 1
    assert done.stdout == "device simt\n"
    assert done.stderr == (
        "<kernel>:3:16: error: out-of-bounds write to __global buffer 'out' (argument 1): offset 256, size 256\n"
        "    out[i + 1] = a[i];\n"
        "               ^\n"
        "<kernel>:3:16: note: in kernel 'k', first by work-item (63,0,0) of work-group (1,0,0); 1 work-item in all\n"
        "oclpy check: 1 problem found\n"
        "  out-of-bounds: 1\n")


def test_check_of_a_clean_program_exits_zero(app: Path) -> None:
    done = oclpy("check", str(app), "0")  # `python` may be left out
    assert (done.returncode, done.stdout, done.stderr) == (0, "device simt\n", "oclpy check: no problems found\n")


def test_the_programs_own_failure_wins(tmp_path: Path) -> None:
    script = tmp_path / "fail.py"
    script.write_text("import sys\nsys.exit(7)\n")
    assert oclpy("check", "python", str(script)).returncode == 7


def test_check_without_a_program_is_a_usage_error() -> None:
    done = oclpy("check")
    assert done.returncode == 2
    assert done.stderr == ("usage: oclpy check python SCRIPT [ARGS...] | python -m MODULE [ARGS...] | "
                           "python -c CODE [ARGS...]\n")


def test_check_of_a_missing_script_says_so(tmp_path: Path) -> None:
    done = oclpy("check", "python", str(tmp_path / "nope.py"))
    assert done.returncode == 2
    assert done.stderr == f"oclpy check: error: can't open file '{tmp_path / 'nope.py'}': no such file\n"


def test_oclpy_check_environment_variable_reports_and_summarises_at_exit(app: Path) -> None:
    full = {**os.environ, "PYTHONPATH": str(ROOT), "OCLPY_CHECK": "1"}
    full.pop("OCLPY_DEVICE", None)
    done = subprocess.run([sys.executable, str(app), "1"], capture_output=True, text=True, env=full, timeout=600)
    assert done.returncode == 0
    assert done.stdout == "device simt\n"
    assert "error: out-of-bounds write to __global buffer 'out' (argument 1)" in done.stderr
    assert done.stderr.endswith("oclpy check: 1 problem found\n  out-of-bounds: 1\n")


def test_reports_are_python_objects_with_a_callback(app: Path) -> None:
    code = APP.replace("q.finish()", "q.finish()\nfrom oclpy.runtime import checking\n"
                       "print([(r.kind, r.count, r.loc.line) for r in checking.reports()], heard)")
    code = ("import sys\nfrom oclpy.runtime import checking\nheard = []\n"
            "checking.enable(summary_at_exit=False)\nchecking.SESSION.printing = False\n"
            "checking.on_report(lambda r: heard.append(r.kind))\n" + code)
    full = {**os.environ, "PYTHONPATH": str(ROOT)}
    full.pop("OCLPY_DEVICE", None)
    full.pop("OCLPY_CHECK", None)
    done = subprocess.run([sys.executable, "-c", code, "2"], capture_output=True, text=True, env=full, timeout=600)
    assert done.stdout == "[('out-of-bounds', 2, 3)] ['out-of-bounds']\ndevice simt\n"
    assert done.stderr == ""


def test_check_with_oclpy_check_already_set_prints_one_summary(app: Path) -> None:
    done = oclpy("check", "python", str(app), "0", env={"OCLPY_CHECK": "1"})
    assert (done.returncode, done.stderr) == (0, "oclpy check: no problems found\n")


def test_check_python_dash_m_without_a_module_says_so() -> None:
    from oclpy.cli.check import main
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["python", "-m"]) == 2
    assert err.getvalue() == ("oclpy check: error: -m needs an argument\n"
                              "usage: oclpy check python SCRIPT [ARGS...] | python -m MODULE [ARGS...] | "
                              "python -c CODE [ARGS...]\n")
