"""Devices: one per available driver, with PyOpenCL's info attributes, and sub-devices.

`dev.name`, `dev.max_work_group_size`, `dev.get_info(device_info.NAME)`: every
lower-case attribute is the matching `device_info` constant, looked up in the
driver's info table. A device the driver does not describe answers
INVALID_VALUE, as clGetDeviceInfo does.

`dev.create_sub_devices(properties)` (clCreateSubDevices) partitions a device
whose driver can be split (the cpu: PARTITION_PROPERTIES is not empty) along
partition.py's plan: each sub-device gets a driver of its own cores
(`Driver.sub_driver`), reports its `parent_device` and `partition_type`, and
is listed by no platform; sub-devices of one parent share its memory domain.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from .constants import device_info
from .drivers.base import Driver
from .drivers.topology import domain_groups
from .errors import raise_cl, status_code
from .handles import Handle
from .partition import ROUTINE as ROUTINE_PARTITION
from .partition import plan_partition

if TYPE_CHECKING:
    from .platform import Platform


class Device(Handle):
    """A device of the oclpy platform; `driver` does its work."""

    def __init__(self, driver: Driver, platform: Platform, parent: Device | None = None,
                 partition_type: list[int] | None = None) -> None:
        desc = driver.describe()
        self.driver = driver
        self.kind = desc.kind
        self._type = desc.type
        self._info = dict(desc.info)
        self._platform = platform
        self._parent = parent
        self._partition_type = list(partition_type or [])

    # -- info -----------------------------------------------------------------

    def get_info(self, param: int) -> Any:
        name = device_info.to_string(param, "") if isinstance(param, int) else ""
        if name == "TYPE":
            return self._type
        if name == "PLATFORM":
            return self._platform
        if name == "PARENT_DEVICE":
            return self._parent
        if name == "PARTITION_TYPE":
            return list(self._partition_type)
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

    def create_sub_devices(self, properties: Any) -> list[Device]:
        """clCreateSubDevices: sub-devices on disjoint sets of this device's cores."""
        if not self._info.get("PARTITION_PROPERTIES"):
            raise_cl(ROUTINE_PARTITION, status_code.INVALID_VALUE,
                     f"the {self.kind} device cannot be partitioned (PARTITION_PROPERTIES is empty)")
        plan = plan_partition(properties, self.driver.cores, self._info["PARTITION_MAX_SUB_DEVICES"],
                              domain_groups)
        return [Device(self.driver.sub_driver(cores), self._platform, self, kind)
                for cores, kind in plan]

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
        if self._parent is not None:
            return f"<oclpy.Device '{self.name}' (sub-device, cores {_ranges(self.driver.cores)}) " \
                   f"on '{self._platform.name}'>"
        return f"<oclpy.Device '{self.name}' on '{self._platform.name}'>"


def _ranges(cores: tuple[int, ...]) -> str:
    """(0, 1, 2, 5) -> '0-2,5'."""
    parts: list[str] = []
    for core in cores:
        if parts and "-" not in parts[-1] and int(parts[-1]) == core - 1:
            parts[-1] = f"{parts[-1]}-{core}"
        elif parts and "-" in parts[-1] and int(parts[-1].split("-")[1]) == core - 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{core}"
        else:
            parts.append(str(core))
    return ",".join(parts)
