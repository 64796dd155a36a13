"""`python -m tools.progen --seed N [--mode M]`: print one generated kernel."""

from __future__ import annotations

import argparse

from .program import MODES, generate


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m tools.progen", description=__doc__)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mode", choices=MODES, default="all")
    args = ap.parse_args()
    print(generate(args.seed, args.mode), end="")


if __name__ == "__main__":
    main()
