"""The build cache: keys, memory, disk entries across processes, switches.

(Its safety checks are tests/compiler/test_cache_security.py.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from oclpy.compiler import cache, cuda_target, door, host_target, source_unit, toolchain
from oclpy.diagnostics import CompileError
from oclpy.ir import types as irt
from oclpy.targets.kernel_abi import type_from_json, type_to_json
from tools.cpu_harness import run

SRC = "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n"
REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import sys, numpy as np
    import oclpy as cl
    ctx = cl.create_some_context(); q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, sys.argv[2]).build()
    if sys.argv[1] == "warm":  # served from disk: no frontend, pass or code generator loaded
        assert "oclpy.compiler.toolchain" not in sys.modules, "compiled although the cache had it"
        assert not any(m.startswith("oclpy.frontend.c.") for m in sys.modules)
    a = np.arange(8, dtype=np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    prg.twice(q, (8,), None, buf)
    cl.enqueue_copy(q, a, buf); q.finish()
    print(a.tolist())
""")


def entries(root: Path, folder: str = cache.PROGRAMS) -> list[Path]:
    return sorted((root / folder).glob("*.bin")) if (root / folder).exists() else []


def launched(build: door.CompiledProgram) -> door.CompiledProgram:
    """`build` after a first launch (a cpu program's native code, and its entry, come then)."""
    x = np.arange(4, dtype=np.int32)
    run(build.program.kernels["twice"], [x], (4,), (4,))
    assert x.tolist() == [0, 2, 4, 6]
    return build


def child(mode: str, root: Path, source: str = SRC) -> subprocess.CompletedProcess:
    env = dict(os.environ, OCLPY_CACHE_DIR=str(root), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-c", CHILD, mode, source], capture_output=True,
                          text=True, env=env, timeout=300)


def test_a_second_process_is_served_from_disk_without_the_compiler(root: Path) -> None:
    first = child("cold", root)
    assert first.returncode == 0, first.stderr
    assert len(entries(root)) == 1
    second = child("warm", root)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == first.stdout.strip() == str([2 * i for i in range(8)])


def test_memory_hit_does_not_compile_again(root: Path, compiles: list[str]) -> None:
    a = door.build(SRC)
    assert door.build(SRC) is a and compiles == [SRC]


def test_racing_threads_share_one_compilation(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = toolchain.compile_program

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        time.sleep(0.05)  # every thread arrives while the first compiles
        return real(*args, **kwargs)

    monkeypatch.setattr(toolchain, "compile_program", slow)
    source = SRC + "// racing\n"
    got: list[door.CompiledProgram] = []
    threads = [threading.Thread(target=lambda: got.append(door.build(source))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(got) == 6 and len({id(g) for g in got}) == 1


def test_memory_keeps_a_bounded_number(root: Path, compiles: list[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MEMORY_ENTRIES", 2)
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    sources = [f"{SRC}// {tag}\n" for tag in "abc"]
    for i in (0, 1, 0, 2, 0, 1):
        door.build(sources[i])
    assert compiles == [sources[0], sources[1], sources[2], sources[1]]  # a stayed, b was dropped


def test_disk_hit_in_the_same_process_after_memory_is_cleared(root: Path, compiles: list[str]) -> None:
    launched(door.build(SRC))
    cache.clear_memory()
    hit = door.build(SRC)
    assert len(compiles) == 1 and hit.program.compiled
    launched(hit)
    assert hit.program.llvm_ir == ""  # a program from the cache has no LLVM IR to show


def test_the_entry_is_written_at_the_first_launch(root: Path) -> None:
    build = door.build(SRC)
    assert not build.program.compiled and not entries(root)
    launched(build)
    assert len(entries(root)) == 1


def test_an_entry_keeps_the_launched_kernels_code_and_the_ir_for_the_rest(root: Path,
                                                                          compiles: list[str]) -> None:
    source = SRC + "__kernel void plus1(__global int *x) { x[get_global_id(0)] += 1; }\n"
    launched(door.build(source))
    cache.clear_memory()
    hit = door.build(source)
    twice, plus1 = hit.program.kernels["twice"], hit.program.kernels["plus1"]
    assert len(compiles) == 1 and twice.compiled and not plus1.compiled
    x = np.arange(4, dtype=np.int32)
    run(plus1, [x], (4,), (4,))  # compiled now from the entry's LLVM IR
    assert plus1.compiled and x.tolist() == [1, 2, 3, 4]
    cache.clear_memory()  # the entry was written again with plus1's code too
    again = door.build(source)
    assert len(compiles) == 1 and all(k.compiled for k in again.program.kernels.values())


def test_cuda_ptx_lives_in_the_same_cache(root: Path, compiles: list[str]) -> None:
    first = door.build(SRC, "", cuda_target("sm_80"))
    assert len(entries(root)) == 1  # PTX is complete at once: stored at the build
    cache.clear_memory()
    again = door.build(SRC, "", cuda_target("sm_80"))
    assert len(compiles) == 1 and again.program.ptx == first.program.ptx
    assert again.kernels["twice"].args == first.kernels["twice"].args
    assert again.program.key == first.program.key and again.program.arch == "sm_80"
    door.build(SRC, "", cuda_target("sm_90"))  # another GPU, another entry
    assert len(compiles) == 2 and len(entries(root)) == 2


def _key(source: str | bytes = SRC, options: str = "", target=None, headers: str = "") -> str:  # type: ignore[no-untyped-def]
    return cache.program_key(source_unit(source), options, headers, door.resolve(target, options))


def test_key_changes_with_every_part(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _key()
    assert _key() == base
    others = [_key(SRC + " "), _key(options="-DN=1"), _key(options="-cl-opt-disable"),
              _key(target=host_target().with_opt_level(1)), _key(target=cuda_target()),
              _key(target=cuda_target("sm_80")), _key(headers="h")]
    assert len({base, *others}) == len(others) + 1
    assert _key(SRC.encode()) == base  # OpenCL C as UTF-8 bytes is the same unit
    monkeypatch.setattr(cache, "_version", ["another compiler"])
    assert _key() != base


def test_spirv_is_keyed_by_its_bytes() -> None:
    module = bytes.fromhex("03022307") + bytes(16)
    assert _key(module) != _key(module + b"\x00") and _key(module) == _key(bytearray(module))
    assert _key(module) != _key(module.decode("latin-1"))  # text is OpenCL C, not SPIR-V


def test_included_headers_are_part_of_the_key(root: Path, tmp_path: Path, compiles: list[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    header = tmp_path / "inc" / "scale.h"
    header.parent.mkdir()
    header.write_text("#define SCALE 2\n")
    src = '#include "scale.h"\n__kernel void twice(__global int *x) { x[get_global_id(0)] *= SCALE; }\n'
    options = f"-I {header.parent}"
    door.build(src, options)
    header.write_text("#define SCALE 3\n")
    door.build(src, options)
    assert len(compiles) == 2


def test_options_get_their_own_entries(root: Path, compiles: list[str]) -> None:
    launched(door.build(SRC))
    launched(door.build(SRC, "-cl-fast-relaxed-math"))
    assert len(compiles) == 2 and len(entries(root)) == 2


def test_failed_builds_are_not_cached(root: Path, compiles: list[str]) -> None:
    bad = "__kernel void k( { }"
    for _ in range(2):
        with pytest.raises(CompileError):
            door.build(bad)
    assert len(compiles) == 2 and not list(root.rglob("*.bin"))


def test_no_cache_switch_writes_nothing(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    launched(door.build(SRC))
    assert not root.exists()


def test_cache_dir_respects_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OCLPY_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "oclpy"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # not absolute: ignored, as the spec says
    assert cache.cache_dir() == Path.home() / ".cache" / "oclpy"
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path / "x"))
    assert cache.cache_dir() == tmp_path / "x"


def test_a_cache_dir_that_is_a_file_still_builds(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(blocker))
    with pytest.warns(cache.CacheWarning, match="is not a folder"):
        launched(door.build(SRC))
    assert blocker.read_text() == ""


def test_concurrent_processes_share_one_whole_entry(root: Path) -> None:
    env = dict(os.environ, OCLPY_CACHE_DIR=str(root), PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, "cold", SRC], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    assert {o[0].strip() for o in outs} == {str([2 * i for i in range(8)])}
    assert len(entries(root)) == 1 and len(list((root / cache.PROGRAMS).iterdir())) == 1
    assert cache.load_entry(cache.PROGRAMS, entries(root)[0].stem) is not None


def test_compiler_version_follows_package_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "mod.py"
    f.write_text("x = 1\n")
    monkeypatch.setattr(cache, "_PACKAGE", tmp_path)
    monkeypatch.setattr(cache, "_version", [])
    first = cache.compiler_version()
    assert cache.compiler_version() == first  # computed once per process
    f.write_text("x = 22\n")  # an edit changes size and mtime
    cache._version.clear()
    assert cache.compiler_version() != first


def test_the_compiler_version_covers_the_package_only() -> None:
    assert cache._PACKAGE.name == "oclpy" and (cache._PACKAGE / "compiler" / "cache.py").exists()


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


def test_kernels_sharing_a_program_variable_come_back_sharing_it(root: Path, compiles: list[str]) -> None:
    source = ("int counter = 3;\nkernel void set(global int *o) { counter = o[0]; }\n"
              "kernel void get(global int *o) { o[0] = counter + 1; }\n")
    x = np.array([41], dtype=np.int32)
    run(door.build(source, "-cl-std=CL2.0").program.kernels["get"], [x], (1,), (1,))
    assert x.tolist() == [4]
    cache.clear_memory()
    hit = door.build(source, "-cl-std=CL2.0")
    run(hit.program.kernels["set"], [x], (1,), (1,))
    run(hit.program.kernels["get"], [x], (1,), (1,))
    assert len(compiles) == 1 and x.tolist() == [5]
