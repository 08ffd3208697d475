"""Custom CUDA kernels: ``RawModule``, ``RawKernel`` and ``ElementwiseKernel``.

Design notes: bindings/python/README.md, "Internals"."""

from __future__ import annotations

import ctypes
import operator
import os

import numpy as np

from . import _ffi
from ._context import Context, context
from ._dtype import DTYPES as _DTYPE_NAMES, dtype as _as_dtype
from ._cint import c_uint64, fields, filled, scalar
from ._errors import InvalidArgumentError, check, shut_down
from ._handles import _Closes, _Handle, closed_error, own, releaser
from ._lib import lib
from ._stream import stream_handle as _stream_handle

__all__ = ["RawModule", "RawKernel", "ElementwiseKernel"]

_ORIGINS = {v: k.replace("_", " ") for v, k in _ffi.ek_module_origin_names.items()}
_UINT_MAX = 0xFFFFFFFF


def _release(name: str):
    """The releaser ``name`` from this module's ``lib`` (a test may replace it)."""
    return releaser(name, lib_=lib)


def _kernel_context(device) -> Context:
    return context("cuda" if device is None else device)


def _encode(s, what: str) -> bytes:
    if isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode("utf-8")
    raise TypeError(f"{what}: expected str or bytes, got {type(s).__name__}")


# ---------------------------------------------------------------- modules


class RawModule(_Handle):
    """A module of CUDA C++ code: from source (compiled lazily by NVRTC), or
    from an image built ahead of time (cubin, fatbin or PTX).

    Exactly one of:

    - ``code``: CUDA C++ source (str). ``options`` are NVRTC options
      (``("-DN=4", "--use_fast_math")``; libek adds ``-arch`` itself), ``name``
      labels the program in compiler messages. Nothing is compiled until
      ``compile()`` or ``get_function()``; a source that does not compile
      raises ``ek.CompileError`` whose message holds NVRTC's log.
    - ``path``: a file holding a cubin, fatbin or PTX.
    - ``image``: the bytes of one (bytes, bytearray, memoryview, ...).

    ``device`` ("cuda", "cuda:N" or an ek.Context; default "cuda"). Kernels
    are looked up by symbol name: declare them ``extern "C"``.
    """

    def __init__(self, code: str | None = None, *, path=None, image=None,
                 name: str | None = None, options=(), device=None):
        given = [x is not None for x in (code, path, image)]
        if sum(given) != 1:
            raise TypeError("ek.RawModule: give exactly one of code, path= or image=")
        if isinstance(options, (str, bytes)):
            options = (options,)
        options = tuple(options)
        if code is None and (options or name is not None):
            raise TypeError("ek.RawModule: options= and name= apply to source code only, "
                            "not to an image")
        ctx = _kernel_context(device)
        h = _ffi.ek_module()
        if code is not None:
            src = _encode(code, "ek.RawModule: code")
            opts = [_encode(o, "ek.RawModule: options") for o in options]
            arr = None
            if opts:
                arr = (ctypes.c_char_p * len(opts))(*opts)
                arr = ctypes.cast(arr, ctypes.POINTER(ctypes.POINTER(ctypes.c_char)))
            check(lib.ek_module_from_source(
                ctx._handle(), src, None if name is None else _encode(name, "name"),
                arr, len(opts), ctypes.byref(h)))
        else:
            if path is not None:
                with open(os.fspath(path), "rb") as f:
                    data = f.read()
            else:
                data = bytes(memoryview(image).cast("B"))
            if not data:
                raise InvalidArgumentError("ek.RawModule: the image is empty")
            check(lib.ek_module_from_image(ctx._handle(), data, len(data), ctypes.byref(h)))
        self._own(h, _release("ek_module_release"), ctx)
        self._kernels: dict = {}

    def close(self) -> None:
        """Release the module now (later calls raise InvalidArgumentError);
        kernels already taken from it stay usable. Idempotent."""
        self._kernels = {}
        _Handle.close(self)

    def compile(self) -> None:
        """Compile now (or load from the memory or disk cache) unless done.
        Raises ``ek.CompileError`` with NVRTC's log; a failed compilation is
        not retried."""
        check(lib.ek_module_compile(self._handle()))

    @property
    def origin(self) -> str:
        """Where the code came from: "not loaded" (source, not compiled yet),
        "compiled" (by NVRTC in this process), "memory cache" (the image another
        module of this process compiled), "disk cache" or "image"."""
        o = filled(lib.ek_module_get_origin, _ffi.ek_module_origin(), self._handle())
        return _ORIGINS.get(o.value, str(o.value))

    def get_function(self, name: str) -> "RawKernel":
        """The kernel ``name`` (compiling the module first if needed);
        ``ek.InvalidArgumentError`` when the module has none of that name.
        The same RawKernel is returned for the same name; it stays usable
        after the module is closed."""
        k = self._kernels.get(name)
        if k is None or k.closed:
            h = filled(lib.ek_module_get_kernel, _ffi.ek_kernel(), self._handle(),
                       _encode(name, "name"))
            k = RawKernel._wrap(h, self._ctx, name)
            self._kernels[name] = k
        return k

    def __repr__(self) -> str:
        state = "closed" if self._h is None else self.origin
        return f"ek.RawModule(device={self.device!r}, {state})"


# ---------------------------------------------------------------- kernels


def _dims(v, what: str) -> ctypes.Array:
    """int or a sequence of 1 to 3 ints -> unsigned[3], padded with 1."""
    try:
        vals = [operator.index(v)]
    except TypeError:
        try:
            vals = [operator.index(x) for x in v]
        except TypeError:
            raise TypeError(f"{what}: expected an int or a tuple of 1 to 3 ints, got {v!r}") \
                from None
    if not 1 <= len(vals) <= 3:
        raise InvalidArgumentError(f"{what}: expected 1 to 3 sizes, got {len(vals)}")
    for x in vals:
        if not 0 <= x <= _UINT_MAX:
            raise InvalidArgumentError(f"{what}: size {x} out of range")
    vals += [1] * (3 - len(vals))
    return (ctypes.c_uint * 3)(*vals)


_CTYPES_DATA = (ctypes._SimpleCData, ctypes.Structure, ctypes.Union, ctypes.Array,
                ctypes._Pointer)
_CTYPES_DTYPES = {ctypes.c_bool: "bool", ctypes.c_int8: "int8", ctypes.c_uint8: "uint8",
                  ctypes.c_int16: "int16", ctypes.c_int32: "int32", ctypes.c_int64: "int64",
                  ctypes.c_longlong: "int64", ctypes.c_float: "float32",
                  ctypes.c_double: "float64"}


def _kernel_values(args, what: str):
    """Kernel arguments -> an ek_kernel_value array (ek_kernel_launch_values
    converts them): a tensor, a NumPy or ctypes scalar of an ek dtype as a
    typed scalar, any other ctypes value (a Structure, c_uint, a pointer) or
    NumPy scalar as its bytes. Objects used are kept on the array."""
    from ._tensor import Tensor  # cycle
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"{what}: args must be a tuple (or list) of kernel arguments, got "
                        f"{type(args).__name__}")
    arr = (_ffi.ek_kernel_value * len(args))()
    arr.keep = keep = []
    for i, (v, a) in enumerate(zip(arr, args)):
        name = _CTYPES_DTYPES.get(type(a)) if isinstance(a, ctypes._SimpleCData) else \
            a.dtype.name if isinstance(a, np.generic) else None
        if isinstance(a, Tensor):
            v.kind, v.tensor = _ffi.EK_KERNEL_VALUE_TENSOR, a._h
            keep.append(a)
        elif name in _DTYPE_NAMES:
            v.kind, v.dtype = _ffi.EK_KERNEL_VALUE_SCALAR, _as_dtype(name).code
            v.scalar = scalar(a.item() if isinstance(a, np.generic) else a.value, f"args[{i}]")
        else:
            b = _bytes(a, i, what)
            v.kind, v.bytes, v.size = _ffi.EK_KERNEL_VALUE_BYTES, ctypes.addressof(b), \
                ctypes.sizeof(b)
            keep.append(b)
    return arr


def _bytes(a, i: int, what: str):
    if isinstance(a, _CTYPES_DATA):
        return a
    if isinstance(a, np.generic) and a.dtype.kind in "biufc":
        return ctypes.create_string_buffer(a.tobytes(), a.dtype.itemsize)
    if hasattr(a, "__cuda_array_interface__"):  # CuPy arrays, PyTorch CUDA tensors
        return ctypes.c_void_p(a.__cuda_array_interface__["data"][0] or None)
    if isinstance(a, (bool, int, float, complex)):
        raise TypeError(
            f"{what}: args[{i}] is a bare Python {type(a).__name__} ({a!r}), whose width "
            "in the kernel is ambiguous: wrap it in a NumPy or ctypes scalar of the "
            "parameter's type, e.g. np.int32(5), np.uint64(n), np.float32(2.0) or "
            "ctypes.c_int(5)")
    raise TypeError(f"{what}: args[{i}]: cannot pass a {type(a).__name__} to a kernel "
                    "(expected an ek.Tensor, a NumPy scalar or a ctypes value)")


class RawKernel(_Handle):
    """A kernel of a RawModule (``RawModule.get_function``), or, as in CuPy,
    ``ek.RawKernel(code, name, options=(), device=None)``: the kernel ``name``
    of a module of that source, compiled at first use.

    Call it as ``kernel(grid, block, args, shared_mem=0, stream=None)``:
    ``grid`` and ``block`` are ints or tuples of up to 3 ints; ``args`` a
    tuple with one entry per kernel parameter:

    - an ``ek.Tensor`` (or any object with ``__cuda_array_interface__``)
      passes its device pointer (element 0);
    - a NumPy or ctypes scalar of an ek dtype (``np.float32(2)``,
      ``np.int32(n)``, ``ctypes.c_int(5)``) passes as a typed scalar (libek
      converts it exactly); any other NumPy scalar (``np.uint64(n)``) or
      ctypes value (a Structure, a pointer) passes its bytes. Bare Python
      ints and floats are refused (TypeError): their width in the kernel
      would be a guess.

    The count and sizes of the arguments are checked against the kernel's
    parameters (``ek.InvalidArgumentError`` naming the first that differs).
    Launches are asynchronous, on ``stream`` (an ek.Stream) or else this
    thread's current stream of the kernel's context; a tensor argument must
    stay alive until the kernel has run (or be ``record_stream``'d on a stream
    other than its own).
    """

    def __init__(self, code: str, name: str, options=(), *, device=None):
        self._module = RawModule(code, options=options, device=device)
        self._ctx = self._module.context
        self._name = name
        self._lazy = True

    @classmethod
    def _wrap(cls, h, ctx: Context, name: str) -> "RawKernel":
        self = cls.__new__(cls)
        self._module = None
        self._name = name
        self._lazy = False
        self._own(h, _release("ek_kernel_release"), ctx)
        return self

    def _handle(self):
        if self._lazy:
            h = filled(lib.ek_module_get_kernel, _ffi.ek_kernel(), self._module._handle(),
                       _encode(self._name, "name"))
            self._lazy = False
            self._own(h, _release("ek_kernel_release"), self._ctx)
            self._module.close()  # the kernel keeps its code loaded
            self._module = None
        return _Handle._handle(self)

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return self._h is None and not self._lazy

    def close(self) -> None:
        """Release the handle now (later calls raise InvalidArgumentError). Idempotent."""
        if self._lazy:
            self._lazy = False
            self._module.close()
            self._module = None
        _Handle.close(self)

    @property
    def name(self) -> str:
        """The kernel's symbol name."""
        return self._name

    @property
    def attributes(self) -> dict:
        """The kernel's attributes (ek_kernel_attributes) as a dict: num_regs,
        max_threads_per_block, shared_bytes, const_bytes, local_bytes,
        num_params, param_bytes, ptx_version, binary_version."""
        a = filled(lib.ek_kernel_get_attributes, _ffi.new(_ffi.ek_kernel_attributes),
                   self._handle())
        return fields(a)

    def __call__(self, grid, block, args, *, shared_mem: int = 0, stream=None) -> None:
        """Launch on a ``grid`` of ``block``-sized blocks (ints or tuples of up
        to 3) with ``args`` and ``shared_mem`` bytes of dynamic shared memory."""
        h = self._handle()
        g = _dims(grid, "ek.RawKernel: grid")
        b = _dims(block, "ek.RawKernel: block")
        arr = _kernel_values(args, f"ek.RawKernel {self._name!r}")
        check(lib.ek_kernel_launch_values(_stream_handle(stream, self._ctx), h, g, b,
                                          c_uint64(shared_mem, "shared_mem"), arr, len(arr)))

    def launch_auto(self, n: int, args, *, shared_mem: int = 0, stream=None) -> int:
        """Launch over ``n`` work items with a 1-D block of the size that ran
        fastest for this kernel (timed at the first launch of each problem-size
        bucket, so the kernel must give the same result when run several times
        on its arguments) and grid ceil(n / block). Returns the block size used
        (0 when n == 0: nothing is launched). Experimental
        (ek_kernel_launch_auto is under ``#ifdef EK_EXPERIMENTAL``)."""
        h = self._handle()
        n = operator.index(n)
        if n < 0:
            raise InvalidArgumentError(f"ek.RawKernel.launch_auto: n is {n}")
        arr = _kernel_values(args, f"ek.RawKernel {self._name!r}")
        used = filled(lib.ek_kernel_launch_auto, ctypes.c_uint(0),
                      _stream_handle(stream, self._ctx), h, c_uint64(n, "launch_auto: n"),
                      c_uint64(shared_mem, "shared_mem"), arr, len(arr))
        return used.value

    def __repr__(self) -> str:
        return f"ek.RawKernel({self._name!r}, device={self.device!r})"


# ---------------------------------------------------------------- elementwise


def _params(spec, what: str) -> list:
    """"float32 x, int64 n" -> [(dtype name, name), ...] (loosely; libek checks)."""
    if not isinstance(spec, str):
        raise TypeError(f"{what}: expected a str such as 'float32 x, float32 y', got "
                        f"{type(spec).__name__}")
    out = []
    for part in spec.split(","):
        words = part.split()
        if words:
            out.append((words[0], words[-1]))
    return out


class ElementwiseKernel(_Closes):
    """An elementwise kernel built from an expression, as CuPy's (experimental:
    ek_elementwise_* are declared under ``#ifdef EK_EXPERIMENTAL``)::

        k = ek.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                 "z = x * y + max(x, 0.0f)", "fma_relu")
        z = k(x, y)                 # a new tensor of the broadcast shape
        k(x, y, z)                  # into z (or k(x, y, out=z))

    ``in_params``/``out_params``: comma-separated "dtype name" lists (ek dtype
    names: bool, int8, ..., float16, bfloat16, float32, float64; f16/bf16 are
    float in the body). ``operation``: CUDA C++ seeing each parameter as the
    element at hand, plus ``i``, the element's index (C order over the
    broadcast shape); an output starts as its current value.

    Called with the inputs (ek Tensors, broadcast together by NumPy's rules;
    NumPy or Python scalars become 0-d tensors of their parameter's dtype),
    then optionally the outputs (a Tensor, or None for a new one), given
    positionally or as ``out=`` (a Tensor or a tuple). Returns the output, or
    a tuple when there are several. Each input must have its parameter's dtype
    (``ek.DtypeError``); a body that does not compile raises
    ``ek.CompileError`` with NVRTC's log at the first call.

    The lists are checked at construction (``ek.InvalidArgumentError`` naming
    the bad token). With ``device`` (a CUDA device or ek.Context) the kernel
    is built for that device at once (``ek.NotSupportedError`` on a CPU
    device); without, it is built per device of the tensors it is called
    with. ``close()`` (or a ``with`` block) releases what was built.
    """

    def __init__(self, in_params: str, out_params: str, operation: str,
                 name: str = "ek_elementwise", *, device=None):
        self._in = _params(in_params, "ek.ElementwiseKernel: in_params")
        self._out = _params(out_params, "ek.ElementwiseKernel: out_params")
        self._args = (_encode(in_params, "in_params"), _encode(out_params, "out_params"),
                      _encode(operation, "operation"),
                      None if name is None else _encode(name, "name"))
        self.name = "ek_elementwise" if name is None else name
        self.in_params, self.out_params, self.operation = in_params, out_params, operation
        self._built: dict = {}  # Context -> (handle, token releasing it)
        self._closed = False
        if device is not None:
            self._builder(context(device))
        else:
            # The lists are checked before the device: on the CPU context good
            # lists give EK_ERROR_NOT_SUPPORTED, bad ones the error naming them.
            h = _ffi.ek_elementwise()
            st = lib.ek_elementwise_create(context("cpu")._handle(), *self._args,
                                           ctypes.byref(h))
            if st == _ffi.EK_SUCCESS:  # a CPU backend that grew support
                lib.ek_elementwise_destroy(h)
            elif st == _ffi.EK_ERROR_NOT_SUPPORTED:
                lib.ek_clear_error()
            else:
                check(st)

    @property
    def nin(self) -> int:
        """Number of inputs."""
        return len(self._in)

    @property
    def nout(self) -> int:
        """Number of outputs."""
        return len(self._out)

    def _builder(self, ctx: Context):
        if self._closed or shut_down[0]:
            raise closed_error(self)
        entry = self._built.get(ctx)
        if entry is None:
            h = filled(lib.ek_elementwise_create, _ffi.ek_elementwise(), ctx._handle(),
                       *self._args)
            entry = (h, own(h, _release("ek_elementwise_destroy"), ctx._tok))
            self._built[ctx] = entry
        return entry[0]

    def close(self) -> None:
        """Release every built kernel now (waits for the context's work when
        one was compiled). Idempotent."""
        self._closed = True
        self._built = {}  # the tokens die: the kernels are released

    def __call__(self, *args, out=None, stream=None):
        """Run over the inputs (then optional outputs); see the class docstring."""
        from ._tensor import Tensor  # cycle
        nin, nout = len(self._in), len(self._out)
        if len(args) == nin:
            outs = [None] * nout
            if out is not None:
                outs = list(out) if isinstance(out, (tuple, list)) else [out]
                if len(outs) != nout:
                    raise TypeError(f"ek.ElementwiseKernel {self.name!r}: out= has {len(outs)} "
                                    f"tensor(s); the kernel has {nout} output(s)")
        elif len(args) == nin + nout:
            if out is not None:
                raise TypeError(f"ek.ElementwiseKernel {self.name!r}: outputs given both "
                                "positionally and as out=")
            outs = list(args[nin:])
        else:
            raise TypeError(f"ek.ElementwiseKernel {self.name!r}: takes {nin} input(s) and "
                            f"optionally {nout} output(s), got {len(args)} argument(s)")
        ins = list(args[:nin])
        for j, o in enumerate(outs):
            if o is not None and not isinstance(o, Tensor):
                raise TypeError(f"ek.ElementwiseKernel {self.name!r}: output {j} must be an "
                                f"ek.Tensor or None, got {type(o).__name__}")
        ctx = next((t.context for t in ins + outs if isinstance(t, Tensor)), None)
        if ctx is None:
            raise TypeError(f"ek.ElementwiseKernel {self.name!r}: needs at least one ek.Tensor "
                            "among its arguments (to know the device)")
        for j, a in enumerate(ins):
            if isinstance(a, Tensor):
                continue
            if isinstance(a, (bool, int, float, np.generic)):
                from ._creation import full  # cycle
                ins[j] = full((), a.item() if isinstance(a, np.generic) else a,
                              dtype=_as_dtype(self._in[j][0]), device=ctx)
            else:
                raise TypeError(f"ek.ElementwiseKernel {self.name!r}: input {j} "
                                f"({self._in[j][1]}) must be an ek.Tensor or a scalar, got "
                                f"{type(a).__name__}")
        h = self._builder(ctx)
        in_arr = (_ffi.ek_tensor * max(nin, 1))(*[t._h for t in ins])
        out_arr = (_ffi.ek_tensor * nout)(*[None if o is None else o._h for o in outs])
        check(lib.ek_elementwise_launch(_stream_handle(stream, ctx), h, in_arr, nin,
                                        out_arr, nout))
        res = tuple(o if o is not None else Tensor._wrap(out_arr[j], ctx)
                    for j, o in enumerate(outs))
        return res[0] if nout == 1 else res

    def __repr__(self) -> str:
        return (f"ek.ElementwiseKernel({self.in_params!r}, {self.out_params!r}, "
                f"{self.operation!r}, {self.name!r})")
