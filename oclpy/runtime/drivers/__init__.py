"""The table of device drivers: device kind -> the module and class that drive it.

`load_drivers(kind)` returns the process-wide drivers of that kind (one per
device: every GPU for cuda), or a `DriverUnavailable` saying why it cannot be
used here (a missing module, no GPU, a missing package); `load_driver(kind)`
the first of them. A driver class may define `unavailable_reason() -> str |
None` (a classmethod) to say so before it is built, and `ordinals() -> list[int]`
(a classmethod) when it drives several devices: one driver is made per ordinal
(`cls(ordinal)`).
"""

from __future__ import annotations

import importlib
import threading

from .base import Driver, DriverUnavailable

# kind -> "module:Class", in the order platforms list their devices
DRIVER_TABLE: dict[str, str] = {
    "cpu": "oclpy.runtime.drivers.cpu:CpuDriver",
    "cuda": "oclpy.runtime.drivers.cuda:CudaDriver",
    "simt": "oclpy.runtime.drivers.simt:SimtDriver",
}

_lock = threading.Lock()
_loaded: dict[str, list[Driver] | DriverUnavailable] = {}


def _instantiate(kind: str) -> list[Driver] | DriverUnavailable:
    module_name, _, class_name = DRIVER_TABLE[kind].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            return DriverUnavailable(kind, f"the '{kind}' driver is not part of this oclpy build "
                                           f"(module {module_name} is missing)")
        return DriverUnavailable(kind, f"the '{kind}' driver needs the Python package "
                                       f"'{exc.name}', which is not installed")
    cls = getattr(module, class_name)
    probe = getattr(cls, "unavailable_reason", None)
    reason = probe() if probe is not None else None
    if reason:
        return DriverUnavailable(kind, reason)
    try:
        ordinals = getattr(cls, "ordinals", None)
        if ordinals is None:
            return [cls()]
        drivers = [cls(n) for n in ordinals()]
    except Exception as exc:  # a driver that cannot start says why; never a traceback
        return DriverUnavailable(kind, f"the '{kind}' driver failed to start: {exc}")
    return drivers or DriverUnavailable(kind, f"the '{kind}' driver found no device")


def load_drivers(kind: str) -> list[Driver] | DriverUnavailable:
    """The drivers for `kind`, one per device (created once per process), or why there
    are none."""
    if kind not in DRIVER_TABLE:
        return DriverUnavailable(kind, f"unknown device kind '{kind}' "
                                       f"(known: {', '.join(DRIVER_TABLE)})")
    with _lock:
        if kind not in _loaded:
            _loaded[kind] = _instantiate(kind)
        return _loaded[kind]


def load_driver(kind: str) -> Driver | DriverUnavailable:
    """The (first) driver for `kind`, or why there is none."""
    found = load_drivers(kind)
    return found[0] if isinstance(found, list) else found


def available_drivers() -> list[Driver]:
    """Every driver that works here, in table order (a kind's devices in ordinal order)."""
    return [d for k in DRIVER_TABLE if isinstance(found := load_drivers(k), list) for d in found]
