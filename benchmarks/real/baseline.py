"""oclpy at another commit as one more implementation of a real-suite run: before and
after a change, measured in one run, alternating with the peers.

`python -m benchmarks.real --base REV [names...]` exports `oclpy/` at git
revision REV of this repository (`git archive`, into
`~/.cache/oclpy-bench/real/base-<commit>/`) and runs it in a child process of
its own (Python imports one `oclpy` per process) on its cpu device. The child
builds the same cases (the makers here, so the same inputs), and answers the
parent's requests one at a time over a pipe: prepare, run (the child times the
launch sequence itself, so the pipe is not in the time), restore, outputs. In
the table it is the column "base", and "oclpy/base" is the after/before ratio
of kernel times; outputs are checked against NumPy like every implementation's.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

from .case import RealCase
from .impls import Prepared

REPO = Path(__file__).resolve().parents[2]
CACHE = Path.home() / ".cache" / "oclpy-bench" / "real"


def export_tree(rev: str) -> Path:
    """A folder holding `oclpy/` as it is at `rev` (made once per commit)."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=REPO,
                            capture_output=True, text=True)
    if commit.returncode != 0:
        raise SystemExit(f"--base {rev}: not a commit here ({commit.stderr.strip()})")
    sha = commit.stdout.strip()
    tree = CACHE / f"base-{sha[:12]}"
    if not (tree / "oclpy" / "__init__.py").exists():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", sha, "oclpy"], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        (tree / "COMMIT").write_text(sha + "\n")
    return tree


class BaseImpl:
    """The Impl interface (`impls.Impl`) answered by a child process running oclpy at `tree`."""

    def __init__(self, tree: Path, small: bool) -> None:
        self.name, self.small, self.tree = "base", small, tree
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(REPO)])}
        # cwd is the tree: `-m` puts it first on sys.path, so `oclpy` is the tree's
        self.child = subprocess.Popen([sys.executable, "-m", "benchmarks.real.baseline"], cwd=tree, env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def _ask(self, *request: Any) -> Any:
        assert self.child.stdin is not None and self.child.stdout is not None
        pickle.dump(request, self.child.stdin)
        self.child.stdin.flush()
        ok, answer = pickle.load(self.child.stdout)
        if not ok:
            raise RuntimeError(answer)
        return answer

    def prepare(self, case: RealCase, source: str) -> Prepared:
        return Prepared([], {}, self._ask("prepare", case.name, self.small, source))

    def run(self, p: Prepared) -> float:
        return self._ask("run")

    def restore(self, case: RealCase, p: Prepared) -> None:
        self._ask("restore")

    def outputs(self, case: RealCase, p: Prepared) -> dict[str, Any]:
        return self._ask("outputs")

    def versions(self) -> dict[str, str]:
        return {**self._ask("versions"), "commit": (self.tree / "COMMIT").read_text().strip()}


def _serve(requests: BinaryIO, answers: BinaryIO) -> None:
    """The child: one oclpy cpu Impl, one prepared case at a time."""
    from . import suite
    from .impls import oclpy_impl

    impl = oclpy_impl("cpu")
    case: RealCase | None = None
    prepared: Prepared | None = None
    while True:
        try:
            op, *args = pickle.load(requests)
        except EOFError:
            return
        try:
            if op == "prepare":
                name, small, source = args
                case = dict(suite.select([name]))[name](small)
                prepared = impl.prepare(case, source)
                answer: Any = prepared.build_s
            elif op == "run":
                t0 = time.perf_counter()
                impl.run(prepared)  # type: ignore[arg-type]
                answer = time.perf_counter() - t0
            elif op == "restore":
                answer = impl.restore(case, prepared)  # type: ignore[arg-type]
            elif op == "outputs":
                answer = impl.outputs(case, prepared)  # type: ignore[arg-type]
            else:
                answer = impl.versions()
            pickle.dump((True, answer), answers)
        except Exception as exc:  # reported by the parent as this implementation's error
            pickle.dump((False, f"{type(exc).__name__}: {exc}"), answers)
        answers.flush()


if __name__ == "__main__":
    pipe_in, pipe_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed goes to the terminal, not into the pipe
    _serve(pipe_in, pipe_out)
