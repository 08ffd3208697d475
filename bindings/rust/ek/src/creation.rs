//! Creation ops: [`Tensor::full`], [`Tensor::linspace`], [`Tensor::eye`]
//! (`ek_full`, `ek_linspace`, `ek_eye`) and the triangles [`Tensor::tril`],
//! [`Tensor::triu`] (`ek_tril`, `ek_triu`), the latter in the four forms of
//! the op module (`x.tril(k)`, `x.tril_into(k, &out)`, `x.tril_(k)` in place,
//! `x.tril_on(k, &stream, out)`).
use ek_sys as sys;

use crate::context::Context;
use crate::dtype::DType;
use crate::error::Result;
use crate::scalar::Scalar;
use crate::stream::{raw_stream, Stream};
use crate::tensor::{ndim, Tensor};

type Triangle = unsafe extern "C" fn(sys::ek_stream, sys::ek_tensor, i64, *mut sys::ek_tensor) -> sys::ek_status;

impl Tensor {
    /// A tensor filled with `value` (`ek_full`), converted to `dtype` as by
    /// [`Tensor::fill`]: a value that does not fit an integer dtype is
    /// `Status::INVALID_ARGUMENT`.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let t = ek::Tensor::full(&ctx, &[2, 2], 7.0, ek::DType::I64)?;
    /// assert_eq!(t.to_vec::<i64>()?, [7; 4]);
    /// let big = (1i64 << 62) + 1; // exact: never through an f64
    /// assert_eq!(ek::Tensor::full(&ctx, &[1], big, ek::DType::I64)?.to_vec::<i64>()?, [big]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn full(ctx: &Context, shape: &[i64], value: impl Into<Scalar>, dtype: DType) -> Result<Tensor> {
        let n = ndim(shape.len())?;
        let v = value.into().to_raw();
        // SAFETY: live context; shape points at n values.
        Tensor::make(&ctx.inner, |out| unsafe {
            sys::ek_full(std::ptr::null_mut(), ctx.inner.raw, n, shape.as_ptr(), dtype.to_raw(), v, out)
        })
    }

    /// `num` evenly spaced values from `start` to `stop` (`stop` included when
    /// `endpoint`), as `numpy.linspace` (`ek_linspace`): computed in `f64`, the
    /// last element exactly `stop`; integer dtypes round toward -inf.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let t = ek::Tensor::linspace(&ctx, 0.0, 1.0, 5, true, ek::DType::F64)?;
    /// assert_eq!(t.to_vec::<f64>()?, [0.0, 0.25, 0.5, 0.75, 1.0]);
    /// let t = ek::Tensor::linspace(&ctx, -1, 1, 5, true, ek::DType::I32)?;
    /// assert_eq!(t.to_vec::<i32>()?, [-1, -1, 0, 0, 1]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn linspace(
        ctx: &Context,
        start: impl Into<Scalar>,
        stop: impl Into<Scalar>,
        num: i64,
        endpoint: bool,
        dtype: DType,
    ) -> Result<Tensor> {
        let (a, b) = (start.into().to_raw(), stop.into().to_raw());
        // SAFETY: live context.
        Tensor::make(&ctx.inner, |out| unsafe {
            sys::ek_linspace(std::ptr::null_mut(), ctx.inner.raw, a, b, num, endpoint as i32, dtype.to_raw(), out)
        })
    }

    /// An `n x m` tensor with ones on diagonal `k` (0 the main one, `k > 0`
    /// above it, `k < 0` below) and zeros elsewhere, as `numpy.eye` (`ek_eye`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let t = ek::Tensor::eye(&ctx, 2, 3, 1, ek::DType::F32)?;
    /// assert_eq!(t.to_vec::<f32>()?, [0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn eye(ctx: &Context, n: i64, m: i64, k: i64, dtype: DType) -> Result<Tensor> {
        // SAFETY: live context.
        Tensor::make(&ctx.inner, |out| unsafe {
            sys::ek_eye(std::ptr::null_mut(), ctx.inner.raw, n, m, k, dtype.to_raw(), out)
        })
    }

    fn triangle_impl(&self, f: Triangle, k: i64, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { f(raw_stream(s), self.as_raw(), k, o) })
    }

    /// The lower triangle of each matrix over the last two dims (`ek_tril`):
    /// elements with `j - i <= k` kept, the rest 0 (`numpy.tril`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[2, 3], &[1, 2, 3, 4, 5, 6i32])?;
    /// assert_eq!(x.tril(0)?.to_vec::<i32>()?, [1, 0, 0, 4, 5, 0]);
    /// assert_eq!(x.triu(1)?.to_vec::<i32>()?, [0, 2, 3, 0, 0, 6]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn tril(&self, k: i64) -> Result<Tensor> {
        self.triangle_impl(sys::ek_tril, k, None, None)
    }

    /// [`Tensor::tril`] written into `out` (`self`'s shape and dtype).
    pub fn tril_into(&self, k: i64, out: &Tensor) -> Result<()> {
        self.triangle_impl(sys::ek_tril, k, None, Some(out)).map(drop)
    }

    /// [`Tensor::tril`] in place.
    pub fn tril_(&self, k: i64) -> Result<()> {
        self.tril_into(k, self)
    }

    /// [`Tensor::tril`] on `stream`, into `out` when given.
    pub fn tril_on(&self, k: i64, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.triangle_impl(sys::ek_tril, k, Some(stream), out)
    }

    /// The upper triangle of each matrix over the last two dims (`ek_triu`):
    /// elements with `j - i >= k` kept, the rest 0 (`numpy.triu`).
    pub fn triu(&self, k: i64) -> Result<Tensor> {
        self.triangle_impl(sys::ek_triu, k, None, None)
    }

    /// [`Tensor::triu`] written into `out` (`self`'s shape and dtype).
    pub fn triu_into(&self, k: i64, out: &Tensor) -> Result<()> {
        self.triangle_impl(sys::ek_triu, k, None, Some(out)).map(drop)
    }

    /// [`Tensor::triu`] in place.
    pub fn triu_(&self, k: i64) -> Result<()> {
        self.triu_into(k, self)
    }

    /// [`Tensor::triu`] on `stream`, into `out` when given.
    pub fn triu_on(&self, k: i64, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.triangle_impl(sys::ek_triu, k, Some(stream), out)
    }
}
