"""CUDA graphs in the style of ``torch.cuda``: ``CUDAGraph``, the ``graph``
context manager and ``graph_pool_handle`` (ek.h's graphs section)::

    g = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g):
        y = (x @ w + b).gelu()    # recorded, not run
    x.copy_(new_x)                # new inputs: overwrite in place
    g.replay()                    # y holds the step's result for new_x

On the CPU backend capture raises NotSupportedError (work runs when called).
"""

from __future__ import annotations

import ctypes

from . import _ffi
from ._context import context
from ._errors import InvalidArgumentError, check
from ._cint import filled
from ._handles import _Handle, releaser
from ._lib import lib
from ._stream import Stream, current_stream, stream_handle

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "GraphPool", "is_current_stream_capturing"]

_DESTROY_GRAPH = releaser("ek_graph_destroy")
_DESTROY_POOL = releaser("ek_graph_pool_destroy")
_MODES = {"global": _ffi.EK_CAPTURE_GLOBAL, "thread_local": _ffi.EK_CAPTURE_THREAD_LOCAL,
          "relaxed": _ffi.EK_CAPTURE_RELAXED}


def _dev(device) -> str:
    if device is None:
        return "cuda:0"
    return f"cuda:{device}" if isinstance(device, int) else device


class GraphPool(_Handle):
    """A graph pool that captures may share (``graph_pool_handle()``, or
    ``g.pool()`` of a captured graph). Graphs sharing one must be replayed in
    the order they were captured."""

    def __init__(self, device=None):
        ctx = context(_dev(device))
        self._own(filled(lib.ek_graph_pool_create, _ffi.ek_graph_pool(), ctx._handle()),
                  _DESTROY_POOL, ctx)

    def stats(self) -> dict:
        """The pool's counters, as ``ek.cuda.memory_stats`` reports the context pool's."""
        st = _ffi.ek_memory_stats(struct_size=ctypes.sizeof(_ffi.ek_memory_stats))
        check(lib.ek_graph_pool_get_stats(self._handle(), ctypes.byref(st)))
        return {name: getattr(st, name) for name, _ in _ffi.ek_memory_stats._fields_
                if name != "struct_size"}

    def __repr__(self) -> str:
        return f"ek.cuda.GraphPool(device={self.device!r})"


def graph_pool_handle(device=None) -> GraphPool:
    """A new pool to share between captures (``torch.cuda.graph_pool_handle``)."""
    return GraphPool(device)


def _pool_of(pool) -> GraphPool | None:
    if pool is None or isinstance(pool, GraphPool):
        return pool
    if isinstance(pool, CUDAGraph):
        return pool.pool()
    raise TypeError(f"pool: expected an ek.cuda.GraphPool, a CUDAGraph or None, "
                    f"got {type(pool).__name__}")


class CUDAGraph(_Handle):
    """A captured CUDA graph (``torch.cuda.CUDAGraph``): ``capture_begin`` /
    ``capture_end`` (or the ``graph`` context manager), then ``replay()``."""

    def __init__(self):
        self._pool = None
        self._capturing = None  # the Stream a capture underway began on

    @property
    def closed(self) -> bool:
        return self._h is None

    def _handle(self):
        if self._h is None:
            raise InvalidArgumentError("ek.cuda.CUDAGraph: nothing was captured yet")
        return _Handle._handle(self)

    def capture_begin(self, pool=None, stream: Stream | None = None,
                      capture_error_mode: str = "global") -> None:
        """Start capturing the work on ``stream`` (this thread's current CUDA
        stream when None) into this graph; ``pool`` (a GraphPool or another
        CUDAGraph) shares its memory, None gives the graph a pool of its own."""
        if self._capturing is not None or self._h is not None:
            raise InvalidArgumentError("ek.cuda.CUDAGraph: capture_begin on a graph that is "
                                       "captured or capturing (make a new CUDAGraph)")
        if capture_error_mode not in _MODES:
            raise ValueError(f"capture_error_mode: expected one of {sorted(_MODES)}, "
                             f"got {capture_error_mode!r}")
        stream = current_stream("cuda") if stream is None else stream
        pool = _pool_of(pool)
        if pool is None and stream.device != "cpu":  # (the CPU refuses the capture below)
            pool = GraphPool(stream.device)  # private, yet shareable through g.pool()
        check(lib.ek_graph_capture_begin(stream_handle(stream, stream._ctx),
                                         None if pool is None else pool._handle(),
                                         _MODES[capture_error_mode]))
        self._pool, self._capturing = pool, stream

    def capture_end(self) -> None:
        """End the capture begun by ``capture_begin`` and instantiate the graph."""
        stream = self._capturing
        if stream is None:
            raise InvalidArgumentError("ek.cuda.CUDAGraph: capture_end without capture_begin")
        self._capturing = None
        h = filled(lib.ek_graph_capture_end, _ffi.ek_graph(), stream._handle())
        self._own(h, _DESTROY_GRAPH, stream._ctx)

    def replay(self, stream: Stream | None = None) -> None:
        """Launch the graph on ``stream`` (this thread's current stream of its
        context when None): one launch for all the captured work."""
        check(lib.ek_graph_launch(stream_handle(stream, self._ctx), self._handle()))

    def upload(self, stream: Stream | None = None) -> None:
        """Upload the graph ahead of its first replay (optional)."""
        check(lib.ek_graph_upload(stream_handle(stream, self._ctx), self._handle()))

    def pool(self) -> GraphPool | None:
        """The pool the graph was captured into, to share with a later capture."""
        return self._pool

    def reset(self) -> None:
        """Free the graph now (its pool lives while tensors made in it do)."""
        self.close()
        self._pool = None

    def __repr__(self) -> str:
        state = "capturing" if self._capturing else "captured" if self._h else "empty"
        return f"ek.cuda.CUDAGraph({state})"


class graph:
    """``with ek.cuda.graph(g):`` captures the block's work into ``g``
    (``torch.cuda.graph``). ``stream`` (None: this thread's current CUDA
    stream) becomes the current stream inside the block; ``pool`` shares
    memory with other captures; ``capture_error_mode`` is "global",
    "thread_local" or "relaxed", as CUDA's capture modes."""

    def __init__(self, cuda_graph: CUDAGraph, pool=None, stream: Stream | None = None,
                 capture_error_mode: str = "global"):
        if not isinstance(cuda_graph, CUDAGraph):
            raise TypeError(f"cuda_graph: expected an ek.cuda.CUDAGraph, "
                            f"got {type(cuda_graph).__name__}")
        self.cuda_graph = cuda_graph
        self.pool = pool
        self.stream = stream
        self.mode = capture_error_mode

    def __enter__(self) -> None:
        stream = current_stream("cuda") if self.stream is None else self.stream
        stream.__enter__()
        try:
            self.cuda_graph.capture_begin(self.pool, stream, self.mode)
        except BaseException:
            stream.__exit__(None, None, None)
            raise
        self._stream = stream

    def __exit__(self, *exc) -> None:
        try:
            self.cuda_graph.capture_end()
        finally:
            self._stream.__exit__(*exc)


def is_current_stream_capturing(device=None) -> bool:
    """True when this thread's current stream of the device's context captures a graph."""
    stream = current_stream(_dev(device))
    return bool(filled(lib.ek_stream_is_capturing, ctypes.c_int(), stream._handle()).value)
