"""Differential check of oclpy's preprocessor against clang's (`clang -E -x cl`).

    python tools/pp_compare.py [--clang PATH] [--options="-cl-std=CL2.0 -D N=4"] [--diags] FILE.cl|FOLDER...
    python tools/pp_compare.py --corpus [--only PROJECT_GLOB] [--match TEXT] [--jobs N]

`--corpus` compares every kernel of the real-kernel corpus (tools/corpus,
fetched with `python -m tools.corpus fetch`), each with its own build
options (-D, -I, -cl-std) as `python -m tools.corpus` builds it.

Both preprocessors run on each file with the same macros: clang gets
`-cl-no-stdinc -undef` and an `-include` file holding oclpy's predefined
macros, so only the preprocessing itself can differ. Each output is cut into
pp-tokens with line markers and white space dropped (pragma lines stay, as
tokens), and the two token streams are compared; a difference in line layout
alone is none; each token change is printed with its place in clang's
output and the tokens before it. `--diags` compares the
diagnostics too (file name, line, column and message; clang's `[-W...]` flag
names dropped).

Known differences, not reported as bugs: clang's output keeps digraphs spelt
as written where oclpy writes the punctuator they stand for (the C lexer then
needs no digraphs; `#` still makes a string of the digraph's spelling).
The differences that remain on the corpus and on tools/pp_suite.py's
conformance tests, each with its reason, are in tools/corpus/FINDINGS.md
("Preprocessor against clang -E").

Which clang: `--clang`, else `OCLPY_CLANG` when it names a clang driver,
else the newest clang on PATH. The oracle of record for the language (the
clang-tidy wheel, tools/corpus/oracle.py) cannot be used here: clang-tidy
runs its own frontend action and ignores `-E`, so there is no way to make it
print preprocessed text.

Exit status: 0 when every file agrees, 1 otherwise, 2 when no clang is found.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import functools
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from oclpy.diagnostics import DiagnosticEngine  # noqa: E402
from oclpy.frontend.options import BUNDLED_INCLUDE_DIR, parse_build_options  # noqa: E402
from oclpy.frontend.c.preprocess import predefined_macros, preprocess  # noqa: E402
from oclpy.frontend.c.preprocessor.tokens import DIGRAPHS, lex  # noqa: E402

CLANG_NAMES = ["clang", *(f"clang-{v}" for v in range(30, 13, -1))]
_MARKER = re.compile(r"^#[ \t]*(?:line[ \t]+)?[0-9]+[ \t]+\"[^\n]*$", re.M)  # `# N "file" flags`, `#line N "file"`
_CLANG_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|fatal error|note): (.*?)(?: \[-W[^\]]*\])?$", re.M)


def find_clang() -> str | None:
    """`OCLPY_CLANG` when it names a clang driver on PATH, else the first of clang, clang-30 ... clang-14."""
    explicit = os.environ.get("OCLPY_CLANG", "")
    if explicit and not Path(explicit).name.startswith("clang-tidy") and explicit != "libclang":
        found = shutil.which(explicit)
        if found is not None:
            return found
    for name in CLANG_NAMES:
        path = shutil.which(name)
        if path is not None:
            return path
    return None


def tokens_of(text: str) -> list[tuple[int, str]]:
    """(output line, spelling) of each pp-token of preprocessed text, line markers dropped."""
    text = _MARKER.sub("", text)
    return [(t.line, DIGRAPHS.get(t.text, t.text)) for t in lex(text, "-").tokens if t.kind != "eof"]


@dataclass
class Result:
    ours: list[tuple[int, str]]
    clang: list[tuple[int, str]]
    our_diags: list[str]
    clang_diags: list[str]

    @property
    def same_tokens(self) -> bool:
        return [t for _, t in self.ours] == [t for _, t in self.clang]

    def token_diff(self, name: str, limit: int = 8) -> str:
        """The token changes (at most `limit`), each with the output lines it is on and a little context:
        a difference in line layout alone is none."""
        if self.same_tokens:
            return ""
        ours, theirs = [t for _, t in self.ours], [t for _, t in self.clang]
        out = []
        matcher = difflib.SequenceMatcher(None, theirs, ours, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if len(out) == limit:
                out.append("...")
                break
            line = self.clang[i1][0] if i1 < len(self.clang) else (self.clang[-1][0] if self.clang else 0)
            before = " ".join(theirs[max(0, i1 - 4):i1])
            out.append(f"@ clang line {line}, after `{before}`:\n"
                       f"  clang: {' '.join(theirs[i1:min(i2, i1 + 30)])}{' ...' if i2 - i1 > 30 else ''}\n"
                       f"  oclpy: {' '.join(ours[j1:min(j2, j1 + 30)])}{' ...' if j2 - j1 > 30 else ''}")
        return f"--- clang -E {name}\n+++ oclpy {name}\n" + "\n".join(out)


def run_ours(path: Path, options: str | list[str]) -> tuple[str, list[str]]:
    diags = DiagnosticEngine(error_limit=1 << 30)  # every error, as clang with -ferror-limit=0
    text = preprocess(path.read_text(errors="replace"), str(path), parse_build_options(options), diags)
    return text, [f"{d.loc}: {d.severity}: {d.message}" for d in diags.diagnostics]


def run_clang(clang: str, path: Path, options: str | list[str]) -> tuple[str, list[str]]:
    opts = parse_build_options(options)
    prelude = "".join(f"#define {name} {body}\n" for name, body in predefined_macros(opts).items())
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
        f.write(prelude)
    std = f"-cl-std=CL{opts.opencl_c_version // 100}.{opts.opencl_c_version % 100 // 10}"
    includes = [f"-I{d}" for d in [*opts.include_dirs, BUNDLED_INCLUDE_DIR]]
    try:
        proc = subprocess.run([clang, "-E", "-x", "cl", std, "-cl-no-stdinc", "-undef", "-ferror-limit=0",
                               "-include", f.name,
                               *includes, str(path)], capture_output=True, encoding="utf-8", errors="replace",
                              timeout=60)
    finally:
        os.unlink(f.name)
    diags = [f"{m[0]}:{m[1]}:{m[2]}: {m[3]}: {m[4]}" for m in _CLANG_DIAG.findall(proc.stderr) if m[3] != "note"]
    return proc.stdout, diags


def compare(clang: str, path: Path, options: str | list[str] = "") -> Result:
    ours, our_diags = run_ours(path, options)
    theirs, clang_diags = run_clang(clang, path, options)
    return Result(tokens_of(ours), tokens_of(theirs), [d for d in our_diags if ": note: " not in d], clang_diags)


@dataclass
class Job:
    """One file to compare, under a name, with its build options."""

    name: str
    path: Path
    options: str | list[str]


def cl_files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.rglob("*.cl")) if p.is_dir() else [p])
    return out


def corpus_jobs(only: str | None = None, match: str | None = None, root: Path | None = None,
                projects: list | None = None) -> list[Job]:
    """Every fetched corpus kernel that `python -m tools.corpus` builds, with that build's options
    (`root` and `projects`: another corpus directory and manifest than the default ones)."""
    from tools.corpus.__main__ import job_for, skip_reason
    from tools.corpus.build import build_options, kernel_file
    from tools.corpus.manifest import cases

    out = []
    for case in cases(root, projects, only):
        if skip_reason(case) or (match and match not in case.id):
            continue
        job = job_for(case)
        out.append(Job(case.id, kernel_file(job), build_options(job)))
    return out


def problems_of(result: Result, name: str, diags: bool) -> list[str]:
    problems = [result.token_diff(name)]
    if diags and sorted(result.our_diags) != sorted(result.clang_diags):
        problems.append("diagnostics differ:\n  clang: " + "\n         ".join(result.clang_diags or ["(none)"])
                        + "\n  oclpy: " + "\n         ".join(result.our_diags or ["(none)"]))
    return [p for p in problems if p]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help=".cl files, or folders searched for them")
    parser.add_argument("--clang", default=None,
                        help="the clang to run (default: OCLPY_CLANG, else first of %s)" % ", ".join(CLANG_NAMES))
    parser.add_argument("--options", default="", help="OpenCL build options for both (-D, -I, -cl-std=)")
    parser.add_argument("--diags", action="store_true", help="compare diagnostics as well")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--corpus", action="store_true", help="every corpus kernel, with its own options")
    parser.add_argument("--only", default=None, help="with --corpus: projects whose name matches this glob")
    parser.add_argument("--match", default=None, help="with --corpus: kernels whose id contains this text")
    parser.add_argument("--part", default=None, metavar="FROM:TO",
                        help="only jobs FROM to TO (a Python slice), to share a long run out")
    args = parser.parse_args(argv)
    if not args.paths and not args.corpus:
        parser.error("name files or folders, or --corpus")
    clang = args.clang or find_clang()
    if clang is None:
        print("pp_compare: no clang found (tried %s)" % ", ".join(CLANG_NAMES), file=sys.stderr)
        return 2
    jobs = [Job(str(p), p, args.options) for p in cl_files(args.paths)]
    if args.corpus:
        jobs += corpus_jobs(args.only, args.match)
    if args.part:
        start, _, stop = args.part.partition(":")
        jobs = jobs[int(start or 0):int(stop) if stop else None]
    return report(clang, jobs, args.diags, args.jobs)


def check(clang: str, job: Job, diags: bool) -> list[str]:
    """The problems of one job (a worker's task)."""
    return problems_of(compare(clang, job.path, job.options), job.name, diags)


def report(clang: str, jobs: list[Job], diags: bool = False, workers: int = 1) -> int:
    """Compare every job, print each difference and the count; the exit status."""
    failures = 0
    with multiprocessing.Pool(workers) if workers > 1 else contextlib.nullcontext() as pool:
        task = functools.partial(check, clang, diags=diags)
        results = pool.imap(task, jobs) if pool is not None else map(task, jobs)
        for done, (job, problems) in enumerate(zip(jobs, results), 1):
            if done % 100 == 0:
                print(f"pp_compare: {done} of {len(jobs)} compared", file=sys.stderr, flush=True)
            if problems:
                failures += 1
                print(f"DIFFERS {job.name}\n" + "\n".join(problems) + "\n", flush=True)
    print(f"{len(jobs) - failures} of {len(jobs)} files agree with {clang}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
