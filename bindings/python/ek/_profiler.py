"""The profiler: every op and kernel launch on a context, with host and device times.

Experimental: it wraps ek_profiler_*, which ek.h declares under
``#ifdef EK_EXPERIMENTAL`` (outside the ABI promise: may change in a minor
release of libek)."""

from __future__ import annotations

import os
from typing import NamedTuple

from . import _ffi
from ._context import context as _context
from ._device import device_str
from ._cint import fetch_array, fetch_text
from ._errors import check
from ._lib import lib

__all__ = ["Profiler", "ProfileRecord", "profile"]


class ProfileRecord(NamedTuple):
    """One recorded call; times in microseconds since the session started."""
    name: str             # "binary.add", "matmul", "kernel.saxpy"
    args: str             # "float32[1024,1024] float32[1024] -> float32[1024,1024]"
    device: str
    stream_id: int
    thread_id: int
    host_start_us: float
    host_us: float
    device_start_us: float
    device_us: float      # negative when the device could not time the call


def _record(r: _ffi.ek_profile_record) -> ProfileRecord:
    return ProfileRecord(r.name.decode(errors="replace"), r.args.decode(errors="replace"),
                         device_str((r.device.type, r.device.index)), r.stream_id, r.thread_id,
                         r.host_start_us, r.host_us, r.device_start_us, r.device_us)


class Profiler:
    """Records every op on one context (a Context or a device string; the
    device's shared default context by default)::

        with ek.profile("cuda") as prof:
            y = (x @ x).softmax(-1)
        print(prof.summary())
        prof.export_chrome_trace("trace.json")   # open in ui.perfetto.dev

    Reading the results needs a stopped session; a new start forgets them.
    """

    def __init__(self, device="cpu"):
        self.context = _context(device)

    def start(self) -> "Profiler":
        check(lib.ek_profiler_start(self.context._handle()))
        return self

    def stop(self) -> None:
        check(lib.ek_profiler_stop(self.context._handle()))

    def __enter__(self) -> "Profiler":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def records(self) -> list:
        """The last session's calls, as ProfileRecord tuples in order of completion."""
        return [_record(r) for r in fetch_array(lib.ek_profiler_get_records,
                                                _ffi.ek_profile_record, self.context._handle())]

    def summary(self) -> str:
        """A table per op name: calls, total and mean device and host time."""
        return fetch_text(lib.ek_profiler_get_summary, self.context._handle())

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Writes the session as Chrome trace JSON (Perfetto, chrome://tracing)."""
        check(lib.ek_profiler_write_chrome_trace(self.context._handle(), os.fsencode(path)))


def profile(device="cpu") -> Profiler:
    """A Profiler of a context or device, for ``with ek.profile(...) as prof:``."""
    return Profiler(device)
