//! Safe Rust API of libek, a GPU tensor runtime with a stable C ABI.
//!
//! A thin layer over the C API in `include/ek.h` (raw declarations in
//! [`sys`], the `ek-sys` crate): it translates types, errors and lifetimes
//! only; semantics (shapes, broadcasting, casting, clamping) are the C
//! library's and documented there.
//!
//! - Every fallible call returns [`Result`]; an [`Error`] carries the
//!   [`Status`] and the library's message, which names the C function.
//! - Handles free themselves on `Drop`. Tensors, streams, events and kernels
//!   keep their [`Context`] alive, so the context is destroyed after the last
//!   of them (see "Lifetimes" below).
//! - Tensors stay on their thread ([`SendTensor`] moves one); see "Threads".
//! - Calls without a stream use the default stream of the context involved;
//!   `*_on` variants take a [`Stream`].
//!
//! ```
//! use ek::{Context, Device, DType, Tensor};
//! let ctx = Context::new(Device::Cpu)?;
//! let m = Tensor::arange(&ctx, 0.0, 12.0, 1.0, DType::F32)?.view(&[3, 4])?;
//! assert_eq!(m.select(1, -1)?.to_vec::<f32>()?, [3.0, 7.0, 11.0]);
//! assert_eq!(m.transpose(0, 1)?.contiguous()?.to_vec::<f32>()?[..3], [0.0, 4.0, 8.0]);
//! # Ok::<(), ek::Error>(())
//! ```
//!
//! Every op of the C library is a method (`x.exp()?`, `a.add(&b)?`,
//! `x.sum(&[1], false)?`, `a.matmul(&b)?`, …) or, generically, takes an op
//! enum ([`UnaryOp`], [`BinaryOp`], [`ReduceOp`], [`RandomDist`]). The
//! operators `+ - * / %`, `& | ^ << >>` and unary `-` work on `&Tensor`,
//! `Tensor` and scalars; since every op can fail (shapes, dtypes, devices)
//! their output is `Result<Tensor>`:
//!
//! ```
//! use ek::{Context, DType, Device, RandomDist, Tensor};
//! let ctx = Context::new(Device::Cpu)?;
//! ctx.manual_seed(0)?;
//! let x = Tensor::random(&ctx, &[4, 8], DType::F32, RandomDist::Normal { mean: 0.0, std: 0.1 })?;
//! let w = Tensor::random(&ctx, &[8, 3], DType::F32, RandomDist::Normal { mean: 0.0, std: 0.1 })?;
//! let b = Tensor::from_slice(&ctx, &[3], &[0.1f32, 0.2, 0.3])?;
//! let y = (&x.matmul(&w)? + &b)?.relu()?.softmax(-1)?;
//! assert_eq!(y.shape(), [4, 3]);
//! assert!((y.sum(&[], false)?.item::<f32>()? - 4.0).abs() < 1e-5);
//! let z = ((2.0 * &y)? - 1.0)?; // scalars on either side
//! assert_eq!((&z + &x).unwrap_err().status, ek::Status::SHAPE);
//! # Ok::<(), ek::Error>(())
//! ```
//!
//! # Threads
//!
//! A [`Tensor`] is a handle to shared storage: `clone()` and every view
//! (`slice`, `transpose`, `view`, …) alias the same memory, as in PyTorch, and
//! writes (`fill`, `copy_from`, `add_`, `*_into` outputs, kernel launches)
//! go through `&self`. Two threads writing one storage at once (or one
//! reading while another writes) would be a data race inside the library:
//! undefined behaviour reached from safe code. Rust's usual answer, `&mut`
//! for writes, cannot prevent it here, because two clones or views are two
//! owned values, each `&mut`-able. Nor can borrowed views (`View<'a>`, as in
//! `ndarray`) without giving up what this API is built on: views and clones
//! as ordinary values, returned by chains of ops.
//!
//! So a `Tensor` is modelled on `Rc<Cell<T>>`: it is neither `Send` nor
//! `Sync`. Mutation through `&self` is then sound, exactly as `Cell::set` is:
//! all handles of one storage live on the thread that made them, and the
//! library runs each call to completion (the CPU backend computes on the
//! calling thread) before that thread makes another. Racing writes no longer
//! compile:
//!
//! ```compile_fail,E0277
//! let ctx = ek::Context::new(ek::Device::Cpu)?;
//! let t = ek::Tensor::zeros(&ctx, &[1024], ek::DType::F32)?;
//! let alias = t.clone(); // the same storage
//! let h = std::thread::spawn(move || alias.fill(1.0)); // error: Tensor is not Send
//! t.fill(2.0)?;
//! # h.join().unwrap()?;
//! # Ok::<(), ek::Error>(())
//! ```
//!
//! ```compile_fail,E0277
//! let ctx = ek::Context::new(ek::Device::Cpu)?;
//! let t = ek::Tensor::zeros(&ctx, &[1024], ek::DType::F32)?;
//! std::thread::scope(|s| {
//!     s.spawn(|| t.fill(1.0)); // error: Tensor is not Sync
//!     s.spawn(|| t.slice(0, Some(0), Some(512), 1)?.fill(2.0));
//! });
//! # Ok::<(), ek::Error>(())
//! ```
//!
//! Work moves between threads in three ways: [`Tensor::into_send`] turns
//! the last handle of a storage into a [`SendTensor`] (it refuses while a
//! clone or view is alive; [`Tensor::copy`] makes an independent one), host
//! data travels as `Vec`s (`to_vec`, `from_slice`), and [`Context`],
//! [`Stream`], [`Event`], [`Module`], [`Kernel`] and [`ElementwiseKernel`]
//! are `Send` and `Sync` (the library locks their shared state), so every
//! thread can make its own tensors.
//!
//! ```
//! let ctx = ek::Context::new(ek::Device::Cpu)?;
//! let t = ek::Tensor::arange(&ctx, 0.0, 4.0, 1.0, ek::DType::F32)?.into_send().unwrap();
//! let sum = std::thread::spawn(move || t.into_tensor().sum(&[], false)?.item::<f32>()).join().unwrap()?;
//! assert_eq!(sum, 6.0);
//! # Ok::<(), ek::Error>(())
//! ```
//!
//! What the types do not order is the device: on CUDA, calls enqueue work on
//! a stream and return. Work on one stream runs in order; work on two
//! streams that touches the same memory must be ordered by the caller
//! ([`Event`], [`Stream::wait_event`], [`Tensor::record_stream`]), as in CUDA
//! and PyTorch. An unordered pair gives unspecified values in device memory,
//! never unsoundness on the host: device memory reaches Rust only through
//! copies, checked for every dtype (a `bool` byte other than 0 or 1 is never
//! made a Rust `bool`).
//!
//! # Lifetimes
//!
//! Every handle owns what it needs: tensors, streams, events, modules,
//! kernels and elementwise kernels hold their context (an `Arc`), so the C
//! context is destroyed after the last of them, the one order
//! `ek_context_destroy` accepts; a kernel keeps its module loaded in the
//! library. Reference-counted handles ([`Tensor`], [`Module`], [`Kernel`])
//! are `Clone` (`ek_*_retain`); each reference is released exactly once, by
//! `Drop`, as is every other handle (`ek_*_destroy`). Using a released
//! handle is undefined behaviour in C (`include/ek.h`); here it cannot be
//! written without `unsafe` (a raw handle from `as_raw` passed to [`sys`]).
//!
//! # Experimental items
//!
//! The profiler ([`Context::profiler_start`] and the rest, [`ProfileRecord`]),
//! elementwise builders ([`ElementwiseKernel`]) and autotuned launches
//! ([`Kernel::launch_auto`]) wrap declarations that `ek.h` keeps under
//! `EK_EXPERIMENTAL` (`ek-sys` is generated with it defined): they are not
//! covered by the library's ABI promise and may change in a minor release.
//!
//! The library must be found at run time: set `LD_LIBRARY_PATH` to its
//! directory, or run under `meson devenv -C <build>`.
#![warn(missing_debug_implementations)]

mod comm;
mod complex;
mod complex_scalar;
mod context;
mod device;
mod dtype;
mod error;
mod fusion;
mod generated;
mod graph;
mod indexing;
mod join;
mod kernels;
mod linalg;
mod linalg_ext;
mod log;
mod memory;
mod ops;
mod profiler;
mod random;
mod reduce;
mod scalar;
mod sized;
mod sort;
mod stream;
mod tensor;

pub use ek_sys as sys;

pub use comm::{group, Comm, UniqueId};
pub use complex::{Complex32, Complex64};
pub use context::{Context, ContextConfig};
pub use device::{device_count, live_handles, version, version_string, Device, DeviceInfo};
pub use dtype::{BF16Bits, DType, Element, F16Bits};
pub use error::{Error, Result, Status};
pub use generated::{BinaryOp, DeviceType, IndexCheck, LogLevel, MeshgridIndexing, ModuleOrigin, ReduceOp, UnaryOp};
pub use graph::{CaptureMode, Graph, GraphPool};
pub use indexing::Index;
pub use kernels::{kernel_cache_clear, ElementwiseKernel, Kernel, KernelArg, KernelAttributes, Module};
pub use log::{clear_log_callback, set_log_callback};
pub use memory::{MemoryBlock, MemoryEvent, MemoryStats};
pub use profiler::ProfileRecord;
pub use sort::Unique;
pub use random::{PhiloxState, RandomDist};
pub use scalar::Scalar;
pub use stream::{Event, Stream};
pub use fusion::FusionStats;
pub use generated::Fusion;
pub use tensor::{SendTensor, Tensor};
