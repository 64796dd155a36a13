"""oclpy: OpenCL written in Python, with PyOpenCL's host API.

Change `import pyopencl as cl` to `import oclpy as cl`: platforms, devices,
contexts, queues, buffers, programs, kernels, events and the constant
classes have PyOpenCL's names and behaviour, errors included
(`cl.LogicError`, `cl.RuntimeError`, `cl.status_code`).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from . import cltypes
from .runtime.constants import (ALL_CONSTANT_CLASSES, build_status, command_execution_status,
                                command_queue_info, command_queue_properties, command_type,
                                context_info, context_properties, device_affinity_domain,
                                device_exec_capabilities, device_partition_property,
                                device_fp_config, device_info, device_local_mem_type,
                                device_mem_cache_type, device_type, event_info, kernel_arg_access_qualifier,
                                kernel_arg_address_qualifier, kernel_arg_info,
                                kernel_arg_type_qualifier, kernel_info, kernel_work_group_info,
                                map_flags, mem_flags, mem_info, mem_migration_flags, mem_object_type,
                                platform_info,
                                profiling_info, program_build_info, program_info, program_kind,
                                queue_properties, status_code, channel_order, channel_type,
                                image_info, addressing_mode, filter_mode, sampler_info,
                                device_atomic_capabilities, device_device_enqueue_capabilities,
                                device_svm_capabilities, device_topology_type_amd,
                                svm_mem_flags, pipe_info, pipe_properties, program_binary_type,
                                sampler_properties, version_bits, khronos_vendor_id,
                                kernel_sub_group_info)
from .runtime.context import Context, choose_devices, create_some_context
from .runtime.device import Device
from .runtime.errors import Error, LogicError, MemoryError, RuntimeError
from .runtime.event import Event, NannyEvent, UserEvent, wait_for_events
from .runtime.kernel import Kernel, enqueue_nd_range_kernel, enqueue_task
from .runtime.mapping import MemoryMap, enqueue_map_buffer
from .runtime.migration import enqueue_migrate_mem_objects
from .runtime.memory import Buffer, LocalMemory, MemoryObject, MemoryObjectHolder
from .runtime.platform import Platform, get_platforms
from .runtime.program import (CompilerWarning, Program, create_program_with_il, link_program,
                              unload_platform_compiler)
from .runtime.queue import (CommandQueue, CommandQueueUsedAfterExit, enqueue_barrier,
                            enqueue_marker)
from .runtime.transfer import enqueue_copy, enqueue_fill, enqueue_fill_buffer

from .runtime.structs import DeviceTopologyAmd, ImageFormat
from .runtime.image import Image
from .runtime.image_descriptor import ImageDescriptor
from .runtime.image_mapping import enqueue_map_image
from .runtime.image_api import (DTYPE_TO_CHANNEL_TYPE, DTYPE_TO_CHANNEL_TYPE_NORM, create_image,
                                enqueue_copy_buffer_to_image, enqueue_copy_image,
                                enqueue_copy_image_to_buffer, enqueue_fill_image, enqueue_read_image,
                                enqueue_write_image, get_supported_image_formats, image_from_array)
from .runtime.sampler import Sampler
from .runtime.unsupported import UNSUPPORTED_NAMES, unsupported
from . import version
from .version import OCLPY_VERSION, OCLPY_VERSION_TEXT, VERSION, VERSION_STATUS, VERSION_TEXT

CtxFactory = Callable[[], Context]
WaitList = Optional[Sequence[Event]]  # PyOpenCL's type of a wait_for argument

_PYPY = False  # PyOpenCL's flag for running on PyPy

__version__ = VERSION_TEXT  # the PyOpenCL release whose API oclpy follows; oclpy's own: OCLPY_VERSION_TEXT

_csc = create_some_context


def get_cl_header_version() -> tuple[int, int]:
    return (3, 0)


def have_gl() -> bool:
    return False


def __getattr__(name: str) -> Any:
    """Pipes, SVM and GL interop: a clear error, not an AttributeError."""
    if name in UNSUPPORTED_NAMES:
        return unsupported(name)
    raise AttributeError(f"module 'oclpy' has no attribute '{name}'")


__all__ = [
    "Buffer", "CommandQueue", "DeviceTopologyAmd", "ImageFormat", "CommandQueueUsedAfterExit", "CompilerWarning", "CtxFactory", "WaitList", "Context", "Device", "Error", "Event", "Kernel",
    "LocalMemory", "LogicError", "MemoryError", "MemoryMap", "enqueue_map_buffer", "MemoryObject", "MemoryObjectHolder", "NannyEvent",
    "OCLPY_VERSION", "OCLPY_VERSION_TEXT", "Platform", "Program", "RuntimeError", "UserEvent",
    "VERSION", "VERSION_STATUS", "VERSION_TEXT", "choose_devices", "create_some_context", "cltypes", "enqueue_barrier", "enqueue_copy", "enqueue_fill", "enqueue_fill_buffer",
    "enqueue_marker", "enqueue_migrate_mem_objects", "enqueue_nd_range_kernel", "enqueue_task", "get_cl_header_version",
    "Image", "ImageDescriptor", "Sampler", "create_image", "image_from_array", "enqueue_read_image", "enqueue_write_image",
    "enqueue_copy_image", "enqueue_copy_image_to_buffer", "enqueue_copy_buffer_to_image",
    "enqueue_fill_image", "enqueue_map_image", "DTYPE_TO_CHANNEL_TYPE", "DTYPE_TO_CHANNEL_TYPE_NORM",
    "get_platforms", "get_supported_image_formats", "have_gl", "link_program", "create_program_with_il", "unload_platform_compiler", "wait_for_events", "version",
    *(cls.__name__ for cls in ALL_CONSTANT_CLASSES),
]
