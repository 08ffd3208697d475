"""Zero-copy interchange: DLPack (``Tensor.__dlpack__``,
``Tensor.__dlpack_device__``, ``ek.from_dlpack``) and
``Tensor.__cuda_array_interface__`` (version 3).

Design notes: bindings/python/README.md, "Internals"."""

from __future__ import annotations

import ctypes
import threading

from . import _ffi
from ._context import context
from ._cint import filled
from ._errors import DtypeError, InvalidArgumentError, NotSupportedError, check, shut_down
from ._lib import lib
from ._stream import Stream, current_stream
from ._tensor import Tensor, tensor_methods

__all__ = ["from_dlpack", "DLDevice", "DLDataType", "DLTensor", "DLManagedTensor",
           "DLManagedTensorVersioned", "kDLCPU", "kDLCUDA", "kDLCUDAHost", "kDLCUDAManaged"]

# ------------------------------------------------------------------ dlpack.h

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
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

# ------------------------------------------------------------------ deleter relays

# struct address handed out -> (deleter to call, its argument, objects kept alive until then)
_relays: dict = {}
_lock = threading.RLock()  # reentrant: a deleter may run inside a locked section (GC)


def _relay_deleter(addr) -> None:
    """The deleter of every struct this module hands out: calls the deleter it
    stands for, once; at exit nothing is freed."""
    with _lock:
        entry = _relays.pop(addr, None)
    if entry is not None and entry[0] and not shut_down[0]:
        _VOID_FN(entry[0])(entry[1])


_RELAY_DELETER = _VOID_FN(_relay_deleter)
_RELAY_DELETER_ADDR = ctypes.cast(_RELAY_DELETER, ctypes.c_void_p).value


def _relay(struct, deleter, arg, keep=None) -> int:
    """Make ``struct``'s deleter call ``deleter(arg)``; returns its address."""
    addr = ctypes.addressof(struct)
    struct.deleter = _RELAY_DELETER_ADDR
    with _lock:
        _relays[addr] = (deleter, arg, struct, keep)
    return addr


def _capsule_destructor(cap) -> None:
    # Unconsumed capsule: still named dltensor(_versioned); a consumer renamed it.
    try:
        for name in (_NAME, _NAME_V):
            if _IsValidRaw(cap, name):
                _relay_deleter(_GetPointerRaw(cap, name))
                return
    except Exception:  # noqa: BLE001 - never raise from a destructor
        pass


_CAPSULE_DESTRUCTOR = _VOID_FN(_capsule_destructor)
_CAPSULE_DESTRUCTOR_ADDR = ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p).value

# ------------------------------------------------------------------ export


def _dl_device(t: Tensor) -> tuple:
    dev_type, index = t._ctx._dev
    return (kDLCUDA, index) if dev_type == _ffi.EK_CUDA else (kDLCPU, 0)


def _current_native(ctx) -> int:
    """ek's current stream of ctx as DLPack names it (1: the legacy default)."""
    return current_stream(ctx).native or 1


_consumer_streams: dict = {}  # (Context, native cudaStream_t) -> wrapped ek Stream


def _consumer_stream(ctx, native: int):
    """ek's wrapper of a consumer's CUDA stream, made once and kept: destroying
    a wrapper synchronizes its stream, and the pool refers to it by id."""
    key = (ctx, native)
    s = _consumer_streams.get(key)
    if s is None:
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
                                   "legacy default stream)")
    consumer = 1 if stream is None else int(stream)
    if consumer == _current_native(t._ctx):
        return
    theirs = _consumer_stream(t._ctx, 0 if consumer == 1 else consumer)
    theirs.wait_stream(current_stream(t._ctx))
    t.record_stream(theirs)


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
    if t.is_cuda:
        _sync_consumer(t, stream)
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    p = filled(lib.ek_tensor_to_dlpack, ctypes.c_void_p(), t._h)
    mt = DLManagedTensorVersioned.from_address(p.value)
    ek_deleter = mt.deleter
    if not versioned:  # the same DLTensor (its arrays are libek's) in the legacy struct
        mt = DLManagedTensor(dl_tensor=mt.dl_tensor)
    addr = _relay(mt, ek_deleter, p.value, keep=t._ctx)  # the context outlives the export
    try:
        return _PyCapsule_New(addr, _NAME_V if versioned else _NAME, _CAPSULE_DESTRUCTOR_ADDR)
    except BaseException:
        _relay_deleter(addr)
        raise


def _dlpack_device(self) -> tuple:
    """(device_type, device_id) as DLPack names them: (1, 0) for the CPU,
    (2, N) for cuda:N."""
    return _dl_device(self)


_TYPESTR = {"bool": "|b1", "uint8": "|u1", "int8": "|i1", "int16": "<i2", "int32": "<i4",
            "int64": "<i8", "float16": "<f2", "float32": "<f4", "float64": "<f8",
            "uint16": "<u2", "uint32": "<u4", "uint64": "<u8", "complex64": "<c8",
            "complex128": "<c16"}


def _cuda_array_interface(self) -> dict:
    if not self.is_cuda:
        raise AttributeError("__cuda_array_interface__: only CUDA tensors have one (this one "
                             "is on the CPU)")
    ts = _TYPESTR.get(self.dtype.name)
    if ts is None:
        raise DtypeError(f"__cuda_array_interface__: {self.dtype} has no typestr")
    check(lib.ek_tensor_eval(self._h))  # a pending fusion result is produced before it escapes
    m = self._meta
    size = self.itemsize
    strides = None if m.is_contiguous else tuple(s * size for s in m.strides[:m.ndim])
    stream = _current_native(self._ctx)
    return {"shape": tuple(m.shape[:m.ndim]), "typestr": ts, "data": (m.data or 0, False),
            "strides": strides, "version": 3, "stream": stream}


# ------------------------------------------------------------------ import


def _is_capsule(x) -> bool:
    return type(x).__name__ == "PyCapsule"


def _ek_stream_for_consumer(dev) -> int | None:
    """The stream value ek passes to a producer's __dlpack__."""
    if dev[0] not in (kDLCUDA, kDLCUDAManaged):
        return None
    return _current_native(context(f"cuda:{dev[1]}"))


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
    return _import_capsule(cap, device, copy)


def _source_context(dl: DLTensor):
    """The context libek wraps the memory with: its CUDA device's, else the
    CPU's (ek_tensor_from_dlpack rejects device kinds it does not support)."""
    kind, index = dl.device.device_type, dl.device.device_id
    return context(f"cuda:{index}" if kind in (kDLCUDA, kDLCUDAManaged) else "cpu")


def _import_capsule(cap, device, copy) -> Tensor:
    if _PyCapsule_IsValid(cap, _NAME_V):
        used, addr = _USED_V, _PyCapsule_GetPointer(cap, _NAME_V)
        mt = DLManagedTensorVersioned.from_address(addr)
        # Past another major version only the deleter may be read: libek says so.
        dl = mt.dl_tensor if mt.version.major == DLPACK_MAJOR else None
    elif _PyCapsule_IsValid(cap, _NAME):
        used, addr = _USED, _PyCapsule_GetPointer(cap, _NAME)
        dl = DLManagedTensor.from_address(addr).dl_tensor
    else:
        raise InvalidArgumentError("ek.from_dlpack: not a DLPack capsule, or one already "
                                   "consumed")
    ctx = context("cpu") if dl is None else _source_context(dl)
    want = ctx if device is None else context(device)
    flags = (_ffi.EK_DLPACK_NO_COPY if copy is False else
             _ffi.EK_DLPACK_COPY if copy and want is ctx else 0)
    src = addr
    if used == _USED:  # a versioned adapter, whose deleter is the legacy one's
        legacy = DLManagedTensor.from_address(addr)
        adapter = DLManagedTensorVersioned(version=DLPackVersion(DLPACK_MAJOR, DLPACK_MINOR),
                                           dl_tensor=legacy.dl_tensor)
        src = _relay(adapter, legacy.deleter, addr)
    h = _ffi.ek_tensor()
    rc = lib.ek_tensor_from_dlpack(ctx._handle(), src, flags, ctypes.byref(h))
    if rc != _ffi.EK_SUCCESS:
        if src != addr:
            with _lock:  # the capsule still owns the legacy struct
                _relays.pop(src, None)
        try:
            check(rc)
        except NotSupportedError as e:  # a version, device kind or copy=False it cannot honour
            raise BufferError(f"ek.from_dlpack: {e}") from e
    _PyCapsule_SetName(cap, used)  # consumed: libek owns the struct now
    t = Tensor._wrap(h, ctx)
    return t if want is ctx else t.to(want)


@tensor_methods
class DLPackMethods:
    __dlpack__ = _dlpack
    __dlpack_device__ = _dlpack_device
    __cuda_array_interface__ = property(_cuda_array_interface, doc=(
        "CUDA Array Interface v3 (CUDA tensors only; AttributeError on the CPU): shape, "
        "typestr, data (pointer, read-only False), strides in bytes (None when contiguous), "
        "version 3 and the stream of ek's current stream (1 for the legacy default)."))
