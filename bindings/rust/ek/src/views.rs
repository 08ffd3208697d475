//! Views: new handles over the same storage; nothing is copied.
//! (`reshape` is the one that copies when no view exists.)
use ek_sys as sys;

use crate::error::Result;
use crate::tensor::{ndim, Tensor};

impl Tensor {
    /// `self[..., start:stop:step, ...]` along `dim`, with Python's rules:
    /// `None` bounds, negative indices, clamping, negative steps.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let t = ek::Tensor::arange(&ctx, 0.0, 10.0, 1.0, ek::DType::I64)?;
    /// assert_eq!(t.slice(0, Some(2), Some(-3), 2)?.to_vec::<i64>()?, [2, 4, 6]);
    /// assert_eq!(t.slice(0, None, None, -3)?.to_vec::<i64>()?, [9, 6, 3, 0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn slice(&self, dim: i32, start: Option<i64>, stop: Option<i64>, step: i64) -> Result<Tensor> {
        // Python's None is "from the first element in the step's direction" /
        // "past the last": the C library clamps these extremes accordingly.
        let (lo, hi) = (sys::EK_SLICE_MIN, sys::EK_SLICE_MAX);
        let start = start.unwrap_or(if step > 0 { lo } else { hi });
        let stop = stop.unwrap_or(if step > 0 { hi } else { lo });
        // SAFETY: live handle.
        self.view_of(|out| unsafe { sys::ek_view_slice(self.as_raw(), dim, start, stop, step, out) })
    }

    /// `self[..., index, ...]`: removes `dim`; `index` may be negative.
    pub fn select(&self, dim: i32, index: i64) -> Result<Tensor> {
        // SAFETY: live handle.
        self.view_of(|out| unsafe { sys::ek_view_select(self.as_raw(), dim, index, out) })
    }

    /// Reorders dims: dim `i` of the result is dim `perm[i]` of `self`.
    pub fn permute(&self, perm: &[i32]) -> Result<Tensor> {
        let n = ndim(perm.len())?;
        // SAFETY: live handle; perm holds n values.
        self.view_of(|out| unsafe { sys::ek_view_permute(self.as_raw(), n, perm.as_ptr(), out) })
    }

    /// Swaps two dims.
    pub fn transpose(&self, dim0: i32, dim1: i32) -> Result<Tensor> {
        // SAFETY: live handle.
        self.view_of(|out| unsafe { sys::ek_view_transpose(self.as_raw(), dim0, dim1, out) })
    }

    /// A new shape (one entry may be -1): a view when the strides allow,
    /// otherwise a contiguous copy (`ek_reshape`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let m = ek::Tensor::arange(&ctx, 0.0, 6.0, 1.0, ek::DType::F32)?.view(&[2, 3])?;
    /// let r = m.transpose(0, 1)?.reshape(&[-1])?; // not viewable: copied
    /// assert_eq!(r.to_vec::<f32>()?, [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// assert!(m.transpose(0, 1)?.view(&[-1]).is_err());
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        let n = ndim(shape.len())?;
        // SAFETY: live handle; shape holds n values.
        self.view_of(|out| unsafe { sys::ek_reshape(std::ptr::null_mut(), self.as_raw(), n, shape.as_ptr(), out) })
    }

    /// A view with a new shape (one entry may be -1); `Status::SHAPE` when the
    /// strides do not allow one (`ek_view_reshape`).
    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        let n = ndim(shape.len())?;
        // SAFETY: live handle; shape holds n values.
        self.view_of(|out| unsafe { sys::ek_view_reshape(self.as_raw(), n, shape.as_ptr(), out) })
    }

    /// Broadcasts size-1 dims (stride 0) and prepends dims; -1 keeps a size.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let e = ek::Tensor::from_slice(&ctx, &[3, 1], &[1u8, 2, 3])?.expand(&[2, 3, 2])?;
    /// assert_eq!(e.strides(), [0, 1, 0]);
    /// assert_eq!(e.to_vec::<u8>()?, [1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn expand(&self, shape: &[i64]) -> Result<Tensor> {
        let n = ndim(shape.len())?;
        // SAFETY: live handle; shape holds n values.
        self.view_of(|out| unsafe { sys::ek_view_expand(self.as_raw(), n, shape.as_ptr(), out) })
    }

    /// Removes the listed size-1 dims; an empty list removes every size-1 dim.
    pub fn squeeze(&self, dims: &[i32]) -> Result<Tensor> {
        let n = ndim(dims.len())?;
        let p = if dims.is_empty() { std::ptr::null() } else { dims.as_ptr() };
        // SAFETY: live handle; p is NULL or holds n values.
        self.view_of(|out| unsafe { sys::ek_view_squeeze(self.as_raw(), n, p, out) })
    }

    /// Inserts a size-1 dim at `dim` (in `[-ndim-1, ndim]`).
    pub fn unsqueeze(&self, dim: i32) -> Result<Tensor> {
        // SAFETY: live handle.
        self.view_of(|out| unsafe { sys::ek_view_unsqueeze(self.as_raw(), dim, out) })
    }

    /// Merges dims `start_dim..=end_dim` into one; `Status::SHAPE` when the
    /// strides do not allow a view (use [`Tensor::reshape`] to copy).
    pub fn flatten(&self, start_dim: i32, end_dim: i32) -> Result<Tensor> {
        // SAFETY: live handle.
        self.view_of(|out| unsafe { sys::ek_view_flatten(self.as_raw(), start_dim, end_dim, out) })
    }

    /// Any shape, strides and offset (in elements) over this tensor's storage;
    /// every reachable element must lie inside it (`Status::INDEX` otherwise).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let t = ek::Tensor::arange(&ctx, 0.0, 6.0, 1.0, ek::DType::I16)?;
    /// let w = t.as_strided(&[3, 2], &[1, 1], 1)?; // sliding windows
    /// assert_eq!(w.to_vec::<i16>()?, [1, 2, 2, 3, 3, 4]);
    /// assert_eq!(t.as_strided(&[7], &[1], 0).unwrap_err().status, ek::Status::INDEX);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn as_strided(&self, shape: &[i64], strides: &[i64], offset: i64) -> Result<Tensor> {
        let n = ndim(shape.len())?;
        if strides.len() != shape.len() {
            return Err(crate::error::Error::new(
                crate::Status::SHAPE,
                format!("ek::Tensor::as_strided: {} strides for {} dims", strides.len(), shape.len()),
            ));
        }
        // SAFETY: live handle; shape and strides hold n values each.
        self.view_of(|out| unsafe {
            sys::ek_view_as_strided(self.as_raw(), n, shape.as_ptr(), strides.as_ptr(), offset, out)
        })
    }
}
