"""The OpenCL C mutator's seeds: real kernels, and what each costs to build.

- `in_tree_seeds`: the `.cl` files of our tests that hold a kernel;
- `string_seeds`: the kernels our Python tests hold as string literals
  (about 650 of them: whole literals that contain a kernel with balanced
  braces, never the pieces of an f-string);
- `corpus_seeds`: the fetched corpus's kernels (`tools/corpus`), each with its
  own build options, when it is there.

A seed's cost is the CPU seconds its unmutated source takes through the whole
compiler to verified LLVM IR (`opencl_build.build_one(..., backend=True)`).
Costs differ by four orders of magnitude and do not follow a file's length
(includes and macros: hashcat's 10 KB `m00000_a0-optimized.cl` takes 14 s,
most kernels under 0.1 s), so they are measured, once per corpus pin, and kept
by digest in `seed_costs.json` beside this module (`python -m
tools.fuzz.opencl_seeds --measure --jobs N`, with the machine it ran on).
`fast_seeds(max_seconds)` keeps the seeds whose cost is at most that: the
fast fuzz tier's seeds. A test-tree seed the table does not know is measured
at run time (they are small); a corpus seed it does not know (a new pin) is
left out until measured.
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import json
import platform
import shlex
import sys
import time
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

from .opencl_build import build_one

ROOT = Path(__file__).resolve().parents[2]
COSTS = Path(__file__).with_name("seed_costs.json")
TEXT_LIMIT = 200_000  # bytes: larger test files are data, not kernels
CORPUS_ROOT = "$OCLPY_CORPUS_DIR"  # what a corpus seed's digest sees in place of its folder


@dataclass(frozen=True)
class Seed:
    name: str
    text: str
    options: str = ""
    root: str = ""  # the corpus folder its options name (-I...): not part of the digest

    @property
    def digest(self) -> str:
        """What the cost table keys on: the text and options, not where they came from (a
        corpus fetched to another folder has the same digests)."""
        options = self.options.replace(f"-I{self.root}", f"-I{CORPUS_ROOT}") if self.root else self.options
        return hashlib.sha256(f"{options}\0{self.text}".encode(errors="surrogatepass")).hexdigest()[:16]


def _holds_kernel(text: str) -> bool:
    """A whole OpenCL C kernel: balanced braces (not the head of a source a test adds to),
    no `@` (not our IR's or LLVM's text)."""
    return "kernel" in text and text.count("{") == text.count("}") > 0 and "@" not in text


def in_tree_seeds() -> list[Seed]:
    """The .cl kernels of our tests (those that hold a kernel)."""
    out = []
    for path in sorted((ROOT / "tests").rglob("*.cl")):
        text = path.read_text(errors="replace")
        if "kernel" in text and len(text) < TEXT_LIMIT:
            out.append(Seed(str(path.relative_to(ROOT)), text))
    return out


def string_seeds() -> list[Seed]:
    """The kernels the Python tests hold as string literals (`__kernel` or `kernel void`
    with a body), each once, named `file:line`."""
    return list(_string_seeds())


@functools.lru_cache(maxsize=1)
def _string_seeds() -> tuple[Seed, ...]:  # parsing every test file takes seconds: once a process
    out, seen = [], set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, ValueError):
            continue
        pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces
                    and ("__kernel" in node.value or "kernel void" in node.value)
                    and _holds_kernel(node.value) and node.value not in seen):
                seen.add(node.value)
                out.append(Seed(f"{path.relative_to(ROOT)}:{node.lineno}", node.value))
    return tuple(out)


def corpus_seeds(limit_bytes: int = 60_000, root: Path | None = None) -> list[Seed]:
    """The corpus's kernels (with their build options) when it has been fetched to `root`
    (by default `$OCLPY_CORPUS_DIR` or its default folder), else none."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        from tools.corpus.manifest import cases, corpus_dir
        root = Path(root or corpus_dir())
        found = cases(root)
    except Exception:  # no corpus here, or a manifest this checkout cannot read
        return []
    return [Seed(c.id, c.text, shlex.join([*c.options, f"-I{c.directory}", f"-cl-std={c.std}"]), str(root))
            for c in found if not c.skip and len(c.text) < limit_bytes]


def tree_seeds() -> list[Seed]:
    return in_tree_seeds() + string_seeds()


def default_seeds(corpus: bool = True) -> list[Seed]:
    return tree_seeds() + (corpus_seeds() if corpus else [])


# -- costs ------------------------------------------------------------------------------

def seed_cost(seed: Seed) -> float:
    """CPU seconds (every thread of this process) of `seed` through the whole compiler."""
    start = time.process_time()
    build_one(seed.text, seed.options, backend=True)
    return time.process_time() - start


def load_costs(path: Path = COSTS) -> dict[str, float]:
    """{digest: CPU seconds} of the table, empty when there is none or it is unreadable."""
    try:
        costs = json.loads(path.read_text())["costs"]
        return {str(k): float(v) for k, v in costs.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def fast_seeds(max_seconds: float, corpus: bool = True, costs: dict[str, float] | None = None) -> list[Seed]:
    """The seeds that build within `max_seconds` of CPU: by the table's costs, and the
    test tree's seeds it does not know measured now (a corpus seed it does not know is
    left out: measuring the corpus takes minutes)."""
    table = load_costs() if costs is None else costs
    out = []
    for seed in tree_seeds():
        cost = table.get(seed.digest)
        if (seed_cost(seed) if cost is None else cost) <= max_seconds:
            out.append(seed)
    if corpus:
        out += [s for s in corpus_seeds() if table.get(s.digest, float("inf")) <= max_seconds]
    return out


def _measure_one(seed: Seed) -> tuple[str, str, float]:
    return seed.digest, seed.name, seed_cost(seed)


def measure(jobs: int, path: Path = COSTS, slow: float = 0.5, every: int = 50, missing: bool = False) -> dict:
    """Measure every seed, the test tree's and the corpus's (in `jobs` processes), and
    write the table: every cost by digest, and the names of those above `slow` seconds.
    With `missing`, measure only the seeds the table lacks and keep its costs. The table
    is written every `every` seeds too, so a run stopped early (a few corpus seeds take
    15 s each) leaves what it measured."""
    every_seed = default_seeds()
    names = {s.digest: s.name for s in every_seed}
    costs = load_costs(path) if missing else {}
    seeds = list({s.digest: s for s in every_seed if s.digest not in costs}.values())
    with get_context("spawn").Pool(jobs) as pool:
        for n, (digest, name, cost) in enumerate(pool.imap_unordered(_measure_one, seeds), 1):
            costs[digest] = round(cost, 3)
            print(f"\r{n}/{len(seeds)}", end="", file=sys.stderr, flush=True)
            if n % every == 0:
                _write_table(path, jobs, costs, names, slow)
    print(file=sys.stderr)
    return _write_table(path, jobs, costs, names, slow)


def _write_table(path: Path, jobs: int, costs: dict[str, float], names: dict[str, str], slow: float) -> dict:
    table = {"what": "CPU seconds of each seed, unmutated, through the whole compiler to verified "
                     "LLVM IR, by the digest of its options and text (tools/fuzz/opencl_seeds.py)",
             "command": f"python -m tools.fuzz.opencl_seeds --measure --jobs {jobs}",
             "machine": f"{platform.machine()} {platform.processor()}".strip(),
             "date": time.strftime("%Y-%m-%d"),
             "slow": {names.get(d, d): c for d, c in sorted(costs.items(), key=lambda dc: -dc[1]) if c > slow},
             "costs": dict(sorted(costs.items()))}
    path.write_text(json.dumps(table, indent=0) + "\n")
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--measure", action="store_true", help="measure every seed and write the table")
    parser.add_argument("--missing", action="store_true",
                        help="with --measure: measure only the seeds the table lacks, keep the others")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--max-seconds", type=float, default=0.5, help="count the seeds within this cost")
    args = parser.parse_args(argv)
    if args.measure:
        measure(args.jobs, missing=args.missing)
    table = load_costs()
    seeds = default_seeds()
    known = [s for s in seeds if s.digest in table]
    fast = [s for s in known if table[s.digest] <= args.max_seconds]
    print(f"{len(seeds)} seeds ({len(tree_seeds())} of the test tree), {len(known)} measured, "
          f"{len(fast)} within {args.max_seconds:g} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
