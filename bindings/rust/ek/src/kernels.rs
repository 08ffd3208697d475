//! Custom CUDA kernels: modules compiled at run time with NVRTC or loaded
//! from an image, their kernels, and elementwise kernels built from an
//! expression (`ek_module_*`, `ek_kernel_*`, `ek_elementwise_*`).
//!
//! Experimental: [`ElementwiseKernel`] and [`Kernel::launch_auto`] wrap
//! declarations that `ek.h` keeps under `EK_EXPERIMENTAL`, outside the ABI
//! promise: they may change in a minor release of the library (and so of
//! this crate).
//!
//! CUDA contexts only: on a CPU context every constructor here returns
//! [`Status::NOT_SUPPORTED`]. Caching (memory and disk) is the C library's;
//! see `include/ek.h`, section "custom kernels".
//!
//! # Threads
//!
//! [`Module`], [`Kernel`] and [`ElementwiseKernel`] are `Send` and `Sync`:
//! the C library guards each handle's lazy state (compilation, loading,
//! block-size tuning, specialisations) with a lock and makes the context's
//! device current in every call, so they may be used from several threads.
//!
//! # Soundness of launches
//!
//! [`Kernel::launch`] is safe in the Rust sense because arguments are only
//! tensors (passed as their device pointers) and plain scalars: a kernel that
//! indexes out of bounds can corrupt device memory (other tensors' values),
//! or fail asynchronously with a CUDA error reported by a later call, but
//! never reaches Rust's host memory, which tensor data crosses only through
//! copies. Launches are asynchronous: keep the tensors alive (or
//! [`Tensor::record_stream`] them) until the stream's work completes.
use std::ffi::CString;
use std::os::raw::{c_char, c_void};
use std::sync::Arc;

use ek_sys as sys;

use crate::context::{Context, ContextInner};
use crate::generated::ModuleOrigin;
use crate::scalar::Scalar;
use crate::error::{check, discard, Error, Result, Status};
use crate::sized::filled;
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

fn cstring(what: &str, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::new(Status::INVALID_ARGUMENT, format!("ek (Rust): {what} contains a NUL byte")))
}

fn count(what: &str, n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::new(Status::INVALID_ARGUMENT, format!("ek (Rust): {n} {what}")))
}

/// A module of CUDA code (`ek_module`): CUDA C++ source compiled for the
/// context's device by NVRTC (lazily, with in-memory and on-disk caches), or
/// an image (cubin, fatbin, PTX) built ahead of time. `Clone` adds a
/// reference to the same module (`ek_module_retain`) and dropping releases
/// one; the code stays loaded while kernels got from it live.
pub struct Module {
    raw: sys::ek_module,
    ctx: Arc<ContextInner>,
}

// SAFETY: the library serialises a module's compilation and loading with a
// lock, and makes the context's device current in every call: module handles
// may be used from, moved to and released on any thread.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    /// A module of CUDA C++ source for `ctx`'s device
    /// (`ek_module_from_source`). `name` labels the program in compiler
    /// messages (`None`: `"ek_module.cu"`); `options` are NVRTC options such
    /// as `"-DN=4"` (libek adds `-arch`; do not pass it). Nothing is compiled
    /// yet. Declare kernels `extern "C"` to look them up by name.
    pub fn from_source(ctx: &Context, source: &str, name: Option<&str>, options: &[&str]) -> Result<Module> {
        let source = cstring("source", source)?;
        let name = name.map(|n| cstring("name", n)).transpose()?;
        let options = options.iter().map(|o| cstring("an option", o)).collect::<Result<Vec<_>>>()?;
        let ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let n = count("options", ptrs.len())?;
        let mut raw: sys::ek_module = std::ptr::null_mut();
        // SAFETY: live context; the strings and the pointer array outlive the
        // call, which copies them.
        check(unsafe {
            sys::ek_module_from_source(
                ctx.inner.raw,
                source.as_ptr(),
                name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                if ptrs.is_empty() { std::ptr::null() } else { ptrs.as_ptr() },
                n,
                &mut raw,
            )
        })?;
        Ok(Module { raw, ctx: ctx.inner.clone() })
    }

    /// A module from an image built ahead of time: a cubin, a fatbin or PTX
    /// text (`ek_module_from_image`). The bytes are loaded before this
    /// returns. [`Status::DEVICE`] with the driver's message for an image the
    /// device cannot load.
    pub fn from_image(ctx: &Context, image: &[u8]) -> Result<Module> {
        let mut raw: sys::ek_module = std::ptr::null_mut();
        // SAFETY: live context; image points at image.len() readable bytes
        // for the duration of the call (the library loads them before returning).
        check(unsafe { sys::ek_module_from_image(ctx.inner.raw, image.as_ptr().cast(), image.len(), &mut raw) })?;
        Ok(Module { raw, ctx: ctx.inner.clone() })
    }

    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_module {
        self.raw
    }

    /// The context the module belongs to.
    pub fn context(&self) -> Context {
        Context { inner: self.ctx.clone() }
    }

    /// Compiles now, or finds the image in the caches, if not done yet
    /// (`ek_module_compile`). A compile error is [`Status::COMPILE`] and its
    /// message holds NVRTC's log; a failed compilation is not retried.
    pub fn compile(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_module_compile(self.raw) })
    }

    /// Where the module's code came from (`ek_module_get_origin`).
    pub fn origin(&self) -> Result<ModuleOrigin> {
        let mut o = sys::ek_module_origin::EK_MODULE_NOT_LOADED;
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_module_get_origin(self.raw, &mut o) })?;
        ModuleOrigin::from_raw(o)
            .ok_or_else(|| Error::new(Status::INTERNAL, format!("ek (Rust): unknown ek_module_origin {}", o.0)))
    }

    /// The kernel named `name`, compiling the module first if needed
    /// (`ek_module_get_kernel`). [`Status::INVALID_ARGUMENT`] when the module
    /// has no such kernel. The kernel keeps the code loaded after the module
    /// is dropped.
    pub fn get_kernel(&self, name: &str) -> Result<Kernel> {
        let name = cstring("kernel name", name)?;
        let mut raw: sys::ek_kernel = std::ptr::null_mut();
        // SAFETY: live handle, NUL-terminated name, valid out-parameter.
        check(unsafe { sys::ek_module_get_kernel(self.raw, name.as_ptr(), &mut raw) })?;
        Ok(Kernel { raw, ctx: self.ctx.clone() })
    }
}

impl Clone for Module {
    /// One more reference to the same module (`ek_module_retain`).
    fn clone(&self) -> Module {
        // SAFETY: live handle. Retain of a live handle cannot fail short of
        // memory corruption, which is a broken invariant.
        check(unsafe { sys::ek_module_retain(self.raw) }).expect("ek_module_retain failed on a live module");
        Module { raw: self.raw, ctx: self.ctx.clone() }
    }
}

impl Drop for Module {
    /// Releases this reference (`ek_module_release`); never panics.
    fn drop(&mut self) {
        // SAFETY: one reference owned by this value, released once.
        discard(unsafe { sys::ek_module_release(self.raw) });
    }
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("raw", &self.raw).field("origin", &self.origin().ok()).finish()
    }
}

/// A kernel's resource use and limits (`ek_kernel_attributes`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct KernelAttributes {
    /// Registers per thread.
    pub num_regs: i32,
    /// The most threads a block of this kernel can have.
    pub max_threads_per_block: i32,
    /// Static shared memory per block, in bytes.
    pub shared_bytes: usize,
    pub const_bytes: usize,
    /// Local memory per thread (spills, local arrays), in bytes.
    pub local_bytes: usize,
    /// The kernel's parameter count.
    pub num_params: i32,
    /// The parameters' total size, padding included.
    pub param_bytes: usize,
    /// E.g. 90 for PTX ISA of sm_90.
    pub ptx_version: i32,
    /// E.g. 90 for sm_90 machine code.
    pub binary_version: i32,
}

/// One kernel argument: a tensor, passed as its device pointer
/// (`ek_tensor_get_data`: element 0, offset included), or a scalar of fixed
/// width. Each must have the size of the kernel's parameter (a tensor: a
/// pointer, `T*`; `I32`/`U32`/`F32`: 4 bytes; the others 8), which the library
/// checks.
///
/// Built with `From`: `KernelArg::from(&tensor)`, `KernelArg::from(2.0f32)`,
/// or `(&tensor).into()`; or with the [`kernel_args!`](crate::kernel_args)
/// macro.
#[derive(Copy, Clone, Debug)]
pub enum KernelArg<'a> {
    /// The tensor's device pointer (`T*` in the kernel).
    Tensor(&'a Tensor),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl KernelArg<'_> {
    /// The size in bytes the argument passes.
    pub fn size(&self) -> usize {
        match self {
            KernelArg::Tensor(_) => std::mem::size_of::<*mut c_void>(),
            KernelArg::I32(_) | KernelArg::U32(_) | KernelArg::F32(_) => 4,
            KernelArg::I64(_) | KernelArg::U64(_) | KernelArg::F64(_) => 8,
        }
    }
}

impl<'a> From<&'a Tensor> for KernelArg<'a> {
    fn from(t: &'a Tensor) -> KernelArg<'a> {
        KernelArg::Tensor(t)
    }
}

impl<'a> From<&'a mut Tensor> for KernelArg<'a> {
    fn from(t: &'a mut Tensor) -> KernelArg<'a> {
        KernelArg::Tensor(t)
    }
}

macro_rules! scalar_arg {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for KernelArg<'_> {
            fn from(x: $t) -> Self {
                KernelArg::$v(x)
            }
        }
        impl From<&$t> for KernelArg<'_> {
            fn from(x: &$t) -> Self {
                KernelArg::$v(*x)
            }
        }
    )*};
}
scalar_arg!(i32 => I32, u32 => U32, i64 => I64, u64 => U64, f32 => F32, f64 => F64);

/// A `[KernelArg; N]` from a list of tensors (`&t`) and fixed-width scalars
/// (`1.0f32`, `n as i32`, …): each item goes through `KernelArg::from`.
///
/// ```
/// let args = ek::kernel_args![1i32, 2.5f64];
/// assert_eq!(args.len(), 2);
/// ```
#[macro_export]
macro_rules! kernel_args {
    ($($a:expr),* $(,)?) => {
        [$($crate::KernelArg::from($a)),*]
    };
}

/// The typed C arguments (`ek_kernel_value`): the library converts and checks
/// them (a tensor of another device, a value that does not fit). `u32`/`u64`
/// have no ek dtype and pass as their bytes, which point into `args`.
fn values(args: &[KernelArg<'_>]) -> Vec<sys::ek_kernel_value> {
    use sys::ek_dtype as D;
    args.iter()
        .map(|a| {
            let scalar = |d: D, s: Scalar| sys::ek_kernel_value { kind: K::EK_KERNEL_VALUE_SCALAR, dtype: d, scalar: s.to_raw(), ..none() };
            let bytes = |p: *const c_void, size| sys::ek_kernel_value { kind: K::EK_KERNEL_VALUE_BYTES, bytes: p, size, ..none() };
            match a {
                KernelArg::Tensor(t) => sys::ek_kernel_value { kind: K::EK_KERNEL_VALUE_TENSOR, tensor: t.as_raw(), ..none() },
                KernelArg::I32(v) => scalar(D::EK_INT32, (*v).into()),
                KernelArg::I64(v) => scalar(D::EK_INT64, (*v).into()),
                KernelArg::F32(v) => scalar(D::EK_FLOAT32, (*v).into()),
                KernelArg::F64(v) => scalar(D::EK_FLOAT64, (*v).into()),
                KernelArg::U32(v) => bytes((v as *const u32).cast(), 4),
                KernelArg::U64(v) => bytes((v as *const u64).cast(), 8),
            }
        })
        .collect()
}

use sys::ek_kernel_value_kind as K;

fn none() -> sys::ek_kernel_value {
    // SAFETY: plain C struct: zero is every field's "unused" (0 / NULL).
    unsafe { std::mem::zeroed() }
}

/// A kernel of a [`Module`] (`ek_kernel`). It keeps the module's code loaded.
/// `Clone` adds a reference to the same kernel (`ek_kernel_retain`) and
/// dropping releases one.
pub struct Kernel {
    raw: sys::ek_kernel,
    ctx: Arc<ContextInner>,
}

// SAFETY: kernel handles are immutable after creation but for the tuned block
// sizes, which the library guards with a lock; every call makes the context's
// device current. They may be used from, moved to and released on any thread.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl Kernel {
    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_kernel {
        self.raw
    }

    /// The context the kernel belongs to.
    pub fn context(&self) -> Context {
        Context { inner: self.ctx.clone() }
    }

    /// Resource use and limits (`ek_kernel_get_attributes`).
    pub fn attributes(&self) -> Result<KernelAttributes> {
        let mut a: sys::ek_kernel_attributes = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        check(unsafe { sys::ek_kernel_get_attributes(self.raw, &mut a) })?;
        Ok(KernelAttributes {
            num_regs: a.num_regs,
            max_threads_per_block: a.max_threads_per_block,
            shared_bytes: a.shared_bytes,
            const_bytes: a.const_bytes,
            local_bytes: a.local_bytes,
            num_params: a.num_params,
            param_bytes: a.param_bytes,
            ptx_version: a.ptx_version,
            binary_version: a.binary_version,
        })
    }

    /// Launches the kernel on `stream` (`None`: the context's default
    /// stream) with `grid` and `block` sizes `{x, y, z}` and `shared` bytes of
    /// dynamic shared memory (`ek_kernel_launch_values`). The argument count and
    /// each size must match the kernel's parameters, sizes must be non-zero
    /// and within the kernel's limits ([`Status::INVALID_ARGUMENT`] naming
    /// what differs). A tensor argument of another device is refused.
    /// Asynchronous.
    pub fn launch(&self, stream: Option<&Stream>, grid: [u32; 3], block: [u32; 3], shared: usize, args: &[KernelArg<'_>]) -> Result<()> {
        let raw = values(args);
        let n = count("kernel arguments", raw.len())?;
        // SAFETY: live handles; grid and block hold 3 values; raw holds n
        // values whose tensors and bytes `args` keeps alive for the call.
        check(unsafe {
            sys::ek_kernel_launch_values(raw_stream(stream), self.raw, grid.as_ptr(), block.as_ptr(), shared, raw.as_ptr(), n)
        })
    }

    /// Launches the kernel over `n` work items with a 1-D block of the size
    /// that ran fastest for it, and grid `ceil(n / block)`
    /// (`ek_kernel_launch_auto`); returns the block size launched (0 when
    /// `n == 0`, which launches nothing). The first launch in a problem-size
    /// bucket times the candidate sizes on these arguments, so the kernel
    /// must give the same result when run several times on them.
    ///
    /// Experimental (`EK_EXPERIMENTAL` in `ek.h`): not covered by the ABI
    /// promise, may change in a minor release.
    pub fn launch_auto(&self, stream: Option<&Stream>, n: u64, shared: usize, args: &[KernelArg<'_>]) -> Result<u32> {
        let raw = values(args);
        let count = count("kernel arguments", raw.len())?;
        let mut used: u32 = 0;
        // SAFETY: as for `launch`; `used` is a valid out-parameter.
        check(unsafe { sys::ek_kernel_launch_auto(raw_stream(stream), self.raw, n, shared, raw.as_ptr(), count, &mut used) })?;
        Ok(used)
    }
}

impl Clone for Kernel {
    /// One more reference to the same kernel (`ek_kernel_retain`).
    fn clone(&self) -> Kernel {
        // SAFETY: live handle; as for `Module::clone`.
        check(unsafe { sys::ek_kernel_retain(self.raw) }).expect("ek_kernel_retain failed on a live kernel");
        Kernel { raw: self.raw, ctx: self.ctx.clone() }
    }
}

impl Drop for Kernel {
    /// Releases the handle (`ek_kernel_release`); never panics.
    fn drop(&mut self) {
        // SAFETY: owned handle, released once.
        discard(unsafe { sys::ek_kernel_release(self.raw) });
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel").field("raw", &self.raw).finish()
    }
}

/// An elementwise kernel built from an expression, in the style of CuPy's
/// `ElementwiseKernel` (`ek_elementwise_*`): parameter lists of ek dtype
/// names (`"float32 x, float32 y"`), a CUDA C++ body that sees each parameter
/// as a scalar of the element at hand (and `i`, its index). Inputs broadcast
/// together; each specialisation (rank, contiguity) is compiled at its first
/// launch and cached. Errors in the lists are [`Status::INVALID_ARGUMENT`],
/// checked before the device (a CPU context then gives
/// [`Status::NOT_SUPPORTED`]).
///
/// Experimental (`EK_EXPERIMENTAL` in `ek.h`): not covered by the ABI
/// promise, may change in a minor release. Not `Clone`: the builder is not
/// reference counted (`ek_elementwise_destroy` frees it).
pub struct ElementwiseKernel {
    raw: sys::ek_elementwise,
    ctx: Arc<ContextInner>,
    n_outputs: usize,
}

// SAFETY: the builder's specialisation cache is guarded by a lock in the
// library and every call makes the context's device current: it may be used
// from, moved to and released on any thread.
unsafe impl Send for ElementwiseKernel {}
unsafe impl Sync for ElementwiseKernel {}

impl ElementwiseKernel {
    /// The builder (`ek_elementwise_create`); nothing is compiled yet.
    /// `name` is the kernel's symbol (`None`: `"ek_elementwise"`).
    pub fn new(ctx: &Context, in_params: &str, out_params: &str, body: &str, name: Option<&str>) -> Result<ElementwiseKernel> {
        let (i, o, b) = (cstring("in_params", in_params)?, cstring("out_params", out_params)?, cstring("body", body)?);
        let name = name.map(|n| cstring("name", n)).transpose()?;
        let mut raw: sys::ek_elementwise = std::ptr::null_mut();
        // SAFETY: live context, NUL-terminated strings (copied), valid out-parameter.
        check(unsafe {
            sys::ek_elementwise_create(
                ctx.inner.raw,
                i.as_ptr(),
                o.as_ptr(),
                b.as_ptr(),
                name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                &mut raw,
            )
        })?;
        // The library accepted the list: its parameters are comma-separated
        // "type name" pairs, so the commas count them.
        let n_outputs = out_params.split(',').filter(|p| !p.trim().is_empty()).count();
        Ok(ElementwiseKernel { raw, ctx: ctx.inner.clone(), n_outputs })
    }

    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_elementwise {
        self.raw
    }

    /// The number of output parameters.
    pub fn num_outputs(&self) -> usize {
        self.n_outputs
    }

    /// Runs the kernel on `stream` (`None`: the default stream)
    /// (`ek_elementwise_launch`). `inputs` and `outputs` must have the
    /// declared counts. A `None` output receives a new tensor of the
    /// broadcast shape and its parameter's dtype; a given one must have that
    /// shape and dtype and is written in place (it starts as the kernel's
    /// value of the output, so `z += x` accumulates). On failure `outputs` is
    /// left as it was. Asynchronous.
    pub fn launch(&self, stream: Option<&Stream>, inputs: &[&Tensor], outputs: &mut [Option<Tensor>]) -> Result<()> {
        let ins: Vec<sys::ek_tensor> = inputs.iter().map(|t| t.as_raw()).collect();
        let mut outs: Vec<sys::ek_tensor> =
            outputs.iter().map(|o| o.as_ref().map_or(std::ptr::null_mut(), |t| t.as_raw())).collect();
        let (ni, no) = (count("inputs", ins.len())?, count("outputs", outs.len())?);
        // SAFETY: live handles; `ins` and `outs` hold ni and no handles (NULL
        // for a new output); the library fills the NULL ones with new
        // references only on success, leaving given ones as they are.
        check(unsafe { sys::ek_elementwise_launch(raw_stream(stream), self.raw, ins.as_ptr(), ni, outs.as_mut_ptr(), no) })?;
        for (slot, raw) in outputs.iter_mut().zip(outs) {
            if slot.is_none() {
                *slot = Some(Tensor::adopt_raw(&self.ctx, raw));
            }
        }
        Ok(())
    }

    /// As [`ElementwiseKernel::launch`] on the default stream with every
    /// output new: returns them in declaration order.
    pub fn call(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let mut outputs: Vec<Option<Tensor>> = (0..self.n_outputs).map(|_| None).collect();
        self.launch(None, inputs, &mut outputs)?;
        Ok(outputs.into_iter().map(|o| o.expect("ek_elementwise_launch filled every output")).collect())
    }
}

impl Drop for ElementwiseKernel {
    /// Frees the builder and its kernels (`ek_elementwise_destroy`), after
    /// the context's work when it compiled any; never panics.
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed once.
        discard(unsafe { sys::ek_elementwise_destroy(self.raw) });
    }
}

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ElementwiseKernel").field("raw", &self.raw).field("n_outputs", &self.n_outputs).finish()
    }
}

/// Empties `ctx`'s disk kernel cache directory and this process's memory
/// cache (`ek_kernel_cache_clear`); loaded modules stay usable. CUDA contexts
/// only ([`Status::NOT_SUPPORTED`] on the CPU).
pub fn kernel_cache_clear(ctx: &Context) -> Result<()> {
    // SAFETY: live context.
    check(unsafe { sys::ek_kernel_cache_clear(ctx.inner.raw) })
}
