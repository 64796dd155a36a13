"""The launch fast path: what a kernel's launches on one queue share, checked once.

`Kernel.__call__` and `enqueue_nd_range_kernel` first ask the kernel's
`LaunchPlan` for the queue (made on the first launch there, kept per queue).
A plan knows, once: the compiled kernel for the queue's device, its argument
packer, and whether launches on this queue may take the fast path at all:

- the driver is `eager` and the queue in order (or the driver runs ready
  commands of out-of-order queues inline: cuda's asynchronous launches);
- the context has one device (so no buffer ever migrates: `Storage.claim` has
  nothing to do);
- the kernel has no `__local` pointer arguments and its static `__local`
  memory fits the device.

`LaunchPlan.launch` then packs the raw argument values at once
(`ArgPacker.pack_values`; with set_scalar_arg_dtypes, Python ints and floats
through a struct of the declared dtype; `launch_set` packs the values set
earlier as raw ones), takes the checked launch shape from the last launch when
the same size tuples of ints are passed again (the same objects: such a tuple
cannot change), checks `wait_for` (`CommandQueue.ready_dependencies`) and runs the launch
on the calling thread (`CommandQueue.launch_now`). Whenever something is out
of the ordinary (a value bind_arg must judge or convert otherwise, a global
offset, g_times_l, an empty range, a dependency to wait for, a busy queue) it
returns None having done nothing, and the caller takes the general path,
which checks everything and raises the errors: the errors, their order and
every semantic stay those of the general path.
"""

from __future__ import annotations

from typing import Any

from . import checking
from .event import Event
from .ndrange import plain_sizes

NO_SHAPE: tuple[Any, Any, Any] = (object(), object(), None)


def launcher(context: Any, driver: Any) -> Any:
    """The driver's launch; on simt, with the checker's findings listed on the context too
    (`checking.attributed`)."""
    return checking.attributed(context, driver.launch) if getattr(driver, "kind", "") == "simt" else driver.launch


class LaunchPlan:
    """The facts a kernel's launches on one queue share (see the module docstring)."""

    __slots__ = ("kernel", "queue", "ck", "driver", "run", "packer", "fast", "now", "last",
                 "dtyped")

    def __init__(self, kernel: Any, queue: Any, ck: Any) -> None:
        device = queue.device
        driver = device.driver
        self.kernel, self.queue, self.ck, self.driver = kernel, queue, ck, driver
        self.run = launcher(queue.context, driver)  # one bound method, not one per launch
        self.packer = kernel.packer_for(ck)
        # run at once on the calling thread, or handed to the command threads
        self.now = queue._in_order or getattr(driver, "inline_out_of_order", False)
        self.fast = (getattr(driver, "eager", False)
                     and len(queue.context.devices) == 1
                     and not kernel._has_local_args and self.packer.raw_order is not None
                     and ck.static_local_bytes <= device.local_mem_size)
        self.last: tuple[Any, Any, Any] = NO_SHAPE  # (global size, local size, NDRange)
        self.dtyped: tuple[Any, Any] = (None, None)  # (kernel's dtypes list, packer.dtyped of it)

    def launch(self, global_size: Any, local_size: Any, args: tuple, wait_for: Any,
               call: bool = True) -> Event | None:
        """The launch's event, or None (nothing done): take the general path. The raw
        `args` of a `call` become the kernel's arguments; otherwise they are the
        values set earlier (`launch_set`)."""
        kernel = self.kernel
        dtyped = None
        if call and kernel._dtypes is not None:
            dtypes, dtyped = self.dtyped
            if dtypes is not kernel._dtypes:  # declared (again) since: worked out once
                dtyped = self.packer.dtyped(kernel._dtypes)
                self.dtyped = (kernel._dtypes, dtyped)
        packed = self.packer.pack_values(args, self.driver, kernel.context, dtyped)
        if packed is None:
            return None
        last = self.last
        if global_size is last[0] and local_size is last[1]:
            nd = last[2]
        else:
            nd = kernel.ndrange_for(self.queue.device, self.ck, global_size, local_size, None, False)
            if 0 in nd.global_size:
                return None
            if plain_sizes(global_size) and plain_sizes(local_size):  # a list may change
                self.last = (global_size, local_size, nd)
        blob, storages = packed
        if not self.now:
            if call:
                kernel._last_call = (args, blob)
            return self.queue.launch_later(wait_for, self.run, (self.ck, blob, nd), storages)
        running: tuple[tuple[Any, Any], ...] | None = ()
        if wait_for is not None:
            running = self.queue.ready_dependencies(wait_for)
            if running is None:
                return None
        if call:
            kernel._last_call = (args, blob)
        return self.queue.launch_now(running, self.run, (self.ck, blob, nd),
                                     storages if self.driver.issues_markers else ())

    def launch_set(self, bound: list[Any], global_size: Any, local_size: Any,
                   wait_for: Any) -> Event | None:
        """`launch` with the arguments set earlier (`enqueue_nd_range_kernel`): their
        checked values, packed as raw ones; or None (nothing done)."""
        raw = tuple(arg.data if arg.kind == "value" else arg.buffer for arg in bound)
        return self.launch(global_size, local_size, raw, wait_for, call=False)
