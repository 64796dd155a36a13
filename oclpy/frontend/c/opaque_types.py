"""OpenCL C's opaque and enum-like predefined types that are not arithmetic.

`event_t` (the handle `async_work_group_copy` returns and `wait_group_events`
waits on) is an `Opaque` type that lives in registers as an `i32`. So is
`sampler_t` (its value is the sampler's bits, clang's `CLK_*` values). An
image type (`image2d_t`, ...) is an `Opaque` type that lives in registers as a
`ptr<global>` to the image's descriptor (see `builtins/images.cl`).
`cl_mem_fence_flags`, `memory_order` and `memory_scope` are integer typedefs,
as in clang's opencl-c-base.h.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...ir.types import AddressSpace
from . import c_types as ct
from .c_types import CType

SAMPLER_TYPE_NAME = "sampler_t"
# the image types oclpy implements, then the ones it parses and rejects
IMAGES = ("image1d_t", "image1d_buffer_t", "image1d_array_t", "image2d_t", "image2d_array_t",
          "image3d_t")
UNSUPPORTED_IMAGES = ("image2d_depth_t", "image2d_array_depth_t", "image2d_msaa_t",
                      "image2d_array_msaa_t")
IMAGE_TYPE_NAMES = frozenset(IMAGES + UNSUPPORTED_IMAGES + (SAMPLER_TYPE_NAME,))
EVENT_TYPE_NAME = "event_t"
# OpenCL C 2.0's types of device-side enqueue and pipes, optional features oclpy's devices do not
# offer: unknown type names, even where a parameter leaves its name out (`void f(queue_t);`)
UNOFFERED_TYPE_NAMES = frozenset(["queue_t", "clk_event_t", "ndrange_t", "reserve_id_t"])


@dataclass(frozen=True)
class Opaque(CType):
    """A predefined opaque type (`event_t`, `image2d_t`, `sampler_t`, ...)."""

    name: str
    const: bool = False
    volatile: bool = False
    space: Optional[AddressSpace] = None

    def __str__(self) -> str:
        q = self.qualifiers_str()
        return f"{q} {self.name}" if q else self.name

    @property
    def is_image(self) -> bool:
        """An image or sampler type (the types restricted to parameters and samplers)."""
        return self.name in IMAGE_TYPE_NAMES


EVENT_T = Opaque(EVENT_TYPE_NAME)


def opaque_type_names() -> dict[str, CType]:
    """Type names to add to the predefined ones (`cltypes.builtin_type_names`)."""
    names: dict[str, CType] = {name: Opaque(name) for name in IMAGE_TYPE_NAMES}
    names[EVENT_TYPE_NAME] = EVENT_T
    names.update({"cl_mem_fence_flags": ct.UINT, "memory_order": ct.Enum("memory_order"),
                  "memory_scope": ct.Enum("memory_scope")})
    return names


def image_type_in(t: CType) -> Optional[Opaque]:
    """The image or sampler type `t` is, points to or holds as elements, if any."""
    while isinstance(t, (ct.Pointer, ct.Array)):
        t = t.pointee if isinstance(t, ct.Pointer) else t.elem
    return t if isinstance(t, Opaque) and t.is_image else None


def is_image(t: Optional[CType]) -> bool:
    """An image type proper (not `sampler_t`)."""
    return isinstance(t, Opaque) and t.name in IMAGE_TYPE_NAMES and t.name != SAMPLER_TYPE_NAME


def is_sampler(t: Optional[CType]) -> bool:
    return isinstance(t, Opaque) and t.name == SAMPLER_TYPE_NAME


def is_event(t: Optional[CType]) -> bool:
    return isinstance(t, Opaque) and t.name == EVENT_TYPE_NAME
