"""`python -m benchmarks.ir_identity save|check FILE`: tools/ir_identity.py over every kernel
set (the real suite, the corpus, the generated kernels: `compile_stages.SETS`)."""

from __future__ import annotations

import sys

from tools import ir_identity

from .compile_stages import SETS


def main(argv: list[str] | None = None) -> int:
    return ir_identity.main(argv, SETS, prog="python -m benchmarks.ir_identity")


if __name__ == "__main__":
    sys.exit(main())
