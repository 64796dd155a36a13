"""The build cache cannot be turned against its user (issue 13, "Security").

What the disk cache holds is run, so it is used only when safe: folders 0700
and ours, entries ours and signed with this user's key, opened without
following links, written under fresh random names, and every field checked
before use. Whatever is wrong makes a miss (with a CacheWarning when a check
refused something), then the build goes on without the cache; never an
exception, a crash, or another user's code.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest

from oclpy.compiler import cache, door
from tools.cpu_harness import run

SRC = "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n"
OTHER = "__kernel void twice(__global int *x) { x[get_global_id(0)] = 666; }\n"
REPO = Path(__file__).resolve().parents[2]
ROOT_USER = os.geteuid() == 0


def result_of(build: door.CompiledProgram) -> list[int]:
    x = np.arange(4, dtype=np.int32)
    run(build.program.kernels["twice"], [x], (4,), (4,))
    return x.tolist()


def stored(source: str = SRC) -> Path:
    """Build and launch `source`, so its entry is on disk; the entry's path."""
    assert result_of(door.build(source)) in ([0, 2, 4, 6], [666] * 4)
    cache.clear_memory()
    return entry_path(source)


def entry_path(source: str = SRC) -> Path:
    key = cache.program_key(source, "", "", door.resolve(None, ""))
    return cache.cache_dir() / cache.PROGRAMS / f"{key}.bin"


def user_key() -> bytes:
    return (cache.cache_dir() / cache.KEY_FILE).read_bytes()


def sign(path: Path, data: object, blob: bytes, key: bytes | None = None) -> None:
    """Write an entry at `path` as this user would (or with another `key`)."""
    path.write_bytes(cache.encode_entry(key or user_key(), path.name, data, blob))


def parts(path: Path) -> tuple[dict, bytes]:
    found = cache.decode_entry(user_key(), path.name, path.read_bytes())
    assert found is not None
    return found


def rebuilt_once(compiles: list[str]) -> bool:
    """A build of SRC now compiles (the entry was a miss) and gives the right answer."""
    before = len(compiles)
    answer = result_of(door.build(SRC))
    return answer == [0, 2, 4, 6] and len(compiles) == before + 1


# -- folders and files ------------------------------------------------------------------

def test_folders_are_private_and_the_key_is_secret_even_under_umask_0(root: Path) -> None:
    old = os.umask(0)
    try:
        stored()
    finally:
        os.umask(old)
    for folder in (root, root / cache.PROGRAMS):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((root / cache.KEY_FILE).stat().st_mode) == 0o600
    assert len(user_key()) == cache.KEY_BYTES
    for entry in (root / cache.PROGRAMS).iterdir():
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600


def test_missing_parents_are_created_private_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path / "a" / "b"))
    cache.store_entry(cache.CUBINS, "ab" * 16, {}, b"x")
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_a_cache_folder_others_can_write_is_not_used(root: Path, compiles: list[str], mode: int) -> None:
    stored()
    root.chmod(mode)
    with pytest.warns(cache.CacheWarning, match=f"writable by other users \\(mode {mode:o}: .chmod go-w. it"):
        assert rebuilt_once(compiles)
    assert len(list((root / cache.PROGRAMS).iterdir())) == 1  # nothing written either


def test_an_entry_folder_others_can_write_is_not_used(root: Path, compiles: list[str]) -> None:
    stored()
    (root / cache.PROGRAMS).chmod(0o757)
    with pytest.warns(cache.CacheWarning, match="writable by other users"):
        assert rebuilt_once(compiles)


def test_an_entry_others_can_write_is_refused(root: Path, compiles: list[str]) -> None:
    path = stored()
    path.chmod(0o666)
    with pytest.warns(cache.CacheWarning, match="cache file .* writable by other users"):
        assert rebuilt_once(compiles)


@pytest.mark.skipif(not ROOT_USER, reason="changing a file's owner needs root (mode bits are tested above)")
def test_another_users_entry_is_refused(root: Path, compiles: list[str]) -> None:
    path = stored()
    data, blob = parts(path)
    os.chown(path, 12345, 12345)
    with pytest.warns(cache.CacheWarning, match="owned by another user \\(uid 12345\\)"):
        assert rebuilt_once(compiles)


@pytest.mark.skipif(not ROOT_USER, reason="changing a folder's owner needs root")
def test_another_users_cache_folder_is_refused(root: Path, compiles: list[str]) -> None:
    stored()
    os.chown(root, 12345, 12345)
    with pytest.warns(cache.CacheWarning, match="cache folder .* owned by another user"):
        assert rebuilt_once(compiles)
    assert len(list((root / cache.PROGRAMS).iterdir())) == 1


@pytest.mark.skipif(not ROOT_USER, reason="changing a file's owner needs root")
def test_another_users_key_file_is_refused(root: Path, compiles: list[str]) -> None:
    stored()
    os.chown(root / cache.KEY_FILE, 12345, 12345)
    with pytest.warns(cache.CacheWarning, match="owned by another user"):
        assert rebuilt_once(compiles)


def test_a_key_file_others_can_read_is_refused(root: Path, compiles: list[str]) -> None:
    stored()
    (root / cache.KEY_FILE).chmod(0o644)
    with pytest.warns(cache.CacheWarning, match="readable or writable by other users"):
        assert rebuilt_once(compiles)


def test_a_symlinked_entry_is_not_followed(root: Path, tmp_path: Path, compiles: list[str]) -> None:
    path = stored()
    elsewhere = tmp_path / "elsewhere.bin"
    elsewhere.write_bytes(path.read_bytes())  # a whole, signed entry, behind a link
    path.unlink()
    path.symlink_to(elsewhere)
    with pytest.warns(cache.CacheWarning, match="cannot be opened safely \\(a symbolic link\\)"):
        assert rebuilt_once(compiles)


def test_a_symlinked_entry_folder_or_key_is_not_followed(root: Path, tmp_path: Path,
                                                         compiles: list[str]) -> None:
    stored()
    real = tmp_path / "real"
    (root / cache.PROGRAMS).rename(real)
    (root / cache.PROGRAMS).symlink_to(real)
    with pytest.warns(cache.CacheWarning, match="is not a folder"):
        assert rebuilt_once(compiles)
    (root / cache.PROGRAMS).unlink()
    real.rename(root / cache.PROGRAMS)
    (root / cache.KEY_FILE).rename(tmp_path / "key")
    (root / cache.KEY_FILE).symlink_to(tmp_path / "key")
    cache.clear_memory()
    with pytest.warns(cache.CacheWarning, match="a symbolic link"):
        assert rebuilt_once(compiles)


def test_a_fifo_entry_neither_hangs_nor_is_read(root: Path, compiles: list[str]) -> None:
    path = stored()
    path.unlink()
    os.mkfifo(path, 0o600)
    with pytest.warns(cache.CacheWarning, match="not a regular file"):
        assert rebuilt_once(compiles)


def test_a_link_planted_at_the_temporary_name_is_not_written_through(
        root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (root / cache.PROGRAMS).mkdir(parents=True, mode=0o700)
    planted = root / cache.PROGRAMS / ".planted.tmp"
    planted.symlink_to(victim)
    real = cache._temp_names

    def names():  # type: ignore[no-untyped-def]
        yield ".planted.tmp"  # the name an attacker predicted
        yield from real()

    monkeypatch.setattr(cache, "_temp_names", names)
    assert result_of(door.build(SRC)) == [0, 2, 4, 6]
    assert victim.read_text() == "precious" and planted.is_symlink()
    assert entry_path().is_file() and not entry_path().is_symlink()


def test_a_crash_between_write_and_rename_leaves_only_a_temporary_file(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError("disk full")

    monkeypatch.setattr(cache.os, "rename", fail)
    assert result_of(door.build(SRC)) == [0, 2, 4, 6]
    assert not list((root / cache.PROGRAMS).iterdir())  # the temporary file is removed


# -- entries ----------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["garbage", "empty", "truncated", "flipped", "appended"])
def test_a_damaged_entry_is_a_miss_then_rewritten(root: Path, compiles: list[str], damage: str) -> None:
    path = stored()
    data = path.read_bytes()
    path.write_bytes({"garbage": b"not an entry", "empty": b"", "truncated": data[: len(data) // 2],
                      "flipped": data[:40] + bytes([data[40] ^ 0xFF]) + data[41:],
                      "appended": data + b"\0"}[damage])
    assert rebuilt_once(compiles)
    assert cache.decode_entry(user_key(), path.name, path.read_bytes()) is not None  # whole again


def test_another_users_entry_with_a_matching_checksum_but_no_signature_is_refused(
        root: Path, compiles: list[str]) -> None:
    """The attack of issue 13: the entry of another kernel placed under the victim's key."""
    stored(OTHER)
    other = entry_path(OTHER)
    mine = entry_path()
    forged_key = os.urandom(cache.KEY_BYTES)  # the attacker cannot read this user's key
    data, blob = parts(other)
    sign(mine, data, blob, forged_key)
    assert rebuilt_once(compiles)  # 666 would mean the planted kernel ran


def test_random_object_code_under_a_wrong_signature_never_reaches_llvm(root: Path) -> None:
    """In a child process: a crash there fails the test instead of the test run."""
    script = textwrap.dedent(f"""
        import os, sys
        import numpy as np
        import oclpy as cl
        from oclpy.compiler import cache, door
        SRC = {SRC!r}
        key = cache.program_key(SRC, "", "", door.resolve(None, ""))
        folder = cache.cache_dir() / cache.PROGRAMS
        folder.mkdir(parents=True, mode=0o700)
        cache.store_entry(cache.CUBINS, "00" * 16, {{}}, b"")  # makes this user's key
        record = {{"program": {{"kernels": {{"twice": {{"args": [], "blob_size": 8, "reqd": None,
                    "static_local_bytes": 0, "frame_size": 0, "uses_printf": False}}}}}}, "log": ""}}
        entry = cache.encode_entry(os.urandom(32), key + ".bin", record, os.urandom(4096))
        (folder / (key + ".bin")).write_bytes(entry)
        ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
        prg = cl.Program(ctx, SRC).build()
        a = np.arange(4, dtype=np.int32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
        prg.twice(q, (4,), None, buf); cl.enqueue_copy(q, a, buf); q.finish()
        print(a.tolist())
    """)
    env = dict(os.environ, OCLPY_CACHE_DIR=str(root), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 2, 4, 6]"


def test_a_wrong_user_key_makes_every_entry_a_miss(root: Path, compiles: list[str]) -> None:
    stored()
    (root / cache.KEY_FILE).write_bytes(os.urandom(cache.KEY_BYTES))
    assert rebuilt_once(compiles)


def test_a_damaged_key_file_is_refused(root: Path, compiles: list[str]) -> None:
    stored()
    (root / cache.KEY_FILE).write_bytes(b"short")
    with pytest.warns(cache.CacheWarning, match="key file .* is damaged"):
        assert rebuilt_once(compiles)


def _kernel(**change: object) -> dict:
    k = {"args": [{"name": "x", "kind": "global", "size": 8, "offset": 0, "type": ["PtrType", "global"],
                   "attrs": {"type_qualifiers": {"set": []}}}],
         "blob_size": 8, "reqd": None, "static_local_bytes": 0, "frame_size": 0, "uses_printf": False}
    k.update(change)
    return k


def _arg(**change: object) -> dict:
    return _kernel(args=[{**_kernel()["args"][0], **change}])  # type: ignore[dict-item]


def _deep(depth: int) -> object:
    t: object = ["IntType", 32]
    for _ in range(depth):
        t = ["ArrayType", t, 1]
    return t


BAD_RECORDS = {
    "blob_size 1e12": _kernel(blob_size=10**12),
    "blob_size float": _kernel(blob_size=8.0),
    "blob_size bool": _kernel(blob_size=True),
    "negative static local": _kernel(static_local_bytes=-1),
    "huge frame": _kernel(frame_size=1 << 40),
    "reqd of two": _kernel(reqd=[1, 2]),
    "reqd zero": _kernel(reqd=[0, 1, 1]),
    "printf not bool": _kernel(uses_printf=1),
    "unknown key": _kernel(extra=1),
    "missing key": {k: v for k, v in _kernel().items() if k != "frame_size"},
    "args not a list": _kernel(args={"x": 1}),
    "arg past the blob": _arg(offset=8),
    "arg negative offset": _arg(offset=-8),
    "arg unknown kind": _arg(kind="image"),
    "pointer of 4 bytes": _arg(size=4),
    "arg type unknown": _arg(type=["Tensor", 3]),
    "arg type too deep": _arg(type=_deep(100)),
    "arg int width 7": _arg(type=["IntType", 7]),
    "arg attrs nested": _arg(attrs={"a": [[1]]}),
    "arg name not text": _arg(name=5),
}


@pytest.mark.parametrize("name", sorted(BAD_RECORDS))
def test_every_field_of_a_signed_entry_is_checked_before_use(root: Path, compiles: list[str],
                                                             name: str) -> None:
    path = stored()
    data, blob = parts(path)
    data["program"]["kernels"]["twice"] = BAD_RECORDS[name]
    sign(path, data, blob)
    assert rebuilt_once(compiles)


def test_a_signed_record_of_the_wrong_shape_is_a_miss(root: Path, compiles: list[str]) -> None:
    path = stored()
    data, blob = parts(path)
    for bad in ([1, 2], {"program": data["program"]}, {**data, "log": 7},
                {**data, "program": {"kernels": []}}, {**data, "program": {"kernels": {}, "more": 1}}):
        sign(path, bad, blob)
        assert rebuilt_once(compiles)
        cache.clear_memory()


def test_deep_json_is_a_miss_not_a_recursion_error(root: Path, compiles: list[str]) -> None:
    path = stored()
    deep = b"[" * 100_000 + b"]" * 100_000
    body = cache.HEAD.pack(cache.MAGIC, len(deep), 0) + zlib.compress(deep)
    import hashlib
    import hmac
    mac = hmac.new(user_key(), path.name.encode() + b"\0" + body, hashlib.sha256).digest()
    path.write_bytes(body + mac)
    assert cache.json_depth(deep) == 100_000
    assert rebuilt_once(compiles)


@pytest.mark.parametrize("sizes", [(10**12, 0), (0, 10**12), (2**63, 2**63), (cache.MAX_JSON_BYTES + 1, 0)])
def test_lengths_in_the_header_are_checked_against_the_file(root: Path, compiles: list[str],
                                                            sizes: tuple[int, int]) -> None:
    path = stored()
    data = path.read_bytes()
    path.write_bytes(cache.HEAD.pack(cache.MAGIC, *sizes) + data[cache.HEAD.size:])
    assert rebuilt_once(compiles)


def test_an_oversized_entry_is_not_read(root: Path, compiles: list[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = stored()
    monkeypatch.setattr(cache, "MAX_ENTRY_BYTES", path.stat().st_size - 1)
    assert rebuilt_once(compiles)


def test_an_entry_is_bound_to_its_name(root: Path, compiles: list[str]) -> None:
    """A user's own entry copied under another key (its program under another source)."""
    stored(OTHER)
    entry_path().write_bytes(entry_path(OTHER).read_bytes())
    assert rebuilt_once(compiles)


def test_strings_hold_brackets_without_counting(root: Path) -> None:
    text = json.dumps({"a": "[[[{{{", "b": ['\\"]]]']})
    assert cache.json_depth(text.encode()) == 2 and json.loads(text)["b"] == ['\\"]]]']


# -- the compressed body ----------------------------------------------------------------

def _signed_raw(path: Path, head: bytes, payload: bytes) -> None:
    """Write `head` + `payload` at `path`, correctly signed (only this user could)."""
    import hashlib
    import hmac
    body = head + payload
    path.write_bytes(body + hmac.new(user_key(), path.name.encode() + b"\0" + body, hashlib.sha256).digest())


@pytest.mark.parametrize("damage", ["longer", "shorter", "trailing bytes", "cut stream", "not zlib"])
def test_a_signed_body_that_does_not_inflate_to_its_lengths_is_a_miss(root: Path, compiles: list[str],
                                                                     damage: str) -> None:
    path = stored()
    data, blob = parts(path)
    meta = json.dumps(data, separators=(",", ":")).encode()
    whole = zlib.compress(meta + blob)
    payload, sizes = {
        "longer": (zlib.compress(meta + blob + b"\0"), (len(meta), len(blob))),  # a bomb's shape
        "shorter": (zlib.compress(meta + blob[:-1]), (len(meta), len(blob))),
        "trailing bytes": (whole + b"\0", (len(meta), len(blob))),
        "cut stream": (whole[:-4], (len(meta), len(blob))),
        "not zlib": (meta + blob, (len(meta), len(blob))),
    }[damage]
    _signed_raw(path, cache.HEAD.pack(cache.MAGIC, *sizes), payload)
    assert rebuilt_once(compiles)


def test_inflate_never_makes_more_than_the_stated_size() -> None:
    bomb = zlib.compress(b"\0" * (64 << 20), 9)  # 64 MiB from about 64 KiB
    assert cache.inflate(bomb, 1000) is None
    assert cache.inflate(bomb, 64 << 20) == b"\0" * (64 << 20)
    assert cache.inflate(zlib.compress(b"abc"), 3) == b"abc"


def test_an_entry_is_stored_compressed_and_without_codegen_once_every_kernel_has_code(root: Path) -> None:
    path = stored()
    data, blob = parts(path)
    assert data["program"]["codegen"] is None and data["program"]["ir"] is None
    assert path.stat().st_size < cache.HEAD.size + len(json.dumps(data)) + len(blob)


def test_a_kernel_without_code_and_no_codegen_is_a_miss(root: Path, compiles: list[str]) -> None:
    path = stored()
    data, blob = parts(path)
    data["program"]["kernels"]["twice"]["object"] = None
    data["program"]["ir"] = [0, len(blob)]
    sign(path, data, blob)  # codegen None: nothing to compile the IR with
    assert rebuilt_once(compiles)
