"""Small value classes of PyOpenCL's API that need no device support to build.

`ImageFormat(channel_order, channel_type)` and `DeviceTopologyAmd(bus,
device, function)`: plain values with fixed fields (no `__dict__`, as in
PyOpenCL). `runtime/image.py` says which formats make images.
"""

from __future__ import annotations

from .constants import channel_order, channel_type

_CHANNEL_COUNTS = {channel_order.R: 1, channel_order.A: 1, channel_order.INTENSITY: 1,
                   channel_order.LUMINANCE: 1, channel_order.RG: 2, channel_order.RA: 2,
                   channel_order.RGB: 3, channel_order.RGBA: 4, channel_order.BGRA: 4,
                   channel_order.ARGB: 4}
_CHANNEL_SIZES = {channel_type.SNORM_INT8: 1, channel_type.UNORM_INT8: 1,
                  channel_type.SIGNED_INT8: 1, channel_type.UNSIGNED_INT8: 1,
                  channel_type.SNORM_INT16: 2, channel_type.UNORM_INT16: 2,
                  channel_type.SIGNED_INT16: 2, channel_type.UNSIGNED_INT16: 2,
                  channel_type.HALF_FLOAT: 2, channel_type.SIGNED_INT32: 4,
                  channel_type.UNSIGNED_INT32: 4, channel_type.FLOAT: 4,
                  # the packed types: PyOpenCL's sizes (its itemsize is then 3 x these)
                  channel_type.UNORM_SHORT_565: 2, channel_type.UNORM_SHORT_555: 2,
                  channel_type.UNORM_INT_101010: 4}


class ImageFormat:
    __slots__ = ("channel_order", "channel_data_type")

    def __init__(self, channel_order: int = 0, channel_type: int = 0) -> None:
        self.channel_order = channel_order
        self.channel_data_type = channel_type

    @property
    def channel_count(self) -> int:
        return _CHANNEL_COUNTS[self.channel_order]

    @property
    def dtype_size(self) -> int:
        return _CHANNEL_SIZES[self.channel_data_type]

    @property
    def itemsize(self) -> int:
        return self.channel_count * self.dtype_size

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ImageFormat) and self.channel_order == other.channel_order
                and self.channel_data_type == other.channel_data_type)

    def __hash__(self) -> int:
        return hash((self.channel_order, self.channel_data_type))

    def __repr__(self) -> str:
        return (f"ImageFormat({channel_order.to_string(self.channel_order, '%d')}, "
                f"{channel_type.to_string(self.channel_data_type, '%d')})")


class DeviceTopologyAmd:
    __slots__ = ("type", "bus", "device", "function")

    def __init__(self, bus: int = 0, device: int = 0, function: int = 0) -> None:
        self.type = 1  # CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD
        self.bus = bus
        self.device = device
        self.function = function
