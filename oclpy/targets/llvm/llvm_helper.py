"""A helper process that runs LLVM's optimiser and code generator for this one.

Why: llvmlite 0.50 keeps about 60 KiB for every run of LLVM's optimisation
pipeline (its pass builder's pipeline and instrumentation callbacks, which
nothing frees; a fresh LLVM context does not help, as `tools/memory_growth.py`
measures), so a process that builds thousands of programs (a notebook, a
server) grows without bound. A process that ends gives all of it back.

`binding.py` decides when to use one (`use_helper`): never for the first
`IN_PROCESS_RUNS` optimisations of a process (a script that builds a few
programs pays nothing), for every one after; `OCLPY_LLVM_HELPER=0` never,
`=1` from the first. A helper serves `RUNS_PER_HELPER` requests, then is
replaced by a fresh one, so what the leak holds stays bounded.

The protocol is frames on the helper's stdin and stdout: an 8-byte little
endian length, then a pickle (both ends are this package, in processes of the
same user: nothing else writes to these pipes). A request is a kind and its
arguments: ("object", LLVM IR text, opt level, cpu, features) for the cpu
device, answered ("ok", optimised IR, object code), or ("ptx", LLVM IR text,
arch, features, opt level, LLVM options, libdevice path, kernels) for cuda,
answered ("ok", PTX, optimised IR); any failure ("error", message). A helper that dies (LLVM aborting on some input) is an
error for that request only; the next starts a fresh helper. Where no helper
can start at all, the process optimises in-process, as before. The helper
ignores Ctrl-C; a client interrupted mid-request kills it.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

IN_PROCESS_RUNS = 256  # optimisations a process runs itself before it hands them to a helper
RUNS_PER_HELPER = 1000  # about 60 MiB of llvmlite's leftovers, then a fresh helper
_FRAME = struct.Struct("<Q")
_PACKAGE_PARENT = str(Path(__file__).resolve().parents[3])  # the folder holding `oclpy`
_COMMAND = "from oclpy.targets.llvm.binding import serve_helper; serve_helper()"


class HelperError(Exception):
    """The helper refused a request (its message) or died."""


class HelperUnavailable(Exception):
    """No helper process can be started here (no Python executable to run, say)."""


def read_frame(stream: BinaryIO) -> bytes | None:
    """The next frame's payload; None at the end of the stream."""
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    (size,) = _FRAME.unpack(head)
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream: BinaryIO, payload: bytes) -> None:
    stream.write(_FRAME.pack(len(payload)) + payload)
    stream.flush()


def use_helper(runs_so_far: int) -> bool:
    """Whether the next optimisation goes to a helper process (see the module docstring)."""
    mode = os.environ.get("OCLPY_LLVM_HELPER", "")
    if mode == "0":
        return False
    return mode == "1" or runs_so_far >= IN_PROCESS_RUNS


class Helper:
    """The client's side: one helper process at a time, started on demand."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen | None = None
        self._pid = 0  # the process that started it (a forked child starts its own)
        self._runs = 0
        self._lock = threading.Lock()
        self.unavailable = ""  # why no helper can start here, once that is known

    def request(self, kind: str, *args: Any) -> tuple:
        """The helper's answer to a request of `kind` (see the module docstring);
        HelperError when the helper refuses it or dies."""
        with self._lock:
            proc = self._process()
            self._runs += 1
            try:
                write_frame(proc.stdin, pickle.dumps((kind, *args)))
                reply = read_frame(proc.stdout)
            except OSError:
                reply = None
            except BaseException:  # Ctrl-C mid-request: its answer would answer the next one
                self._stop(kill=True)
                raise
            if reply is None:
                self._stop()
                raise HelperError(f"the LLVM helper process ended (exit status {proc.poll()})")
            status, *rest = pickle.loads(reply)
            if self._runs >= RUNS_PER_HELPER:
                self._stop()
            if status != "ok":
                raise HelperError(rest[0])
            return tuple(rest)

    def _process(self) -> subprocess.Popen:
        if self._proc is not None and self._pid != os.getpid():
            self._proc = None  # the parent's helper, reached through a fork: leave it be
        if self._proc is None:
            if self.unavailable:
                raise HelperUnavailable(self.unavailable)
            env = dict(os.environ, OCLPY_LLVM_HELPER="0")
            env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_PARENT, env.get("PYTHONPATH")) if p)
            try:
                if not sys.executable:
                    raise OSError("no Python executable (sys.executable is empty)")
                self._proc = subprocess.Popen([sys.executable, "-c", _COMMAND], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, env=env, close_fds=True)
            except OSError as exc:  # never again in this process: the caller optimises here
                self.unavailable = f"cannot start the LLVM helper process: {exc}"
                raise HelperUnavailable(self.unavailable) from exc
            self._pid = os.getpid()
            self._runs = 0
        return self._proc

    def _stop(self, kill: bool = False) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if kill:
            proc.kill()
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        with self._lock:
            self._stop()


def serve(handlers: dict[str, Any]) -> None:
    """The helper's side: answer each request with `handlers[kind](*args)` until the
    client closes the pipe. Stray writes to stdout go to stderr."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the client's: it stops us if it must
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    while (request := read_frame(requests)) is not None:
        kind, *args = pickle.loads(request)
        try:
            if kind not in handlers:
                raise ValueError(f"unknown request '{kind}'")
            reply: tuple = ("ok", *handlers[kind](*args))
        except Exception as exc:  # handed back: the client raises it as an LLVMError
            reply = ("error", f"{type(exc).__name__}: {exc}")
        write_frame(replies, pickle.dumps(reply))
