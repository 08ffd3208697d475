"""CUDA helpers in the style of ``torch.cuda``: availability, synchronisation,
the memory pool of each device's default context and the custom-kernel cache."""

from __future__ import annotations

from ._context import Context, context
from ._device import device_count as _device_count, device_info
from ._stream import Event, Stream, current_stream as _current_stream
from ._graph import (CUDAGraph, GraphPool, graph, graph_pool_handle,
                     is_current_stream_capturing)

__all__ = ["is_available", "device_count", "get_device_properties", "synchronize",
           "current_stream", "Stream", "Event", "memory_stats", "memory_snapshot",
           "memory_snapshot_json",
           "empty_cache", "set_memory_fraction", "set_memory_limit",
           "reset_peak_memory_stats", "memory_allocated", "memory_reserved",
           "max_memory_allocated", "kernel_cache_clear"]
__all__ += ["CUDAGraph", "GraphPool", "graph", "graph_pool_handle",
            "is_current_stream_capturing"]  # CUDA graphs (_graph.py)


def _dev(device) -> str:
    if device is None:
        return "cuda:0"
    if isinstance(device, int):
        return f"cuda:{device}"
    return device


def is_available() -> bool:
    """True when at least one CUDA device is usable."""
    return _device_count("cuda") > 0


def device_count() -> int:
    """Number of CUDA devices (0 without a driver or GPU)."""
    return _device_count("cuda")


def get_device_properties(device=None) -> dict:
    return device_info(_dev(device))


def _on_default_context(name: str, doc: str):
    """The Context method ``name`` of the device's default context as a
    function taking the method's arguments, then ``device`` (None: cuda:0),
    as torch.cuda's functions do."""
    method = getattr(Context, name)
    n = method.__code__.co_argcount - 1  # the method's own parameters

    def call(*args, device=None):
        if len(args) > n:  # the device given positionally, after the arguments
            args, device = args[:n], args[n]
        return method(context(_dev(device)), *args)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return call


synchronize = _on_default_context(
    "synchronize", "Wait for all work of the device's default context.")
memory_stats = _on_default_context(
    "memory_stats", "Counters of the device's default pool (see ek_memory_stats in ek.h).")
memory_snapshot = _on_default_context(
    "memory_snapshot", "The blocks of the device's default pool, as dicts.")
memory_snapshot_json = _on_default_context(
    "memory_snapshot_json", "The device's default pool as JSON: written to path, or returned as a "
    "dict (see Context.memory_snapshot_json).")
empty_cache = _on_default_context(
    "empty_cache", "Return the pool's cached free segments to the device.")
set_memory_fraction = _on_default_context(
    "set_memory_fraction", "Cap the pool at a fraction (0, 1] of the device's memory.")
set_memory_limit = _on_default_context(
    "set_memory_limit", "Cap the pool's reserved bytes (0: no limit).")
reset_peak_memory_stats = _on_default_context(
    "reset_peak_memory_stats", "Reset the pool's peak counters.")
kernel_cache_clear = _on_default_context(
    "kernel_cache_clear", "Empty the compiled custom-kernel caches (ek.RawModule, "
    "ek.ElementwiseKernel): every entry of the device's default context's disk cache directory "
    "and this process's memory cache; loaded modules stay usable.")


def memory_allocated(device=None) -> int:
    return memory_stats(device)["allocated_bytes"]


def memory_reserved(device=None) -> int:
    return memory_stats(device)["reserved_bytes"]


def max_memory_allocated(device=None) -> int:
    return memory_stats(device)["peak_allocated_bytes"]
