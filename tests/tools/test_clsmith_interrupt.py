"""tools/clsmith's workers cut short: by the time limit, where a timeout says whether
the kernel's build had ended; and by a Ctrl-C: the workers ignore SIGINT, a stopped worker's
run answers "stopped", and `python -m tools.clsmith` interrupted in the middle of
its kernels records none of them as a crash (a SIGINT to the process group, as a
terminal sends it, once killed the workers and was recorded as oclpy-crash and
pocl-died), writes its JSON with "interrupted" and exits with 130.

No CLSmith is needed: the kernels are put in the cache (with PoCL's results, so
that PoCL is not run) and CLSmith.h is an empty file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.clsmith.workers import Config, Worker, timeout_detail  # noqa: E402

# runs for hours on any device: the run is always cut short while it is in flight
ENDLESS = """// -g 2 -l 1
kernel void entry(global ulong *result) {
    volatile ulong a = 0;
    for (ulong i = 0; i < 0xFFFFFFFFFFFFUL; i++)
        a += i;
    result[get_global_id(0)] = a;
}
"""


def _headers(tmp_path: Path) -> str:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "CLSmith.h").write_text("")
    return str(inc)


def _children(pid: int) -> list[str]:
    """The processes any thread of `pid` started (the workers are started by its threads)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += (task / "children").read_text().split()
        except OSError:                         # a thread that just ended
            pass
    return found


def test_a_worker_ignores_sigint_and_a_stopped_run_is_no_crash(tmp_path):
    worker = Worker(Config(_headers(tmp_path), stderr_path=str(tmp_path / "stderr.log")))
    try:
        assert worker.where()                   # up and serving
        os.kill(worker.proc.pid, signal.SIGINT)
        time.sleep(0.5)
        assert worker.proc.is_alive() and worker.where()
        results = []
        thread = threading.Thread(target=lambda: results.append(worker.run(ENDLESS, "oclpy", 600)))
        thread.start()
        time.sleep(1.0)
        worker.close()
        thread.join(60)
        assert not thread.is_alive()
        assert results[0].status == "stopped" and "stopped" in results[0].detail
        assert not worker.proc.is_alive()
        worker.close()                          # twice is harmless
    finally:
        worker.close()


def test_a_timeout_says_whether_the_build_had_ended(tmp_path):
    worker = Worker(Config(_headers(tmp_path), stderr_path=str(tmp_path / "stderr.log")))
    try:
        # the build takes well under the limit; the launch never ends
        r = worker.run(ENDLESS, "oclpy", 20)
        assert r.status == "timeout" and r.seconds == 20
        assert 0 < r.build_seconds < 20
        assert r.detail.startswith("no result after 20 s (built in ") and "the launch had not ended" in r.detail
        assert worker.proc.is_alive() and worker.where()        # a fresh worker
    finally:
        worker.close()


def test_timeout_detail_without_a_finished_build():
    assert timeout_detail(60, None) == "no result after 60 s (the build had not ended)"
    assert timeout_detail(60, 2.04) == "no result after 60 s (built in 2.0 s; the launch had not ended)"


def test_sigint_to_the_process_group_stops_the_run_without_recording_crashes(tmp_path):
    inc = _headers(tmp_path)
    cache = tmp_path / "cache"
    (cache / "plain").mkdir(parents=True)
    for seed in (5, 6, 7):
        (cache / "plain" / f"{seed}.cl").write_text(ENDLESS)
        np.save(cache / "plain" / f"{seed}.pocl.npy", np.zeros(2, np.uint64))
        (cache / "plain" / f"{seed}.pocl.json").write_text(json.dumps(
            {"status": "ok", "detail": "", "outputs": ["0"], "seconds": 0.0}))
    out = tmp_path / "run.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "tools.clsmith", "--mode", "plain", "--seeds", "5:8", "--jobs", "2",
         "--timeout", "600", "--clsmith-dir", inc, "--cache", str(cache), "--json", str(out), "--no-pin"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)                 # its own process group, as a shell's job
    try:
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline and not _children(proc.pid):
            time.sleep(0.2)                     # the first worker is started after the handler is set
        time.sleep(4.0)                         # the workers are importing, building or running kernels
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGINT)      # what Ctrl-C in the terminal does
        stdout, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, stdout
    assert "interrupted" in stdout and "Traceback" not in stdout, stdout
    data = json.loads(out.read_text())
    assert data["interrupted"] is True
    assert data["kernels"] == []                # none recorded: every kernel was cut short
    assert "oclpy-crash" not in stdout and "died" not in stdout
