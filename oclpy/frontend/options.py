"""Build options: the string a host passes to `clBuildProgram`, parsed once.

`parse_build_options("-D N=4 -I inc -cl-std=CL2.0 -cl-fast-relaxed-math")`
returns a `BuildOptions`; an option we do not know raises `InvalidBuildOptions`
(the runtime maps it to CL_INVALID_BUILD_OPTIONS). Beside the options, a
`BuildOptions` carries the `DataLayout` of the target the build compiles for
(clang's `-target`): the compiler sets it, never the option string.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..ir.datalayout import CPU_LAYOUT, DataLayout
from ..ir.types import AddressSpace
from .size_rules import SizeRules


class InvalidBuildOptions(ValueError):
    """A build option string that cannot be parsed; the message names the option."""


# oclpy's bundled headers (pyopencl-complex.h, pyopencl-random123/, and their oclpy-
# names): searched after the user's -I folders in every OpenCL C build, as PyOpenCL does.
BUNDLED_INCLUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "include")

# -cl-std value -> __OPENCL_C_VERSION__
CL_STD_VERSIONS = {"CL1.0": 100, "CL1.1": 110, "CL1.2": 120, "CL2.0": 200, "CL3.0": 300}


@dataclass
class BuildOptions:
    defines: dict[str, str] = field(default_factory=dict)  # -D NAME[=VALUE] (VALUE "1" if absent)
    include_dirs: list[str] = field(default_factory=list)
    cl_std: str = "CL1.2"
    fast_relaxed_math: bool = False
    mad_enable: bool = False
    finite_math_only: bool = False
    unsafe_math_optimizations: bool = False
    no_signed_zeros: bool = False
    denorms_are_zero: bool = False
    opt_disable: bool = False
    single_precision_constant: bool = False
    kernel_arg_info: bool = False
    correctly_rounded_divide_sqrt: bool = False
    uniform_work_group_size: bool = False
    suppress_warnings: bool = False  # -w
    warnings_as_errors: bool = False  # -Werror
    debug_info: bool = False  # -g
    opt_level: int = 2  # -O0..-O3; -cl-opt-disable sets 0
    raw: list[str] = field(default_factory=list)  # the option words as given
    layout: DataLayout = CPU_LAYOUT  # the target's (compile_to_ir's `layout`), not an option word

    @property
    def opencl_c_version(self) -> int:
        """The value of __OPENCL_C_VERSION__ (120 for CL1.2)."""
        return CL_STD_VERSIONS[self.cl_std]

    @property
    def size_rules(self) -> SizeRules:
        """What sizes depend on beyond the C type: the layout and the default pointee space."""
        generic = self.opencl_c_version >= 200
        return SizeRules(self.layout, AddressSpace.GENERIC if generic else AddressSpace.PRIVATE)

    @property
    def opencl_version(self) -> int:
        """The value of __OPENCL_VERSION__: the device version the build targets."""
        return {"CL3.0": 300, "CL2.0": 200}.get(self.cl_std, 120)


# Flags without arguments: option -> BuildOptions field set to True.
_FLAGS = {
    "-cl-fast-relaxed-math": "fast_relaxed_math",
    "-cl-mad-enable": "mad_enable",
    "-cl-finite-math-only": "finite_math_only",
    "-cl-unsafe-math-optimizations": "unsafe_math_optimizations",
    "-cl-no-signed-zeros": "no_signed_zeros",
    "-cl-denorms-are-zero": "denorms_are_zero",
    "-cl-opt-disable": "opt_disable",
    "-cl-single-precision-constant": "single_precision_constant",
    "-cl-kernel-arg-info": "kernel_arg_info",
    "-cl-fp32-correctly-rounded-divide-sqrt": "correctly_rounded_divide_sqrt",
    "-cl-uniform-work-group-size": "uniform_work_group_size",
    "-w": "suppress_warnings",
    "-Werror": "warnings_as_errors",
    "-g": "debug_info",
}


def _split(options: str | Sequence[str]) -> list[str]:
    if isinstance(options, str):
        try:
            return shlex.split(options)
        except ValueError as exc:
            raise InvalidBuildOptions(f"invalid build options {options!r}: {exc}") from None
    words: list[str] = []
    for item in options:
        words.extend(_split(item) if isinstance(item, str) else [str(item)])
    return words


# Options the spec defines that change nothing here (accepted for portability).
_IGNORED = frozenset(["-cl-no-subgroup-ifp", "-cl-strict-aliasing"])

_MACRO_NAME = re.compile(r"[A-Za-z_]\w*(\(\s*(?:[A-Za-z_]\w*\s*(?:,\s*[A-Za-z_]\w*\s*)*(?:,\s*\.\.\.\s*)?|\.\.\.\s*)?\))?")


def _add_define(opts: BuildOptions, text: str) -> None:
    """`-D NAME`, `-D NAME=VALUE` or `-D 'F(x)=VALUE'` (a function-like macro)."""
    name, sep, value = text.partition("=")
    if not _MACRO_NAME.fullmatch(name):
        raise InvalidBuildOptions(f"invalid macro name in build option '-D {text}'")
    opts.defines[name] = value if sep else "1"


def _add_include(opts: BuildOptions, text: str) -> None:
    opts.include_dirs.append(text)


# Options taking a value, attached (-DX) or as the next word (-D X).
_WITH_VALUE: dict[str, Callable[[BuildOptions, str], None]] = {"-D": _add_define, "-I": _add_include}


def _set_std(opts: BuildOptions, word: str) -> None:
    value = word.split("=", 1)[1]
    if value.upper() not in CL_STD_VERSIONS:
        raise InvalidBuildOptions(f"invalid value '{value}' in '{word}'")
    opts.cl_std = value.upper()


def _apply_word(opts: BuildOptions, word: str, words: list[str], i: int) -> int:
    """Apply `words[i]`; return the index of the next word to read."""
    if word in _FLAGS:
        setattr(opts, _FLAGS[word], True)
        if word == "-cl-opt-disable":
            opts.opt_level = 0
        return i + 1
    if word in _IGNORED:
        return i + 1
    if word.startswith("-cl-std="):
        _set_std(opts, word)
        return i + 1
    if len(word) == 3 and word[:2] == "-O" and word[2] in "0123":
        opts.opt_level = int(word[2])
        return i + 1
    handler = _WITH_VALUE.get(word[:2])
    if handler is not None:
        if len(word) > 2:
            handler(opts, word[2:].lstrip())
            return i + 1
        if i + 1 >= len(words):
            raise InvalidBuildOptions(f"missing argument to '{word}'")
        handler(opts, words[i + 1])
        return i + 2
    raise InvalidBuildOptions(f"unknown build option '{word}'")


def parse_build_options(options: str | Sequence[str] | None = "") -> BuildOptions:
    """Parse a clBuildProgram option string (or list of words) into `BuildOptions`."""
    words = _split(options or "")
    opts = BuildOptions(raw=list(words))
    i = 0
    while i < len(words):
        i = _apply_word(opts, words[i], words, i)
    return opts
