"""Automatic fusion of elementwise chains (ek.h, the fusion section).

``ek.Context(fusion=True)`` (or EK_FUSION=1) turns it on for a context;
``with ek.fusion():`` for a stream, for a block; ``t.eval()`` produces a
pending tensor now and ``ek.fusion_stats(device)`` reads the counters.
"""

from __future__ import annotations

import contextlib

from . import _ffi
from ._cint import fields, filled
from ._context import context
from ._errors import InvalidArgumentError, check
from ._lib import lib
from ._stream import Stream, _entered_stream
from ._tensor import Tensor, tensor_methods

__all__ = ["fusion", "fusion_stats", "FUSION_MODES"]

# Python spelling -> ek_fusion; None follows the context.
FUSION_MODES = {False: _ffi.EK_FUSION_OFF, True: _ffi.EK_FUSION_ON,
                "rounded": _ffi.EK_FUSION_ROUNDED, None: 0}


def fusion_mode(value, who: str) -> int:
    try:
        return FUSION_MODES[value]
    except (KeyError, TypeError):
        raise InvalidArgumentError(f"{who}: fusion {value!r} is not one of True, False, "
                                   "'rounded' or None") from None


@contextlib.contextmanager
def fusion(enabled=True, stream: Stream | None = None, device="cpu"):
    """Fusion on (True), off (False) or "rounded" for one stream inside the
    block: ``stream``, else this thread's current stream of ``device``'s
    default context. The stream's previous setting comes back at the end,
    after its pending ops are evaluated."""
    mode = fusion_mode(enabled, "ek.fusion")
    ctx = context(device)
    s = stream if stream is not None else (_entered_stream(ctx) or ctx.default_stream)
    h = s._handle()
    before = filled(lib.ek_stream_get_fusion, _ffi.ek_fusion(), h)
    check(lib.ek_stream_set_fusion(h, mode))
    try:
        yield s
    finally:
        check(lib.ek_stream_set_fusion(s._handle(), before.value))


def fusion_stats(device="cpu") -> dict:
    """The fusion counters of a device's default context (or of a Context)."""
    ctx = context(device)
    st = filled(lib.ek_context_get_fusion_stats, _ffi.new(_ffi.ek_fusion_stats), ctx._handle())
    return fields(st)


@tensor_methods
class FusionMethods:
    def eval(self) -> Tensor:
        """Produces the tensor's contents now if a fusion group holds them
        pending (asynchronously, on the group's stream); returns the tensor."""
        check(lib.ek_tensor_eval(self._h))
        return self


def _flush(self: Stream) -> None:
    """Evaluates this stream's pending fusion group now."""
    check(lib.ek_stream_flush(self._handle()))


Stream.flush = _flush
