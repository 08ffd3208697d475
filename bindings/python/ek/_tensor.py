"""The Tensor class: a reference to one libek tensor handle (a view of
storage), owning its lifetime; the op modules add their methods with
``@tensor_methods`` (the generated ones in _ops.py)."""

from __future__ import annotations

import ctypes
import operator
import weakref

import numpy as np

from . import _ffi, _handles
from ._cint import dims_tuple, filled, int64_array, scalar
from ._context import Context, context
from ._dtype import DType, dtype as _as_dtype, from_code
from ._errors import DtypeError, ShapeError, ShutdownError, check, shut_down
from ._lib import lib
from ._stream import _current_handle, _entered

__all__ = ["Tensor"]

_byref = ctypes.byref


# Lifetimes (see _handles). Each Tensor owns one reference to its handle,
# registered in _live under a weakref to the Tensor whose callback is its
# context's C-level release (ek_tensor_release(_live.pop(wr)), no bytecode in
# between): released once, when the Tensor is collected, even under a
# KeyboardInterrupt. The callback keeps the context's token, so a context is
# destroyed after its tensors. At exit the handles are set to NULL, not freed.
_live = _handles._live
_new_weakref = weakref.ref


_i64 = int64_array


def _shape_args(args) -> tuple:
    """f(2, 3) and f((2, 3)) and f([2, 3]) -> (2, 3)."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        return tuple(operator.index(v) for v in args[0])
    return tuple(operator.index(v) for v in args)


def _stream_for(*ctxs):
    """The current stream for an op touching these contexts: that of the first
    CUDA context (or of the first context), None for its default stream."""
    for c in ctxs:
        if c.is_cuda:
            return _current_handle(c)
    return _current_handle(ctxs[0])


def _is_device_like(x) -> bool:
    if isinstance(x, Context):
        return True
    s = x if isinstance(x, str) else (str(x) if type(x).__name__ == "device" else None)
    return s is not None and s.split(":")[0].strip().lower() in ("cpu", "cuda")


class Tensor:
    """An n-dimensional array on a device, a view of reference-counted storage.

    Create with ``ek.tensor``, ``ek.zeros``, ``ek.from_numpy``, …; convert back
    with ``numpy()``/``tolist()``/``item()``. Views (indexing, ``reshape``,
    ``transpose``, …) share storage with their source.
    """

    __slots__ = ("_h", "_ctx", "_info", "_p", "__weakref__")

    # == is elementwise; hashing is by identity, as in PyTorch (object's, in C:
    # registering a tensor hashes its weakref).
    __hash__ = object.__hash__

    # NumPy defers to Tensor's reflected operators (np_array + t calls t.__radd__).
    __array_ufunc__ = None

    # ------------------------------------------------------------ lifetime
    @classmethod
    def _wrap(cls, handle, ctx: Context) -> "Tensor":
        """Own ``handle`` (one reference) as a new Tensor of ``ctx``."""
        if shut_down[0]:  # a call in flight at exit made it: left unused, not freed
            raise ShutdownError()
        self = object.__new__(cls)
        self._h = handle
        self._ctx = ctx
        self._info = None
        self._p = None
        _live[_new_weakref(self, ctx._free_tensor)] = handle
        return self

    def _outp(self):
        """A ctypes pointer to this tensor's handle: the ``ek_tensor *out`` of
        an op writing into this tensor (made once, reused)."""
        p = self._p
        if p is None:
            p = self._p = ctypes.pointer(self._h)
        return p

    def __init__(self, *args, **kwargs):
        raise TypeError("ek.Tensor is not constructed directly: use ek.tensor(), ek.empty(), "
                        "ek.zeros(), ek.from_numpy(), ...")

    def _stream(self):
        return _current_handle(self._ctx)

    @property
    def _meta(self) -> _ffi.ek_tensor_info:
        info = self._info
        if info is None:
            info = self._info = filled(lib.ek_tensor_get_info, _ffi.new(_ffi.ek_tensor_info),
                                       self._h)
        return info

    # ------------------------------------------------------------ properties
    @property
    def shape(self) -> tuple:
        """Sizes of the dims (a tuple)."""
        m = self._meta
        return tuple(m.shape[:m.ndim])

    def size(self, dim: int | None = None):
        """The shape, or one dim's size."""
        return self.shape if dim is None else self.shape[dim]

    @property
    def strides(self) -> tuple:
        """Strides in elements (not bytes)."""
        m = self._meta
        return tuple(m.strides[:m.ndim])

    def stride(self, dim: int | None = None):
        """The strides (in elements), or one dim's stride."""
        return self.strides if dim is None else self.strides[dim]

    @property
    def ndim(self) -> int:
        return self._meta.ndim

    def dim(self) -> int:
        """Number of dims (as ndim)."""
        return self._meta.ndim

    @property
    def dtype(self) -> DType:
        return from_code(self._meta.dtype)

    @property
    def device(self) -> str:
        """"cpu" or "cuda:N"."""
        return self._ctx.device

    @property
    def context(self) -> Context:
        return self._ctx

    @property
    def is_cuda(self) -> bool:
        return self._ctx.is_cuda

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def element_size(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._meta.nbytes)

    def numel(self) -> int:
        """Number of elements."""
        return int(self._meta.numel)

    def is_contiguous(self) -> bool:
        """True when C-contiguous."""
        return bool(self._meta.is_contiguous)

    def storage_offset(self) -> int:
        """Offset of element 0 from the start of the storage, in elements."""
        return int(self._meta.offset)

    def data_ptr(self) -> int:
        """Address of element 0 (device memory for CUDA tensors)."""
        return filled(lib.ek_tensor_get_data, ctypes.c_void_p(), self._h).value or 0

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]

    def __repr__(self) -> str:
        try:
            body = np.array2string(self._host_values(), separator=", ", prefix="ek.tensor(")
        except Exception as e:  # noqa: BLE001 - repr must not fail
            body = f"<unreadable: {e}>"
        return f"ek.tensor({body}, dtype={self.dtype!r}, device={self.device!r})"

    # ------------------------------------------------------------ host conversion
    def numpy(self) -> np.ndarray:
        """A C-contiguous NumPy copy of the values (waits for the data).
        bfloat16 has no NumPy dtype: use ``t.astype(ek.float32).numpy()``."""
        dt = self.dtype
        if dt.numpy is None:
            raise DtypeError(f"Tensor.numpy: {dt.name} has no NumPy dtype; convert first, e.g. "
                             f"t.astype(ek.float32).numpy()")
        arr = np.empty(self.shape, dt.numpy)
        check(lib.ek_tensor_to_host(self._stream(), self._h, arr.ctypes.data, arr.nbytes))
        return arr

    def _host_values(self) -> np.ndarray:
        t = self if self.dtype.numpy is not None else self.astype("float32")
        return t.numpy()

    def __array__(self, dtype=None, copy=None):
        arr = self._host_values()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def tolist(self):
        """The values as (nested) Python lists; a scalar for a 0-d tensor."""
        return self._host_values().tolist()

    def item(self):
        """The value of a one-element tensor as a Python scalar."""
        if self.numel() != 1:
            raise ValueError(f"Tensor.item: the tensor has {self.numel()} elements, not 1")
        return self._host_values().reshape(()).item()

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise ValueError(f"the truth value of a tensor of {self.numel()} elements is ambiguous")
        return bool(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __float__(self) -> float:
        return float(self.item())

    # ------------------------------------------------------------ views (ek._capi, generated)
    def view(self, *shape) -> "Tensor":
        """A view with a new shape (one entry may be -1); ShapeError when the
        strides do not allow one (use reshape)."""
        return _capi.view_reshape(self, _shape_args(shape))

    def reshape(self, *shape) -> "Tensor":
        """A view with a new shape when the strides allow, else a contiguous copy."""
        return _capi.reshape(self, _shape_args(shape))

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        """A view with two dims swapped."""
        return _capi.view_transpose(self, dim0, dim1)

    swapaxes = transpose

    def permute(self, *dims) -> "Tensor":
        """A view whose dim i is this tensor's dim ``dims[i]``."""
        return _capi.view_permute(self, _shape_args(dims))

    @property
    def T(self) -> "Tensor":
        """A view with the dims reversed."""
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    def expand(self, *sizes) -> "Tensor":
        """Broadcast size-1 dims (stride 0) and prepend dims; -1 keeps a size."""
        return _capi.view_expand(self, _shape_args(sizes))

    def broadcast_to(self, shape) -> "Tensor":
        """A broadcast view with the given shape (as expand)."""
        return self.expand(shape)

    def squeeze(self, dim=None) -> "Tensor":
        """Remove size-1 dims: all of them, or the listed one(s)."""
        dims = dims_tuple(dim)
        if dim is not None and not dims:
            return _capi.view_reshape(self, self.shape)
        return _capi.view_squeeze(self, dims)

    def unsqueeze(self, dim: int) -> "Tensor":
        """Insert a size-1 dim at ``dim`` (in [-ndim-1, ndim])."""
        return _capi.view_unsqueeze(self, dim)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        """Merge dims start..end (inclusive): a view when the strides allow,
        otherwise a view of a contiguous copy."""
        try:
            return _capi.view_flatten(self, start_dim, end_dim)
        except ShapeError:  # no view exists
            if self.is_contiguous():
                raise
        return _capi.view_flatten(self.contiguous(), start_dim, end_dim)

    def ravel(self) -> "Tensor":
        """The values as 1-D: a view when the strides allow (as flatten)."""
        return self.flatten()

    def as_strided(self, size, stride, storage_offset: int | None = None) -> "Tensor":
        """Any shape/strides (elements) over this tensor's storage; ``storage_offset``
        counts elements from the storage start (default: this view's offset)."""
        size, stride = _shape_args((size,)), _shape_args((stride,))
        if len(size) != len(stride):
            raise ValueError(f"as_strided: {len(size)} sizes but {len(stride)} strides")
        return _capi.view_as_strided(self, size, stride, self.storage_offset()
                                     if storage_offset is None else storage_offset)

    # ------------------------------------------------------------ copies, casts, devices
    def contiguous(self) -> "Tensor":
        """This tensor when C-contiguous, else a contiguous copy."""
        return self if self.is_contiguous() else _capi.contiguous(self)

    def clone(self) -> "Tensor":
        """A contiguous copy."""
        out = _empty(self.shape, self.dtype, self._ctx)
        return out.copy_(self)

    def __copy__(self) -> "Tensor":
        """copy.copy: a new Tensor of the same view of the same storage (its
        own reference: ek_tensor_retain), as PyTorch's shares storage."""
        check(lib.ek_tensor_retain(self._h))
        return Tensor._wrap(ctypes.cast(self._h, _ffi.ek_tensor), self._ctx)

    def __deepcopy__(self, memo) -> "Tensor":
        """copy.deepcopy: a copy of the values on the same context (``clone()``)."""
        return self.clone()

    def __reduce__(self):
        """Pickling goes through host memory: the values' bytes (C order),
        dtype, shape and device ("cpu", "cuda:N"); unpickling recreates the
        tensor on that device's default context (NoDeviceError without it)."""
        return _unpickle, (self._host_bytes(), self.dtype.name, self.shape, self.device)

    def _host_bytes(self) -> bytes:
        buf = bytearray(self.numel() * self.itemsize)
        ptr = (ctypes.c_char * len(buf)).from_buffer(buf) if buf else None
        check(lib.ek_tensor_to_host(self._stream(), self._h, ptr, len(buf)))
        return bytes(buf)

    def astype(self, dtype) -> "Tensor":
        """A new tensor of the values converted to dtype (PyTorch rules:
        float -> int truncates, -> bool is x != 0)."""
        return _capi.cast(self, dtype)

    def to(self, *args, dtype=None, device=None, copy: bool = False) -> "Tensor":
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other_tensor)``.
        Returns self when nothing changes (unless ``copy``)."""
        for a in args:
            if isinstance(a, Tensor):
                device, dtype = a._ctx, a.dtype
            elif _is_device_like(a):
                device = a
            else:
                dtype = a
        ctx = self._ctx if device is None else context(device)
        dt = self.dtype if dtype is None else _as_dtype(dtype)
        if ctx is self._ctx:
            if dt.code != self.dtype.code:
                return self.astype(dt)
            return self.clone() if copy else self
        out = _empty(self.shape, dt, ctx)
        return out.copy_(self)

    def cpu(self) -> "Tensor":
        """This tensor on the CPU (self when already there)."""
        return self.to("cpu")

    def cuda(self, device=0) -> "Tensor":
        """This tensor on a CUDA device (an index or "cuda:N")."""
        dev = f"cuda:{device}" if isinstance(device, (int, np.integer)) else device
        return self.to(dev)

    def copy_(self, src) -> "Tensor":
        """self[...] = src, broadcast to self's shape and cast to self's dtype;
        src may be a Tensor on any device, an array, a list or a scalar."""
        if not isinstance(src, Tensor):
            src = _host_tensor(src, self._ctx)
        check(lib.ek_copy(_stream_for(self._ctx, src._ctx), src._h, self._h))
        return self

    def fill_(self, value) -> "Tensor":
        """Set every element to value, exactly where it fits the dtype (ek_fill:
        a value outside an integer dtype, NaN included, raises)."""
        if isinstance(value, Tensor):
            return self.copy_(value)
        check(lib.ek_fill(self._stream(), scalar(value, "fill_"), self._h))
        return self

    def zero_(self) -> "Tensor":
        """Set every element to 0; returns self."""
        return self.fill_(0)

    def record_stream(self, stream) -> None:
        """Mark the storage as used on ``stream``: its release waits for that stream."""
        check(lib.ek_tensor_record_stream(stream._h, self._h))


def _empty(shape, dt: DType, ctx: Context) -> Tensor:
    """ek_tensor_empty, called directly: allocation is the commonest small op,
    and the generated layer's argument conversions cost more than the call."""
    dims = _DIMS.get(shape) if type(shape) is tuple else None
    if dims is not None:
        for v in shape:  # a float equal to an int would find its entry
            if type(v) is not int:
                dims = None
                break
    if dims is None:
        dims = _dims(shape)
    h = _ffi.ek_tensor()
    ch = ctx._h
    if not ch or shut_down[0]:
        ch = ctx._handle()  # raises
    rc = _c_tensor_empty(_current_handle(ctx) if _entered[0] else None, ch, dims._length_, dims,
                         dt.code, _byref(h))
    if rc:
        check(rc)
    return _wrap(h, ctx)


_wrap = Tensor._wrap  # bound once

# int64_t[] shapes for _empty, made once per shape of Python ints and shared
# (C only reads them): making one cost a quarter of ek.empty + free.
_DIMS: dict = {}
_DIMS_MAX = 1024


def _dims(shape):
    dims = int64_array(shape)
    if type(shape) is tuple and len(_DIMS) < _DIMS_MAX and all(type(v) is int for v in shape):
        _DIMS[shape] = dims
    return dims


# A function object of its own with no argtypes: ctypes' conversion of the
# six declared argument types cost more than the call itself (1.3 us of 2.2
# for empty + release on a CPU context). Every argument _empty passes is
# already what C takes: handles, the int64_t array, a byref, and two Python
# ints that ctypes passes as C ints (ndim, the dtype code).
_c_tensor_empty = lib["ek_tensor_empty"]
_c_tensor_empty.restype = ctypes.c_int


def _from_numpy(arr: np.ndarray, ctx: Context) -> Tensor:
    arr = np.asarray(arr)
    if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "<" and np.little_endian is False):
        arr = arr.astype(arr.dtype.newbyteorder("="))
    try:
        dt = _as_dtype(arr.dtype)
    except DtypeError:
        raise DtypeError(f"ek.from_numpy: NumPy dtype {arr.dtype} is not supported "
                         f"(bool, int8..int64, uint8..uint64, float16, float32, float64)") from None
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)
    return _from_host(arr.ctypes.data if arr.size else None, arr.shape, dt, ctx)


def _from_host(data, shape, dt: DType, ctx: Context) -> Tensor:
    """A tensor of ctx holding a copy of C-order host values (ek_tensor_from_host)."""
    h = filled(lib.ek_tensor_from_host, _ffi.ek_tensor(), _current_handle(ctx), ctx._handle(),
               len(shape), _i64(shape), dt.code, data)
    return Tensor._wrap(h, ctx)


def _unpickle(data: bytes, dtype_name: str, shape: tuple, device: str) -> Tensor:
    """Tensor.__reduce__'s inverse."""
    dt, ctx = _as_dtype(dtype_name), context(device)
    n = 1
    for d in shape:
        n *= d
    if len(data) != n * dt.itemsize:
        raise ValueError(f"ek: a pickled {dtype_name} tensor of shape {list(shape)} needs "
                         f"{n * dt.itemsize} bytes, got {len(data)}")
    return _from_host(data if data else None, shape, dt, ctx)


def _host_tensor(data, like_ctx: Context) -> Tensor:
    """Python/NumPy data as a tensor for ek_copy: on like_ctx's CPU side."""
    arr = np.asarray(data)
    return _from_numpy(arr, context("cpu") if like_ctx.is_cuda else like_ctx)


_NOT_COPIED = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__hash__"}


def tensor_methods(cls):
    """Class decorator: copies the methods of ``cls`` into Tensor (how the op
    modules add theirs; tools/gen_bindings reads these classes for the stubs)."""
    for name, value in vars(cls).items():
        if name not in _NOT_COPIED:
            setattr(Tensor, name, value)
    return cls


from . import _capi  # noqa: E402 - last: the generated op layer needs Tensor
