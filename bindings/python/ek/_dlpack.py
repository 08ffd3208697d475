"""Zero-copy interchange: DLPack (``Tensor.__dlpack__``,
``Tensor.__dlpack_device__``, ``ek.from_dlpack``) and
``Tensor.__cuda_array_interface__`` (version 3).

DLPack is implemented with ctypes: the DLTensor / DLManagedTensor /
DLManagedTensorVersioned structs of dlpack.h and the capsule protocol through
``ctypes.pythonapi`` (PyCapsule_New, _IsValid, _GetPointer, _SetName).

Export: the tensor's handle is retained (``ek_tensor_retain``) for as long as
the consumer holds the DLManagedTensor; its deleter (a ctypes callback)
releases it. A capsule that nobody consumed ("dltensor"/"dltensor_versioned"
still its name when it dies) calls that deleter from its destructor; a
consumer renames it "used_..." and calls the deleter itself when done.

Import: the DLTensor's memory is wrapped with ``ek_tensor_wrap`` (shape,
strides in elements, byte offset applied) and an ek deleter that calls the
DLManagedTensor's own deleter when the last view is released (for CUDA memory
after ``ek_context_synchronize``, so that the producer never reuses memory
ek's queued kernels still touch); the capsule is renamed "used_...". Memory
of a CUDA device gets that device's default context, host memory (kDLCPU,
kDLCUDAHost) the CPU context. A read-only source (``DLPACK_FLAG_BITMASK_READ_ONLY``)
is copied, since ek tensors are writable.

Streams (CUDA): ``__dlpack__(stream=s)`` makes the consumer's stream ``s``
(1: legacy default, 2: per-thread default, else a cudaStream_t; -1: no
synchronization) wait, without blocking the host, for the work queued so far
on ek's current stream, and records the storage as used on ``s`` so that ek's
pool does not reuse it before the consumer's work on it completes (ek wraps
each consumer stream once and keeps the wrapper). ``ek.from_dlpack`` passes
ek's current stream to the producer.
"""

from __future__ import annotations

import ctypes
import threading

from . import _ffi
from ._context import context
from ._dtype import DTYPES
from ._errors import DtypeError, InvalidArgumentError, check, shut_down
from ._lib import lib
from ._stream import _current_handle
from ._tensor import Tensor, _empty

__all__ = ["from_dlpack", "install", "DLDevice", "DLDataType", "DLTensor", "DLManagedTensor",
           "DLManagedTensorVersioned", "kDLCPU", "kDLCUDA", "kDLCUDAHost", "kDLCUDAManaged"]

# ------------------------------------------------------------------ dlpack.h

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool = 0, 1, 2, 4, 6
DLPACK_MAJOR, DLPACK_MINOR = 1, 0
DLPACK_FLAG_BITMASK_READ_ONLY = 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    # deleter: void (*)(DLManagedTensor *), kept as an address
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


_DL_DTYPES = {
    "bool": (kDLBool, 8), "uint8": (kDLUInt, 8), "int8": (kDLInt, 8), "int16": (kDLInt, 16),
    "int32": (kDLInt, 32), "int64": (kDLInt, 64), "float16": (kDLFloat, 16),
    "bfloat16": (kDLBfloat, 16), "float32": (kDLFloat, 32), "float64": (kDLFloat, 64),
}
_FROM_DL = {v: DTYPES[k] for k, v in _DL_DTYPES.items()}

# ------------------------------------------------------------------ capsules

# A private PyDLL handle (the same symbols as ctypes.pythonapi), so that the
# argtypes set here never clash with another library's use of pythonapi.
_api = ctypes.PyDLL(None)


def _capi(name, restype, *argtypes):
    fn = _api[name]  # a new function object each time: argtypes of its own
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_PyCapsule_New = _capi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                       ctypes.c_void_p)
_PyCapsule_IsValid = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_PyCapsule_GetPointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                              ctypes.c_char_p)
_PyCapsule_SetName = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
# In the capsule destructor the capsule is being freed: it is passed as a raw
# address, never as an object (no reference counting on a dying object).
_IsValidRaw = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_GetPointerRaw = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)

# Capsule names must outlive the capsules: module constants.
_NAME = b"dltensor"
_USED = b"used_dltensor"
_NAME_V = b"dltensor_versioned"
_USED_V = b"used_dltensor_versioned"

_VOID_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

# ------------------------------------------------------------------ export

_exports: dict = {}  # managed struct address -> (struct, shape, strides, ek handle)
_lock = threading.RLock()  # reentrant: a deleter may run inside a locked section (GC)


def _export_deleter(addr) -> None:
    with _lock:
        entry = _exports.pop(addr, None)
    if entry is not None and not shut_down[0]:  # at exit nothing is freed
        lib.ek_tensor_release(entry[3])


_EXPORT_DELETER = _VOID_FN(_export_deleter)
_EXPORT_DELETER_ADDR = ctypes.cast(_EXPORT_DELETER, ctypes.c_void_p).value


def _capsule_destructor(cap) -> None:
    # Unconsumed capsule: still named dltensor(_versioned); a consumer renamed it.
    try:
        for name in (_NAME, _NAME_V):
            if _IsValidRaw(cap, name):
                _export_deleter(_GetPointerRaw(cap, name))
                return
    except Exception:  # noqa: BLE001 - never raise from a destructor
        pass


_CAPSULE_DESTRUCTOR = _VOID_FN(_capsule_destructor)
_CAPSULE_DESTRUCTOR_ADDR = ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p).value


def _dl_device(t: Tensor) -> tuple:
    dev_type, index = t._ctx._dev
    return (kDLCUDA, index) if dev_type == _ffi.EK_CUDA else (kDLCPU, 0)


def _native_of(ctx, handle) -> int:
    p = ctypes.c_void_p()
    if handle is None:
        st = _ffi.ek_stream()
        check(lib.ek_context_default_stream(ctx._handle(), ctypes.byref(st)))
        handle = st
    check(lib.ek_stream_native(handle, ctypes.byref(p)))
    return p.value or 0


_consumer_streams: dict = {}  # (Context, native cudaStream_t) -> wrapped ek Stream


def _consumer_stream(ctx, native: int):
    """ek's wrapper of a consumer's CUDA stream, made once and kept: destroying
    a wrapper synchronizes its stream, and the pool refers to it by id."""
    key = (ctx, native)
    s = _consumer_streams.get(key)
    if s is None:
        from ._stream import Stream
        s = _consumer_streams[key] = Stream.from_native(native, ctx)
    return s


def _sync_consumer(t: Tensor, stream) -> None:
    """Make the consumer's CUDA stream wait (no host wait) for ek's current
    stream, and mark t's storage as used on it, so that ek's pool reuses it
    only after the consumer's work on it."""
    if stream == -1:
        return
    if stream == 0:
        raise InvalidArgumentError("__dlpack__: stream=0 is ambiguous for CUDA (use 1 for the "
                                   "legacy default stream)", _ffi.EK_ERROR_INVALID_ARGUMENT)
    ctx = t._ctx
    mine = _current_handle(ctx)
    consumer = 1 if stream is None else int(stream)
    if consumer == (_native_of(ctx, mine) or 1):
        return
    from ._stream import Event
    theirs = _consumer_stream(ctx, 0 if consumer == 1 else consumer)
    ev = Event(ctx)
    check(lib.ek_event_record(ev._h, mine))
    theirs.wait_event(ev)
    check(lib.ek_tensor_record_stream(t._h, theirs._h))


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule sharing this tensor's memory (Array API protocol).
    ``max_version >= (1, 0)`` gives a "dltensor_versioned" capsule, otherwise
    a legacy "dltensor" one. ``stream`` (CUDA): the consumer's stream, which
    is made to wait for ek's current stream (see the module doc). ``copy=True``
    exports a copy; ``dl_device`` must be this tensor's device."""
    t = self
    if dl_device is not None and tuple(dl_device) != _dl_device(t):
        raise BufferError(f"__dlpack__: the tensor is on {t.device}; cannot export to "
                          f"DLPack device {tuple(dl_device)}")
    if copy:
        t = t.clone()
    code = _DL_DTYPES[t.dtype.name]
    if t.is_cuda:
        _sync_consumer(t, stream)
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    m = t._meta
    nd = m.ndim
    shape = (ctypes.c_int64 * max(nd, 1))(*m.shape[:nd])
    strides = (ctypes.c_int64 * max(nd, 1))(*m.strides[:nd])
    h = _ffi.ek_tensor()
    check(lib.ek_tensor_retain(t._h, ctypes.byref(h)))
    mt = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    dl = mt.dl_tensor
    dl.data = m.data
    dl.device = DLDevice(*_dl_device(t))
    dl.ndim = nd
    dl.dtype = DLDataType(code[0], code[1], 1)
    dl.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    dl.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    dl.byte_offset = 0
    mt.deleter = _EXPORT_DELETER_ADDR
    if versioned:
        mt.version = DLPackVersion(DLPACK_MAJOR, DLPACK_MINOR)
        mt.flags = 0
    addr = ctypes.addressof(mt)
    with _lock:  # t's context: destroyed after the consumer is done
        _exports[addr] = (mt, shape, strides, h, t._ctx)
    try:
        return _PyCapsule_New(addr, _NAME_V if versioned else _NAME, _CAPSULE_DESTRUCTOR_ADDR)
    except BaseException:
        _export_deleter(addr)
        raise


def _dlpack_device(self) -> tuple:
    """(device_type, device_id) as DLPack names them: (1, 0) for the CPU,
    (2, N) for cuda:N."""
    return _dl_device(self)


_TYPESTR = {"bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4",
            "int64": "<i8", "float16": "<f2", "float32": "<f4", "float64": "<f8"}


def _cuda_array_interface(self) -> dict:
    if not self.is_cuda:
        raise AttributeError("__cuda_array_interface__: only CUDA tensors have one (this one "
                             "is on the CPU)")
    ts = _TYPESTR.get(self.dtype.name)
    if ts is None:
        raise DtypeError(f"__cuda_array_interface__: {self.dtype} has no typestr",
                         _ffi.EK_ERROR_DTYPE)
    m = self._meta
    size = self.itemsize
    strides = None if m.is_contiguous else tuple(s * size for s in m.strides[:m.ndim])
    stream = _native_of(self._ctx, _current_handle(self._ctx)) or 1
    return {"shape": tuple(m.shape[:m.ndim]), "typestr": ts, "data": (m.data or 0, False),
            "strides": strides, "version": 3, "stream": stream}


# ------------------------------------------------------------------ import

_imports: dict = {}  # managed struct address -> (deleter address, CUDA Context or None)


def _import_deleter(_data, user_data) -> None:
    # Called by ek when the last view of the wrapped memory is released. On
    # CUDA, ek's queued kernels may still use the memory: wait for them before
    # the producer may reuse it (PyTorch's caching allocator would at once).
    with _lock:
        entry = _imports.pop(user_data, None)
    if entry is None:
        return
    deleter, cuda_ctx = entry
    if cuda_ctx is not None and not cuda_ctx.closed:
        lib.ek_context_synchronize(cuda_ctx._h)
    if deleter:
        _VOID_FN(deleter)(user_data)


_IMPORT_DELETER = _ffi.ek_deleter(_import_deleter)


def _is_capsule(x) -> bool:
    return type(x).__name__ == "PyCapsule"


def _ek_stream_for_consumer(dev) -> int | None:
    """The stream value ek passes to a producer's __dlpack__."""
    if dev[0] not in (kDLCUDA, kDLCUDAManaged):
        return None
    ctx = context(f"cuda:{dev[1]}")
    return _native_of(ctx, _current_handle(ctx)) or 1


def from_dlpack(x, *, device=None, copy=None) -> Tensor:
    """A tensor sharing the memory of ``x``: any object with ``__dlpack__`` (a
    NumPy array, a PyTorch or CuPy tensor, ...) or a DLPack capsule. The
    producer is kept alive until the tensor (and every view of it) is gone.
    ``device`` moves the result there (a copy when it differs); ``copy=True``
    always copies.

    A read-only source (a versioned capsule flagged
    ``DLPACK_FLAG_BITMASK_READ_ONLY``, e.g. a NumPy array with
    ``flags.writeable = False``) is copied: ek tensors are always writable,
    so sharing it would let ``x += 1`` change memory its producer promised
    not to change. ``copy=False`` then raises BufferError. (A legacy
    "dltensor" capsule carries no read-only flag: it is shared.)"""
    if _is_capsule(x):
        cap = x
    else:
        if not hasattr(x, "__dlpack__"):
            raise TypeError(f"ek.from_dlpack: {type(x).__name__} has no __dlpack__")
        dev = tuple(x.__dlpack_device__()) if hasattr(x, "__dlpack_device__") else (kDLCPU, 0)
        stream = _ek_stream_for_consumer(dev)
        try:
            cap = x.__dlpack__(stream=stream, max_version=(DLPACK_MAJOR, DLPACK_MINOR))
        except TypeError:
            cap = x.__dlpack__(stream=stream)
    t, read_only = _import_capsule(cap)
    if read_only:
        if copy is False:
            raise BufferError("ek.from_dlpack: the source is read-only and ek tensors are "
                              "writable; copy=False cannot be honoured (pass copy=None or True)")
        copy = True
    if device is not None:
        t = t.to(device, copy=bool(copy))
    elif copy:
        t = t.clone()
    return t


def _import_capsule(cap) -> tuple:
    """(a tensor wrapping the capsule's memory, whether the producer marked it read-only)."""
    read_only = False
    if _PyCapsule_IsValid(cap, _NAME_V):
        addr = _PyCapsule_GetPointer(cap, _NAME_V)
        mt = DLManagedTensorVersioned.from_address(addr)
        if mt.version.major > DLPACK_MAJOR:
            raise BufferError(f"ek.from_dlpack: DLPack {mt.version.major}.{mt.version.minor} "
                              f"is newer than this binding's {DLPACK_MAJOR}.{DLPACK_MINOR}")
        used = _USED_V
        read_only = bool(mt.flags & DLPACK_FLAG_BITMASK_READ_ONLY)
    elif _PyCapsule_IsValid(cap, _NAME):
        addr = _PyCapsule_GetPointer(cap, _NAME)
        mt = DLManagedTensor.from_address(addr)
        used = _USED
    else:
        raise InvalidArgumentError("ek.from_dlpack: not a DLPack capsule, or one already "
                                   "consumed", _ffi.EK_ERROR_INVALID_ARGUMENT)
    dl = mt.dl_tensor
    dt = _FROM_DL.get((dl.dtype.code, dl.dtype.bits))
    if dt is None or dl.dtype.lanes != 1:
        raise DtypeError(f"ek.from_dlpack: DLPack dtype (code {dl.dtype.code}, {dl.dtype.bits} "
                         f"bits, {dl.dtype.lanes} lanes) has no ek dtype", _ffi.EK_ERROR_DTYPE)
    kind, index = dl.device.device_type, dl.device.device_id
    if kind in (kDLCPU, kDLCUDAHost):
        ctx = context("cpu")
    elif kind in (kDLCUDA, kDLCUDAManaged):
        ctx = context(f"cuda:{index}")
    else:
        raise BufferError(f"ek.from_dlpack: DLPack device type {kind} is not supported "
                          "(CPU, CUDA, CUDA host or managed memory)")
    nd = dl.ndim
    shape = [dl.shape[i] for i in range(nd)]
    strides = [dl.strides[i] for i in range(nd)] if dl.strides else None
    numel = 1
    for s in shape:
        numel *= s
    _PyCapsule_SetName(cap, used)  # the capsule no longer owns mt: we do
    deleter = mt.deleter or 0
    if numel == 0 or not dl.data:
        if deleter:
            _VOID_FN(deleter)(addr)
        return _empty(shape, dt, ctx), False
    with _lock:
        _imports[addr] = (deleter, ctx if ctx.is_cuda else None)
    h = _ffi.ek_tensor()
    data = dl.data + dl.byte_offset
    st = (ctypes.c_int64 * nd)(*strides) if strides is not None else None
    rc = lib.ek_tensor_wrap(ctx._handle(), data, nd, (ctypes.c_int64 * max(nd, 1))(*shape), st,
                            dt.code, _IMPORT_DELETER, addr, ctypes.byref(h))
    if rc:
        _import_deleter(None, addr)
        check(rc)
    return Tensor._wrap(h, ctx), read_only


def install(cls) -> None:
    """Add __dlpack__, __dlpack_device__ and __cuda_array_interface__ to Tensor."""
    cls.__dlpack__ = _dlpack
    cls.__dlpack_device__ = _dlpack_device
    cls.__cuda_array_interface__ = property(_cuda_array_interface, doc=(
        "CUDA Array Interface v3 (CUDA tensors only; AttributeError on the CPU): shape, "
        "typestr, data (pointer, read-only False), strides in bytes (None when contiguous), "
        "version 3 and the stream of ek's current stream (1 for the legacy default)."))
