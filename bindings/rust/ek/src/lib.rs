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
//! The library must be found at run time: set `LD_LIBRARY_PATH` to its
//! directory, or run under `meson devenv -C <build>`.
#![warn(missing_debug_implementations)]

mod context;
mod device;
mod dtype;
mod error;
mod memory;
mod stream;
mod tensor;
mod views;

pub use ek_sys as sys;

pub use context::{Context, ContextConfig, LogLevel};
pub use device::{device_count, live_handles, version, Device, DeviceInfo, DeviceType};
pub use dtype::{BF16Bits, DType, Element, F16Bits};
pub use error::{Error, Result, Status};
pub use memory::{MemoryBlock, MemoryStats};
pub use stream::{Event, Stream};
pub use tensor::Tensor;
