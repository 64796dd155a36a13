"""The runtime: platforms, devices, contexts, queues, events, buffers, programs,
kernels, and one driver per device."""
