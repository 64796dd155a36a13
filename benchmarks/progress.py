"""A one-line progress bar on stderr (plain lines when stderr is not a terminal)."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, width: int = 28) -> None:
        self.total, self.width, self.done = total, width, 0
        self.tty = sys.stderr.isatty()
        self.start = time.perf_counter()

    def show(self, what: str) -> None:
        filled = self.width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.perf_counter() - self.start
        line = f"[{bar}] {self.done}/{self.total} {elapsed:5.1f}s {what}"
        if self.tty:
            sys.stderr.write("\r\x1b[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def step(self) -> None:
        self.done += 1

    def close(self) -> None:
        if self.tty:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
