"""tools/clsmith/cvise.py's test server: a test script that goes away before its answer
(C-Vise killed at the deadline) neither stops the server nor loses what was kept."""

from __future__ import annotations

import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.clsmith.cvise import serve  # noqa: E402


def ask(path: str, text: str, wait: bool) -> bytes:
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(text.encode())
    s.shutdown(socket.SHUT_WR)
    answer = s.recv(1) if wait else b""
    s.close()
    return answer


def test_a_client_gone_before_its_answer_leaves_the_server_serving():
    def slow_test(source: str) -> bool:
        time.sleep(0.2)
        return "keep" in source

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "s.sock")
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen(1)
        stop, best = threading.Event(), ["original"]
        thread = threading.Thread(target=serve, args=(server, slow_test, time.monotonic() + 60, stop, best))
        thread.start()
        try:
            assert ask(path, "keep 1", wait=False) == b""       # gone before the answer
            time.sleep(0.4)
            assert thread.is_alive()
            assert ask(path, "keep 2", wait=True) == b"1"
            assert ask(path, "drop", wait=True) == b"0"
        finally:
            stop.set()
            thread.join()
            server.close()
        assert best == ["original", "keep 1", "keep 2"]
