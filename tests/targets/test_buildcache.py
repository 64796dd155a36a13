"""The cpu build cache: disk entries across processes, keys, corruption, switches."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from oclpy.compiler import build_program
from oclpy.ir import types as irt
from oclpy.compiler import cache as bc
from oclpy.targets.llvm.cpu.compiled import type_from_json, type_to_json

SRC = "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n"
REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys, numpy as np
    import oclpy as cl, oclpy.compiler.build
    if sys.argv[1] == "forbid":
        def no_compiler(*a, **k):
            raise AssertionError("compiled although the cache had the program")
        oclpy.compiler.build.build_program = no_compiler
    ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, sys.argv[2]).build()
    a = np.arange(8, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    prg.twice(q, (8,), None, buf)
    cl.enqueue_copy(q, a, buf); q.finish()
    print(a.tolist())
""")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("OCLPY_NO_CACHE", raising=False)
    bc.clear_memory()
    return tmp_path


def _child(mode: str, cache: Path, source: str = SRC) -> subprocess.CompletedProcess:
    env = dict(os.environ, OCLPY_CACHE_DIR=str(cache), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", CHILD, mode, source], capture_output=True,
                          text=True, env=env, timeout=120)


def _compile(calls: list[int], source: str = SRC, options: str = ""):  # type: ignore[no-untyped-def]
    def run():  # type: ignore[no-untyped-def]
        calls.append(1)
        return build_program(source, options)
    return run


def _ran(build):  # type: ignore[no-untyped-def]
    """`build` after its native code was made, as its first launch makes it."""
    assert build.program.optimized_llvm_ir
    return build


def test_second_process_is_served_from_disk(cache: Path) -> None:
    first = _child("compile", cache)
    assert first.returncode == 0, first.stderr
    assert len(list((cache / bc.SUBDIR).glob("*.bin"))) == 1
    second = _child("forbid", cache)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == first.stdout.strip() == str([2 * i for i in range(8)])


def test_memory_hit_does_not_compile_again(cache: Path) -> None:
    calls: list[int] = []
    a = bc.cached_build(SRC, "", _compile(calls))
    b = bc.cached_build(SRC, "", _compile(calls))
    assert a is b and len(calls) == 1


def test_disk_hit_in_same_process_after_memory_cleared(cache: Path) -> None:
    calls: list[int] = []
    _ran(bc.cached_build(SRC, "", _compile(calls)))
    bc.clear_memory()
    hit = bc.cached_build(SRC, "", _compile(calls))
    assert len(calls) == 1
    x = np.arange(4, dtype=np.int32)
    from tests.targets.cpu_harness import run
    run(hit.program.kernels["twice"], [x], (4,), (4,))
    assert x.tolist() == [0, 2, 4, 6]


def test_entry_is_written_at_first_launch(cache: Path) -> None:
    calls: list[int] = []
    build = bc.cached_build(SRC, "", _compile(calls))
    assert not build.program.compiled and not (cache / bc.SUBDIR).exists()
    x = np.arange(4, dtype=np.int32)
    from tests.targets.cpu_harness import run
    run(build.program.kernels["twice"], [x], (4,), (4,))
    assert build.program.compiled and x.tolist() == [0, 2, 4, 6]
    assert len(list((cache / bc.SUBDIR).glob("*.bin"))) == 1


def test_key_changes_with_options_source_and_device() -> None:
    base = bc.cache_key(SRC, "")
    assert bc.cache_key(SRC, "-DN=1") != base
    assert bc.cache_key(SRC + " ", "") != base
    assert bc.cache_key(SRC, "", "simt") != base
    assert bc.cache_key(SRC, "") == base


def test_key_changes_with_compiler_version(monkeypatch: pytest.MonkeyPatch) -> None:
    base = bc.cache_key(SRC, "")
    monkeypatch.setattr(bc, "_version", ["another compiler"])
    assert bc.cache_key(SRC, "") != base


def test_options_get_their_own_entries(cache: Path) -> None:
    calls: list[int] = []
    _ran(bc.cached_build(SRC, "", _compile(calls)))
    _ran(bc.cached_build(SRC, "-cl-fast-relaxed-math",
                         _compile(calls, options="-cl-fast-relaxed-math")))
    assert len(calls) == 2
    assert len(list((cache / bc.SUBDIR).glob("*.bin"))) == 2


@pytest.mark.parametrize("damage", ["garbage", "truncate", "flip"])
def test_corrupt_entry_is_ignored_and_rebuilt(cache: Path, damage: str) -> None:
    calls: list[int] = []
    _ran(bc.cached_build(SRC, "", _compile(calls)))
    path = bc.entry_path(bc.cache_key(SRC, ""))
    data = path.read_bytes()
    broken = {"garbage": b"not an entry", "truncate": data[: len(data) // 2],
              "flip": data[:40] + bytes([data[40] ^ 0xFF]) + data[41:]}[damage]
    path.write_bytes(broken)
    bc.clear_memory()
    build = _ran(bc.cached_build(SRC, "", _compile(calls)))
    assert len(calls) == 2 and "twice" in build.program.kernels
    assert bc.decode_entry(path.read_bytes()) is not None  # rewritten whole


def test_unloadable_record_is_removed(cache: Path) -> None:
    key = bc.cache_key(SRC, "")
    path = bc.entry_path(key)
    path.parent.mkdir(parents=True)
    path.write_bytes(bc.encode_entry({"program": {"kernels": {}}}, b"\x7fELF"))
    assert bc.load(key) is None
    assert not path.exists()


def test_no_cache_switch_writes_nothing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    calls: list[int] = []
    _ran(bc.cached_build(SRC, "", _compile(calls)))
    assert not (cache / bc.SUBDIR).exists()


def test_cache_dir_respects_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OCLPY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert bc.cache_dir() == tmp_path / "oclpy"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as the spec says
    assert bc.cache_dir() == Path.home() / ".cache" / "oclpy"
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path / "x"))
    assert bc.cache_dir() == tmp_path / "x"


def test_unwritable_cache_dir_still_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(blocker))  # a file, so mkdir fails
    bc.clear_memory()
    calls: list[int] = []
    assert "twice" in _ran(bc.cached_build(SRC, "", _compile(calls))).program.kernels


def test_failed_builds_are_not_cached(cache: Path) -> None:
    from oclpy.diagnostics import CompileError

    bad = "__kernel void k( { }"
    for _ in range(2):
        with pytest.raises(CompileError):
            bc.cached_build(bad, "", lambda: build_program(bad))
    assert not list(cache.rglob("*.bin"))


@pytest.mark.parametrize("t", [irt.IntType(32), irt.FloatType(16),
                               irt.PtrType(irt.AddressSpace.LOCAL),
                               irt.VectorType(irt.FloatType(32), 4),
                               irt.StructType((irt.IntType(8), irt.ArrayType(irt.FloatType(64), 3)),
                                              True)])
def test_parameter_types_round_trip(t: irt.Type) -> None:
    assert type_from_json(type_to_json(t)) == t


def test_unknown_type_has_no_json_form() -> None:
    with pytest.raises(ValueError, match="no JSON form"):
        type_to_json(irt.VOID)


def test_concurrent_processes_share_one_whole_entry(cache: Path) -> None:
    env = dict(os.environ, OCLPY_CACHE_DIR=str(cache), PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, "compile", SRC], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert {o[0].strip() for o in outs} == {str([2 * i for i in range(8)])}
    entries = list((cache / bc.SUBDIR).iterdir())
    assert len(entries) == 1 and bc.decode_entry(entries[0].read_bytes()) is not None


def test_compiler_version_follows_package_files(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "mod.py"
    f.write_text("x = 1\n")
    monkeypatch.setattr(bc, "_PACKAGE", tmp_path)
    monkeypatch.setattr(bc, "_version", [])
    first = bc.compiler_version()
    assert bc.compiler_version() == first  # computed once per process
    f.write_text("x = 22\n")  # an edit changes size and mtime
    bc._version.clear()
    assert bc.compiler_version() != first
