"""The build cache: compiled programs kept in this process's memory and on disk.

The compiler owns it (`toolchain.build` keeps programs here; the cuda driver
keeps the CUDA driver's cubins here through `load_entry`/`store_entry`).

The key (`program_key`) is a sha256 of the entry format, the compiler version
(a hash of the path, size and modification time of every source file and
bundled header of the oclpy package, with llvmlite's and LLVM's versions), the
Target (kind, architecture, features, optimisation level), the build options,
the headers the source includes (`frontend/dependencies.py`: their paths and
contents) and the source: OpenCL C text as UTF-8 bytes or a SPIR-V module's
bytes, each tagged with its kind. So an entry is never served to another
compiler, machine, option, header or level.

Memory (`remembered`): the last MEMORY_ENTRIES programs, least recently used
dropped first, keyed by the same parts but the compiler version (one per
process) as a tuple, which is cheaper to look up than to hash; threads that
ask for one key at once share one build, and a build that fails is not
remembered.

Disk: one file per key under `cache_dir()` ($OCLPY_CACHE_DIR, else
$XDG_CACHE_HOME/oclpy, else ~/.cache/oclpy), in a folder per kind of entry
(PROGRAMS, CUBINS):

    MAGIC | u64 JSON bytes | u64 blob bytes | zlib(JSON + blob) | HMAC-SHA256(user key, name + all before)

The two lengths are of the uncompressed parts. zlib at level 9 about halves
object code and shrinks an entry holding LLVM IR about four times, for tens
of microseconds to undo (`python -m benchmarks.cache_entries` measures it).

The disk cache is only used when it is safe, since what it holds is run:
- folders are created 0700; the cache folder, each entry folder and each
  entry must be owned by this user and writable by nobody else, the key file
  readable by nobody else, or the disk cache is not used (a CacheWarning, once
  per problem; the build goes on without the cache);
- entries and the key file are opened with O_NOFOLLOW (a symbolic link is
  refused) and relative to the checked folder's descriptor, so a folder
  swapped after its check is not followed;
- entries are signed with a per-user key (KEY_FILE, 32 random bytes, 0600,
  beside the entry folders): an entry this user did not write, or that was
  damaged, fails the HMAC and is a miss (then removed and rebuilt);
- every field is bounded before use: the lengths against their limits (the
  signature is checked before anything is decompressed, and decompression
  stops at the lengths, which the data must fill exactly), the JSON's depth,
  and the target's record (`from_record` checks argument metadata, blob
  sizes, ...); anything wrong is a miss, never an exception;
- entries are written to a fresh file under a random name (O_CREAT | O_EXCL |
  O_NOFOLLOW, 0600) and renamed into place, so readers see a whole entry or
  none, and a planted link at a temporary name is never written through.
A cpu program is stored each time a kernel's native code comes to exist, at
its first launch (`CpuProgram.when_compiled`), so the entry grows with the
kernels launched, in this process or a later one. OCLPY_NO_CACHE=1 turns the
disk cache off.
Build failures are never cached.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
import struct
import threading
import warnings
import zlib
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator

from ..targets.llvm import binding
from ..targets.target import Target

FORMAT = "oclpy build cache 3"
MAGIC = b"OCLPYC\x00\x03"
HEAD = struct.Struct("<8sQQ")  # magic, JSON bytes, blob bytes (both uncompressed)
MAC_BYTES = 32
KEY_BYTES = 32
KEY_FILE = "user.key"
PROGRAMS = "programs-v3"  # compiled programs: cpu object code, cuda PTX
CUBINS = "cubins-v3"  # the CUDA driver's cubins of our PTX
MEMORY_ENTRIES = 256
MAX_ENTRY_BYTES = 1 << 30
MAX_JSON_BYTES = 64 << 20
MAX_JSON_DEPTH = 64
MAX_LOG = 16 << 20

_PACKAGE = Path(__file__).resolve().parents[1]  # the oclpy package folder
_KEY_NAME = re.compile(r"[0-9a-f]{16,128}\Z")
_POSIX = (hasattr(os, "O_NOFOLLOW") and hasattr(os, "geteuid") and os.open in os.supports_dir_fd
          and os.rename in os.supports_dir_fd and os.link in os.supports_dir_fd)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class CacheWarning(UserWarning):
    """The disk cache was not used because it failed a safety check."""


# -- the key ----------------------------------------------------------------------------

_version: list[str] = []


def cache_dir() -> Path:
    explicit = os.environ.get("OCLPY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "oclpy"


def disk_enabled() -> bool:
    return _POSIX and os.environ.get("OCLPY_NO_CACHE", "") not in ("1", "true", "yes")


def _package_files(folder: str) -> list[tuple[str, int, int]]:
    """(path, size, mtime_ns) of every source file (.py, and the bundled .h/.cl headers)
    under `folder`, sorted."""
    out = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_dir(follow_symlinks=False) and e.name != "__pycache__":
                out.extend(_package_files(e.path))
            elif e.name.endswith((".py", ".h", ".cl")):
                st = e.stat()
                out.append((e.path, st.st_size, st.st_mtime_ns))
    return sorted(out)


def compiler_version() -> str:
    """A hash of the oclpy package's files (path, size, mtime) and llvmlite/LLVM's versions.

    Computed once per process: a process keeps the compiler it imported."""
    if not _version:
        h = hashlib.sha256(binding.versions().encode())
        for path, size, mtime in _package_files(str(_PACKAGE)):
            h.update(f"{os.path.relpath(path, _PACKAGE)}\0{size}\0{mtime}\0".encode())
        _version.append(h.hexdigest())
    return _version[0]


def prepare() -> None:
    """Work the first cache lookup would do, done early (a driver calls it when it starts)."""
    compiler_version()


def program_key(unit: str | bytes, options: str, headers: str, target: Target) -> str:
    """The key of OpenCL C text or SPIR-V bytes built with `options` for `target`."""
    kind, data = ("spir-v", unit) if isinstance(unit, bytes) else \
        ("opencl-c", unit.encode("utf-8", "surrogatepass"))
    return entry_key(FORMAT, compiler_version(), target.describe(), options, headers, kind, data)


def entry_key(*parts: str | bytes) -> str:
    """A sha256 of `parts` (each length-prefixed), in hex: a name for an entry."""
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass")
        h.update(struct.pack("<Q", len(data)) + data)
    return h.hexdigest()


# -- memory -----------------------------------------------------------------------------

_memory: OrderedDict[Hashable, Any] = OrderedDict()
_pending: dict[Hashable, threading.Event] = {}
_lock = threading.Lock()


def remembered(key: Hashable, make: Callable[[], Any]) -> Any:
    """The value kept for `key`, else `make()`'s (then kept). Threads asking for one key
    at once share one `make()`; when it raises, the next waiting thread makes its own."""
    while True:
        with _lock:
            hit = _memory.get(key)
            if hit is not None:
                _memory.move_to_end(key)
                return hit
            pending = _pending.get(key)
            if pending is None:
                pending = _pending[key] = threading.Event()
                break
        pending.wait()
    try:
        value = make()
        with _lock:
            _memory[key] = value
            while len(_memory) > MEMORY_ENTRIES:
                _memory.popitem(last=False)
        return value
    finally:
        with _lock:
            del _pending[key]
        pending.set()


def clear_memory() -> None:
    """Forget this process's programs (the disk cache stays)."""
    with _lock:
        _memory.clear()


# -- compiled programs ------------------------------------------------------------------

def load_program(key: str, from_record: Callable[[Any, bytes], Any]) -> tuple[Any, str] | None:
    """(program, log) of the disk entry for `key`, or None (missing, refused or damaged:
    a damaged entry is removed). `from_record(data, blob)` rebuilds the target's program
    and raises on any field it does not accept."""
    found = load_entry(PROGRAMS, key)
    if found is None:
        return None
    data, blob = found
    try:
        if type(data) is not dict or set(data) != {"program", "log"}:
            raise ValueError("not a program entry")
        if type(data["log"]) is not str or len(data["log"]) > MAX_LOG:
            raise ValueError("the log is not a string")
        return from_record(data["program"], blob), data["log"]
    except Exception:  # anything the target refuses is a miss, rebuilt and stored again
        remove_entry(PROGRAMS, key)
        return None


def store_program(key: str, program: Any, log: str,
                  record: Callable[[Any], tuple[Any, bytes]]) -> None:
    """Keep `program` on disk under `key` once it is complete: now, or each time a program
    that compiles lazily says more of its native code exists (`when_compiled`)."""
    if not disk_enabled():
        return

    def write() -> None:
        try:
            data, blob = record(program)
        except Exception:  # a program the target cannot record is simply not kept
            return
        store_entry(PROGRAMS, key, {"program": data, "log": log}, blob)

    when_compiled = getattr(program, "when_compiled", None)
    if when_compiled is None:
        write()
    else:
        when_compiled(write)


# -- entries on disk --------------------------------------------------------------------

_warned: set[str] = set()


def _warn(message: str) -> None:
    """Say once per process why the disk cache is not used."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(f"oclpy build cache: {message}; building without the disk cache",
                      CacheWarning, stacklevel=3)


def _why_unsafe(st: os.stat_result, path: Path, what: str, secret: bool = False) -> str | None:
    """Why a file or folder with status `st` cannot be trusted, or None when it can."""
    if st.st_uid != os.geteuid():
        return f"the {what} {path} is owned by another user (uid {st.st_uid})"
    if st.st_mode & (0o077 if secret else 0o022):
        how = "readable or writable" if secret else "writable"
        return (f"the {what} {path} is {how} by other users (mode {stat.S_IMODE(st.st_mode):o}: "
                f"'chmod {'600' if secret else 'go-w'}' it if only you wrote there)")
    return None


def _make_folders(path: Path) -> None:
    """Create `path` and its missing parents, each new one 0700."""
    missing = []
    while not os.path.lexists(path) and path != path.parent:
        missing.append(path)
        path = path.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass


def _open_folder(name: str | Path, parent: int | None, path: Path, create: bool) -> int | None:
    """A descriptor of folder `name` (in the folder `parent` is a descriptor of, or a path),
    checked to be ours and private; None when it is missing or refused."""
    try:
        if create and parent is not None:
            try:
                os.mkdir(name, 0o700, dir_fd=parent)
            except FileExistsError:
                pass
        flags = _DIR_FLAGS | (_NOFOLLOW if parent is not None else 0)
        fd = os.open(name, flags, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            _warn(f"{path} is not a folder (a symbolic link or a file)")
        return None
    why = _why_unsafe(os.fstat(fd), path, "cache folder")
    if why is not None:
        os.close(fd)
        _warn(why)
        return None
    return fd


@contextmanager
def _folders(folder: str, create: bool) -> Iterator[tuple[int, int] | None]:
    """(root, entry folder) descriptors, both checked, or None when the disk cache
    cannot be used here."""
    if not disk_enabled():
        yield None
        return
    root = cache_dir()
    if create:
        try:
            _make_folders(root)
        except OSError:
            yield None
            return
    root_fd = _open_folder(root, None, root, create)
    if root_fd is None:
        yield None
        return
    try:
        sub_fd = _open_folder(folder, root_fd, root / folder, create)
        if sub_fd is None:
            yield None
            return
        try:
            yield root_fd, sub_fd
        finally:
            os.close(sub_fd)
    finally:
        os.close(root_fd)


def _read_file(name: str, folder_fd: int, path: Path, limit: int, secret: bool = False) -> bytes | None:
    """The bytes of regular file `name` (not a link), when it is ours and at most `limit`
    bytes; None when it is missing or refused."""
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=folder_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _warn(f"{path} cannot be opened safely ({'a symbolic link' if exc.errno == errno.ELOOP else exc.strerror})")
        return None
    try:
        st = os.fstat(fd)
        why = None if stat.S_ISREG(st.st_mode) else f"{path} is not a regular file"
        why = why or _why_unsafe(st, path, "cache file", secret)
        if why is not None:
            _warn(why)
            return None
        if st.st_size > limit:
            return None
        chunks, left = [], st.st_size
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _temp_names() -> Iterator[str]:
    """Fresh random names for temporary files (tests replace it to plant links)."""
    while True:
        yield f".{secrets.token_hex(12)}.tmp"


def _write_new(folder_fd: int, data: bytes) -> str:
    """Write `data` to a new private file under a random name in the folder; its name."""
    for _, name in zip(range(100), _temp_names()):
        try:
            fd = os.open(name, _CREATE_FLAGS, 0o600, dir_fd=folder_fd)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except BaseException:
            _unlink(name, folder_fd)
            raise
        return name
    raise FileExistsError("no free temporary name")


def _unlink(name: str, folder_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=folder_fd)
    except OSError:
        pass


def _user_key(root_fd: int, create: bool) -> bytes | None:
    """This user's signing key (created when missing and `create`), or None."""
    path = cache_dir() / KEY_FILE
    key = _read_file(KEY_FILE, root_fd, path, KEY_BYTES, secret=True)
    if key is not None:
        if len(key) != KEY_BYTES:
            _warn(f"the key file {path} is damaged (remove it)")
            return None
        return key
    if not create or os.path.lexists(path):
        return None
    tmp = _write_new(root_fd, secrets.token_bytes(KEY_BYTES))
    try:
        os.link(tmp, KEY_FILE, src_dir_fd=root_fd, dst_dir_fd=root_fd, follow_symlinks=False)
    except FileExistsError:  # another process made it first: use theirs
        pass
    finally:
        _unlink(tmp, root_fd)
    return _user_key(root_fd, False)


def encode_entry(key: bytes, name: str, data: Any, blob: bytes) -> bytes:
    """An entry holding JSON `data` and `blob`, compressed, signed with `key` for the file `name`."""
    meta = json.dumps(data, separators=(",", ":")).encode()
    body = HEAD.pack(MAGIC, len(meta), len(blob)) + zlib.compress(meta + blob, 9)
    return body + hmac.new(key, name.encode() + b"\0" + body, hashlib.sha256).digest()


_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(text: bytes) -> int:
    """How deeply JSON `text` nests arrays and objects (string contents aside)."""
    depth = deepest = 0
    for bracket in _STRINGS.sub(b"", text).translate(None, _NOT_BRACKETS):
        depth += 1 if bracket in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def decode_entry(key: bytes, name: str, entry: bytes) -> tuple[Any, bytes] | None:
    """(JSON data, blob) of an entry signed with `key` for `name`; None when it is not a
    whole, intact entry of ours. Never raises."""
    if len(entry) < HEAD.size + MAC_BYTES:
        return None
    magic, meta_n, blob_n = HEAD.unpack_from(entry)
    if magic != MAGIC or meta_n > MAX_JSON_BYTES or blob_n > MAX_ENTRY_BYTES:
        return None
    body, mac = entry[:-MAC_BYTES], entry[-MAC_BYTES:]
    if not hmac.compare_digest(mac, hmac.new(key, name.encode() + b"\0" + body, hashlib.sha256).digest()):
        return None
    whole = inflate(body[HEAD.size:], meta_n + blob_n)
    if whole is None:
        return None
    meta = whole[:meta_n]
    if json_depth(meta) > MAX_JSON_DEPTH:
        return None
    try:
        data = json.loads(meta)
    except (ValueError, RecursionError):
        return None
    return data, whole[meta_n:]


def inflate(data: bytes, size: int) -> bytes | None:
    """The `size` bytes that zlib stream `data` holds, or None when it is damaged, or
    holds more or less than that, or has bytes after its end. Never makes more than
    `size` + 1 bytes (a stream that would is refused there)."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, size + 1)
    except zlib.error:
        return None
    if len(out) != size or not inflater.eof or inflater.unconsumed_tail or inflater.unused_data:
        return None
    return out


def _entry_name(key: str) -> str:
    if not _KEY_NAME.match(key):
        raise ValueError(f"not a cache key: {key[:80]!r}")
    return f"{key}.bin"


def load_entry(folder: str, key: str) -> tuple[Any, bytes] | None:
    """(JSON data, blob) stored under `key` in `folder`, or None: missing, refused (a
    CacheWarning says why, once), or not signed by this user (then removed)."""
    name = _entry_name(key)
    with _folders(folder, create=False) as fds:
        if fds is None:
            return None
        root_fd, folder_fd = fds
        path = cache_dir() / folder / name
        entry = _read_file(name, folder_fd, path, MAX_ENTRY_BYTES)
        if entry is None:
            return None
        user_key = _user_key(root_fd, create=False)
        if user_key is None:
            return None
        found = decode_entry(user_key, name, entry)
        if found is None:
            _unlink(name, folder_fd)
        return found


def store_entry(folder: str, key: str, data: Any, blob: bytes) -> None:
    """Keep JSON `data` and `blob` under `key` in `folder`, signed; a cache that cannot be
    written safely is skipped."""
    name = _entry_name(key)
    try:
        with _folders(folder, create=True) as fds:
            if fds is None:
                return
            root_fd, folder_fd = fds
            user_key = _user_key(root_fd, create=True)
            if user_key is None:
                return
            tmp = _write_new(folder_fd, encode_entry(user_key, name, data, blob))
            try:
                os.rename(tmp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)  # replaces: POSIX
            except OSError:
                _unlink(tmp, folder_fd)
    except (OSError, ValueError, TypeError):  # unwritable, or data that is not JSON
        return


def remove_entry(folder: str, key: str) -> None:
    with _folders(folder, create=False) as fds:
        if fds is not None:
            _unlink(_entry_name(key), fds[1])
