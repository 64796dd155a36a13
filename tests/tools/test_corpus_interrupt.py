"""tools/corpus stopped by a Ctrl-C: its workers ignore SIGINT (a terminal or
`timeout -s INT` sends it to the whole process group, and a worker killed by it
was recorded as "died"), and a KeyboardInterrupt in `run_all`'s caller's thread
ends the run: no further result is reported."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.corpus.workers import Worker, run_all  # noqa: E402


def _job(tmp_path: Path, n: int) -> dict:
    return {"id": f"case{n}", "path": f"case{n}.cl", "text": "kernel void k(global int *o) { o[0] = 1; }\n",
            "directory": str(tmp_path), "options": [], "std": "CL1.2", "what": "oclpy", "depth": "frontend"}


def test_a_worker_ignores_sigint_and_goes_on_serving(tmp_path):
    worker = Worker(str(tmp_path))
    try:
        assert worker.run(_job(tmp_path, 0), 120)["oclpy"]["status"] == "ok"
        os.kill(worker.proc.pid, signal.SIGINT)
        time.sleep(0.5)
        assert worker.proc.is_alive()
        assert worker.run(_job(tmp_path, 1), 120)["oclpy"]["status"] == "ok"
    finally:
        worker.close()


def test_an_interruption_in_the_callers_thread_ends_the_run(tmp_path):
    seen: list[str] = []

    def done(result: dict) -> None:
        seen.append(result["id"])
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_all([_job(tmp_path, n) for n in range(20)], 1, 120, str(tmp_path), done)
    assert seen == ["case0"]
