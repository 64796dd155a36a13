"""Reading a source file from disk, with limits: the one way the compiler opens input.

`oclpy build FILE`, `oclpy opt FILE`, the include digest of the build cache
and `#include` all read files named by the user. A name can be a device
(`/dev/zero` never ends, `/dev/stdin` waits), a FIFO (opening it blocks until
a writer comes) or a folder, and a regular file can be far larger than any
program. `read_source_bytes` refuses what is not a regular file before
reading a byte (the file is opened non-blocking, so a FIFO cannot hang the
open), and refuses a file over `MAX_SOURCE_BYTES`, each with a
`SourceFileError` (an OSError whose `strerror` says what is wrong).
"""

from __future__ import annotations

import errno
import os
import stat

MAX_SOURCE_BYTES = 64 << 20  # 64 MiB: far beyond any OpenCL C program or SPIR-V module

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class SourceFileError(OSError):
    """A source file that cannot be read as one: not a regular file, or too large."""


def read_source_bytes(path: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`; SourceFileError (or the OSError of open) if not.

    `limit` is a size in bytes, MAX_SOURCE_BYTES when None.
    """
    limit = MAX_SOURCE_BYTES if limit is None else limit
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
            raise SourceFileError(errno.EINVAL, f"not a regular file ({what})", path)
        if info.st_size > limit:
            raise SourceFileError(errno.EFBIG, _too_large(limit), path)
        chunks, size = [], 0
        while size <= limit:  # the file may grow while it is read: never past the limit
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise SourceFileError(errno.EFBIG, _too_large(limit), path)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_source_file(path: str, limit: int | None = None) -> str:
    """The text of the regular file `path` as UTF-8 (undecodable bytes replaced)."""
    return read_source_bytes(path, limit).decode("utf-8", errors="replace")


def _too_large(limit: int) -> str:
    return f"file too large (the limit is {limit:,} bytes)"
