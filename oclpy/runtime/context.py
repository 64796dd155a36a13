"""Contexts, and `create_some_context` with PYOPENCL_CTX / OCLPY_DEVICE.

A context groups devices; buffers, programs and queues belong to one. As in
PyOpenCL, `Context(devices=...)` or `Context(dev_type=...)` (not both), and
`create_some_context()` picks a device from the environment:

- OCLPY_DEVICE=cpu|cuda|simt asks for that device kind; when it is not
  available here the error says why (the driver's own reason);
- PYOPENCL_CTX="0", "0:1", "0:cpu" picks platform and device by index or name.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import weakref
from typing import Any, Sequence

from .constants import context_info, context_properties, info_attribute
from .constants import device_type as _device_type
from .device import Device
from .drivers import load_driver
from .drivers.base import DriverUnavailable
from .errors import as_list, raise_cl, status_code
from .handles import Handle
from .platform import Platform, get_platforms, preferred_kind


class Context(Handle):
    def __init__(self, devices: Sequence[Device] | None = None, properties: Any = None,
                 dev_type: int | None = None) -> None:
        platform = _check_properties(properties)
        if devices is not None and dev_type is not None:
            raise_cl("Context", status_code.INVALID_VALUE,
                     "one of 'devices' or 'dev_type' must be None")
        if devices is None:
            wanted = _device_type.DEFAULT if dev_type is None else dev_type
            devices = platform.get_devices(wanted)
            if not devices:
                raise_cl("clCreateContextFromType", status_code.DEVICE_NOT_FOUND,
                         f"no device of type {_device_type.to_string(wanted, '%d')} on platform 'oclpy'")
        devices = as_list(devices, "clCreateContext", status_code.INVALID_VALUE, "devices")
        if not devices:
            raise_cl("clCreateContext", status_code.INVALID_VALUE, "no devices given")
        for dev in devices:
            if not isinstance(dev, Device):
                raise_cl("clCreateContext", status_code.INVALID_DEVICE,
                         f"expected an oclpy Device, got {type(dev).__name__}")
        self.devices: list[Device] = list(dict.fromkeys(devices))
        self.properties = properties or []
        self._owned: weakref.WeakSet[Any] = weakref.WeakSet()  # programs, buffers, queues
        self._owned_lock = threading.Lock()
        self.released = False
        # under OCLPY_CHECK: the reports found by this context's launches on simt, in the order
        # found (the process's Report objects: `checking.reports()` has them all)
        self.check_reports: list[Any] = []
        _live_contexts.add(self)

    # -- ownership and release ------------------------------------------------------

    def own(self, obj: Any, routine: str) -> None:
        """Record `obj` (a Program, Buffer or CommandQueue) as made in this context."""
        if self.released:
            raise_cl(routine, status_code.INVALID_CONTEXT, "the context was released")
        with self._owned_lock:
            self._owned.add(obj)

    def release(self) -> None:
        """Release every queue, program (kernels, compiled modules) and buffer made in it."""
        with self._owned_lock:
            self.released = True
            owned = list(self._owned)
            self._owned = weakref.WeakSet()
        for obj in owned:
            obj.release()

    def get_info(self, param: int) -> Any:
        table = {context_info.DEVICES: lambda: list(self.devices),
                 context_info.NUM_DEVICES: lambda: len(self.devices),
                 context_info.REFERENCE_COUNT: lambda: 1,
                 context_info.PROPERTIES: lambda: list(self.properties)}
        if param not in table:
            raise_cl("clGetContextInfo", status_code.INVALID_VALUE)
        return table[param]()

    def __getattr__(self, name: str) -> Any:
        return info_attribute(self, name, context_info)

    @property
    def num_devices(self) -> int:
        return len(self.devices)


    def _get_cl_version(self) -> tuple[int, int]:
        return (3, 0)

    def __repr__(self) -> str:
        return f"<oclpy.Context on {', '.join(repr(d) for d in self.devices)}>"


_live_contexts: weakref.WeakSet[Context] = weakref.WeakSet()


@atexit.register
def release_all_contexts() -> None:
    """At interpreter exit: release what every live context still holds."""
    for context in list(_live_contexts):
        try:
            context.release()
        except Exception:  # exit goes on; one object that fails to release must not stop it
            pass


def _check_properties(properties: Any) -> Platform:
    platform = get_platforms()[0]
    for prop in as_list(properties, "Context", status_code.INVALID_PROPERTY, "properties"):
        try:
            key, value = prop
        except (TypeError, ValueError):
            raise_cl("Context", status_code.INVALID_PROPERTY,
                     f"context properties are (key, value) pairs, got {prop!r}")
        if key != context_properties.PLATFORM:
            raise_cl("Context", status_code.INVALID_PROPERTY, f"unsupported context property {key!r}")
        if value is not platform:
            raise_cl("Context", status_code.INVALID_PLATFORM, f"{value!r} is not the oclpy platform")
    return platform


def _device_for_kind(kind: str) -> Device:
    driver = load_driver(kind)
    if isinstance(driver, DriverUnavailable):
        raise_cl("create_some_context", status_code.DEVICE_NOT_FOUND,
                 f"OCLPY_DEVICE={kind} asks for the '{kind}' device, which is not available: "
                 f"{driver.reason}")
    for dev in get_platforms()[0].get_devices():
        if dev.kind == kind:
            return dev
    raise_cl("create_some_context", status_code.DEVICE_NOT_FOUND, f"no '{kind}' device")


def _pick(items: Sequence[Any], answer: str, what: str) -> Any:
    answer = answer.strip()
    if not answer:
        return items[0]
    if answer.isdigit():
        index = int(answer)
        if index >= len(items):
            raise_cl("create_some_context", status_code.INVALID_VALUE,
                     f"{what} index {index} out of range (there are {len(items)})")
        return items[index]
    for item in items:
        if answer.lower() in item.name.lower() or answer.lower() == getattr(item, "kind", ""):
            return item
    raise_cl("create_some_context", status_code.INVALID_VALUE,
             f"input '{answer}' did not match any {what}")


def _ask(prompt: str, choices: Sequence[Any]) -> str:
    print(prompt)
    for i, choice in enumerate(choices):
        print(f"[{i}] {choice!r}")
    return input("Choice [0]:")


def choose_devices(interactive: bool | None = None,
                   answers: Sequence[str] | None = None) -> list[Device]:
    """The devices the environment (OCLPY_DEVICE, PYOPENCL_CTX), the answers or the user
    ask for: a list of one device (PyOpenCL's `choose_devices`)."""
    kind = preferred_kind()
    if answers is None and os.environ.get("PYOPENCL_CTX"):
        answers = os.environ["PYOPENCL_CTX"].split(":")
    if answers is None and kind:
        return [_device_for_kind(kind)]
    if kind:
        _device_for_kind(kind)  # fail early, naming what is missing
    if interactive is None:
        interactive = bool(getattr(sys.stdin, "isatty", lambda: False)())
    queue = list(answers or [])
    platforms = get_platforms()
    platform = _pick(platforms, queue.pop(0) if queue else "", "platform")
    devices = platform.get_devices()
    if queue:
        return [_pick(devices, queue.pop(0), "device")]
    if interactive and len(devices) > 1:
        return [_pick(devices, _ask("Choose device:", devices), "device")]
    return [devices[0]]


def create_some_context(interactive: bool | None = None,
                        answers: Sequence[str] | None = None) -> Context:
    """A context on the device the environment (or the user) asks for."""
    return Context(choose_devices(interactive, answers))


_csc = create_some_context

__all__ = ["Context", "choose_devices", "create_some_context"]
