"""The cpu build cache: compiled programs kept on disk and in memory.

`cached_build(source, options, compile)` answers a build from this process's
memory, else from the disk cache, else calls `compile()` (the real compiler)
and stores what it made. The key hashes the source, the build options, the
headers the source includes (`frontend/dependencies.py`: their paths and
contents), the device kind, the host CPU (LLVM name and features) and the
compiler's version (a hash of the path, size and modification time of every
source file and bundled header of the oclpy package, plus llvmlite's and
LLVM's versions), so an entry is never served to a different compiler,
machine or header.

On disk: one file per key under `cache_dir()` ($OCLPY_CACHE_DIR, else
$XDG_CACHE_HOME/oclpy, else ~/.cache/oclpy), subfolder "cpu-v1":

    MAGIC | u64 length of the JSON record | JSON record | object code | sha256 of all before

Entries are written to a temporary file in the same folder and renamed into
place (atomic, so concurrent processes see a whole entry or none). An entry
that is short, has a bad checksum or does not load is ignored (and removed);
the program is then rebuilt and stored again. A fresh build is stored when its
native code exists, at its first launch (`cpu_program.NativeCode`): a program
that never ran leaves no entry. OCLPY_NO_CACHE=1 turns the disk cache off.
Build failures are never cached.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..frontend.dependencies import include_digest
from ..targets.llvm.cpu import jit
from ..targets.llvm.cpu.compiled import CpuProgram, program_from_record, program_record

MAGIC = b"OCLPYCPU\x01"
SUBDIR = "cpu-v1"
MEMORY_ENTRIES = 256
_PACKAGE = Path(__file__).resolve().parents[2]  # the oclpy package folder


@dataclass
class CachedBuild:
    """What `Driver.build` returns for a cache hit: the program and the build log."""

    program: CpuProgram
    log: str


_memory: dict[str, Any] = {}
_memory_lock = threading.Lock()
_version: list[str] = []


def cache_dir() -> Path:
    explicit = os.environ.get("OCLPY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "oclpy"


def disk_enabled() -> bool:
    return os.environ.get("OCLPY_NO_CACHE", "") not in ("1", "true", "yes")


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
        import llvmlite

        h = hashlib.sha256(f"llvmlite {llvmlite.__version__} llvm "
                           f"{jit.llvm.llvm_version_info}".encode())
        for path, size, mtime in _package_files(str(_PACKAGE)):
            h.update(f"{os.path.relpath(path, _PACKAGE)}\0{size}\0{mtime}\0".encode())
        _version.append(h.hexdigest())
    return _version[0]


def prepare() -> None:
    """Work the first cache lookup would do (compiler version, host CPU), done early:
    the cpu driver calls it when it starts, as a driver probes its device."""
    compiler_version()
    jit.host_cpu()


def cache_key(source: str, options: str, device_kind: str = "cpu") -> str:
    cpu, features = jit.host_cpu()
    h = hashlib.sha256()
    for part in (compiler_version(), device_kind, cpu, features, options, source,
                 include_digest(source, options)):
        h.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def entry_path(key: str) -> Path:
    return cache_dir() / SUBDIR / f"{key}.bin"


def encode_entry(record: dict[str, Any], object_code: bytes) -> bytes:
    meta = json.dumps(record, separators=(",", ":")).encode()
    body = MAGIC + struct.pack("<Q", len(meta)) + meta + object_code
    return body + hashlib.sha256(body).digest()


def decode_entry(data: bytes) -> tuple[dict[str, Any], bytes] | None:
    """(record, object code), or None when `data` is not a whole, intact entry."""
    head = len(MAGIC) + 8
    if len(data) < head + 32 or not data.startswith(MAGIC):
        return None
    body, digest = data[:-32], data[-32:]
    if hashlib.sha256(body).digest() != digest:
        return None
    (n,) = struct.unpack_from("<Q", body, len(MAGIC))
    if head + n > len(body):
        return None
    try:
        record = json.loads(body[head:head + n])
    except ValueError:
        return None
    return (record, body[head + n:]) if isinstance(record, dict) else None


def load(key: str) -> CachedBuild | None:
    """The disk entry for `key`, or None (missing, corrupt or unloadable: then removed)."""
    path = entry_path(key)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    decoded = decode_entry(data)
    try:
        if decoded is None:
            raise ValueError("corrupt entry")
        record, obj = decoded
        return CachedBuild(program_from_record(record["program"], obj), str(record["log"]))
    except Exception:  # any malformed entry (bad record, refused object code): rebuild
        _remove(path)
        return None


def store(key: str, build: Any) -> None:
    """Write `build` (its .program and .log) for `key`; failures to write are ignored."""
    program = build.program
    obj = getattr(getattr(program, "_jit", None), "object_code", b"")
    if not obj:
        return
    data = encode_entry({"program": program_record(program), "log": build.log}, obj)
    folder = entry_path(key).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, entry_path(key))
        except BaseException:
            _remove(Path(tmp))
            raise
    except OSError:
        return


def _store_when_compiled(key: str, build: Any) -> None:
    """Store `build` once its native code exists: a cpu program compiles at its first launch."""
    when = getattr(build.program, "when_compiled", None)
    if when is None:
        store(key, build)
    else:
        when(lambda: store(key, build))


def _remove(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _remember(key: str, build: Any) -> None:
    with _memory_lock:
        _memory[key] = build
        while len(_memory) > MEMORY_ENTRIES:
            _memory.pop(next(iter(_memory)))


def cached_build(source: str, options: str, compile: Callable[[], Any],
                 device_kind: str = "cpu") -> Any:
    """The build of (`source`, `options`): from memory, from disk, or from `compile()`."""
    key = cache_key(source, options, device_kind)
    with _memory_lock:
        hit = _memory.get(key)
    if hit is not None:
        return hit
    use_disk = disk_enabled()
    build = load(key) if use_disk else None
    if build is None:
        build = compile()
        if use_disk:
            _store_when_compiled(key, build)
    _remember(key, build)
    return build


def clear_memory() -> None:
    """Forget this process's in-memory entries (the disk cache stays)."""
    with _memory_lock:
        _memory.clear()
