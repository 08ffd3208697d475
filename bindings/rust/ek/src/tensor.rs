//! Tensors: reference-counted views over device or host storage.
use std::fmt;
use std::mem::ManuallyDrop;
use std::os::raw::c_void;
use std::rc::Rc;
use std::sync::Arc;

use ek_sys as sys;

use crate::context::{Context, ContextInner};
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{check, discard, Error, Result, Status};
use crate::scalar::Scalar;
use crate::sized::filled;
use crate::stream::{raw_stream, Stream};

/// A tensor handle (`ek_tensor`): storage + dtype + shape + strides + offset.
/// `Clone` adds a reference to the same handle (`ek_tensor_retain`) and `Drop`
/// removes one (`ek_tensor_release`); views share storage with their source,
/// which lives until its last view is dropped. [`Tensor::copy`] copies the values.
///
/// Operations that write (`fill`, `copy_from`, `add_`, the `*_into` outputs)
/// take `&self`, since clones and views alias the same storage anyway, as in
/// PyTorch. This is sound because a `Tensor` is neither `Send` nor `Sync`
/// (like `Rc<Cell<T>>`): every handle of one storage stays on the thread that
/// made it, so no two threads ever write (or read and write) it at once. To
/// hand a tensor to another thread, [`Tensor::into_send`] it: that succeeds
/// only for the last handle of its storage. See the crate docs, "Threads".
///
/// ```
/// let ctx = ek::Context::new(ek::Device::Cpu)?;
/// let t = ek::Tensor::from_slice(&ctx, &[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// assert_eq!(t.shape(), [2, 3]);
/// assert_eq!(t.strides(), [3, 1]);
/// assert_eq!(t.dtype(), ek::DType::F32);
/// assert_eq!(t.transpose(0, 1)?.to_vec::<f32>()?, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
/// # Ok::<(), ek::Error>(())
/// ```
pub struct Tensor {
    raw: sys::ek_tensor,
    ctx: Arc<ContextInner>,
    /// Shared by every handle of this storage that this crate made (clones,
    /// views, `contiguous`/`reshape` results that may be views): its count
    /// tells [`Tensor::into_send`] whether this is the last one. Being an
    /// `Rc`, it also makes `Tensor` neither `Send` nor `Sync`.
    alias: Rc<()>,
}

impl Tensor {
    /// Runs a C call that returns a new tensor through `*out` (NULL on entry)
    /// and wraps it; the ops (ops.rs, reduce.rs, …) reach it through
    /// `derive` and `produce`.
    pub(crate) fn make(ctx: &Arc<ContextInner>, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<Tensor> {
        let mut out: sys::ek_tensor = std::ptr::null_mut();
        check(f(&mut out))?;
        Ok(Tensor::adopt_raw(ctx, out))
    }

    /// As [`Tensor::make`], for a result with new storage on this tensor's
    /// context (every op but the views).
    pub(crate) fn derive(&self, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<Tensor> {
        Tensor::make(&self.ctx, f)
    }

    /// As [`Tensor::derive`], for a result that is or may be a view of this
    /// tensor's storage (`ek_view_*`, `ek_reshape`, `ek_contiguous`): it
    /// counts as one more handle of the storage for [`Tensor::into_send`].
    pub(crate) fn view_of(&self, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<Tensor> {
        let mut out: sys::ek_tensor = std::ptr::null_mut();
        check(f(&mut out))?;
        Ok(Tensor { raw: out, ctx: self.ctx.clone(), alias: self.alias.clone() })
    }

    /// Takes ownership of a new handle `raw` (one reference, new storage) of
    /// `like`'s context.
    pub(crate) fn adopt(like: &Tensor, raw: sys::ek_tensor) -> Tensor {
        Tensor::adopt_raw(&like.ctx, raw)
    }

    /// Takes ownership of a new handle `raw` (one reference, new storage) of
    /// context `ctx`.
    pub(crate) fn adopt_raw(ctx: &Arc<ContextInner>, raw: sys::ek_tensor) -> Tensor {
        Tensor { raw, ctx: ctx.clone(), alias: Rc::new(()) }
    }

    /// Writes a C call's result into `out` (its `*out` given, never replaced).
    pub(crate) fn write_into(out: &Tensor, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<()> {
        let mut o = out.raw;
        check(f(&mut o))
    }

    /// A new tensor from a C call, or, with `out`, the result written there
    /// and a new reference to it returned.
    pub(crate) fn produce(&self, out: Option<&Tensor>, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<Tensor> {
        match out {
            Some(o) => Tensor::write_into(o, f).map(|()| o.clone()),
            None => self.derive(f),
        }
    }

    /// As [`Tensor::produce`], for a result that may be a view of `self`.
    pub(crate) fn produce_view(&self, out: Option<&Tensor>, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<Tensor> {
        match out {
            Some(o) => Tensor::write_into(o, f).map(|()| o.clone()),
            None => self.view_of(f),
        }
    }

    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_tensor {
        self.raw
    }

    // ------------------------------------------------------------ constructors

    /// A new tensor holding a copy of `data` (C order); `data.len()` must be
    /// the shape's element count.
    pub fn from_slice<T: Element>(ctx: &Context, shape: &[i64], data: &[T]) -> Result<Tensor> {
        Self::from_slice_impl(ctx, shape, data, None)
    }

    /// As [`Tensor::from_slice`], ordered on `stream`.
    pub fn from_slice_on<T: Element>(ctx: &Context, shape: &[i64], data: &[T], stream: &Stream) -> Result<Tensor> {
        Self::from_slice_impl(ctx, shape, data, Some(stream))
    }

    fn from_slice_impl<T: Element>(ctx: &Context, shape: &[i64], data: &[T], s: Option<&Stream>) -> Result<Tensor> {
        let ndim = len_i32(shape.len())?;
        // The C call reads numel * size bytes without knowing the buffer's
        // length: the binding checks it, since a wrong length is unsound here.
        let numel = shape.iter().try_fold(1i64, |acc, &d| if d < 0 { None } else { acc.checked_mul(d) });
        if numel != Some(data.len() as i64) {
            return Err(Error::new(
                Status::SHAPE,
                format!("ek::Tensor::from_slice: shape {shape:?} does not hold the {} values given", data.len()),
            ));
        }
        // SAFETY: data holds exactly numel elements of T's layout; the library
        // copies them before returning.
        Tensor::make(&ctx.inner, |out| unsafe {
            sys::ek_tensor_from_host(
                raw_stream(s),
                ctx.inner.raw,
                ndim,
                shape.as_ptr(),
                T::DTYPE.to_raw(),
                data.as_ptr() as *const c_void,
                out,
            )
        })
    }

    /// Wraps memory owned elsewhere without copying (`ek_tensor_wrap`, no
    /// deleter): device memory for a CUDA context, host memory for a CPU one.
    /// `strides` in elements (`None`: C-contiguous). libek never frees it.
    ///
    /// # Safety
    /// `data` must point at memory of the context's device holding every
    /// element the shape and strides reach, valid (and not mutated through
    /// Rust references) for as long as the tensor or any view of it lives.
    /// Another tensor wrapping the same memory counts as another storage: it
    /// must not be moved to another thread ([`Tensor::into_send`]) while
    /// this one is used, since the crate cannot see that they alias.
    pub unsafe fn wrap(ctx: &Context, data: *mut c_void, shape: &[i64], strides: Option<&[i64]>, dtype: DType) -> Result<Tensor> {
        let n = len_i32(shape.len())?;
        if strides.is_some_and(|st| st.len() != shape.len()) {
            return Err(Error::new(Status::SHAPE, "ek::Tensor::wrap: strides and shape differ in length"));
        }
        let sp = strides.map_or(std::ptr::null(), |st| st.as_ptr());
        Tensor::make(&ctx.inner, |out| {
            sys::ek_tensor_wrap(ctx.inner.raw, data, n, shape.as_ptr(), sp, dtype.to_raw(), None, std::ptr::null_mut(), out)
        })
    }

    /// A CPU tensor over `data` itself, without copying (`ek_tensor_wrap`
    /// with a deleter that drops the `Vec` with the last view).
    /// `Status::NOT_SUPPORTED` on a non-CPU context (use
    /// [`Tensor::from_slice`], which copies to the device).
    pub fn from_vec<T: Element>(ctx: &Context, shape: &[i64], data: Vec<T>) -> Result<Tensor> {
        if ctx.device()? != Device::Cpu {
            return Err(Error::new(Status::NOT_SUPPORTED, "ek::Tensor::from_vec: host memory needs a CPU context"));
        }
        let numel = shape.iter().try_fold(1i64, |acc, &d| if d < 0 { None } else { acc.checked_mul(d) });
        if numel != Some(data.len() as i64) {
            return Err(Error::new(
                Status::SHAPE,
                format!("ek::Tensor::from_vec: shape {shape:?} does not hold the {} values given", data.len()),
            ));
        }
        let n = len_i32(shape.len())?;
        unsafe extern "C" fn drop_vec<T>(_data: *mut c_void, user: *mut c_void) {
            // SAFETY: user is the Box<Vec<T>> leaked below, dropped once.
            drop(unsafe { Box::from_raw(user as *mut Vec<T>) });
        }
        let mut boxed = Box::new(data);
        let ptr = boxed.as_mut_ptr() as *mut c_void;
        let user = Box::into_raw(boxed) as *mut c_void;
        // SAFETY: ptr holds numel elements of T's layout, owned by the box
        // until the deleter runs; on failure the deleter is not kept.
        let r = Tensor::make(&ctx.inner, |out| unsafe {
            sys::ek_tensor_wrap(ctx.inner.raw, ptr, n, shape.as_ptr(), std::ptr::null(), T::DTYPE.to_raw(), Some(drop_vec::<T>), user, out)
        });
        if r.is_err() {
            // SAFETY: the library did not take the deleter: free here.
            drop(unsafe { Box::from_raw(user as *mut Vec<T>) });
        }
        r
    }

    /// A tensor filled with zeros.
    pub fn zeros(ctx: &Context, shape: &[i64], dtype: DType) -> Result<Tensor> {
        Self::full(ctx, shape, 0.0, dtype)
    }

    // ------------------------------------------------------------ DLPack

    /// Exports a view of this tensor as a DLPack 1.x `DLManagedTensorVersioned`
    /// (`ek_tensor_to_dlpack`; read its fields through `dlpack.h` or a DLPack
    /// crate). It holds a reference to the storage: whoever ends up owning it
    /// calls its `deleter` exactly once (a DLPack consumer does; passing it to
    /// [`Tensor::from_dlpack`] hands it over). No device work is waited for.
    pub fn to_dlpack(&self) -> Result<*mut sys::DLManagedTensorVersioned> {
        let mut out: *mut sys::DLManagedTensorVersioned = std::ptr::null_mut();
        // SAFETY: live handle, plain out-parameter.
        check(unsafe { sys::ek_tensor_to_dlpack(self.raw, &mut out) })?;
        Ok(out)
    }

    /// A tensor of `ctx` over a DLPack 1.x tensor's memory
    /// (`ek_tensor_from_dlpack`), on `ctx`'s device. `copy`: `None` shares
    /// it unless it is flagged read-only (then copies, as ek tensors are
    /// writable), `Some(true)` always copies, `Some(false)` never does
    /// (`Status::NOT_SUPPORTED` for a read-only source).
    ///
    /// On `Ok` the tensor owns `src` (its deleter runs after the last view is
    /// dropped, or already ran when it was copied); on `Err` `src` is still the
    /// caller's, who calls its deleter.
    ///
    /// # Safety
    /// `src` must point at a valid `DLManagedTensorVersioned` that nobody else
    /// will use or delete, whose memory holds every element its shape and
    /// strides reach, on `ctx`'s device. As with [`Tensor::wrap`], memory
    /// another tensor also reaches (e.g. the source of [`Tensor::to_dlpack`])
    /// counts as another storage: neither may be moved to another thread
    /// ([`Tensor::into_send`]) while the other is used.
    pub unsafe fn from_dlpack(ctx: &Context, src: *mut sys::DLManagedTensorVersioned, copy: Option<bool>) -> Result<Tensor> {
        let flags = match copy {
            None => 0,
            Some(true) => sys::EK_DLPACK_COPY,
            Some(false) => sys::EK_DLPACK_NO_COPY,
        };
        Tensor::make(&ctx.inner, |out| unsafe { sys::ek_tensor_from_dlpack(ctx.inner.raw, src, flags as i32, out) })
    }

    // ------------------------------------------------------------ properties

    fn info(&self) -> sys::ek_tensor_info {
        let mut info: sys::ek_tensor_info = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        let st = unsafe { sys::ek_tensor_get_info(self.raw, &mut info) };
        // A live handle always has info; failing here is a broken invariant.
        check(st).expect("ek_tensor_get_info failed on a live tensor");
        info
    }

    /// Sizes of the dimensions.
    pub fn shape(&self) -> Vec<i64> {
        let i = self.info();
        dims(i.shape, i.ndim)
    }

    /// Strides in elements.
    pub fn strides(&self) -> Vec<i64> {
        let i = self.info();
        dims(i.strides, i.ndim)
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.info().ndim as usize
    }

    pub fn dtype(&self) -> DType {
        DType::from_raw(self.info().dtype)
    }

    /// Number of elements.
    pub fn numel(&self) -> i64 {
        self.info().numel
    }

    /// Bytes of the elements (numel * element size).
    pub fn nbytes(&self) -> u64 {
        self.info().nbytes
    }

    /// Offset of element 0 from the start of the storage, in elements.
    pub fn offset(&self) -> i64 {
        self.info().offset
    }

    /// `true` when C-contiguous.
    pub fn is_contiguous(&self) -> bool {
        self.info().is_contiguous != 0
    }

    /// The tensor's device.
    pub fn device(&self) -> Device {
        Device::from_raw(self.info().device).unwrap_or(Device::Cpu)
    }

    /// Pointer to element 0 (device memory on CUDA); borrowed, valid while
    /// `self` or a view of the same storage lives.
    pub fn data_ptr(&self) -> *mut c_void {
        let mut p = std::ptr::null_mut();
        // SAFETY: live handle, valid out-parameter; failing is a broken invariant.
        check(unsafe { sys::ek_tensor_get_data(self.raw, &mut p) }).expect("ek_tensor_get_data failed on a live tensor");
        p
    }

    /// The context the tensor belongs to.
    pub fn context(&self) -> Context {
        Context { inner: self.ctx.clone() }
    }

    // ------------------------------------------------------------ data movement

    /// The values in C order, copied to the host. `T` must match the dtype
    /// (`Status::DTYPE` otherwise; use [`Tensor::cast`] first).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.to_vec_impl(None)
    }

    /// As [`Tensor::to_vec`], ordered on `stream`.
    pub fn to_vec_on<T: Element>(&self, stream: &Stream) -> Result<Vec<T>> {
        self.to_vec_impl(Some(stream))
    }

    fn to_vec_impl<T: Element>(&self, s: Option<&Stream>) -> Result<Vec<T>> {
        let info = self.info();
        let dtype = DType::from_raw(info.dtype);
        if dtype != T::DTYPE {
            return Err(Error::new(
                Status::DTYPE,
                format!("ek::Tensor::to_vec: tensor is {}, asked for {}", dtype.name(), T::DTYPE.name()),
            ));
        }
        let bytes = info.nbytes as usize;
        let mut buf: Vec<u8> = Vec::with_capacity(bytes);
        // SAFETY: buf has room for `bytes`, the size the library checks and writes.
        check(unsafe { sys::ek_tensor_to_host(raw_stream(s), self.raw, buf.as_mut_ptr() as *mut c_void, bytes) })?;
        // SAFETY: the synchronous copy wrote all `bytes` bytes.
        unsafe { buf.set_len(bytes) };
        Ok(T::from_host(buf))
    }

    /// The value of a one-element tensor (any number of dims), copied to the
    /// host; `Status::SHAPE` for other sizes, `Status::DTYPE` when `T` is not
    /// the dtype.
    pub fn item<T: Element>(&self) -> Result<T> {
        let n = self.numel();
        if n != 1 {
            return Err(Error::new(
                Status::SHAPE,
                format!("ek::Tensor::item: the tensor has {n} elements, not 1 (shape {:?})", self.shape()),
            ));
        }
        let mut v = self.to_vec::<T>()?;
        Ok(v.remove(0))
    }

    /// `self[...] = src`, broadcast and cast to this tensor (`ek_copy`); the two
    /// may live on different devices.
    pub fn copy_from(&self, src: &Tensor) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_copy(std::ptr::null_mut(), src.raw, self.raw) })
    }

    /// As [`Tensor::copy_from`], on `stream`.
    pub fn copy_from_on(&self, src: &Tensor, stream: &Stream) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_copy(stream.as_raw(), src.raw, self.raw) })
    }

    /// Sets every element to `value` (`ek_fill`), exactly where it fits the
    /// dtype; a value that does not fit an integer dtype is
    /// [`Status::INVALID_ARGUMENT`] (see [`Scalar`]).
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_fill(std::ptr::null_mut(), value.into().to_raw(), self.raw) })
    }

    /// As [`Tensor::fill`], on `stream`.
    pub fn fill_on(&self, value: impl Into<Scalar>, stream: &Stream) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_fill(stream.as_raw(), value.into().to_raw(), self.raw) })
    }

    /// A copy of this tensor in `ctx` (possibly another device).
    pub fn to_device(&self, ctx: &Context) -> Result<Tensor> {
        let dst = Tensor::empty(ctx, &self.shape(), self.dtype())?;
        dst.copy_from(self)?;
        Ok(dst)
    }

    /// Marks the storage as used on `stream`, so its release waits for it.
    pub fn record_stream(&self, stream: &Stream) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_tensor_record_stream(stream.as_raw(), self.raw) })
    }
}

impl Tensor {
    /// A new C-contiguous tensor with its own storage holding these values
    /// (`ek_tensor_empty` + `ek_copy`); unlike `clone()`, which shares them.
    pub fn copy(&self) -> Result<Tensor> {
        let dst = Tensor::empty(&self.context(), &self.shape(), self.dtype())?;
        dst.copy_from(self)?;
        Ok(dst)
    }

    /// Prepares the tensor to move to another thread: `Ok` when this is the
    /// last handle of its storage (no clone or view of it is alive), `Err`
    /// with the tensor unchanged otherwise (drop the others, or send a
    /// [`Tensor::copy`]). On CUDA the receiving thread's work is ordered
    /// after this thread's only if both use the same stream, or after a
    /// synchronize or an event, as always across streams.
    pub fn into_send(self) -> std::result::Result<SendTensor, Tensor> {
        if Rc::strong_count(&self.alias) != 1 {
            return Err(self);
        }
        let t = ManuallyDrop::new(self);
        // SAFETY: fields moved out of a value that is never dropped; the
        // alias token, the last of its kind, is dropped here, on its thread.
        let (raw, ctx, alias) = unsafe { (t.raw, std::ptr::read(&t.ctx), std::ptr::read(&t.alias)) };
        drop(alias);
        Ok(SendTensor { raw, ctx })
    }
}

/// A tensor on its way to another thread ([`Tensor::into_send`]): the only
/// handle of its storage, so it is `Send`. [`SendTensor::into_tensor`] gives
/// the tensor back on the receiving thread; dropping it releases the handle.
pub struct SendTensor {
    raw: sys::ek_tensor,
    ctx: Arc<ContextInner>,
}

// SAFETY: no other handle of the storage exists (into_send checked it and no
// method here makes one), so the receiving thread is its only user; the
// library's handle and storage reference counts are atomic and every call
// makes the context's device current, so any thread may use or release it.
unsafe impl Send for SendTensor {}

impl SendTensor {
    /// The tensor, on the current thread.
    pub fn into_tensor(self) -> Tensor {
        let s = ManuallyDrop::new(self);
        // SAFETY: the Arc is moved out of a value that is never dropped.
        let ctx = unsafe { std::ptr::read(&s.ctx) };
        Tensor { raw: s.raw, ctx, alias: Rc::new(()) }
    }
}

impl Drop for SendTensor {
    fn drop(&mut self) {
        // SAFETY: the one reference this value owns, released once.
        discard(unsafe { sys::ek_tensor_release(self.raw) });
    }
}

impl fmt::Debug for SendTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendTensor").field("raw", &self.raw).finish()
    }
}

/// `ek_tensor_info`'s shape or strides: `n` values borrowed from the live
/// handle (NULL when `n` is 0), copied.
fn dims(p: *const i64, n: i32) -> Vec<i64> {
    if p.is_null() || n <= 0 {
        return Vec::new();
    }
    // SAFETY: the library points p at n values inside the live handle.
    unsafe { std::slice::from_raw_parts(p, n as usize) }.to_vec()
}

/// A slice's length as the C API's `int` count.
pub(crate) fn len_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::new(Status::INVALID_ARGUMENT, format!("ek (Rust): {n} values in one array")))
}

/// An array argument: NULL when empty (the C API's "no values").
pub(crate) fn ptr<T>(s: &[T]) -> *const T {
    if s.is_empty() { std::ptr::null() } else { s.as_ptr() }
}

/// An optional value argument: NULL for `None`.
pub(crate) fn opt_ptr<T>(v: &Option<T>) -> *const T {
    v.as_ref().map_or(std::ptr::null(), |v| v as *const T)
}

/// A second array sharing the first's count must be as long (or empty: NULL),
/// since the C call reads `count` values from it.
pub(crate) fn same_len(f: &str, name: &str, len: usize, count: usize) -> Result<()> {
    if len == count || len == 0 {
        return Ok(());
    }
    Err(Error::new(Status::INVALID_ARGUMENT, format!("ek (Rust) {f}: {name} has {len} values, not {count}")))
}

/// The first tensor of a list, whose context a result takes.
pub(crate) fn first<'a>(xs: &[&'a Tensor], f: &str) -> Result<&'a Tensor> {
    xs.first().copied().ok_or_else(|| Error::new(Status::INVALID_ARGUMENT, format!("ek (Rust) {f}: no tensors")))
}

impl Clone for Tensor {
    /// One more reference to the same handle (`ek_tensor_retain`).
    fn clone(&self) -> Tensor {
        // SAFETY: live handle. Retain of a live handle cannot fail short of
        // memory corruption, which is a broken invariant.
        check(unsafe { sys::ek_tensor_retain(self.raw) }).expect("ek_tensor_retain failed on a live tensor");
        Tensor { raw: self.raw, ctx: self.ctx.clone(), alias: self.alias.clone() }
    }
}

impl Drop for Tensor {
    /// Releases this reference (`ek_tensor_release`); never panics, and a
    /// failure (impossible for a handle this crate owns) is discarded.
    fn drop(&mut self) {
        // SAFETY: one reference owned by this value, released once.
        discard(unsafe { sys::ek_tensor_release(self.raw) });
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tensor")
            .field("dtype", &self.dtype())
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("device", &self.device())
            .finish()
    }
}
