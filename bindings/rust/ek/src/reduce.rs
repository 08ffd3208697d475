//! Max and min along a dim with their indices (`ek_reduce_with_indices`): two
//! outputs, so written here; the other reductions are generated.
use ek_sys as sys;

use crate::error::Result;
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

impl Tensor {
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
}
