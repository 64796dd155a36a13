"""The runtime: PyOpenCL's host API over one driver per device.

Where things live (each module's docstring says more):

- errors.py, constants.py: PyOpenCL's exception classes and constant classes.
- drivers/: the driver interface (base.py) and one driver per device kind
  (cpu.py; cuda and simt slot in through the table in drivers/__init__.py).
- platform.py, device.py, context.py: discovery, device info, create_some_context.
- event.py, scheduler.py, queue.py: commands as events, dependencies, queues.
- memory.py, transfer.py, rect.py, mapping.py: buffers and moving bytes.
- program.py, kernel.py, kernel_args.py, ndrange.py: building, arguments, launches.

The compiler is reached only through `Driver.build` ->
`oclpy.compiler.build_program(source, options, device_kind)`.
"""
