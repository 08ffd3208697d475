"""Device strings: "cpu", "cuda", "cuda:1"."""

from __future__ import annotations

import ctypes

from . import _ffi
from ._cint import c_int, filled
from ._errors import InvalidArgumentError, check
from ._lib import lib

__all__ = ["parse_device", "device_str", "device_count", "device_info"]

_NAMES = _ffi.ek_device_type_names
_TYPES = {k: v for v, k in _NAMES.items()}


def parse_device(device) -> tuple:
    """"cpu" / "cuda" / "cuda:N" (or anything whose str() is one, e.g. a
    torch.device, or a Context) -> (ek_device_type, index)."""
    from ._context import Context  # cycle
    if isinstance(device, Context):
        return device._dev
    if isinstance(device, tuple) and len(device) == 2:
        return c_int(device[0], "device type"), c_int(device[1], "device index")
    s = device if isinstance(device, str) else str(device)
    kind, _, idx = s.strip().lower().partition(":")
    if kind not in _TYPES or (idx and not idx.isdigit()):
        raise InvalidArgumentError(
            f"ek: bad device {device!r}: expected 'cpu', 'cuda' or 'cuda:N'")
    return _TYPES[kind], c_int(int(idx), "device index") if idx else 0


def device_str(dev: tuple) -> str:
    t, i = dev
    name = _NAMES.get(t, f"device{t}")
    return name if t == _ffi.EK_CPU and i == 0 else f"{name}:{i}"


def to_struct(dev: tuple) -> _ffi.ek_device:
    return _ffi.ek_device(dev[0], dev[1])


def device_count(kind: str = "cuda") -> int:
    """Number of devices of a kind ("cpu": 1; "cuda": 0 without a driver or GPU)."""
    if kind not in _TYPES:
        raise InvalidArgumentError(f"ek.device_count: bad device type {kind!r}")
    return filled(lib.ek_device_get_count, ctypes.c_int(), _TYPES[kind]).value


def device_info(device="cpu") -> dict:
    """Properties of a device: name, type, index, compute_capability,
    multiprocessors, total_memory, l2_cache_size. NoDeviceError when absent."""
    dev = parse_device(device)
    info = filled(lib.ek_device_get_info, _ffi.new(_ffi.ek_device_info), to_struct(dev))
    return {
        "name": info.name.decode("utf-8", "replace"),
        "type": _NAMES.get(info.type, str(info.type)),
        "index": info.index,
        "device": device_str((info.type, info.index)),
        "compute_capability": (info.compute_major, info.compute_minor),
        "multiprocessors": info.multiprocessors,
        "total_memory": info.total_memory,
        "l2_cache_size": info.l2_cache_size,
    }
