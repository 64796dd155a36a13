"""A structure-aware OpenCL C mutator, and a fuzz loop over oclpy's compiler.

Seeds are real kernels (`opencl_seeds.py`): the corpus (`python -m tools.corpus
fetch`, under `$OCLPY_CORPUS_DIR`, with each kernel's own build options) when
it is there, and the test tree's kernels always (its `.cl` files and the
kernels its Python tests hold as strings). A seed is split into tokens
(identifiers, numbers, strings, punctuators; preprocessing lines kept whole)
and mutated 1 to 3 times, each time by one of:

- deleting a token, or a balanced `(...)`, `[...]` or `{...}` group;
- duplicating, deleting or swapping statements, or bringing one in from
  another seed (a transplant);
- replacing an identifier with another of the same file (a type for a value,
  a function for a variable), a type name with another type, a binary
  operator with another, a number with an interesting value (0, -1, 2**31,
  2**64, a 5,000-digit literal, 1e39f, NaN-making expressions), an array
  size with 0, -1 or 2**40;
- inserting an address-space or type qualifier, an attribute, a cast;
- nesting an expression 200 deep in parentheses, unbalancing a brace.

Each mutant goes through the frontend, and with `--backend` through the whole
compiler to verified LLVM IR (`opencl_build.py`; no build cache). A case's
outcome is "ok", "diagnostic" (a clean build error) or "internal" (an
exception, or a log that says internal compiler error), and, from the command
line (cases in a worker process that lives across them, `--jobs` of them: the
loop, workers and report are `driver.py`'s), "hang" (past `--timeout` CPU
seconds) or "died" (the worker process crashed); the first reproducer of each
kind is kept. The fast tier, `--fast SECONDS`, takes only the seeds that
build within SECONDS of CPU (the seed cost table, `opencl_seeds.py`) through
the whole compiler: corpus seeds such as hashcat's take 15 s a build, most
take a few hundredths. Run offline with

    python -m tools.fuzz.opencl_mutator --fast 0.5 --cases 100000 --jobs 16 --timeout 20 --save DIR

(from the repository root; docs/testing.md has the measured rate);
tests/tools/test_opencl_mutator.py runs 2,000 through the frontend and 400
through the whole compiler.
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .driver import FuzzReport, add_arguments, campaign, run_here, run_in_worker, saver
from .opencl_build import build_one
from .opencl_seeds import Seed, default_seeds, fast_seeds

TOKEN = re.compile(r"""
    (?P<pp>^[ \t]*\#(?:[^\n\\]|\\.)*)                    # a preprocessing line, continuations included
  | (?P<ws>[ \t\r\f\v]*\n|[ \t\r\f\v]+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<number>(?:\d|\.\d)(?:[eEpP][+-]|[\w.])*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct><<=|>>=|\.\.\.|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[^\s\w])
""", re.VERBOSE | re.MULTILINE | re.DOTALL)
SKIP = {"ws", "comment"}
TYPES = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half",
         "bool", "void", "size_t", "ptrdiff_t", "intptr_t", "float2", "int4", "uchar16", "double8",
         "float3", "half4", "long16", "image2d_t", "sampler_t", "event_t", "struct S"]
QUALIFIERS = ["__global", "__local", "__constant", "__private", "__generic", "const", "volatile",
              "restrict", "static", "extern", "inline", "unsigned", "signed", "__kernel",
              "__attribute__((aligned(16)))", "__attribute__((packed))",
              "__attribute__((reqd_work_group_size(1, 1, 1)))", "__attribute__((vec_type_hint(float4)))"]
OPERATORS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", ">", "<=", ">=",
             "==", "!=", "=", "+=", "<<=", ",", "?", ":", ".", "->"]
NUMBERS = ["0", "1", "-1", "2", "3", "7", "8", "16", "31", "32", "63", "64", "255", "256", "65535",
           "2147483647", "2147483648", "4294967295", "4294967296", "9223372036854775807",
           "18446744073709551615", "18446744073709551616", "0x7fffffff", "0xffffffffffffffff",
           "0x10000000000000000", "0777", "09", "1e39f", "1e309", "0x1p-149f", "3.4028235e38f",
           "1.0/0.0", "(0.0f/0.0f)", "-0.0", "1.5h", "1u", "1ul", "1lu", "1.0e-45f", "9" * 5000,
           "0b101", "'a'", "'\\xff'", "1.", ".5", "0x1.8p1"]
ARRAY_SIZES = ["0", "-1", "1", "1 << 40", "0x7fffffff", "4294967296", "n", "(1.5)"]


@dataclass
class Token:
    kind: str
    text: str
    space: str  # the whitespace and comments before it


def tokenize(source: str) -> list[Token]:
    out: list[Token] = []
    space = []
    for m in TOKEN.finditer(source):
        kind = m.lastgroup or "punct"
        if kind in SKIP:
            space.append(m.group())
            continue
        out.append(Token(kind, m.group(), "".join(space)))
        space = []
    out.append(Token("end", "", "".join(space)))
    return out


def untokenize(tokens: list[Token]) -> str:
    parts = []
    for t in tokens:
        space = t.space
        if t.kind == "pp" and not space.endswith("\n") and parts:
            space += "\n"  # a directive starts a line
        elif not space and parts and t.kind != "end":
            space = " "
        parts.append(space + t.text)
        if t.kind == "pp":
            parts.append("\n")
    return "".join(parts)


def _code(tokens: list[Token]) -> list[int]:
    return [k for k, t in enumerate(tokens) if t.kind not in ("pp", "end")]


def _group_end(tokens: list[Token], start: int) -> int | None:
    """The index of the bracket closing the one at `start`."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opening, closing, depth = tokens[start].text, pairs[tokens[start].text], 0
    for k in range(start, len(tokens)):
        text = tokens[k].text
        if text == opening:
            depth += 1
        elif text == closing:
            depth -= 1
            if depth == 0:
                return k
    return None


def _statements(tokens: list[Token]) -> list[tuple[int, int]]:
    """[begin, end) ranges of simple statements (`...;` inside braces)."""
    out, begin, depth = [], None, 0
    for k, t in enumerate(tokens):
        if t.text == "{":
            depth += 1
            begin = k + 1
        elif t.text == "}":
            depth -= 1
            begin = k + 1
        elif t.text == ";" and depth > 0 and begin is not None:
            if k + 1 - begin < 60:
                out.append((begin, k + 1))
            begin = k + 1
    return out


class Mutator:
    """Mutations of one seed's tokens, drawing names and statements from the seeds."""

    def __init__(self, rng: random.Random, seeds: list[str]) -> None:
        self.rng = rng
        self.donors = [tokenize(s) for s in seeds]
        self.table = [self.delete_token, self.delete_group, self.duplicate_statement,
                      self.delete_statement, self.swap_statements, self.transplant, self.swap_identifier,
                      self.swap_identifier, self.change_type, self.change_operator, self.literal,
                      self.literal, self.array_size, self.qualify, self.cast, self.deep_parens,
                      self.unbalance]

    def mutate(self, source: str, count: int) -> str:
        tokens = tokenize(source)
        for _ in range(count):
            self.rng.choice(self.table)(tokens)
        return untokenize(tokens)

    def _pick(self, tokens: list[Token], kinds: tuple[str, ...] = ("ident", "number", "punct", "string"),
              texts: tuple[str, ...] | None = None) -> int | None:
        choices = [k for k in _code(tokens) if tokens[k].kind in kinds and (texts is None or tokens[k].text in texts)]
        return self.rng.choice(choices) if choices else None

    def delete_token(self, tokens: list[Token]) -> None:
        k = self._pick(tokens)
        if k is not None:
            del tokens[k]

    def delete_group(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("punct",), ("(", "[", "{"))
        end = _group_end(tokens, k) if k is not None else None
        if end is not None:
            inner = self.rng.random() < 0.5
            del tokens[k + inner:end + 1 - inner]

    def duplicate_statement(self, tokens: list[Token]) -> None:
        stmts = _statements(tokens)
        if stmts:
            b, e = self.rng.choice(stmts)
            tokens[e:e] = [Token(t.kind, t.text, t.space) for t in tokens[b:e]]

    def delete_statement(self, tokens: list[Token]) -> None:
        stmts = _statements(tokens)
        if stmts:
            b, e = self.rng.choice(stmts)
            del tokens[b:e]

    def swap_statements(self, tokens: list[Token]) -> None:
        stmts = _statements(tokens)
        if len(stmts) >= 2:
            (b1, e1), (b2, e2) = sorted(self.rng.sample(stmts, 2))
            if e1 <= b2:
                tokens[b1:e2] = tokens[b2:e2] + tokens[e1:b2] + tokens[b1:e1]

    def transplant(self, tokens: list[Token]) -> None:
        donor: list[Token] = []
        for _ in range(8):  # a donor may hold no statement (a prototype alone): pick another
            donor = self.rng.choice(self.donors)
            if _statements(donor):
                break
        stmts, here = _statements(donor), _statements(tokens)
        if stmts and here:
            b, e = self.rng.choice(stmts)
            at = self.rng.choice(here)[1]
            tokens[at:at] = [Token(t.kind, t.text, t.space) for t in donor[b:e]]

    def swap_identifier(self, tokens: list[Token]) -> None:
        names = sorted({t.text for t in tokens if t.kind == "ident"})
        k = self._pick(tokens, ("ident",))
        if k is not None and names:
            tokens[k].text = self.rng.choice(names)

    def change_type(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("ident",), tuple(TYPES))
        if k is not None:
            tokens[k].text = self.rng.choice(TYPES)

    def change_operator(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("punct",), tuple(OPERATORS))
        if k is not None:
            tokens[k].text = self.rng.choice(OPERATORS)

    def literal(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("number",))
        if k is not None:
            tokens[k].text = self.rng.choice(NUMBERS)

    def array_size(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("punct",), ("[",))
        end = _group_end(tokens, k) if k is not None else None
        if end is not None:
            tokens[k + 1:end] = [Token("number", self.rng.choice(ARRAY_SIZES), "")]

    def qualify(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("ident",))
        if k is not None:
            tokens.insert(k, Token("ident", self.rng.choice(QUALIFIERS), " "))

    def cast(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("ident", "number"))
        if k is not None:
            tokens[k:k + 1] = [Token("punct", f"({self.rng.choice(TYPES)})", " "), tokens[k]]

    def deep_parens(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("ident", "number"))
        if k is not None:
            depth = self.rng.choice((20, 200))
            tokens[k:k + 1] = [Token("punct", "(" * depth, " "), tokens[k], Token("punct", ")" * depth, "")]

    def unbalance(self, tokens: list[Token]) -> None:
        k = self._pick(tokens, ("punct",), ("}", ")", "]", "{", "("))
        if k is not None:
            del tokens[k]


# -- building cases ----------------------------------------------------------------------

def build_case(case: tuple[str, str], backend: bool = False) -> tuple[str, str]:
    """`build_one` of a (source, options) case (the driver's form)."""
    return build_one(case[0], case[1], backend)


def mutants(seeds: list[Seed], cases: int, seed: int) -> Iterator[tuple[str, str]]:
    """(source, options) of `cases` mutants, the same for the same `seed`."""
    rng = random.Random(seed)
    mutator = Mutator(rng, [s.text for s in seeds])
    for _ in range(cases):
        s = rng.choice(seeds)
        yield mutator.mutate(s.text, rng.choice((1, 1, 2, 3))), s.options


def fuzz(seeds: list[Seed], cases: int, seed: int = 0, backend: bool = False,
         time_limit: float | None = None) -> FuzzReport:
    """In this process: no time limit per case (the tests' way)."""
    return run_here(mutants(seeds, cases, seed), functools.partial(build_case, backend=backend), time_limit)


def _job(chunk: tuple) -> FuzzReport:
    cases, seed, time_limit, save, backend, timeout, corpus, fast = chunk
    seeds = default_seeds(corpus) if fast is None else fast_seeds(fast, corpus)
    print(f"{len(seeds)} seeds", flush=True)
    return run_in_worker(mutants(seeds, cases, seed), functools.partial(build_case, backend=backend),
                         timeout, time_limit, saver(save, str(seed), _save))


def _save(path: Path, kind: str, case: tuple[str, str]) -> None:
    source, options = case
    path.with_suffix(".cl").write_text(f"// options: {options}\n// {kind}\n{source}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--no-corpus", action="store_true", help="only the test tree's kernels as seeds")
    parser.add_argument("--fast", type=float, metavar="SECONDS", default=None,
                        help="the fast tier: only seeds that build within SECONDS of CPU (opencl_seeds.py), "
                             "through the whole compiler (implies --backend)")
    args = parser.parse_args(argv)
    if args.fast is not None:
        args.backend = True
    return campaign(args, _job, (args.backend, args.timeout, not args.no_corpus, args.fast))


if __name__ == "__main__":
    sys.exit(main())
