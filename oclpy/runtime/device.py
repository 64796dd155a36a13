"""Devices: one per available driver, with PyOpenCL's info attributes.

`dev.name`, `dev.max_work_group_size`, `dev.get_info(device_info.NAME)`: every
lower-case attribute is the matching `device_info` constant, looked up in the
driver's info table. A device the driver does not describe answers
INVALID_VALUE, as clGetDeviceInfo does.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from .constants import device_info
from .drivers.base import Driver
from .errors import raise_cl, status_code
from .handles import Handle

if TYPE_CHECKING:
    from .platform import Platform


class Device(Handle):
    """A device of the oclpy platform; `driver` does its work."""

    def __init__(self, driver: Driver, platform: Platform) -> None:
        desc = driver.describe()
        self.driver = driver
        self.kind = desc.kind
        self._type = desc.type
        self._info = dict(desc.info)
        self._platform = platform

    # -- info -----------------------------------------------------------------

    def get_info(self, param: int) -> Any:
        name = device_info.to_string(param, "") if isinstance(param, int) else ""
        if name == "TYPE":
            return self._type
        if name == "PLATFORM":
            return self._platform
        if name == "PARENT_DEVICE":
            return None  # oclpy devices are never sub-devices
        if name not in self._info:
            raise_cl("clGetDeviceInfo", status_code.INVALID_VALUE,
                     f"device info {param!r} is not available on {self.kind}")
        return self._info[name]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not name.islower():
            raise AttributeError(name)
        key = name.upper()
        if key in self._info:
            return self._info[key]
        param = getattr(device_info, key, None)
        if param is None:
            raise AttributeError(f"'Device' object has no attribute '{name}'")
        return self.get_info(param)

    @property
    def type(self) -> int:
        return self._type

    @property
    def platform(self) -> Platform:
        return self._platform


    @property
    def persistent_unique_id(self) -> tuple[Any, ...]:
        warnings.warn("Device.persistent_unique_id is deprecated. Use "
                      "Device.hashable_model_and_version_identifier instead.",
                      DeprecationWarning, stacklevel=2)
        return self.hashable_model_and_version_identifier

    @property
    def hashable_model_and_version_identifier(self) -> tuple[Any, ...]:
        return ("v1", self.vendor, self.vendor_id, self.name, self.version)

    def _get_cl_version(self) -> tuple[int, int]:
        return (3, 0)

    def __repr__(self) -> str:
        return f"<oclpy.Device '{self.name}' on '{self._platform.name}'>"
