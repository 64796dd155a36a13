"""Samplers (clCreateSampler, PyOpenCL's `Sampler`).

A sampler is three settings; a kernel's `sampler_t` argument receives them as
the `CLK_*` bits OpenCL C uses (bit 0 normalized coordinates, the addressing
mode in bits 1-3, the filter in bits 4-5: clang's values), the same bits a
program scope `const sampler_t` holds.
"""

from __future__ import annotations

from typing import Any

from .constants import addressing_mode, filter_mode, info_attribute, sampler_info, sampler_properties
from .context import Context
from .errors import raise_cl, status_code
from .handles import Handle

ADDRESS_BITS = {addressing_mode.NONE: 0, addressing_mode.CLAMP_TO_EDGE: 2, addressing_mode.CLAMP: 4,
                addressing_mode.REPEAT: 6, addressing_mode.MIRRORED_REPEAT: 8}
FILTER_BITS = {filter_mode.NEAREST: 0x10, filter_mode.LINEAR: 0x20}


def _from_properties(props: list[Any]) -> tuple[bool, int, int]:
    """(normalized, addressing, filter) from PyOpenCL's flat [key, value, ...] list; the
    defaults are clCreateSamplerWithProperties's (normalized, CLAMP, NEAREST)."""
    settings = {sampler_properties.NORMALIZED_COORDS: True, sampler_properties.ADDRESSING_MODE: addressing_mode.CLAMP,
                sampler_properties.FILTER_MODE: filter_mode.NEAREST}
    if len(props) % 2:
        raise_cl("clCreateSamplerWithProperties", status_code.INVALID_VALUE,
                 f"sampler properties come in (key, value) pairs, got {len(props)} items")
    for key, value in zip(props[::2], props[1::2]):
        if key not in settings:
            raise_cl("clCreateSamplerWithProperties", status_code.INVALID_VALUE, f"unknown sampler property {key!r}")
        settings[key] = value
    return (bool(settings[sampler_properties.NORMALIZED_COORDS]), settings[sampler_properties.ADDRESSING_MODE],
            settings[sampler_properties.FILTER_MODE])


class Sampler(Handle):
    """Sampler(context, normalized_coords, addressing_mode, filter_mode), or
    Sampler(context, [sampler_properties.X, value, ...])."""

    def __init__(self, context: Any, normalized_coords: Any, addressing_mode: int = addressing_mode.CLAMP,
                 filter_mode: int = filter_mode.NEAREST) -> None:
        routine = "clCreateSampler"
        if not isinstance(context, Context):
            raise_cl(routine, status_code.INVALID_CONTEXT, f"expected a Context, got {type(context).__name__}")
        if isinstance(normalized_coords, (list, tuple)):  # clCreateSamplerWithProperties
            normalized_coords, addressing_mode, filter_mode = _from_properties(list(normalized_coords))
        if addressing_mode not in ADDRESS_BITS:
            raise_cl(routine, status_code.INVALID_VALUE, f"invalid addressing mode {addressing_mode!r}")
        if filter_mode not in FILTER_BITS:
            raise_cl(routine, status_code.INVALID_VALUE, f"invalid filter mode {filter_mode!r}")
        self.context = context
        self.normalized_coords = bool(normalized_coords)
        self.addressing_mode = addressing_mode
        self.filter_mode = filter_mode

    @property
    def bits(self) -> int:
        """The sampler as OpenCL C's `sampler_t` value."""
        return int(self.normalized_coords) | ADDRESS_BITS[self.addressing_mode] | FILTER_BITS[self.filter_mode]

    def get_info(self, param: int) -> Any:
        table = {sampler_info.REFERENCE_COUNT: 1, sampler_info.CONTEXT: self.context,
                 sampler_info.NORMALIZED_COORDS: self.normalized_coords,
                 sampler_info.ADDRESSING_MODE: self.addressing_mode,
                 sampler_info.FILTER_MODE: self.filter_mode}
        if param not in table:
            raise_cl("clGetSamplerInfo", status_code.INVALID_VALUE, f"unknown sampler_info {param!r}")
        return table[param]

    def __getattr__(self, name: str) -> Any:  # the attribute form of get_info (reference_count)
        return info_attribute(self, name, sampler_info)

    def __repr__(self) -> str:
        return (f"<oclpy.Sampler normalized={self.normalized_coords} "
                f"{addressing_mode.to_string(self.addressing_mode)} {filter_mode.to_string(self.filter_mode)}>")
