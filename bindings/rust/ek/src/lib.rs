//! Safe Rust API of libek, a GPU tensor runtime with a stable C ABI.
//!
//! A thin layer over the C API in `include/ek.h` (raw declarations in
//! [`sys`], the `ek-sys` crate): it translates types, errors and lifetimes
//! only; semantics (shapes, broadcasting, casting, clamping) are the C
//! library's and documented there.
//!
//! - Every fallible call returns [`Result`]; an [`Error`] carries the
//!   [`Status`] and the library's message, which names the C function.
//! - Handles free themselves on `Drop`. Tensors, streams and events keep their
//!   [`Context`] alive, so the context is destroyed after the last of them.
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
//! The library must be found at run time: set `LD_LIBRARY_PATH` to its
//! directory, or run under `meson devenv -C <build>`.
#![warn(missing_debug_implementations)]

mod context;
mod device;
mod dtype;
mod error;
mod indexing;
mod kernels;
mod linalg;
mod log;
mod memory;
mod ops;
mod profiler;
mod random;
mod reduce;
mod stream;
mod tensor;
mod views;

pub use ek_sys as sys;

pub use context::{Context, ContextConfig, LogLevel};
pub use device::{device_count, live_handles, version, version_string, Device, DeviceInfo, DeviceType};
pub use dtype::{BF16Bits, DType, Element, F16Bits};
pub use error::{Error, Result, Status};
pub use kernels::{kernel_cache_clear, ElementwiseKernel, Kernel, KernelArg, KernelAttributes, Module, ModuleOrigin};
pub use log::{clear_log_callback, set_log_callback};
pub use memory::{MemoryBlock, MemoryEvent, MemoryStats};
pub use ops::{BinaryOp, UnaryOp};
pub use profiler::ProfileRecord;
pub use random::{PhiloxState, RandomDist};
pub use reduce::ReduceOp;
pub use stream::{Event, Stream};
pub use tensor::Tensor;
