"""Whole-frontend fuzzing: mutated kernels from tests/frontend/kernels/ go
through `driver.compile_to_ir` (preprocess, parse, sema, lower) and, when they
build, through the IR verifier. Every case must either build into a verified
module or fail with diagnostics; an internal compiler error, a Python
exception or an unverifiable module fails the test and prints the source.

Mutations: the token-level ones of test_parser_fuzz (deleted, duplicated,
swapped tokens, random literals, stray vocabulary) and semantic ones that
keep the text parseable but change its meaning: identifiers swapped for
other identifiers of the file, operators replaced, types and address spaces
exchanged, so sema and lowering see many almost-right kernels.
"""

from __future__ import annotations

import random
import re

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.verifier import module_problems
from tests.frontend.test_parser_fuzz import KERNELS, mutate, pieces

CASES = 2000
_IDENT = re.compile(r"[A-Za-z_]\w*$")
_OPERATORS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "<", ">", "==", "!=",
              "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--", "!", "~"]
_TYPES = ["int", "uint", "float", "float2", "float4", "int4", "double", "char", "uchar", "short", "long",
          "ulong", "half", "bool", "void", "size_t", "float3", "int8", "uchar16", "event_t"]
_SPACES = ["__global", "__local", "__constant", "__private", "global", "local", "constant", "private", "const",
           "volatile", "restrict"]
_REPLACEMENTS = [(_OPERATORS, _OPERATORS), (_TYPES, _TYPES), (_SPACES, _SPACES)]


def semantic_mutate(rng: random.Random, text: str) -> str:
    toks = pieces(text)
    idents = [t for t in toks if _IDENT.match(t)]
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(toks))
        tok = toks[i]
        for group, choices in _REPLACEMENTS:
            if tok in group:
                toks[i] = rng.choice(choices)
                break
        else:
            if _IDENT.match(tok) and idents:
                toks[i] = rng.choice(idents)
            elif tok.strip() and tok[0].isdigit():
                toks[i] = rng.choice(["0", "1", "-1", "2147483648", "0.5f", "1e300", "0x7fffffffu", "3.0"])
    return "".join(toks)


def run_case(source: str, options: str) -> tuple[bool, str | None]:
    """(whether it built, None when the frontend behaved or else what went wrong)."""
    try:
        result = compile_to_ir(source, options, filename="fuzz.cl")
    except CompileError as exc:
        if "internal compiler error" in exc.log:
            return False, exc.log
        if "error:" not in exc.log:
            return False, "CompileError without an error diagnostic:\n" + exc.log
        return False, None
    except Exception as exc:  # a bug: the driver must turn everything into diagnostics
        return False, f"{type(exc).__name__}: {exc}"
    problems = module_problems(result.module)
    return True, ("IR verifier: " + "; ".join(problems[:5]) if problems else None)


def test_mutated_kernels_build_or_give_diagnostics() -> None:
    rng = random.Random(3_2026)
    sources = [k.read_text() for k in KERNELS]
    failures: list[str] = []
    built = 0
    for case in range(CASES):
        source = rng.choice(sources)
        source = semantic_mutate(rng, source) if rng.random() < 0.5 else mutate(rng, source)
        options = rng.choice(["", "", "-cl-std=CL2.0", "-Werror", "-w"])
        ok, problem = run_case(source, options)
        if problem is not None:
            failures.append(f"--- case {case} (options {options!r}):\n{source}\n--- problem:\n{problem}")
        built += ok
    assert not failures, f"{len(failures)} of {CASES} cases failed:\n" + "\n".join(failures[:5])
    assert built >= CASES // 20, f"only {built} mutants built: the mutations are too destructive"

