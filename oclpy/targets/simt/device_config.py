"""What one simt device is, and its compiler Target: wave width and register file sizes.

A simt device is configured by its wave width (8, 16, 32, 64 lanes) and the
sizes of its scalar and vector register files (`SimtMachine`); tests shrink
the files to force spilling. The compiler's `Target` value carries them as
kind `simt`, arch `simt-w<W>` and features `sgprs=<S>,vgprs=<V>`
(`SimtMachine.target`), so the build cache keys on them and the code
generator reads them back (`machine_of`, which refuses what no simt device
could be). `machine_from_env` is the device the environment asks for:
`OCLPY_SIMT_WAVE`, `OCLPY_SIMT_SGPRS`, `OCLPY_SIMT_VGPRS`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..target import Target
from .calling_convention import DEFAULT_REGISTERS, check_file_size

WAVE_WIDTHS = (8, 16, 32, 64)
ENVIRONMENT = {"wave_width": "OCLPY_SIMT_WAVE", "sgprs": "OCLPY_SIMT_SGPRS", "vgprs": "OCLPY_SIMT_VGPRS"}
ARCH = re.compile(r"simt-w(\d+)\Z")
FEATURES = re.compile(r"sgprs=(\d+),vgprs=(\d+)\Z")


@dataclass(frozen=True)
class SimtMachine:
    """A simt device's wave width and register file sizes (32-bit registers per wave or lane)."""

    wave_width: int = 32
    sgprs: int = DEFAULT_REGISTERS["s"]
    vgprs: int = DEFAULT_REGISTERS["v"]

    @property
    def files(self) -> dict[str, int]:
        return {"s": self.sgprs, "v": self.vgprs}

    def problems(self) -> list[str]:
        out = [p for p in (check_file_size("s", self.sgprs), check_file_size("v", self.vgprs)) if p]
        if self.wave_width not in WAVE_WIDTHS:
            out.append(f"wave width {self.wave_width}: must be 8, 16, 32 or 64")
        return out

    def target(self, opt_level: int | None = None) -> Target:
        return Target("simt", f"simt-w{self.wave_width}", f"sgprs={self.sgprs},vgprs={self.vgprs}", opt_level)


def checked(machine: SimtMachine) -> SimtMachine:
    problems = machine.problems()
    if problems:
        raise ValueError("not a simt device: " + "; ".join(problems))
    return machine


def machine_of(target: Target) -> SimtMachine:
    """The device a simt Target is for; ValueError when its arch or features are not one's."""
    arch, features = ARCH.match(target.arch), FEATURES.match(target.features)
    if target.kind != "simt" or arch is None or features is None:
        raise ValueError(f"not a simt target: kind {target.kind!r}, arch {target.arch!r}, "
                         f"features {target.features!r} (expected simt-w<W> and sgprs=<S>,vgprs=<V>)")
    return checked(SimtMachine(int(arch.group(1)), int(features.group(1)), int(features.group(2))))


def machine_from_env() -> SimtMachine:
    """The device OCLPY_SIMT_WAVE, OCLPY_SIMT_SGPRS and OCLPY_SIMT_VGPRS ask for (defaults else)."""
    values = {}
    for field_name, variable in ENVIRONMENT.items():
        text = os.environ.get(variable, "").strip()
        if text:
            if not text.isdigit():
                raise ValueError(f"{variable}={text!r}: expected a number")
            values[field_name] = int(text)
    return checked(SimtMachine(**values))
