"""CUDA helpers in the style of ``torch.cuda``: availability, synchronisation,
the memory pool of each device's default context and the custom-kernel cache."""

from __future__ import annotations

from ._context import context
from ._device import device_count as _device_count, device_info
from ._stream import Event, Stream, current_stream as _current_stream

__all__ = ["is_available", "device_count", "get_device_properties", "synchronize",
           "current_stream", "Stream", "Event", "memory_stats", "memory_snapshot",
           "memory_snapshot_json",
           "empty_cache", "set_memory_fraction", "set_memory_limit",
           "reset_peak_memory_stats", "memory_allocated", "memory_reserved",
           "max_memory_allocated", "kernel_cache_clear"]


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


def synchronize(device=None) -> None:
    """Wait for all work of the device's default context."""
    context(_dev(device)).synchronize()


def current_stream(device=None) -> Stream:
    return _current_stream(_dev(device))


def memory_stats(device=None) -> dict:
    """Counters of the device's default pool (see ek_memory_stats in ek.h)."""
    return context(_dev(device)).memory_stats()


def memory_snapshot(device=None) -> list:
    """The blocks of the device's default pool, as dicts."""
    return context(_dev(device)).memory_snapshot()


def memory_snapshot_json(path=None, device=None):
    """The device's default pool as JSON: written to path, or returned as a
    dict (see Context.memory_snapshot_json)."""
    return context(_dev(device)).memory_snapshot_json(path)


def empty_cache(device=None) -> None:
    """Return the pool's cached free segments to the device."""
    context(_dev(device)).empty_cache()


def set_memory_fraction(fraction: float, device=None) -> None:
    """Cap the pool at a fraction (0, 1] of the device's memory."""
    context(_dev(device)).set_memory_fraction(fraction)


def set_memory_limit(nbytes: int, device=None) -> None:
    """Cap the pool's reserved bytes (0: no limit)."""
    context(_dev(device)).set_memory_limit(nbytes)


def reset_peak_memory_stats(device=None) -> None:
    context(_dev(device)).reset_peak_memory_stats()


def memory_allocated(device=None) -> int:
    return memory_stats(device)["allocated_bytes"]


def memory_reserved(device=None) -> int:
    return memory_stats(device)["reserved_bytes"]


def max_memory_allocated(device=None) -> int:
    return memory_stats(device)["peak_allocated_bytes"]


_ = Event


def kernel_cache_clear(device=None) -> None:
    """Empty the compiled custom-kernel caches (ek.RawModule,
    ek.ElementwiseKernel): every entry of the device's default context's disk
    cache directory and this process's memory cache; loaded modules stay
    usable."""
    context(_dev(device)).kernel_cache_clear()
