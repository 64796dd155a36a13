"""The PyOpenCL ecosystem on oclpy: loopy, reikna, pyFAI and silx run their own tests.

    python -m tools.clients [--venv DIR] [--work DIR] [--libraries loopy reikna ...]
                            [--implementations pyopencl oclpy] [--full | --ci]
                            [--files F ... [--keyword EXPR] --tag T] [--time-limit S] [--test-timeout S]
                            [--oclpy ROOT]
    python -m tools.clients --report PREFIX [--reasons FILE] [--base JSON] [--work DIR]
                            [--libraries ...]

1. Makes a venv (default /tmp/oclpy-clients-venv; reused when it exists) and
   installs the four libraries, pytest and pytest-timeout, oclpy's own
   dependencies, and PyOpenCL with PoCL for the comparison.
2. Finds each library's tests at the installed version: pyFAI and silx ship
   theirs inside the package (`pyFAI.opencl.test`, `silx.opencl.test`); loopy's
   and reikna's come from their source distributions at the same version,
   downloaded once with pip into the work folder (`pip download --no-binary`),
   so a second run needs no network.
3. Runs each library's tests under `oclpy run -m pytest` (`import pyopencl`
   answered by oclpy, the oclpy package from `--oclpy ROOT`, default this
   checkout) and, when PyOpenCL and PoCL import in the venv, under plain
   `python -m pytest`: one pytest process per test file (a crash loses only
   the rest of that file, and the table says so); every test has
   `--test-timeout` seconds (pytest-timeout) and the whole run `--time-limit`
   seconds, after which the tests that finished are counted. oclpy lists two
   devices (cpu, simt) where PoCL lists one, so the oclpy run takes oclpy's cpu
   only, like for like: loopy through PyOpenCL's `PYOPENCL_TEST=oclpy:cpu`,
   reikna through its conftest's `--device-include-mask "oclpy cpu"`
   (`Library.oclpy_env`, `Library.oclpy_options`).
4. Prints one table: passed / failed (errors and timeouts count as failed) /
   skipped per library per implementation, and writes each run's output to
   the work folder (`<library>-<implementation>[-<tag>].log`).

A suite too long for one sitting is split by file: `--libraries loopy --files
test_a.py test_b.py --tag part1`, and so on (a file or a node id per pytest process;
`--keyword EXPR` takes the tests a pytest -k expression selects from them, one process
each, as when one file is too long for one sitting). `--report PREFIX` runs nothing: it
merges every log in the work folder (each test file counted from the newest log
that ran it) and writes PREFIX.json and PREFIX.md: per library and implementation
passed / failed / skipped and the failures, and the tests that pass on one
implementation only (test ids without the device in them), with the reasons that
`--reasons` (JSON, test id -> reason) gives for those passing on PoCL only.
The JSON keeps every test's outcome (`tests`), so a later `--report --base
PREFIX.json` adds new logs to it: the base's tests of every file that no log in
the work folder ran again are kept, with the log they came from. A base may
count files without test ids (`counted`: a group of files, their counts and failures,
and the tests its run did not reach, `not_reached`): a later log adds the unreached
tests and replaces the listed failures.

By default a subset runs (each `Library.subset`: the files most tied to PyOpenCL's API,
a few minutes each on a 2-core machine); `--full` runs every test file; `--ci` runs
the slice CI takes (`Library.ci`: reikna, pyFAI and silx, a few hundred tests in a few minutes),
which `tests/tools/test_client_slice.py` runs where the venv exists.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLUGINS = Path(__file__).resolve().parent / "client_plugins"


@dataclass(frozen=True)
class Library:
    """A library, where its tests are, and which of them the default run takes."""

    name: str             # the distribution name pip installs
    module: str           # the import name
    tests_in_package: str | None   # dotted package holding the tests, or None: from the sdist
    sdist_tests: str = "test"      # the tests' folder inside the source distribution
    subset: tuple[str, ...] = ()   # test files (relative to the tests' folder) of the default run
    full: tuple[str, ...] = ()     # test files of --full (empty: the whole folder)
    ci: tuple[str, ...] = ()       # test files of --ci, the slice CI runs (a few hundred tests, minutes)
    keyword: str = ""              # pytest -k expression: what no run takes (benchmarks)
    exclude: tuple[str, ...] = ()  # test files no run takes, each for a reason in LIBRARIES
    # test files whose data must be at hand offline: (file, Python that fails without it, what)
    data: tuple[tuple[str, str, str], ...] = ()
    # oclpy lists two devices (cpu, simt) where PoCL lists one: the oclpy run takes only
    # oclpy's cpu, through the library's own pytest options or PyOpenCL's PYOPENCL_TEST
    oclpy_options: tuple[str, ...] = ()
    oclpy_env: tuple[tuple[str, str], ...] = ()
    # a cache folder ($XDG_CACHE_HOME) per implementation: loopy's persistent caches (pytools)
    # do not key on the implementation, and an invoker pickled under oclpy imports oclpy's
    # modules (their own names) when a PyOpenCL run loads it
    cache_per_implementation: bool = False
    # the seed of NumPy's global random state before each test (tools/client_plugins/seed_numpy.py),
    # for a suite that draws its inputs from numpy.random unseeded; None: left alone
    seed_numpy: int | None = None


LIBRARIES = (
    Library("loopy", "loopy", None, subset=("test_scan.py", "test_reduction.py", "test_target.py"),
            oclpy_env=(("PYOPENCL_TEST", "oclpy:cpu"),), cache_per_implementation=True),
    # reikna's conftest runs each test on every device find_devices matches (masks on the name)
    # reikna's tests draw their inputs from numpy.random with no seed, and two of test_multiarg_mul's
    # cases take the real part of a complex product (cancellation) to rtol 1e-4: on 4-5% of draws
    # f-ifccfi fails on PoCL and on oclpy, f-cc on oclpy (fma contraction, closer to the exact value
    # than numpy's float32 reference). With seed 2 CI's slice passes on oclpy, and those cases'
    # kernels pass on PoCL too
    Library("reikna", "reikna", None, oclpy_options=("--device-include-mask", "oclpy cpu"), seed_numpy=2,
            subset=("test_cluda/test_basics.py", "test_core/test_computation.py",
                    "test_algorithms/test_reduce.py", "test_algorithms/test_scan.py",
                    "test_transformations.py"),
            keyword="not performance",
            ci=("test_cluda/test_basics.py", "test_cluda/test_functions.py",
                "test_cluda/test_vsizes.py", "test_transformations.py")),
    Library("pyFAI", "pyFAI", "pyFAI.opencl.test", ci=("test_addition.py", "test_preproc.py")),
    # test_convolution.py's image comes from scipy.datasets, which downloads it (pooch) unless
    # it is in pooch's cache: without it every one of its 193 tests errors at setup on any
    # implementation, so the file runs only where the image loads offline. silx's own test
    # data (sinograms, phantoms, lena) comes from its project's server at test time; where
    # that server cannot be reached, its tests skip themselves ("network unreachable.")
    Library("silx", "silx", "silx.opencl.test",
            data=(("test_convolution.py", "from scipy.datasets import ascent; ascent()",
                   "scipy.datasets' ascent image (pooch and its cache)"),),
            ci=("test_addition.py", "test_doubleword.py", "test_kahan.py", "test_array_utils.py")),
)
# islpy < 2026: loopy 2025.2 (the newest) calls islpy API that islpy 2026 removed (Aff.is_equal,
# BasicSet.dim_min), which fails about half of its scan, reduction and target tests on any implementation;
# pooch: scipy.datasets reads its cache through it (silx's test_convolution.py)
EXTRA_PACKAGES = ("pytest", "pytest-timeout", "mako", "pyopencl", "pocl-binary-distribution",
                  "islpy<2026", "pooch")
_RESULT = re.compile(r"^(\S+::\S.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b", re.MULTILINE)
_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (\S+::\S.*?)(?: - .*)?$", re.MULTILINE)
_DEVICE_PARAM = re.compile(r"<context factory for <\w+\.Device '[^']*' on '[^']*'>>")
_HEADER = re.compile(r"^== (\S+?(?: -k .+?)?)(: .*)?$")  # a file or node id, and the run's -k
_KINDS = {"PASSED": "passed", "XPASS": "passed", "FAILED": "failed", "ERROR": "failed",
          "SKIPPED": "skipped", "XFAIL": "skipped"}


class Unavailable(Exception):
    """A step that needs the package index or a program failed; the message says which."""


@dataclass
class Outcome:
    """One library under one implementation."""

    counts: dict[str, int] = field(default_factory=lambda: {"passed": 0, "failed": 0, "skipped": 0})
    timed_out: bool = False
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    crashed: list[str] = field(default_factory=list)  # test files whose pytest died
    stopped: list[str] = field(default_factory=list)  # test files stopped at the time limit
    # from an earlier report whose logs are gone: files counted together, without test ids
    # ({"files": [...], "passed": n, "failed": n, "skipped": n, "failures": [...]})
    counted: list[dict] = field(default_factory=list)
    tests: dict[str, str] = field(default_factory=dict)  # test id (device-neutral) -> kind

    def cell(self) -> str:
        c = self.counts
        text = f"{c['passed']} passed, {c['failed']} failed"
        text += f", {c['skipped']} skipped" if c["skipped"] else ""
        text += f", {len(self.crashed)} file(s) crashed" if self.crashed else ""
        return text + (" (time limit)" if self.timed_out else "")


def _pip(python: Path, *args: str, timeout: float = 1800) -> None:
    proc = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = " | ".join((proc.stdout + proc.stderr).strip().splitlines()[-3:])
        raise Unavailable(f"pip {args[0]} failed: {tail}")


def make_venv(venv: Path) -> Path:
    """The venv's python, with the libraries installed (once)."""
    python = venv / "bin" / "python"
    marker = venv / ".oclpy-clients-installed"
    if marker.exists():
        return python
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    _pip(python, "install", "-q", "numpy", "llvmlite>=0.50,<0.51",
         *(lib.name for lib in LIBRARIES), *EXTRA_PACKAGES)
    marker.write_text("ok\n")
    return python


def installed_version(python: Path, dist: str) -> str:
    code = f"from importlib.metadata import version; print(version({dist!r}))"
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        raise Unavailable(f"{dist} is not installed in the venv")
    return proc.stdout.strip()


def tests_folder(python: Path, lib: Library, work: Path) -> Path:
    """Where the library's tests are: inside the installed package, or the unpacked sdist."""
    if lib.tests_in_package is not None:
        code = f"import importlib.util; print(importlib.util.find_spec({lib.tests_in_package!r}).submodule_search_locations[0])"
        proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True)
        if proc.returncode != 0:
            raise Unavailable(f"{lib.tests_in_package} is not importable: {proc.stderr.strip()[-200:]}")
        return Path(proc.stdout.strip())
    version = installed_version(python, lib.name)
    dest = work / f"{lib.name}-{version}"
    if not (dest / lib.sdist_tests).is_dir():
        downloads = work / "sdists"
        downloads.mkdir(parents=True, exist_ok=True)
        found = sorted(downloads.glob(f"{lib.name}-{version}.tar.gz"))
        if not found:
            _pip(python, "download", "-q", "--no-deps", "--no-binary", lib.name,
                 f"{lib.name}=={version}", "-d", str(downloads), timeout=600)
            found = sorted(downloads.glob(f"{lib.name}-{version}.tar.gz"))
        if not found:
            raise Unavailable(f"no source distribution of {lib.name} {version} in {downloads}")
        with tarfile.open(found[0]) as tar:
            tar.extractall(work, filter="data")
    return dest / lib.sdist_tests


def pyopencl_usable(python: Path) -> bool:
    """Whether PyOpenCL imports in the venv and finds a device (PoCL's cpu)."""
    code = "import pyopencl as cl; assert any(p.get_devices() for p in cl.get_platforms())"
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=300)
    return proc.returncode == 0


def neutral_id(name: str) -> str:
    """A test id without the device in it, so one test compares across implementations
    (PyOpenCL's test generator names the context factory's device)."""
    return _DEVICE_PARAM.sub("<ctx>", name)


def count(output: str) -> Outcome:
    """Counts from pytest's `-v` lines (so a run stopped at the time limit still counts).
    A test reported twice (its call passed, its teardown errored) counts once, as its last line.
    A test whose `-v` line was broken (pytest-timeout prints its stacks in the middle of it)
    counts from `-rfE`'s summary line."""
    outcome = Outcome()
    for name, result in _RESULT.findall(output):
        outcome.tests[neutral_id(name)] = _KINDS[result]
    for name in _SUMMARY.findall(output):
        outcome.tests.setdefault(neutral_id(name), "failed")
    for name, kind in outcome.tests.items():
        outcome.counts[kind] += 1
        if kind == "failed":
            outcome.failures.append(name)
    return outcome


def sections(output: str) -> dict[str, str]:
    """A run log split at its `== FILE` headers: test file -> what its pytest printed
    (with the tool's own `== FILE: ...` notes: not run, stopped, crashed)."""
    found: dict[str, list[str]] = {}
    name = None
    for line in output.splitlines(keepends=True):
        header = _HEADER.match(line)
        if header and not header.group(2):
            name = header.group(1)
            found[name] = []
        elif header:
            found.setdefault(header.group(1), []).append(line)
        elif name is not None:
            found[name].append(line)
    return {key: "".join(lines) for key, lines in found.items()}


def merged(logs: list[Path]) -> tuple[Outcome, dict[str, str]]:
    """One outcome from several run logs of one library on one implementation (a suite
    split by test file across runs): each test file counts from the newest log that ran it.
    Also returns which log each file came from."""
    latest: dict[str, tuple[str, str]] = {}
    for log in sorted(logs, key=lambda p: p.stat().st_mtime):
        for name, text in sections(log.read_text(errors="replace")).items():
            if name not in latest or _RESULT.search(text) or "(crash)" in text:
                latest[name] = (text, log.name)  # a file not run leaves an earlier run's count
    total = Outcome()
    for name, (text, _) in sorted(latest.items()):
        part = count(text)
        total.tests.update(part.tests)
        if "(crash)" in text:
            total.crashed.append(name)
        if "stopped at the time limit" in text:
            total.stopped.append(name)
            total.timed_out = True
    for kind in total.tests.values():
        total.counts[kind] += 1
    total.failures = [name for name, kind in total.tests.items() if kind == "failed"]
    return total, {name: source for name, (_, source) in latest.items()}


def covers(ran: str, test: str) -> bool:
    """Whether a log's section (a test file, or one test's node id) ran `test`."""
    return test == ran or test.startswith(ran + "::") or test.startswith(ran + "[")


def with_base(outcome: Outcome, sources: dict[str, str], earlier: dict | None,
              ) -> tuple[Outcome, dict[str, str]]:
    """`outcome` (from the work folder's logs) over an earlier report's entry for the same
    library and implementation: the earlier tests of every file no log ran again are kept,
    with the log they came from. The base's `counted` groups (counts without test ids) are
    kept whole, or dropped when every file of a group ran again."""
    if earlier is None:
        return outcome, sources
    if "tests" not in earlier and "counted" not in earlier:
        raise Unavailable("the base report has no per-test outcomes ('tests') nor counts ('counted')")
    ran = [f for f in sources if f in outcome.crashed or f in outcome.stopped
           or any(covers(f, test) for test in outcome.tests)]  # not a file only listed as not run
    def kept(name: str) -> bool:
        return not any(covers(f, name) for f in ran)
    total = Outcome()
    total.tests = {t: k for t, k in earlier.get("tests", {}).items() if kept(t)} | outcome.tests
    for group in earlier.get("counted", []):
        again = [f for f in group["files"] if not kept(f)]
        if again and len(again) < len(group["files"]):
            raise Unavailable(f"the base counts {', '.join(group['files'])} only together: "
                              f"a log that runs {', '.join(again)} must run all of them")
        if again:
            continue
        # tests run inside the group's files: those it lists as failures come out of it, those
        # it lists as not reached (its run stopped before them) are new; any other was counted
        inside = [t for t in outcome.tests if any(covers(f, t) for f in group["files"])]
        unreached = group.get("not_reached", [])
        unknown = [t for t in inside if t not in group["failures"] and t not in unreached]
        if unknown:
            raise Unavailable(f"the base counts {', '.join(group['files'])} without test ids: "
                              f"{', '.join(unknown)} can only run again with all of them")
        failures = [t for t in group["failures"] if t not in inside]
        total.counted.append({**group, "failed": group["failed"] - (len(group["failures"]) - len(failures)),
                              "failures": failures,
                              **({"not_reached": [t for t in unreached if t not in inside]} if unreached else {})})
    total.crashed = sorted({f for f in earlier["crashed_files"] if kept(f)} | set(outcome.crashed))
    total.stopped = sorted({f for f in earlier.get("stopped_files", []) if kept(f)} | set(outcome.stopped))
    total.timed_out = bool(total.stopped) or outcome.timed_out
    for kind in total.tests.values():
        total.counts[kind] += 1
    total.failures = [name for name, kind in total.tests.items() if kind == "failed"]
    for group in total.counted:
        for kind in total.counts:
            total.counts[kind] += group[kind]
        total.failures += group["failures"]
    merged_sources = {f: log for f, log in earlier["logs"].items() if kept(f)} | {f: sources[f] for f in ran}
    return total, dict(sorted(merged_sources.items()))


def compare(pocl: Outcome, oclpy: Outcome) -> dict[str, list[str]]:
    """The tests that pass on one implementation and fail or skip on the other, and
    those that one run did not reach (a suite split across runs, not all of it run)."""
    def passing(o: Outcome) -> set[str]:
        return {name for name, kind in o.tests.items() if kind == "passed"}
    both = pocl.tests.keys() & oclpy.tests.keys()
    return {"only_on_oclpy": sorted((passing(oclpy) - passing(pocl)) & both),
            "only_on_pyopencl": sorted((passing(pocl) - passing(oclpy)) & both),
            "not_run_on_oclpy": sorted(pocl.tests.keys() - oclpy.tests.keys()),
            "not_run_on_pyopencl": sorted(oclpy.tests.keys() - pocl.tests.keys())}


def counted_unseen(outcome: Outcome, test: str) -> bool:
    """Whether a base's group that lists its unreached tests counted `test` (without its id)."""
    return any("not_reached" in group and test not in group["not_reached"]
               and any(covers(f, test) for f in group["files"]) for group in outcome.counted)


def test_files(lib: Library, folder: Path, full: bool, ci: bool = False) -> list[str]:
    """The test files of the run, relative to the tests' folder."""
    if ci:
        return list(lib.ci)
    chosen = lib.full if full else lib.subset
    if chosen:
        return list(chosen)
    found = sorted(str(p.relative_to(folder)) for p in folder.rglob("test_*.py"))
    return [name for name in found if name not in lib.exclude]


def without_data(python: Path, lib: Library) -> dict[str, str]:
    """The library's test files whose data does not load offline in the venv: file -> what."""
    missing = {}
    for name, check, what in lib.data:
        proc = subprocess.run([str(python), "-c", check], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            missing[name] = what
    return missing


def has_pytest_timeout(python: Path) -> bool:
    proc = subprocess.run([str(python), "-c", "import pytest_timeout"], capture_output=True)
    return proc.returncode == 0


def run_suite(python: Path, lib: Library, folder: Path, implementation: str, oclpy_root: Path,
              time_limit: float, test_timeout: float | None, full: bool, log: Path,
              ci: bool = False, files: list[str] | None = None, keyword: str = "") -> Outcome:
    """Each test file in its own pytest process (a crash loses one file's remaining
    tests, and says so), all of them within `time_limit` seconds; each test within
    `test_timeout` seconds (None: no per-test limit, without pytest-timeout). `files`
    (relative to the tests' folder) replaces the run's choice of test files; `keyword`
    (a pytest -k expression) takes part of them, and the log's headers say so
    (`== FILE -k EXPR`: such a part covers no file, its tests count one by one)."""
    per_test = [f"--timeout={test_timeout:g}"] if test_timeout is not None else []
    runner = ["-m", "oclpy.cli", "run", "-m", "pytest"] if implementation == "oclpy" else ["-m", "pytest"]
    env = dict(os.environ)
    env.pop("PYOPENCL_CTX", None)
    env.pop("PYOPENCL_TEST", None)
    device_options: tuple[str, ...] = ()
    plugins: list[str] = []
    if lib.seed_numpy is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PLUGINS), env.get("PYTHONPATH", "")) if p)
        plugins = ["-p", "seed_numpy", f"--seed-numpy={lib.seed_numpy}"]
    if lib.cache_per_implementation:
        env["XDG_CACHE_HOME"] = str(log.parent.resolve() / f"cache-{implementation}")
    if implementation == "oclpy":
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(oclpy_root), env.get("PYTHONPATH", "")) if p)
        env.update(dict(lib.oclpy_env))
        device_options = lib.oclpy_options
    selection = " and ".join(f"({k})" for k in (lib.keyword, keyword) if k)
    start = time.monotonic()
    total = Outcome()
    with open(log, "w") as out:
        for name in files if files is not None else test_files(lib, folder, full, ci):
            title = f"{name} -k {keyword}" if keyword else name
            left = time_limit - (time.monotonic() - start)
            if left <= 0:
                total.timed_out = True
                out.write(f"== {title}: not run (time limit)\n")
                continue
            cmd = [str(python), *runner, "-v", "-p", "no:cacheprovider", *plugins, "-o", "addopts=",
                   *per_test, *device_options, "-rfE", "--tb=short", name,
                   *(["-k", selection] if selection else [])]
            out.write(f"== {title}\n")
            out.flush()
            proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, text=True)
            try:
                code = proc.wait(timeout=left)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                total.timed_out = True
                out.write(f"\n== {title}: stopped at the time limit\n")
                continue
            if code < 0 or code > 5:
                total.crashed.append(title)
                out.write(f"\n== {title}: pytest ended with status {code} (crash)\n")
    counted = count(log.read_text(errors="replace"))
    total.counts, total.failures, total.tests = counted.counts, counted.failures, counted.tests
    total.seconds = time.monotonic() - start
    return total


def table(results: dict[str, dict[str, Outcome]], versions: dict[str, str]) -> str:
    impls = sorted({impl for per in results.values() for impl in per}, key=lambda i: i != "pyopencl")
    titles = {"pyopencl": "PyOpenCL + PoCL", "oclpy": "oclpy (`oclpy run -m pytest`)"}
    lines = ["| library | " + " | ".join(titles[i] for i in impls) + " |",
             "| --- |" + " --- |" * len(impls)]
    for name, per in results.items():
        cells = [per[i].cell() if i in per else "" for i in impls]
        lines.append(f"| {name} {versions.get(name, '')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(work: Path, names: list[str], versions: dict[str, str],
           reasons: dict[str, str], base: dict | None = None) -> tuple[dict, str]:
    """Every run log in `work` merged per library and implementation (a suite split by
    file across runs counts each file from its newest log), over `base` (an earlier
    report's JSON) where given: JSON-ready data and a markdown table with the tests
    that pass on one implementation only."""
    data: dict[str, dict] = {}
    for name in names:
        per: dict[str, Outcome] = {}
        sources: dict[str, dict[str, str]] = {}
        earlier = (base or {}).get(name, {})
        for impl in ("pyopencl", "oclpy"):
            logs = [work / f"{name}-{impl}.log", *work.glob(f"{name}-{impl}-*.log")]
            logs = [log for log in logs if log.exists()]
            if logs or impl in earlier:
                outcome, ran = merged(logs) if logs else (Outcome(), {})
                previous = ({**earlier[impl], "logs": earlier["logs"].get(impl, {})}
                            if impl in earlier else None)
                per[impl], sources[impl] = with_base(outcome, ran, previous)
        if not per:
            continue
        entry: dict = {"version": versions.get(name, ""), "logs": sources}
        for impl, outcome in per.items():
            entry[impl] = {**outcome.counts, "crashed_files": outcome.crashed,
                           "time_limit_hit": outcome.timed_out, "stopped_files": outcome.stopped,
                           "failures": sorted(outcome.failures), "tests": dict(sorted(outcome.tests.items())),
                           **({"counted": outcome.counted} if outcome.counted else {})}
        if len(per) == 2:
            diff = compare(per["pyopencl"], per["oclpy"])
            # the base's lists for the files it counted without test ids
            grouped = {f for o in per.values() for group in o.counted for f in group["files"]}
            for key in diff:
                listed = [t["test"] if isinstance(t, dict) else t for t in earlier.get(key, [])]
                carried = {t for t in listed if any(covers(f, t) for f in grouped)}
                # a carried test now run where the base had not run it is no longer "not run"
                # there; one now run on both is compared like any other
                now = {"not_run_on_oclpy": per["oclpy"].tests.keys(),
                       "not_run_on_pyopencl": per["pyopencl"].tests.keys()}.get(
                           key, per["oclpy"].tests.keys() & per["pyopencl"].tests.keys())
                diff[key] = sorted(set(diff[key]) | (carried - now))
            for key, impl in (("not_run_on_oclpy", "oclpy"), ("not_run_on_pyopencl", "pyopencl")):
                diff[key] = [t for t in diff[key] if not counted_unseen(per[impl], t)]
            entry["only_on_oclpy"] = diff["only_on_oclpy"]
            entry["not_run_on_oclpy"] = diff["not_run_on_oclpy"]
            entry["not_run_on_pyopencl"] = diff["not_run_on_pyopencl"]
            entry["only_on_pyopencl"] = [{"test": test, "reason": reasons.get(test, "")}
                                         for test in diff["only_on_pyopencl"]]
        data[name] = entry
    lines = ["| library | PyOpenCL + PoCL passed / failed | oclpy passed / failed "
             "| passing only on oclpy | passing only on PoCL (reason) |",
             "| --- | --- | --- | --- | --- |"]
    for name, entry in data.items():
        def cell(impl: str) -> str:
            if impl not in entry:
                return "not run"
            c = entry[impl]
            text = f"{c['passed']} / {c['failed']} ({c['skipped']} skipped)"
            return text + (" (time limit)" if c["time_limit_hit"] else "")
        only_oclpy = entry.get("only_on_oclpy", [])
        only_pocl = entry.get("only_on_pyopencl", [])
        pocl_text = "; ".join(f"`{t['test']}`: {t['reason'] or 'no reason recorded'}" for t in only_pocl)
        unrun = [f"{len(entry[key])} not run on {who}" for key, who in
                 (("not_run_on_oclpy", "oclpy"), ("not_run_on_pyopencl", "PoCL")) if entry.get(key)]
        lines.append(f"| {name} {entry['version']} | {cell('pyopencl')} | {cell('oclpy')} "
                     f"| {len(only_oclpy)} | {len(only_pocl)}{': ' + pocl_text if pocl_text else ''}"
                     f"{' (' + ', '.join(unrun) + ')' if unrun else ''} |")
    return data, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.clients", description=__doc__.split("\n\n")[0])
    parser.add_argument("--venv", type=Path, default=Path("/tmp/oclpy-clients-venv"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/oclpy-clients"))
    parser.add_argument("--libraries", nargs="*", default=[lib.name for lib in LIBRARIES])
    parser.add_argument("--implementations", nargs="*", default=["pyopencl", "oclpy"])
    parser.add_argument("--full", action="store_true", help="every test file, not the subset")
    parser.add_argument("--ci", action="store_true", help="the small slice CI runs (Library.ci), not the subset")
    parser.add_argument("--files", nargs="*", help="only these test files (relative to the tests' folder; "
                        "one library); the log is <library>-<implementation>-<tag>.log")
    parser.add_argument("--keyword", "-k", default="", help="with --files: only the tests this pytest -k "
                        "expression selects (and the library's own keyword)")
    parser.add_argument("--tag", default="", help="a suffix for the logs' names (a part of a split suite)")
    parser.add_argument("--report", type=Path, metavar="PREFIX",
                        help="run nothing: merge every log in --work into PREFIX.json and PREFIX.md")
    parser.add_argument("--reasons", type=Path, help="with --report: JSON, test id -> why it passes on PoCL only")
    parser.add_argument("--base", type=Path, metavar="JSON", help="with --report: an earlier report whose "
                        "tests of the files no log in --work ran again are kept")
    parser.add_argument("--time-limit", type=float, default=900.0, help="seconds per library run")
    parser.add_argument("--test-timeout", type=float, default=180.0, help="seconds per test")
    parser.add_argument("--oclpy", type=Path, default=ROOT, help="the folder holding the oclpy package")
    args = parser.parse_args(argv)
    unknown = set(args.libraries) - {lib.name for lib in LIBRARIES}
    if unknown:
        parser.error(f"unknown libraries: {', '.join(sorted(unknown))}")
    if args.files is not None and len(args.libraries) != 1:
        parser.error("--files needs exactly one library (--libraries NAME)")
    if args.keyword and args.files is None:
        parser.error("--keyword needs --files (the part of a split suite it selects from)")
    if ": " in args.keyword:
        parser.error("--keyword cannot hold ': ' (the log's headers end there)")
    if args.report is not None:
        python = args.venv / "bin" / "python"
        versions = {}
        for name in args.libraries:
            try:
                versions[name] = installed_version(python, name)
            except (Unavailable, OSError):
                versions[name] = ""
        reasons = json.loads(args.reasons.read_text()) if args.reasons else {}
        base = json.loads(args.base.read_text()) if args.base else None
        try:
            data, text = report(args.work, args.libraries, versions, reasons, base)
        except Unavailable as exc:
            print(f"python -m tools.clients: {exc}", file=sys.stderr)
            return 2
        args.report.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
        args.report.with_suffix(".md").write_text(text + "\n")
        print(text)
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    suffix = f"-{args.tag}" if args.tag else ""
    try:
        python = make_venv(args.venv)
        impls = [i for i in args.implementations if i != "pyopencl" or pyopencl_usable(python)]
        test_timeout = args.test_timeout if has_pytest_timeout(python) else None
        results: dict[str, dict[str, Outcome]] = {}
        versions: dict[str, str] = {}
        chosen = [lib for lib in LIBRARIES if lib.name in args.libraries and (lib.ci or not args.ci)]
        for lib in chosen:
            versions[lib.name] = installed_version(python, lib.name)
            folder = tests_folder(python, lib, args.work)
            files = args.files
            missing = without_data(python, lib)
            for name, what in missing.items():
                print(f"{lib.name}: {name} left out: {what} does not load offline", flush=True)
            if missing:
                files = [name for name in (files if files is not None else
                                           test_files(lib, folder, args.full, args.ci))
                         if name not in missing]
            results[lib.name] = {}
            for impl in impls:
                log = args.work / f"{lib.name}-{impl}{suffix}.log"
                outcome = run_suite(python, lib, folder, impl, args.oclpy.resolve(), args.time_limit,
                                    test_timeout, args.full, log, args.ci, files, args.keyword)
                results[lib.name][impl] = outcome
                print(f"{lib.name} on {impl}: {outcome.cell()} in {outcome.seconds:.0f} s ({log})",
                      flush=True)
    except Unavailable as exc:
        print(f"python -m tools.clients: {exc}", file=sys.stderr)
        return 2
    print(table(results, versions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
