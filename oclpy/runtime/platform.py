"""The one platform, "oclpy", and the devices its drivers provide.

`get_platforms()` returns `[Platform]`; `Platform.get_devices(device_type)`
lists the devices whose drivers work here, filtered by type. The device named
by the OCLPY_DEVICE environment variable (cpu|cuda|simt) is listed first, so
code that takes "the first device" gets it; with OCLPY_CHECK (and no
OCLPY_DEVICE), the simt device is listed first.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from . import checking
from .constants import device_type as _device_type
from .constants import platform_info
from .device import Device
from .drivers import DRIVER_TABLE, available_drivers
from .errors import raise_cl, status_code
from .handles import Handle

PLATFORM_INFO = {
    "NAME": "oclpy", "VENDOR": "oclpy", "VERSION": "OpenCL 3.0 oclpy",
    "PROFILE": "FULL_PROFILE", "EXTENSIONS": "", "HOST_TIMER_RESOLUTION": 1,
    "NUMERIC_VERSION": 3 << 22,
}


class Platform(Handle):
    def __init__(self) -> None:
        self._devices: list[Device] | None = None
        self._lock = threading.Lock()

    def _all_devices(self) -> list[Device]:
        with self._lock:
            if self._devices is None:
                self._devices = [Device(d, self) for d in available_drivers()]
            return self._devices

    def get_devices(self, device_type: int = _device_type.ALL) -> list[Device]:
        """The devices of that type; an empty list when there are none (as PyOpenCL answers)."""
        devices = self._all_devices()
        if device_type != _device_type.ALL:
            if device_type == _device_type.DEFAULT:
                devices = devices[:1]
            else:
                devices = [d for d in devices if d.type & device_type]
        return order_devices(devices)

    def get_info(self, param: int) -> Any:
        name = platform_info.to_string(param, "") if isinstance(param, int) else ""
        if name not in PLATFORM_INFO:
            raise_cl("clGetPlatformInfo", status_code.INVALID_VALUE)
        return PLATFORM_INFO[name]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not name.islower() or name.upper() not in PLATFORM_INFO:
            raise AttributeError(name)
        return PLATFORM_INFO[name.upper()]


    def _get_cl_version(self) -> tuple[int, int]:
        return (3, 0)

    def __repr__(self) -> str:
        return "<oclpy.Platform 'oclpy'>"


def preferred_kind() -> str | None:
    """OCLPY_DEVICE's kind; else simt when OCLPY_CHECK asks for checked kernels."""
    kind = os.environ.get("OCLPY_DEVICE", "").strip().lower()
    return kind or ("simt" if checking.requested() else None)


def order_devices(devices: list[Device]) -> list[Device]:
    """OCLPY_DEVICE's kind first, then the driver table's order."""
    first = preferred_kind()
    order = list(DRIVER_TABLE)
    return sorted(devices, key=lambda d: (d.kind != first, order.index(d.kind)))


_platform: Platform | None = None
_platform_lock = threading.Lock()


def get_platforms() -> list[Platform]:
    global _platform
    with _platform_lock:
        if _platform is None:
            _platform = Platform()
    return [_platform]
