"""Fuzzing: mutated kernels (tokens deleted, duplicated, swapped, replaced) and random text must
never make preprocess+parse raise or print; they only report diagnostics."""

import random
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.c.ast_printer import dump, to_source
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.preprocess import preprocess

KERNELS = sorted((Path(__file__).parent / "kernels").glob("*.cl"))
_PIECES = re.compile(r"\s+|[A-Za-z_]\w*|\d[\w.]*|\"[^\"\n]*\"|'[^'\n]*'|//[^\n]*|/\*.*?\*/|.", re.S)
VOCABULARY = [
    "(", ")", "{", "}", "[", "]", ";", ",", "*", "=", "?", ":", ".", "->", "#", "##", "\\", "\"", "'",
    "/*", "*/", "//", "\n#define", "\n#if", "\n#endif", "\n#include \"x.h\"\n", "\n#error e\n", "__attribute__",
    "((", "))", "struct", "union", "enum", "typedef", "kernel", "__global", "float4", "int", "unsigned",
    "sizeof", "vec_step", "case", "default", "goto", "for", "while", "do", "if", "else", "return", "...",
    "0x", "1e", "1.5f", "0x1p3", "'\\x'", "09", "18446744073709551616", "-2147483648", "$", "@", "`", "\t",
]


def pieces(text):
    return _PIECES.findall(text)


def random_literal(rng):
    return rng.choice([str(rng.randint(-2**40, 2**70)), f"{rng.random() * 1e10}f", hex(rng.getrandbits(64)) + "u",
                       f"'{chr(rng.randint(32, 126))}'", f'"{rng.randint(0, 9)}"'])


def mutate(rng, text):
    toks = pieces(text)
    for _ in range(rng.randint(1, 6)):
        if not toks:
            break
        i = rng.randrange(len(toks))
        action = rng.randrange(5)
        if action == 0:
            del toks[i]
        elif action == 1:
            toks.insert(i, toks[i])
        elif action == 2 and i + 1 < len(toks):
            toks[i], toks[i + 1] = toks[i + 1], toks[i]
        elif action == 3:
            toks[i] = random_literal(rng)
        else:
            toks.insert(i, rng.choice(VOCABULARY))
    return "".join(toks)


def compile_front(source, options=""):
    diags = DiagnosticEngine()
    text = preprocess(source, "fuzz.cl", parse_build_options(options), diags)
    tu = parse(text, "fuzz.cl", diags)
    dump(tu)
    diags.render()
    return diags


def test_mutated_kernels_never_raise(capsys):
    rng = random.Random(20261129)
    sources = [k.read_text() for k in KERNELS]
    for case in range(300):
        source = mutate(rng, rng.choice(sources))
        try:
            compile_front(source)
        except Exception as exc:  # pragma: no cover - the failure message shows the input
            raise AssertionError(f"case {case} raised {exc!r} on:\n{source}") from exc
    assert capsys.readouterr() == ("", "")


def test_mutants_that_parse_cleanly_print_back_to_the_same_tree():
    rng = random.Random(7)
    sources = [k.read_text() for k in KERNELS]
    checked = 0
    for _ in range(300):
        diags = DiagnosticEngine()
        text = preprocess(mutate(rng, rng.choice(sources)), "fuzz.cl", parse_build_options(""), diags)
        tu = parse(text, "fuzz.cl", diags)
        if diags.diagnostics:
            continue
        printed = to_source(tu)
        again_diags = DiagnosticEngine()
        again = parse(printed, "printed.cl", again_diags)
        assert not again_diags.diagnostics, again_diags.render() + printed
        assert _no_locations(dump(again)) == _no_locations(dump(tu)), printed
        checked += 1
    assert checked >= 20  # enough mutants survive to make this a test


def _no_locations(text):
    return re.sub(r" <[^>]*>", "", text)


def test_unmutated_kernels_are_clean():
    for kernel in KERNELS:
        diags = compile_front(kernel.read_text())
        assert not diags.diagnostics, diags.render()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(VOCABULARY + ["a", "b", "1", " ", "\n", "x = ", "f(", "int x", "+", "-"]),
                max_size=40))
def test_random_token_soup_never_raises(soup):
    compile_front("".join(soup))


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_random_text_never_raises(text):
    compile_front(text)
