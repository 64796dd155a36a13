"""C-Vise as a reducer whose test is a Python function.

C-Vise (apt: cvise) runs a shell script on each candidate; here the script
is a few lines of the system Python that send the candidate to a socket
served by this process, where `test(source)` (the warm `Oracle`, with its
worker processes) answers. C-Vise then runs one test at a time (`--n 1`);
after `seconds` C-Vise is stopped and the last kernel it kept is the result.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

CVISE = shutil.which("cvise")

_CLIENT = """#!{python}
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect({sock!r})
s.sendall(open({name!r}, "rb").read())
s.shutdown(socket.SHUT_WR)
sys.exit(0 if s.recv(1) == b"1" else 1)
"""


def _python() -> str:
    """A Python that starts fast (no site packages to scan) for the test script."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def serve(server: socket.socket, test: Callable[[str], bool], deadline: float, stop: threading.Event,
           best: list[str]) -> None:
    server.settimeout(0.5)
    while not stop.is_set():
        try:
            conn, _ = server.accept()
        except socket.timeout:
            continue
        with conn:
            data = b""
            while chunk := conn.recv(1 << 16):
                data += chunk
            ok = time.monotonic() < deadline and test(data.decode())
            if ok:
                best.append(data.decode())     # C-Vise only tries what would be smaller
            try:
                conn.sendall(b"1" if ok else b"0")
            except OSError:     # the script was killed meanwhile (C-Vise stopped at the deadline)
                pass


def cvise_reduce(source: str, test: Callable[[str], bool], seconds: float = 1800.0,
                 log: Callable[[str], None] | None = None) -> str:
    """`source` reduced by C-Vise while `test` holds (or unchanged without C-Vise)."""
    if CVISE is None:
        return source
    with tempfile.TemporaryDirectory(prefix="clsmith-cvise-") as tmp:
        sock, kernel, script = (str(Path(tmp) / n) for n in ("oracle.sock", "kernel.cl", "test.py"))
        Path(kernel).write_text(source)
        Path(script).write_text(_CLIENT.format(python=_python(),
                                               sock=sock, name="kernel.cl"))
        os.chmod(script, 0o755)
        server = socket.socket(socket.AF_UNIX)
        server.bind(sock)
        server.listen(1)
        stop = threading.Event()
        best = [source]
        deadline = time.monotonic() + seconds
        thread = threading.Thread(target=serve, args=(server, test, deadline, stop, best))
        thread.start()
        try:
            proc = subprocess.Popen([CVISE, "--n", "1", "--timeout", "600", "--tidy", script, "kernel.cl"],
                                    cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    start_new_session=True)
            try:
                out, _ = proc.communicate(timeout=seconds + 5)
                best.append(Path(kernel).read_text())
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGTERM)   # past the deadline: keep the last kernel it kept
                out, _ = proc.communicate()
            if log:
                log(out[-1500:])
        finally:
            stop.set()
            thread.join()
            server.close()
        return best[-1]
