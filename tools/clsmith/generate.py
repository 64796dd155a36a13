"""CLSmith's kernels: where the generator and its headers are, its modes, and
how each kernel is launched.

`generate(seed, mode)` runs the CLSmith binary (cached per mode and seed);
`parse_launch(source)` reads the launch from the kernel's first line, the
comment CLSmith writes for its host program `cl_launcher`, e.g.
`// --atomics 18 ---emi -g 19,73,5 -l 19,1,1`; `Launch.buffers()` makes the
kernel's arguments as cl_launcher does.

Setup (outside the repository; CLSmith's code is never committed here):

    fetch ChrisLidbury/CLSmith into /work/clsmith-src (git archive)
    apt-get install m4          # CMake builds the safe-math headers with m4
    cmake -S /work/clsmith-src -B /work/clsmith-build -DCMAKE_BUILD_TYPE=Release
    make -C /work/clsmith-build CLSmith SAFE_MATH_HEADERS
    mkdir /work/clsmith-build/runtime
    cp /work/clsmith-src/runtime/CLSmith.h /work/clsmith-build/*.h /work/clsmith-build/runtime/

`CLSMITH_DIR` names the folder with CLSmith.h and the safe-math headers
(passed to every build as `-I`); the binary is found through `CLSMITH_BIN`,
else in that folder or its parent, else on PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DEFAULT_DIR = "/work/clsmith-build/runtime"
DEFAULT_CACHE = "/tmp/clsmith-kernels"

# mode -> CLSmith's flags (the modes of Lidbury et al., PLDI 2015, plus EMI)
MODES: dict[str, tuple[str, ...]] = {
    "plain": (),
    "vectors": ("--vectors",),
    "atomics": ("--atomics",),
    "atomic_reductions": ("--atomic_reductions",),
    "inter_thread_comm": ("--inter_thread_comm",),
    "emi": ("--emi",),
}

EMI_VALUES = 1024  # cl_launcher's EMI input: emi_input[i] = 1024 - i


def include_dir(given: str | None = None) -> str:
    """The folder holding CLSmith.h and the safe-math headers."""
    folder = given or os.environ.get("CLSMITH_DIR") or DEFAULT_DIR
    if not (Path(folder) / "CLSmith.h").is_file():
        raise FileNotFoundError(f"no CLSmith.h in {folder} (set CLSMITH_DIR; see tools/clsmith/generate.py)")
    return folder


def clsmith_binary(folder: str | None = None) -> str:
    """The CLSmith generator: $CLSMITH_BIN, else next to the headers, else on PATH."""
    if os.environ.get("CLSMITH_BIN"):
        return os.environ["CLSMITH_BIN"]
    base = Path(include_dir(folder))
    for candidate in (base / "CLSmith", base.parent / "CLSmith"):
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("CLSmith")
    if not found:
        raise FileNotFoundError("CLSmith binary not found (set CLSMITH_BIN)")
    return found


def generate(seed: int, mode: str, cache: str = DEFAULT_CACHE, folder: str | None = None) -> str:
    """CLSmith's kernel for `seed` in `mode`, generated once and then read from the cache."""
    path = Path(cache) / mode / f"{seed}.cl"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        # CLSmith writes into the working folder unless given -o, and prints nothing useful
        subprocess.run([clsmith_binary(folder), "--seed", str(seed), *MODES[mode], "-o", str(tmp)],
                       check=True, capture_output=True, timeout=120, start_new_session=True)
        tmp.replace(path)
    return path.read_text()


@dataclass
class Launch:
    """What cl_launcher reads from a kernel's first line, and the buffers it makes."""

    global_size: tuple[int, ...] = (1024,)
    local_size: tuple[int, ...] = (32,)
    atomic_counters: int = 0          # --atomics N: N counters per work-group
    flags: frozenset[str] = field(default_factory=frozenset)  # atomic_reductions, emi, ...

    @property
    def total(self) -> int:
        return int(np.prod(self.global_size))

    @property
    def groups(self) -> int:
        return int(np.prod([g // lo for g, lo in zip(self.global_size, self.local_size)]))

    def one_group(self) -> "Launch":
        """This launch cut to one work-group of the same shape (global size = local size)."""
        return Launch(self.local_size, self.local_size, self.atomic_counters, self.flags)

    def header(self) -> str:
        """The first line that `parse_launch` reads back as this launch."""
        words = ["//"]
        if self.atomic_counters:
            words += ["--atomics", str(self.atomic_counters)]
        words += [f"---{flag}" for flag in sorted(self.flags)]
        words += ["-g", ",".join(map(str, self.global_size)), "-l", ",".join(map(str, self.local_size))]
        return " ".join(words)

    def buffers(self) -> list[np.ndarray]:
        """The kernel's arguments after `result`, in cl_launcher's order, as host arrays."""
        out: list[np.ndarray] = []
        if self.atomic_counters:
            n = self.atomic_counters * self.groups
            out += [np.zeros(n, np.uint32), np.zeros(n, np.uint32)]   # counters, special values
        if "atomic_reductions" in self.flags:
            out.append(np.zeros(self.groups, np.int32))
        if "emi" in self.flags:
            out.append(EMI_VALUES - np.arange(EMI_VALUES, dtype=np.int32))
        if "fake_divergence" in self.flags:
            out.append(10 + np.arange(max(self.global_size), dtype=np.int32))
        if "inter_thread_comm" in self.flags:
            out.append(np.ones(self.total, np.int64))
        return out


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(",") if v)


def with_launch(source: str, launch: Launch) -> str:
    """`source` with its first line saying `launch` (the line added where it has none)."""
    first, newline, body = source.partition("\n")
    if first.startswith("//"):
        return launch.header() + newline + body
    return launch.header() + "\n" + source


def parse_launch(source: str) -> Launch:
    """The launch that cl_launcher takes from the first line of `source` (its defaults,
    1024 work-items in groups of 32, where the line says nothing)."""
    first = source.split("\n", 1)[0]
    launch = Launch()
    if not first.startswith("//"):
        return launch
    words = first.split()
    flags = set()
    for i, word in enumerate(words):
        value = words[i + 1] if i + 1 < len(words) else ""
        if word == "-g":
            launch.global_size = _sizes(value)
        elif word == "-l":
            launch.local_size = _sizes(value)
        elif word == "--atomics":
            launch.atomic_counters = int(value)
        elif word.startswith("---"):
            flags.add(word[3:])
    launch.flags = frozenset(flags)
    if len(launch.global_size) != len(launch.local_size):
        raise ValueError(f"-g and -l differ in dimensions: {first!r}")
    return launch
