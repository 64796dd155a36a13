"""IR transforms, one per module, registered by name in `passes/manager.py`."""
