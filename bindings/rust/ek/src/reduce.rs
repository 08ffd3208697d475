//! Reductions (`ek_reduce`, `ek_var`, `ek_reduce_with_indices`), softmax
//! and scans (`ek_softmax` with its kind, `ek_scan` with its op).
//!
//! `dims` lists the reduced dims (negative ones count from the end); an
//! empty list reduces every dim. Forms as in the elementwise ops: `op`,
//! `op_into(…, &out)` and `op_on(…, &stream, out)`.
use ek_sys as sys;

use crate::error::Result;
use crate::stream::{raw_stream, Stream};
use crate::tensor::{ndim, Tensor};

/// Reductions (`ek_reduce_op`), for [`Tensor::reduce`]. PyTorch's dtypes:
/// sum/prod of bool or integers give int64; mean, norms (and var/std) need a
/// float input; argmax/argmin give int64; any/all give bool.
///
/// ```
/// use ek::{Context, Device, ReduceOp, Tensor};
/// let ctx = Context::new(Device::Cpu)?;
/// let x = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 5, 2, 7, 0, 3])?;
/// assert_eq!(x.reduce(ReduceOp::Sum, &[1], false)?.to_vec::<i64>()?, [8, 10]);
/// assert_eq!(x.reduce(ReduceOp::Argmax, &[], false)?.item::<i64>()?, 3);
/// # Ok::<(), ek::Error>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReduceOp {
    Sum,
    Mean,
    Prod,
    Max,
    Min,
    Argmax,
    Argmin,
    Any,
    All,
    NormL1,
    NormL2,
    NormInf,
}

impl ReduceOp {
    /// Every op, in the order of `ek.h`.
    pub const ALL: [ReduceOp; 12] = {
        use ReduceOp::*;
        [Sum, Mean, Prod, Max, Min, Argmax, Argmin, Any, All, NormL1, NormL2, NormInf]
    };

    /// The C constant.
    pub fn to_raw(self) -> sys::ek_reduce_op {
        use sys::ek_reduce_op as R;
        match self {
            ReduceOp::Sum => R::EK_REDUCE_SUM,
            ReduceOp::Mean => R::EK_REDUCE_MEAN,
            ReduceOp::Prod => R::EK_REDUCE_PROD,
            ReduceOp::Max => R::EK_REDUCE_MAX,
            ReduceOp::Min => R::EK_REDUCE_MIN,
            ReduceOp::Argmax => R::EK_REDUCE_ARGMAX,
            ReduceOp::Argmin => R::EK_REDUCE_ARGMIN,
            ReduceOp::Any => R::EK_REDUCE_ANY,
            ReduceOp::All => R::EK_REDUCE_ALL,
            ReduceOp::NormL1 => R::EK_REDUCE_NORM_L1,
            ReduceOp::NormL2 => R::EK_REDUCE_NORM_L2,
            ReduceOp::NormInf => R::EK_REDUCE_NORM_INF,
        }
    }
}

fn dims_ptr(dims: &[i32]) -> *const i32 {
    if dims.is_empty() {
        std::ptr::null()
    } else {
        dims.as_ptr()
    }
}

/// The scans and softmaxes along one dim.
#[derive(Copy, Clone)]
enum AlongDim {
    Softmax,
    LogSoftmax,
    Cumsum,
    Cumprod,
}

impl Tensor {
    // ------------------------------------------------------------ ek_reduce

    fn reduce_impl(
        &self,
        op: ReduceOp,
        dims: &[i32],
        keepdim: bool,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        let n = ndim(dims.len())?;
        // SAFETY: live handles; dims holds n values (NULL when n == 0).
        self.produce(out, |o| unsafe {
            sys::ek_reduce(raw_stream(s), op.to_raw(), self.as_raw(), n, dims_ptr(dims), keepdim as i32, o)
        })
    }

    /// Reduces over `dims` (all dims when empty); `keepdim` keeps them with
    /// size 1 (`ek_reduce`).
    pub fn reduce(&self, op: ReduceOp, dims: &[i32], keepdim: bool) -> Result<Tensor> {
        self.reduce_impl(op, dims, keepdim, None, None)
    }

    /// [`Tensor::reduce`] written into `out`.
    pub fn reduce_into(&self, op: ReduceOp, dims: &[i32], keepdim: bool, out: &Tensor) -> Result<()> {
        self.reduce_impl(op, dims, keepdim, None, Some(out)).map(drop)
    }

    /// [`Tensor::reduce`] on `stream`, into `out` when given.
    pub fn reduce_on(
        &self,
        op: ReduceOp,
        dims: &[i32],
        keepdim: bool,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        self.reduce_impl(op, dims, keepdim, Some(stream), out)
    }

    // ------------------------------------------------------------ ek_var

    fn var_impl(
        &self,
        dims: &[i32],
        correction: f64,
        keepdim: bool,
        sqrt: bool,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        let n = ndim(dims.len())?;
        // SAFETY: live handles; dims holds n values (NULL when n == 0).
        self.produce(out, |o| unsafe {
            let kind = if sqrt { sys::ek_var_kind::EK_VAR_STD } else { sys::ek_var_kind::EK_VAR_VARIANCE };
            sys::ek_var(raw_stream(s), kind, self.as_raw(), n, dims_ptr(dims), correction, keepdim as i32, o)
        })
    }

    /// Variance over `dims` (all when empty) with divisor `max(0, N -
    /// correction)` (`ek_var`); float inputs only.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[4], &[1.0f64, 2.0, 3.0, 4.0])?;
    /// assert_eq!(x.var(&[], 1.0, false)?.item::<f64>()?, 5.0 / 3.0);
    /// assert_eq!(x.std(&[0], 0.0, false)?.item::<f64>()?, 1.25f64.sqrt());
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn var(&self, dims: &[i32], correction: f64, keepdim: bool) -> Result<Tensor> {
        self.var_impl(dims, correction, keepdim, false, None, None)
    }

    /// Standard deviation: the square root of [`Tensor::var`] (`ek_var` with
    /// `EK_VAR_STD`).
    pub fn std(&self, dims: &[i32], correction: f64, keepdim: bool) -> Result<Tensor> {
        self.var_impl(dims, correction, keepdim, true, None, None)
    }

    /// Variance (standard deviation when `take_sqrt`) written into `out`.
    pub fn var_into(&self, dims: &[i32], correction: f64, keepdim: bool, take_sqrt: bool, out: &Tensor) -> Result<()> {
        self.var_impl(dims, correction, keepdim, take_sqrt, None, Some(out)).map(drop)
    }

    /// Variance (standard deviation when `take_sqrt`) on `stream`, into
    /// `out` when given.
    pub fn var_on(
        &self,
        dims: &[i32],
        correction: f64,
        keepdim: bool,
        take_sqrt: bool,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        self.var_impl(dims, correction, keepdim, take_sqrt, Some(stream), out)
    }

    // ------------------------------------------------------------ ek_reduce_with_indices

    fn max_dim_impl(
        &self,
        dim: i32,
        keepdim: bool,
        take_min: bool,
        s: Option<&Stream>,
        out: Option<(&Tensor, &Tensor)>,
    ) -> Result<(Tensor, Tensor)> {
        let (mut v, mut i): (sys::ek_tensor, sys::ek_tensor) = match out {
            Some((v, i)) => (v.as_raw(), i.as_raw()),
            None => (std::ptr::null_mut(), std::ptr::null_mut()),
        };
        // SAFETY: live handles; on success both out-parameters hold handles:
        // new ones (owned by us) when they were NULL, else the given ones.
        crate::error::check(unsafe {
            let op = if take_min { sys::ek_reduce_op::EK_REDUCE_MIN } else { sys::ek_reduce_op::EK_REDUCE_MAX };
            sys::ek_reduce_with_indices(raw_stream(s), op, self.as_raw(), dim, keepdim as i32, &mut v, &mut i)
        })?;
        Ok(match out {
            Some((v, i)) => (v.clone(), i.clone()),
            None => (Tensor::adopt(self, v), Tensor::adopt(self, i)),
        })
    }

    /// Maximum along `dim`: the values (`self`'s dtype) and the int64 indices
    /// of their first occurrence, as `torch.max(x, dim)`
    /// (`ek_reduce_with_indices` with `EK_REDUCE_MAX`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[2, 3], &[1.0f32, 9.0, 9.0, -1.0, -5.0, 0.0])?;
    /// let (values, indices) = x.max_dim(1, false)?;
    /// assert_eq!(values.to_vec::<f32>()?, [9.0, 0.0]);
    /// assert_eq!(indices.to_vec::<i64>()?, [1, 2]);
    /// let (values, indices) = x.min_dim(0, true)?;
    /// assert_eq!(values.shape(), [1, 3]);
    /// assert_eq!(indices.to_vec::<i64>()?, [1, 1, 1]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn max_dim(&self, dim: i32, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.max_dim_impl(dim, keepdim, false, None, None)
    }

    /// Minimum along `dim`, as [`Tensor::max_dim`].
    pub fn min_dim(&self, dim: i32, keepdim: bool) -> Result<(Tensor, Tensor)> {
        self.max_dim_impl(dim, keepdim, true, None, None)
    }

    /// Maximum (minimum when `take_min`) along `dim`, written into `values`
    /// and `indices` (int64).
    pub fn max_dim_into(&self, dim: i32, keepdim: bool, take_min: bool, values: &Tensor, indices: &Tensor) -> Result<()> {
        self.max_dim_impl(dim, keepdim, take_min, None, Some((values, indices))).map(drop)
    }

    /// Maximum (minimum when `take_min`) along `dim` on `stream`, into
    /// `out` (values, indices) when given.
    pub fn max_dim_on(
        &self,
        dim: i32,
        keepdim: bool,
        take_min: bool,
        stream: &Stream,
        out: Option<(&Tensor, &Tensor)>,
    ) -> Result<(Tensor, Tensor)> {
        self.max_dim_impl(dim, keepdim, take_min, Some(stream), out)
    }

    // ------------------------------------------------------------ softmax and scans

    fn along_impl(&self, which: AlongDim, dim: i32, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        let (st, x) = (raw_stream(s), self.as_raw());
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe {
            match which {
                AlongDim::Softmax => sys::ek_softmax(st, sys::ek_softmax_kind::EK_SOFTMAX_PLAIN, x, dim, o),
                AlongDim::LogSoftmax => sys::ek_softmax(st, sys::ek_softmax_kind::EK_SOFTMAX_LOG, x, dim, o),
                AlongDim::Cumsum => sys::ek_scan(st, sys::ek_scan_op::EK_SCAN_SUM, x, dim, o),
                AlongDim::Cumprod => sys::ek_scan(st, sys::ek_scan_op::EK_SCAN_PROD, x, dim, o),
            }
        })
    }

    /// Softmax along `dim` (negative counts from the end), float tensors only
    /// (`ek_softmax`); stable for large values.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[2, 2], &[0.0f64, 0.0, 1000.0, 1000.0])?;
    /// assert_eq!(x.softmax(-1)?.to_vec::<f64>()?, [0.5; 4]);
    /// let l = x.log_softmax(1)?.to_vec::<f64>()?;
    /// assert!((l[0] + 2f64.ln()).abs() < 1e-12);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn softmax(&self, dim: i32) -> Result<Tensor> {
        self.along_impl(AlongDim::Softmax, dim, None, None)
    }

    /// `log(softmax(self))` along `dim`, computed stably (`ek_softmax` with
    /// `EK_SOFTMAX_LOG`).
    pub fn log_softmax(&self, dim: i32) -> Result<Tensor> {
        self.along_impl(AlongDim::LogSoftmax, dim, None, None)
    }

    /// Inclusive cumulative sum along `dim` (`ek_scan` with `EK_SCAN_SUM`);
    /// int64 for bool and integer input.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// assert_eq!(x.cumsum(1)?.to_vec::<i64>()?, [1, 3, 6, 4, 9, 15]);
    /// assert_eq!(x.cumprod(0)?.to_vec::<i64>()?, [1, 2, 3, 4, 10, 18]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn cumsum(&self, dim: i32) -> Result<Tensor> {
        self.along_impl(AlongDim::Cumsum, dim, None, None)
    }

    /// Inclusive cumulative product along `dim` (`ek_scan` with `EK_SCAN_PROD`).
    pub fn cumprod(&self, dim: i32) -> Result<Tensor> {
        self.along_impl(AlongDim::Cumprod, dim, None, None)
    }

    /// [`Tensor::softmax`] written into `out`.
    pub fn softmax_into(&self, dim: i32, out: &Tensor) -> Result<()> {
        self.along_impl(AlongDim::Softmax, dim, None, Some(out)).map(drop)
    }

    /// [`Tensor::log_softmax`] written into `out`.
    pub fn log_softmax_into(&self, dim: i32, out: &Tensor) -> Result<()> {
        self.along_impl(AlongDim::LogSoftmax, dim, None, Some(out)).map(drop)
    }

    /// [`Tensor::cumsum`] written into `out`.
    pub fn cumsum_into(&self, dim: i32, out: &Tensor) -> Result<()> {
        self.along_impl(AlongDim::Cumsum, dim, None, Some(out)).map(drop)
    }

    /// [`Tensor::cumprod`] written into `out`.
    pub fn cumprod_into(&self, dim: i32, out: &Tensor) -> Result<()> {
        self.along_impl(AlongDim::Cumprod, dim, None, Some(out)).map(drop)
    }

    /// [`Tensor::softmax`] on `stream`, into `out` when given.
    pub fn softmax_on(&self, dim: i32, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.along_impl(AlongDim::Softmax, dim, Some(stream), out)
    }

    /// [`Tensor::log_softmax`] on `stream`, into `out` when given.
    pub fn log_softmax_on(&self, dim: i32, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.along_impl(AlongDim::LogSoftmax, dim, Some(stream), out)
    }

    /// [`Tensor::cumsum`] on `stream`, into `out` when given.
    pub fn cumsum_on(&self, dim: i32, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.along_impl(AlongDim::Cumsum, dim, Some(stream), out)
    }

    /// [`Tensor::cumprod`] on `stream`, into `out` when given.
    pub fn cumprod_on(&self, dim: i32, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.along_impl(AlongDim::Cumprod, dim, Some(stream), out)
    }
}

macro_rules! reduce_named {
    ($( $name:ident => $op:ident ),* $(,)?) => {
        /// Named reductions: `x.sum(&[1], false)` is `x.reduce(ReduceOp::Sum, &[1], false)`.
        impl Tensor {
            $(
                #[doc = concat!("[`ReduceOp::", stringify!($op), "`] over `dims` (all dims when empty).")]
                pub fn $name(&self, dims: &[i32], keepdim: bool) -> Result<Tensor> {
                    self.reduce(ReduceOp::$op, dims, keepdim)
                }
            )*
        }
    };
}

reduce_named! {
    sum => Sum, mean => Mean, prod => Prod, max => Max, min => Min, argmax => Argmax, argmin => Argmin,
    any => Any, all => All, norm_l1 => NormL1, norm_l2 => NormL2, norm_inf => NormInf,
}
