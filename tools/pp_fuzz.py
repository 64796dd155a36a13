"""Random differential testing of the preprocessor against clang (tools/pp_compare.py).

    python tools/pp_fuzz.py [--seed 0] [--count 200] [--keep FOLDER]

Writes `count` random programs (tangled object-like and function-like macros
calling each other, `#`, `##`, `__VA_ARGS__`, `__VA_OPT__`, calls over
several lines, `__LINE__`, and `#if` arithmetic) and prints each one whose
token stream or diagnostics differ from clang's. clang gives OpenCL C a
128-bit intmax_t, so the unsigned value in "converted from negative value to
unsigned" is not compared, and #if arithmetic stays clear of 64-bit overflow.
Exit status 1 when some program differs.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

try:
    from tools.pp_compare import compare, find_clang
except ImportError:  # run as a script
    from pp_compare import compare, find_clang  # type: ignore[no-redef]

NAMES = ["A", "B", "C", "F", "G", "H"]
FIXED = ["#define X 3", "#define V(...) v(__VA_ARGS__)", "#define W(a, ...) w(a __VA_OPT__(,) __VA_ARGS__)",
         "#define GC(a, ...) g(a, ## __VA_ARGS__)", "#define S(...) #__VA_ARGS__", "#define L(x) __LINE__ x"]
ARGS = ["", "1", "X", "a b", "(1, 2)", '"s,t"', "'\\''", "__LINE__", "L(1)", "V()", "S(x  y)", "-", "#"]


def _define(rng: random.Random, name: str) -> str:
    params = rng.sample(["x", "y", "z"], rng.randint(0, 3)) if rng.random() < 0.5 else None
    variadic = params is not None and rng.random() < 0.2
    pool = NAMES + ["1", "+", "(", ")", ",", "q"] + (params or []) * 3 + (["__VA_ARGS__"] if variadic else [])
    body: list[str] = []
    for _ in range(rng.randint(0, 6)):
        operands = (params or []) + (["__VA_ARGS__"] if variadic else [])
        if operands and rng.random() < 0.1:
            body += ["#", rng.choice(operands)]
            continue
        if body and rng.random() < 0.06:
            body.append("##")
        body.append(rng.choice(pool))
    while body and body[-1] == "##":
        body.pop()
    if params is None:
        return f"#define {name} " + " ".join(body)
    return f"#define {name}(" + ", ".join(params + (["..."] if variadic else [])) + ") " + " ".join(body)


def _condition(rng: random.Random, depth: int = 0) -> str:
    if depth > 2 or rng.random() < 0.3:
        return rng.choice(["0", "1", "7", "-3", "5u", "'a'", "X", "defined(X)", "defined Y", "UNDEF", "010"])
    a, b = _condition(rng, depth + 1), _condition(rng, depth + 1)
    op = rng.choice(["+", "-", "*", "/", "%", "<", ">=", "==", "!=", "&&", "||", "&", "|", "^", "?:", "!"])
    if op == "?:":
        return f"({a} ? {b} : {_condition(rng, depth + 1)})"
    return f"!({a})" if op == "!" else f"({a} {op} {b})"


def program(rng: random.Random) -> str:
    lines = FIXED + [_define(rng, n) for n in NAMES]
    for _ in range(rng.randint(3, 10)):
        r = rng.random()
        if r < 0.25:
            lines += [f"#if {_condition(rng)}", "yes", "#else", "no", "#endif"]
        elif r < 0.6:
            macro = rng.choice(["V", "W", "GC", "S", "L"])
            args = [rng.choice(ARGS) for _ in range(rng.randint(1, 3))]
            lines.append(f"{macro}(" + rng.choice([",", ",\n", " ,"]).join(args) + ")" + rng.choice(["", " ;"]))
        else:
            lines.append(" ".join(rng.choice(NAMES + ["(", ")", ",", "1", "q"]) for _ in range(rng.randint(1, 10))))
    return "\n".join(lines) + "\n"


def _normal(diags: list[str]) -> list[str]:
    return sorted(re.sub(r"(negative value to unsigned: -\d+) to \d+", r"\1", d) for d in diags)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--keep", default=None, help="write the programs here (default: a temporary folder)")
    args = parser.parse_args(argv)
    clang = find_clang()
    if clang is None:
        print("pp_fuzz: no clang found", file=sys.stderr)
        return 2
    folder = Path(args.keep or tempfile.mkdtemp(prefix="pp_fuzz_"))
    folder.mkdir(parents=True, exist_ok=True)
    failures = 0
    for seed in range(args.seed, args.seed + args.count):
        path = folder / f"fuzz{seed}.cl"
        path.write_text(program(random.Random(seed)))
        result = compare(clang, path)
        if not result.same_tokens or _normal(result.our_diags) != _normal(result.clang_diags):
            failures += 1
            print(f"DIFFERS {path}\n{result.token_diff(path.name)}\n  clang: {result.clang_diags}\n"
                  f"  oclpy: {result.our_diags}\n")
    print(f"{args.count - failures} of {args.count} random programs agree with {clang}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
