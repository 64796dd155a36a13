"""Differential check of oclpy's preprocessor against clang's (`clang -E -x cl`).

    python tools/pp_compare.py [--clang PATH] [--options="-cl-std=CL2.0 -D N=4"] [--diags] FILE.cl|FOLDER...

Both preprocessors run on each file with the same macros: clang gets
`-cl-no-stdinc -undef` and an `-include` file holding oclpy's predefined
macros, so only the preprocessing itself can differ. Each output is cut into
pp-tokens with line markers and white space dropped (pragma lines stay, as
tokens), and the two token streams are compared; a difference is printed as a
diff of the tokens, one source line per row. `--diags` compares the
diagnostics too (file name, line, column and message; clang's `[-W...]` flag
names dropped).

Known differences, not reported as bugs: clang gives OpenCL C a 128-bit
intmax_t in `#if` (C99 and oclpy: 64 bits), and keeps digraphs spelt as
written where oclpy writes the punctuator they stand for.

Exit status: 0 when every file agrees, 1 otherwise, 2 when no clang is found.
"""

from __future__ import annotations

import argparse
import difflib
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

CLANG_NAMES = ["clang", *(f"clang-{v}" for v in range(14, 21))]
_MARKER = re.compile(r"^#[ \t]*(?:line[ \t]+)?[0-9]+[ \t]+\"[^\n]*$", re.M)  # `# N "file" flags`, `#line N "file"`
_CLANG_DIAG = re.compile(r"^(.*?):(\d+):(\d+): (error|warning|fatal error|note): (.*?)(?: \[-W[^\]]*\])?$", re.M)


def find_clang() -> str | None:
    """The first of clang, clang-14 ... clang-20 on PATH."""
    for name in CLANG_NAMES:
        path = shutil.which(name)
        if path is not None:
            return path
    return None


def tokens_of(text: str) -> list[tuple[int, str]]:
    """(output line, spelling) of each pp-token of preprocessed text, line markers dropped."""
    text = _MARKER.sub("", text)
    return [(t.line, DIGRAPHS.get(t.text, t.text)) for t in lex(text, "-").tokens if t.kind != "eof"]


def rows(toks: list[tuple[int, str]]) -> list[str]:
    """Tokens grouped by the output line they are on, one string per line (for a readable diff)."""
    out: dict[int, list[str]] = {}
    for line, text in toks:
        out.setdefault(line, []).append(text)
    return [" ".join(v) for _, v in sorted(out.items())]


@dataclass
class Result:
    ours: list[tuple[int, str]]
    clang: list[tuple[int, str]]
    our_diags: list[str]
    clang_diags: list[str]

    @property
    def same_tokens(self) -> bool:
        return [t for _, t in self.ours] == [t for _, t in self.clang]

    def token_diff(self, name: str) -> str:
        """The difference as a unified diff of rows; re-flowed so that only token changes show."""
        if self.same_tokens:
            return ""
        ours, theirs = [t for _, t in self.ours], [t for _, t in self.clang]
        diff = difflib.unified_diff(rows(self.clang), rows(self.ours), f"clang -E {name}", f"oclpy {name}",
                                    lineterm="", n=1)
        text = "\n".join(diff)
        if not text:  # same rows in another line layout: show the first differing token
            i = next(i for i, (a, b) in enumerate(zip(ours + [""], theirs + [""])) if a != b)
            text = f"token {i}: clang {theirs[i:i + 5]} oclpy {ours[i:i + 5]}"
        return text


def run_ours(path: Path, options: str) -> tuple[str, list[str]]:
    diags = DiagnosticEngine(error_limit=1 << 30)  # every error, as clang with -ferror-limit=0
    text = preprocess(path.read_text(), str(path), parse_build_options(options), diags)
    return text, [f"{d.loc}: {d.severity}: {d.message}" for d in diags.diagnostics]


def run_clang(clang: str, path: Path, options: str) -> tuple[str, list[str]]:
    opts = parse_build_options(options)
    prelude = "".join(f"#define {name} {body}\n" for name, body in predefined_macros(opts).items())
    with tempfile.NamedTemporaryFile("w", suffix=".h", delete=False) as f:
        f.write(prelude)
    std = f"-cl-std=CL{opts.opencl_c_version // 100}.{opts.opencl_c_version % 100 // 10}"
    includes = [f"-I{d}" for d in [*opts.include_dirs, BUNDLED_INCLUDE_DIR]]
    try:
        proc = subprocess.run([clang, "-E", "-x", "cl", std, "-cl-no-stdinc", "-undef", "-ferror-limit=0",
                               "-include", f.name,
                               *includes, str(path)], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    diags = [f"{m[0]}:{m[1]}:{m[2]}: {m[3]}: {m[4]}" for m in _CLANG_DIAG.findall(proc.stderr) if m[3] != "note"]
    return proc.stdout, diags


def compare(clang: str, path: Path, options: str = "") -> Result:
    ours, our_diags = run_ours(path, options)
    theirs, clang_diags = run_clang(clang, path, options)
    return Result(tokens_of(ours), tokens_of(theirs), [d for d in our_diags if ": note: " not in d], clang_diags)


def cl_files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.rglob("*.cl")) if p.is_dir() else [p])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", help=".cl files, or folders searched for them")
    parser.add_argument("--clang", default=None,
                        help="the clang to run (default: first of %s)" % ", ".join(CLANG_NAMES))
    parser.add_argument("--options", default="", help="OpenCL build options for both (-D, -I, -cl-std=)")
    parser.add_argument("--diags", action="store_true", help="compare diagnostics as well")
    args = parser.parse_args(argv)
    clang = args.clang or find_clang()
    if clang is None:
        print("pp_compare: no clang found (tried %s)" % ", ".join(CLANG_NAMES), file=sys.stderr)
        return 2
    failures = 0
    files = cl_files(args.paths)
    for path in files:
        result = compare(clang, path, args.options)
        problems = [result.token_diff(str(path))]
        if args.diags and sorted(result.our_diags) != sorted(result.clang_diags):
            problems.append("diagnostics differ:\n  clang: " + "\n         ".join(result.clang_diags or ["(none)"])
                            + "\n  oclpy: " + "\n         ".join(result.our_diags or ["(none)"]))
        problems = [p for p in problems if p]
        if problems:
            failures += 1
            print(f"DIFFERS {path}\n" + "\n".join(problems) + "\n")
    print(f"{len(files) - failures} of {len(files)} files agree with {clang}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
