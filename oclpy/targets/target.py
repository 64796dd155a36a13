"""What a build is for, as a value: `Target(kind, arch, features, opt_level)`.

A driver of the runtime says what its device is (`Driver.target`: the cpu
driver the host CPU, the cuda driver its GPU's `sm_XY`, the simt driver its
wave width and register files); the compiler resolves
the optimisation level from the build options (`with_opt_level`), hands the
value to the target's code generator and keys its build cache on it. No
module global says which machine a build is for.

`opt_level` is our pipeline's level (0, 1, 2: `-cl-opt-disable`/`-O0`, `-O1`,
the default); each LLVM target maps it to LLVM's (`llvm_opt_level`: 0, 1, 3).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

KINDS = ("cpu", "cuda", "simt")
LLVM_LEVELS = {0: 0, 1: 1, 2: 3}  # our pipeline level -> LLVM's -O level


@dataclass(frozen=True)
class Target:
    kind: str  # which target compiles: one of KINDS
    arch: str = ""  # cpu: LLVM's CPU name (empty: the host's); cuda: sm_XY; simt: simt-w<wave width>
    features: str = ""  # cpu: LLVM's feature string; cuda: PTX features ("+ptx83"; none: the oldest the arch takes); simt: sgprs=<S>,vgprs=<V>
    opt_level: int | None = None  # 0..2; None until the build options decide

    def with_opt_level(self, level: int) -> Target:
        return dataclasses.replace(self, opt_level=level)

    @property
    def llvm_opt_level(self) -> int:
        return LLVM_LEVELS[2 if self.opt_level is None else self.opt_level]

    def describe(self) -> str:
        """One line for cache keys and messages: every field, in order."""
        return f"{self.kind}\0{self.arch}\0{self.features}\0{self.opt_level}"
