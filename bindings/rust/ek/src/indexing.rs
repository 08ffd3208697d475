//! Indexing (`ek_index_select`, `ek_gather`, `ek_scatter`, `ek_index_put`) and
//! masks (`ek_masked_select`, `ek_masked_fill`, `ek_masked_scatter`,
//! `ek_nonzero`), with PyTorch's semantics.
//!
//! Index tensors are int64 or int32 (negative values count from the end; out
//! of range is `Status::INDEX`, naming the value); masks are bool tensors that
//! broadcast to `self`. `masked_select` and `nonzero` synchronize the stream,
//! since their result's size depends on the data.
use ek_sys as sys;

use crate::error::{Error, Result, Status};
use crate::scalar::Scalar;
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

impl Tensor {
    // ------------------------------------------------------------ index_select, gather

    fn index_select_impl(&self, dim: i32, index: &Tensor, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_index_select(raw_stream(s), self.as_raw(), dim, index.as_raw(), o) })
    }

    /// The slices of `self` along `dim` at the positions of the 1-D `index`
    /// (`ek_index_select`, as `torch.index_select`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::arange(&ctx, 0.0, 6.0, 1.0, ek::DType::F32)?.view(&[3, 2])?;
    /// let i = ek::Tensor::from_slice(&ctx, &[3], &[2i64, 0, -1])?;
    /// assert_eq!(x.index_select(0, &i)?.to_vec::<f32>()?, [4.0, 5.0, 0.0, 1.0, 4.0, 5.0]);
    /// let bad = ek::Tensor::from_slice(&ctx, &[1], &[3i64])?;
    /// assert_eq!(x.index_select(0, &bad).unwrap_err().status, ek::Status::INDEX);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn index_select(&self, dim: i32, index: &Tensor) -> Result<Tensor> {
        self.index_select_impl(dim, index, None, None)
    }

    /// [`Tensor::index_select`] written into `out`.
    pub fn index_select_into(&self, dim: i32, index: &Tensor, out: &Tensor) -> Result<()> {
        self.index_select_impl(dim, index, None, Some(out)).map(drop)
    }

    /// [`Tensor::index_select`] on `stream`, into `out` when given.
    pub fn index_select_on(&self, dim: i32, index: &Tensor, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.index_select_impl(dim, index, Some(stream), out)
    }

    fn gather_impl(&self, dim: i32, index: &Tensor, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_gather(raw_stream(s), self.as_raw(), dim, index.as_raw(), o) })
    }

    /// `out[i][j] = self[index[i][j]][j]` for `dim` 0 (`ek_gather`, as
    /// `torch.gather`); the result has `index`'s shape.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6])?;
    /// let i = ek::Tensor::from_slice(&ctx, &[2, 2], &[2i64, 0, 1, 1])?;
    /// assert_eq!(x.gather(1, &i)?.to_vec::<i32>()?, [3, 1, 5, 5]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn gather(&self, dim: i32, index: &Tensor) -> Result<Tensor> {
        self.gather_impl(dim, index, None, None)
    }

    /// [`Tensor::gather`] written into `out`.
    pub fn gather_into(&self, dim: i32, index: &Tensor, out: &Tensor) -> Result<()> {
        self.gather_impl(dim, index, None, Some(out)).map(drop)
    }

    /// [`Tensor::gather`] on `stream`, into `out` when given.
    pub fn gather_on(&self, dim: i32, index: &Tensor, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.gather_impl(dim, index, Some(stream), out)
    }

    // ------------------------------------------------------------ scatter

    fn scatter_impl(
        &self,
        dim: i32,
        index: &Tensor,
        src: &Tensor,
        accumulate: bool,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe {
            sys::ek_scatter(raw_stream(s), self.as_raw(), dim, index.as_raw(), src.as_raw(), accumulate as i32, o)
        })
    }

    /// A copy of `self` with `out[index[i][j]][j] = src[i][j]` for `dim` 0
    /// (`ek_scatter`, as `torch.scatter`); `src` has `self`'s dtype. At a
    /// duplicated index one of the candidates is written.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::zeros(&ctx, &[4], ek::DType::F32)?;
    /// let i = ek::Tensor::from_slice(&ctx, &[3], &[3i64, 0, 3])?;
    /// let v = ek::Tensor::from_slice(&ctx, &[3], &[1.0f32, 2.0, 4.0])?;
    /// assert_eq!(x.scatter_add(0, &i, &v)?.to_vec::<f32>()?, [2.0, 0.0, 0.0, 5.0]);
    /// x.scatter_(0, &i.slice(0, None, Some(2), 1)?, &v)?; // in place
    /// assert_eq!(x.to_vec::<f32>()?, [2.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn scatter(&self, dim: i32, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_impl(dim, index, src, false, None, None)
    }

    /// As [`Tensor::scatter`], adding at the indices (duplicates add up), as
    /// `torch.scatter_add`.
    pub fn scatter_add(&self, dim: i32, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        self.scatter_impl(dim, index, src, true, None, None)
    }

    /// [`Tensor::scatter`] in place.
    pub fn scatter_(&self, dim: i32, index: &Tensor, src: &Tensor) -> Result<()> {
        self.scatter_impl(dim, index, src, false, None, Some(self)).map(drop)
    }

    /// [`Tensor::scatter_add`] in place.
    pub fn scatter_add_(&self, dim: i32, index: &Tensor, src: &Tensor) -> Result<()> {
        self.scatter_impl(dim, index, src, true, None, Some(self)).map(drop)
    }

    /// Scatter (adding when `accumulate`) into `out` (which may be `self`).
    pub fn scatter_into(&self, dim: i32, index: &Tensor, src: &Tensor, accumulate: bool, out: &Tensor) -> Result<()> {
        self.scatter_impl(dim, index, src, accumulate, None, Some(out)).map(drop)
    }

    /// Scatter (adding when `accumulate`) on `stream`, into `out` when given.
    pub fn scatter_on(
        &self,
        dim: i32,
        index: &Tensor,
        src: &Tensor,
        accumulate: bool,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        self.scatter_impl(dim, index, src, accumulate, Some(stream), out)
    }

    // ------------------------------------------------------------ index_put

    fn index_put_impl(
        &self,
        indices: &[&Tensor],
        values: &Tensor,
        accumulate: bool,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        let n = i32::try_from(indices.len())
            .map_err(|_| Error::new(Status::INVALID_ARGUMENT, "ek::Tensor::index_put: too many index tensors"))?;
        let raw: Vec<sys::ek_tensor> = indices.iter().map(|t| t.as_raw()).collect();
        let p = if raw.is_empty() { std::ptr::null() } else { raw.as_ptr() };
        // SAFETY: live handles; p holds n handles borrowed from `indices`.
        self.produce(out, |o| unsafe {
            sys::ek_index_put(raw_stream(s), self.as_raw(), n, p, values.as_raw(), accumulate as i32, o)
        })
    }

    /// A copy of `self` with `self[indices[0], …, indices[n-1]] = values`
    /// (`ek_index_put`, as `torch.index_put`): the index tensors broadcast
    /// together and address the first n dims; `values` broadcasts to the
    /// indexed shape; `accumulate` adds instead (duplicates add up).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::zeros(&ctx, &[2, 3], ek::DType::I32)?;
    /// let rows = ek::Tensor::from_slice(&ctx, &[2], &[0i64, 1])?;
    /// let cols = ek::Tensor::from_slice(&ctx, &[2], &[2i64, 0])?;
    /// let v = ek::Tensor::from_slice(&ctx, &[], &[7i32])?;
    /// let y = x.index_put(&[&rows, &cols], &v, false)?;
    /// assert_eq!(y.to_vec::<i32>()?, [0, 0, 7, 7, 0, 0]);
    /// x.index_put_(&[&rows], &v, true)?; // x[rows] += 7, in place
    /// assert_eq!(x.to_vec::<i32>()?, [7; 6]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn index_put(&self, indices: &[&Tensor], values: &Tensor, accumulate: bool) -> Result<Tensor> {
        self.index_put_impl(indices, values, accumulate, None, None)
    }

    /// [`Tensor::index_put`] in place.
    pub fn index_put_(&self, indices: &[&Tensor], values: &Tensor, accumulate: bool) -> Result<()> {
        self.index_put_impl(indices, values, accumulate, None, Some(self)).map(drop)
    }

    /// [`Tensor::index_put`] written into `out` (which may be `self`).
    pub fn index_put_into(&self, indices: &[&Tensor], values: &Tensor, accumulate: bool, out: &Tensor) -> Result<()> {
        self.index_put_impl(indices, values, accumulate, None, Some(out)).map(drop)
    }

    /// [`Tensor::index_put`] on `stream`, into `out` when given.
    pub fn index_put_on(
        &self,
        indices: &[&Tensor],
        values: &Tensor,
        accumulate: bool,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        self.index_put_impl(indices, values, accumulate, Some(stream), out)
    }

    // ------------------------------------------------------------ masks

    fn masked_select_impl(&self, mask: &Tensor, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_masked_select(raw_stream(s), self.as_raw(), mask.as_raw(), o) })
    }

    /// The 1-D tensor of `self`'s elements where `mask` is true, in C order
    /// (`ek_masked_select`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[2, 2], &[1.0f32, -2.0, 3.0, -4.0])?;
    /// let neg = x.lt_scalar(0.0)?;
    /// assert_eq!(x.masked_select(&neg)?.to_vec::<f32>()?, [-2.0, -4.0]);
    /// assert_eq!(x.masked_fill(&neg, 0.0)?.to_vec::<f32>()?, [1.0, 0.0, 3.0, 0.0]);
    /// assert_eq!(neg.nonzero()?.to_vec::<i64>()?, [0, 1, 1, 1]); // [[0, 1], [1, 1]]
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        self.masked_select_impl(mask, None, None)
    }

    /// [`Tensor::masked_select`] on `stream`, into `out` when given (its size
    /// must be the number of true positions).
    pub fn masked_select_on(&self, mask: &Tensor, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.masked_select_impl(mask, Some(stream), out)
    }

    fn masked_fill_impl(&self, mask: &Tensor, value: Scalar, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        let v = value.to_raw();
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_masked_fill(raw_stream(s), self.as_raw(), mask.as_raw(), v, o) })
    }

    /// A copy of `self` with `value` where `mask` is true (`ek_masked_fill`);
    /// `value` converts as in [`Tensor::fill`] (exact, or an error when it
    /// does not fit an integer dtype).
    pub fn masked_fill(&self, mask: &Tensor, value: impl Into<Scalar>) -> Result<Tensor> {
        self.masked_fill_impl(mask, value.into(), None, None)
    }

    /// [`Tensor::masked_fill`] in place.
    pub fn masked_fill_(&self, mask: &Tensor, value: impl Into<Scalar>) -> Result<()> {
        self.masked_fill_impl(mask, value.into(), None, Some(self)).map(drop)
    }

    /// [`Tensor::masked_fill`] written into `out` (which may be `self`).
    pub fn masked_fill_into(&self, mask: &Tensor, value: impl Into<Scalar>, out: &Tensor) -> Result<()> {
        self.masked_fill_impl(mask, value.into(), None, Some(out)).map(drop)
    }

    /// [`Tensor::masked_fill`] on `stream`, into `out` when given.
    pub fn masked_fill_on(&self, mask: &Tensor, value: impl Into<Scalar>, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.masked_fill_impl(mask, value.into(), Some(stream), out)
    }

    fn masked_scatter_impl(&self, mask: &Tensor, source: &Tensor, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe {
            sys::ek_masked_scatter(raw_stream(s), self.as_raw(), mask.as_raw(), source.as_raw(), o)
        })
    }

    /// A copy of `self` whose positions where `mask` is true take `source`'s
    /// elements in C order (`ek_masked_scatter`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::zeros(&ctx, &[4], ek::DType::I64)?;
    /// let m = ek::Tensor::from_slice(&ctx, &[4], &[false, true, false, true])?;
    /// let src = ek::Tensor::from_slice(&ctx, &[3], &[10i64, 20, 30])?;
    /// x.masked_scatter_(&m, &src)?;
    /// assert_eq!(x.to_vec::<i64>()?, [0, 10, 0, 20]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn masked_scatter(&self, mask: &Tensor, source: &Tensor) -> Result<Tensor> {
        self.masked_scatter_impl(mask, source, None, None)
    }

    /// [`Tensor::masked_scatter`] in place.
    pub fn masked_scatter_(&self, mask: &Tensor, source: &Tensor) -> Result<()> {
        self.masked_scatter_impl(mask, source, None, Some(self)).map(drop)
    }

    /// [`Tensor::masked_scatter`] written into `out` (which may be `self`).
    pub fn masked_scatter_into(&self, mask: &Tensor, source: &Tensor, out: &Tensor) -> Result<()> {
        self.masked_scatter_impl(mask, source, None, Some(out)).map(drop)
    }

    /// [`Tensor::masked_scatter`] on `stream`, into `out` when given.
    pub fn masked_scatter_on(&self, mask: &Tensor, source: &Tensor, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.masked_scatter_impl(mask, source, Some(stream), out)
    }

    /// The int64 tensor `[n, ndim]` of the indices of the nonzero elements,
    /// in C order (`ek_nonzero`).
    pub fn nonzero(&self) -> Result<Tensor> {
        // SAFETY: live handle.
        self.derive(|o| unsafe { sys::ek_nonzero(std::ptr::null_mut(), self.as_raw(), o) })
    }

    /// [`Tensor::nonzero`] on `stream`, into `out` when given.
    pub fn nonzero_on(&self, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_nonzero(stream.as_raw(), self.as_raw(), o) })
    }
}
