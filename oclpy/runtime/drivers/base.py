"""The device-driver interface: what the runtime asks of a device.

A driver owns one device's memory and execution: allocate, free, copy, fill,
launch, synchronize, the device's info table, and the compiler `Target` its
device is (`target`: programs are built for it through `oclpy.compiler.build`;
a driver never builds). The queue, scheduler,
buffers and kernels above it never know which device they talk to, so adding
a device ("cuda", "simt") means adding a driver module and one line in
`drivers/__init__.py`, nothing else.

Memory is addressed by `Allocation`s: `address` is the device address a
kernel receives for byte 0 (the cpu driver's is a host pointer), `handle` is
the driver's own object (the cpu driver's numpy array). Offsets are bytes.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Hashable

from ...compiler import Target


@dataclass
class Allocation:
    nbytes: int
    address: int
    handle: Any
    host_owned: bool = False  # wraps user memory (USE_HOST_PTR): never freed by the driver


@dataclass(frozen=True)
class NDRange:
    """A validated launch shape; every tuple has 3 entries (unused: size 1, offset 0)."""

    work_dim: int
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    global_offset: tuple[int, int, int] = (0, 0, 0)

    @property
    def num_groups(self) -> tuple[int, int, int]:
        g, l = self.global_size, self.local_size
        return (g[0] // l[0], g[1] // l[1], g[2] // l[2])

    @property
    def group_count(self) -> int:
        n = self.num_groups
        return n[0] * n[1] * n[2]


@dataclass
class DriverUnavailable:
    """Why a device kind cannot be used here (e.g. no GPU, a missing package)."""

    kind: str
    reason: str


@dataclass
class DeviceDescription:
    """What a driver tells the runtime about its device (info values by device_info name)."""

    kind: str
    type: int  # a device_type bit
    info: dict[str, Any] = field(default_factory=dict)


DONE = "done"  # what an action of a driver that issues markers may return: its work is
# complete and nothing is queued behind it (the runtime then asks for no marker)


class Driver(abc.ABC):
    """One device. Methods may be called from several threads at once."""

    kind: str = ""
    # True when launches and copies are synchronous host work: an in-order
    # queue then runs a ready command on the calling thread (see queue.py).
    eager: bool = False
    # True when completion markers complete in the order they were made (one
    # device stream): completion.py and in-order queues rely on that order.
    ordered_markers: bool = False
    # True when `completion` may return a marker (actions return before their work
    # is done); False lets the runtime skip asking.
    issues_markers: bool = False
    # The shape of a work-group the runtime picks when a launch names none
    # (ndrange.choose_local_size): (most work-items, most along the first of several
    # dimensions); None: as many as the device allows.
    auto_group: tuple[int, int] | None = None
    # What programs are compiled for on this device (set by each driver when it starts).
    target: Target

    # The host cores a partitionable driver runs on (the cpu's); `sub_driver(cores)` makes
    # the driver of a sub-device of some of them (runtime/device.py, create_sub_devices).
    cores: tuple[int, ...] = ()

    def sub_driver(self, cores: tuple[int, ...]) -> Driver:
        raise NotImplementedError(f"the {self.kind} device cannot be partitioned")

    @property
    def memory_domain(self) -> Hashable:
        """Drivers of one domain address the same memory: an allocation made by one is
        used by the others as it is, with no copy (every cpu device and sub-device shares
        host memory). By default a driver's memory is its own."""
        return self

    @abc.abstractmethod
    def describe(self) -> DeviceDescription:
        """The device's type and its clGetDeviceInfo values (keys: device_info names)."""

    @abc.abstractmethod
    def allocate(self, nbytes: int) -> Allocation:
        """Fresh device memory of `nbytes` (> 0); raises MemoryError when it cannot."""

    def set_access(self, alloc: Allocation, mode: str) -> None:
        """What kernels may do with `alloc`: "rw", "r" (a READ_ONLY buffer) or "w" (WRITE_ONLY).
        A driver that checks kernels (simt) remembers it; the others need not."""

    def wrap_host(self, host: memoryview) -> Allocation | None:
        """Use writable host memory directly (USE_HOST_PTR), or None: then the runtime copies."""
        return None

    def host_address(self, alloc: Allocation) -> int | None:
        """The host address of `alloc` when the host can use it directly (maps), else None."""
        return None

    @abc.abstractmethod
    def free(self, alloc: Allocation) -> None:
        """Give memory back; the runtime calls it once no command uses `alloc` any more."""

    @abc.abstractmethod
    def write(self, dst: Allocation, offset: int, src: memoryview) -> None:
        """Host -> device: copy all of `src` (a byte view) to `dst` at `offset`."""

    @abc.abstractmethod
    def read(self, src: Allocation, offset: int, dst: memoryview) -> None:
        """Device -> host: fill all of `dst` (a writable byte view) from `src` at `offset`."""

    @abc.abstractmethod
    def copy(self, dst: Allocation, dst_offset: int, src: Allocation, src_offset: int,
             nbytes: int) -> None:
        """Device -> device copy (regions never overlap)."""

    @abc.abstractmethod
    def fill(self, dst: Allocation, offset: int, pattern: bytes, nbytes: int) -> None:
        """Repeat `pattern` over `nbytes` bytes (a multiple of its length) at `offset`."""

    @abc.abstractmethod
    def launch(self, kernel: Any, blob: Any, ndrange: NDRange) -> str | None:
        """Run all work-groups of `kernel` (a CompiledKernel) and return when they are done
        (a driver that `issues_markers` may return sooner, or DONE when they are)."""

    def copy_from_peer(self, dst: Allocation, source: Driver, src: Allocation, nbytes: int) -> bool:
        """Copy `nbytes` from `source`'s allocation `src` into `dst` directly, device to
        device, and return when they are there; False when this driver cannot (the
        runtime then copies through the host). `source`'s work on `src` is done."""
        return False

    def synchronize(self) -> None:
        """Wait for everything this driver started (launches here are synchronous)."""

    # -- completion of asynchronous commands ---------------------------------------------
    # A driver whose actions return once their work is queued on the device (cuda)
    # says so through these; a synchronous driver (cpu) keeps the defaults: its
    # work is complete when the action returns. A marker is the driver's own
    # object (a CUDA event); `runtime/completion.py` is the runtime's side.

    def completion(self, profiling: bool = False) -> Any:
        """Called on the thread that ran a command's action, right after it: a marker of
        that work's completion on the device, or None when it is already complete."""
        return None

    def begin(self, profiling: bool = False) -> Any:
        """Called right before a command's action when the queue profiles: a start marker
        (or None), handed back to `device_times`."""
        return None

    def is_complete(self, marker: Any) -> bool:
        """Whether the work behind `marker` is done (never blocks)."""
        return True

    def wait_complete(self, marker: Any) -> None:
        """Block until the work behind `marker` is done."""

    def failure(self, marker: Any) -> BaseException | None:
        """The error the work behind a completed `marker` ended with, if any."""
        return None

    def recycle(self, marker: Any) -> None:
        """The runtime is done with `marker` (its work completed): the driver may reuse it."""

    def order_after(self, markers: list[Any]) -> None:
        """Make the calling thread's next work wait on the device for `markers`."""
        for marker in markers:
            self.wait_complete(marker)

    def device_times(self, start: Any, end: Any) -> tuple[int, int] | None:
        """Host-clock nanoseconds (time.perf_counter_ns) of the device work between the
        markers `start` (from `begin`) and `end` (from `completion`), when known."""
        return None
