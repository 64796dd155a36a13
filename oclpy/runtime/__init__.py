"""The runtime: PyOpenCL's host API over one driver per device.

Where things live (each module's docstring says more):

- errors.py, constants.py: PyOpenCL's exception classes and constant classes.
- drivers/: the driver interface (base.py) and one driver per device kind
  (cpu.py; cuda and simt slot in through the table in drivers/__init__.py).
- platform.py, device.py, context.py: discovery, device info, create_some_context.
- event.py, scheduler.py, queue.py: commands as events, dependencies, queues.
- memory.py, transfer.py, rect.py, mapping.py: buffers and moving bytes.
- program.py, linking.py, kernel.py, ndrange.py: building, binaries, arguments, launches.

The compiler is reached only through `oclpy.compiler`: programs are built by
`compiler.build(source or SPIR-V bytes, options, driver.target)`, where each
driver says which `Target` its device is.
"""
