"""Contexts: one device's memory pool, default stream and caches."""

from __future__ import annotations

import ctypes
import json
import operator
import os
import threading
import traceback
import weakref

from . import _ffi
from ._cint import INT64_MIN, UINT64_MAX, c_int, c_uint64, fetch_array, fetch_text, fields, filled
from ._device import device_str, parse_device, to_struct
from ._errors import InvalidArgumentError, check, shut_down
from ._handles import _Handle, check_running, own, releaser, set_null
from ._lib import lib

__all__ = ["Context", "context"]

_LOG_LEVELS = {k: v for v, k in _ffi.ek_log_level_names.items()}


_DESTROY = releaser("ek_context_destroy")


class Context(_Handle):
    """A libek context on one device: its memory pool, default stream, caches.

    ``Context("cuda:0", memory_limit=2 << 30)`` creates a new, independent
    context; ``ek.context("cuda:0")`` returns the shared per-device default.
    Options left as None fall back to the environment (EK_MEMORY_LIMIT, ...)
    and then to the library's defaults.

    Tensors, streams and events keep their context alive; the context is
    destroyed when the last of them and the Context object are gone (at
    interpreter exit nothing is destroyed: the process's end frees it).
    ``close()`` destroys it explicitly.
    """

    def __init__(self, device="cpu", *, memory_limit: int | None = None,
                 memory_fraction: float | None = None, allow_tf32: bool | None = None,
                 kernel_cache_dir: str | os.PathLike | None = None,
                 log_level: str | int | None = None, num_threads: int | None = None,
                 index_check: str | None = None, fusion: bool | str | None = None,
                 fusion_max_kernels: int | None = None):
        dev = parse_device(device)
        cfg = filled(lib.ek_context_config_init, _ffi.ek_context_config())
        if memory_limit is not None:
            cfg.memory_limit = c_uint64(memory_limit, "ek.Context: memory_limit")
        if memory_fraction is not None:
            cfg.memory_fraction = float(memory_fraction)
        if allow_tf32 is not None:
            cfg.allow_tf32 = 1 if allow_tf32 else 0
        cache_dir = None
        if kernel_cache_dir is not None:
            cache_dir = os.fsencode(kernel_cache_dir)
            cfg.kernel_cache_dir = cache_dir  # copied by ek_context_create
        if log_level is not None:
            cfg.log_level = (_LOG_LEVELS[log_level] if isinstance(log_level, str)
                             else c_int(log_level, "ek.Context: log_level"))
        if num_threads is not None:  # CPU: threads for large ops; 0 = one per hardware thread
            cfg.num_threads = c_int(num_threads, "ek.Context: num_threads")
        if index_check is not None:  # CUDA gathers: "deferred" (CUDA's default) or "call"
            if index_check not in _INDEX_CHECKS:
                raise InvalidArgumentError(f"ek.Context: index_check {index_check!r} is not "
                                           f"one of {sorted(_INDEX_CHECKS)}")
            cfg.index_check = _INDEX_CHECKS[index_check]
        if fusion is not None:  # automatic fusion: True, False or "rounded" (ek._fusion)
            from ._fusion import fusion_mode
            cfg.fusion = fusion_mode(fusion, "ek.Context")
        if fusion_max_kernels is not None:
            cfg.fusion_max_kernels = c_int(fusion_max_kernels, "ek.Context: fusion_max_kernels")
        h = _ffi.ek_context()
        check_running()
        check(lib.ek_context_create(to_struct(dev), ctypes.byref(cfg), ctypes.byref(h)))
        got = filled(lib.ek_context_get_device, _ffi.ek_device(), h)
        self._dev = (got.type, got.index)
        self._tok = own(h, _DESTROY)
        self._h = h
        # The weakref callback releasing this context's tensors: it keeps the
        # token, so the context is destroyed after its last tensor.
        self._free_tensor = releaser("ek_tensor_release", keep=self._tok)
        if _seed[0] is not None:  # ek.manual_seed applies to contexts created later too
            check(lib.ek_random_set_seed(h, _seed[0]))
        _all_contexts.add(self)

    # -- identity
    @property
    def device(self) -> str:
        """"cpu" or "cuda:N"."""
        return device_str(self._dev)

    context = property(lambda self: self, doc="The context itself (as for its streams and tensors).")

    @property
    def is_cuda(self) -> bool:
        return self._dev[0] == _ffi.EK_CUDA

    def __repr__(self) -> str:
        state = "" if self._h else ", closed"
        return f"ek.Context({self.device!r}{state})"

    def close(self) -> None:
        """Destroy the context now. Raises InvalidArgumentError (and keeps the
        context) while tensors, streams or events of it are alive. Closing
        twice does nothing; later uses raise InvalidArgumentError."""
        h = self._h
        if not h or shut_down[0]:
            return
        copy = self._tok.handle
        self._h = None   # no use from here on
        set_null(copy)   # the token's release becomes a no-op (an interrupt: a leak, no crash)
        st = lib.ek_context_destroy(h)
        if st != _ffi.EK_SUCCESS:
            ctypes.c_void_p.from_buffer(copy).value = ctypes.cast(h, ctypes.c_void_p).value
            self._h = h
            check(st)

    @property
    def config(self) -> dict:
        """The effective configuration (environment and defaults applied)."""
        cfg = filled(lib.ek_context_get_config, _ffi.new(_ffi.ek_context_config), self._handle())
        return {
            "memory_limit": cfg.memory_limit,
            "memory_fraction": cfg.memory_fraction,
            "allow_tf32": bool(cfg.allow_tf32),
            "kernel_cache_dir": os.fsdecode(cfg.kernel_cache_dir) if cfg.kernel_cache_dir else None,
            "log_level": cfg.log_level,
            "num_threads": cfg.num_threads,
            "index_check": {v: k for k, v in _INDEX_CHECKS.items()}.get(cfg.index_check),
            "fusion": {_ffi.EK_FUSION_OFF: False, _ffi.EK_FUSION_ON: True,
                       _ffi.EK_FUSION_ROUNDED: "rounded"}.get(cfg.fusion),
            "fusion_max_kernels": cfg.fusion_max_kernels,
        }

    # -- work
    def synchronize(self) -> None:
        """Wait for all work on all streams of the context."""
        check(lib.ek_context_synchronize(self._handle()))

    @property
    def default_stream(self):
        """The context's default stream (borrowed; never destroyed)."""
        from ._stream import Stream
        h = filled(lib.ek_context_get_default_stream, _ffi.ek_stream(), self._handle())
        return Stream._borrowed(h, self)

    # -- memory
    def memory_stats(self) -> dict:
        """The pool's counters (ek_memory_stats) as a dict."""
        st = filled(lib.ek_memory_get_stats, _ffi.new(_ffi.ek_memory_stats), self._handle())
        return fields(st)

    def memory_snapshot(self) -> list:
        """Every block of the pool (segment by segment, in address order) as dicts."""
        blocks = [fields(b) for b in fetch_array(lib.ek_memory_get_snapshot, _ffi.ek_memory_block,
                                                 self._handle())]
        for b in blocks:
            b["allocated"] = bool(b["allocated"])
        return blocks

    def memory_snapshot_json(self, path=None):
        """The pool's segments, blocks and statistics of one moment as JSON
        (ek_memory_write_snapshot_json; the format is in ek.h). With a path, the file
        is written (replaced atomically; EkIOError when it cannot be) and None
        returned; without one, the document is returned as a dict.
        ``python3 scripts/plot_memory.py FILE -o memory.png`` draws the file."""
        if path is not None:
            check(lib.ek_memory_write_snapshot_json(self._handle(), os.fsencode(path)))
            return None
        return json.loads(fetch_text(lib.ek_memory_get_snapshot_json, self._handle()))

    def empty_cache(self) -> None:
        """Return every cached, fully free segment to the device."""
        check(lib.ek_memory_empty_cache(self._handle()))

    def set_memory_limit(self, nbytes: int) -> None:
        """Limit on reserved bytes (0: none)."""
        check(lib.ek_memory_set_limit(self._handle(), c_uint64(nbytes, "set_memory_limit")))

    def set_memory_fraction(self, fraction: float) -> None:
        """Limit as a fraction (0, 1] of the device's total memory."""
        check(lib.ek_memory_set_fraction(self._handle(), float(fraction)))

    def reset_peak_memory_stats(self) -> None:
        """Peaks restart from the current values."""
        check(lib.ek_memory_reset_peaks(self._handle()))

    def set_memory_callback(self, fn, threshold_bytes: int = 0) -> None:
        """Call ``fn(event, nbytes)`` on the allocating thread when an
        allocation cannot be served ("oom", before the pool's last retry: fn
        may free memory) or when reserved memory rises past
        ``threshold_bytes`` ("threshold"; 0: never); None clears
        (ek_memory_set_callback). An exception in fn is printed and ignored."""
        def call(_ctx, event, nbytes, _user_data):
            try:
                fn(_ffi.ek_memory_event_names.get(event, str(event)), nbytes)
            except BaseException:  # noqa: BLE001 - must not unwind into C
                traceback.print_exc()
        c_fn = _ffi.ek_memory_callback(call if fn is not None else 0)
        check(lib.ek_memory_set_callback(self._handle(), c_fn, None,
                                         c_uint64(threshold_bytes, "threshold_bytes")))
        self._tok.handle.memory_callback = c_fn  # lives as long as the context

    # -- custom kernels
    def kernel_cache_clear(self) -> None:
        """Remove every entry of this context's kernel cache directory and
        empty this process's memory cache of compiled kernels (loaded modules
        stay usable). NotSupportedError on a CPU context."""
        check(lib.ek_kernel_cache_clear(self._handle()))

    # -- random numbers
    def manual_seed(self, seed: int) -> None:
        """Seed this context's Philox generator and reset its offset to 0."""
        check(lib.ek_random_set_seed(self._handle(), seed64(seed)))

    def random_state(self) -> tuple:
        """The generator's (seed, offset): the next random tensor's element i
        uses Philox counter offset + i under key seed."""
        st = filled(lib.ek_random_get_state, _ffi.new(_ffi.ek_philox_state), self._handle())
        return int(st.seed), int(st.offset)


def seed64(seed) -> int:
    """A seed as uint64: negative seeds count from 2**64 (as PyTorch's);
    OverflowError outside [-2**63, 2**64 - 1]."""
    s = operator.index(seed)
    if not INT64_MIN <= s <= UINT64_MAX:
        raise OverflowError(f"manual_seed: {s} does not fit in 64 bits "
                            f"[{INT64_MIN}, {UINT64_MAX}]")
    return s & UINT64_MAX


_all_contexts: "weakref.WeakSet[Context]" = weakref.WeakSet()
_seed: list = [None]  # the last ek.manual_seed(seed), for contexts created after it

_INDEX_CHECKS = {"call": _ffi.EK_INDEX_CHECK_AT_CALL, "deferred": _ffi.EK_INDEX_CHECK_DEFERRED}
_defaults: dict = {}
_by_name: dict = {}  # device string as passed -> its default Context (a parse saved)
_defaults_lock = threading.Lock()


def context(device="cpu") -> Context:
    """The shared default Context of a device ("cpu", "cuda", "cuda:N"),
    created on first use (and again after it was closed). A Context passed in
    is returned as is."""
    ctx = _by_name.get(device) if type(device) is str else None  # the common call first
    if ctx is not None and ctx._h:
        return ctx
    if isinstance(device, Context):
        return device
    dev = parse_device(device)
    ctx = _defaults.get(dev)
    if ctx is None or not ctx._h:  # a closed default is replaced
        with _defaults_lock:
            ctx = _defaults.get(dev)
            if ctx is None or not ctx._h:
                ctx = _defaults[dev] = Context(dev)
    if isinstance(device, str) and len(_by_name) < 64:
        _by_name[device] = ctx  # the common call, context("cuda"), skips parsing
    return ctx
