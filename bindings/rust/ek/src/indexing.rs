//! NumPy-style indexing, `t[key]` and `t[key] = value`, over the C library's
//! one implementation (`ek_index`, `ek_index_assign`); and [`Tensor::slice`].
//!
//! ```
//! use ek::{Index, Tensor};
//! let ctx = ek::Context::new(ek::Device::Cpu)?;
//! let x = Tensor::arange(&ctx, 0, 24, 1, ek::DType::I64)?.view(&[2, 3, 4])?;
//! let rows = Tensor::from_slice(&ctx, &[2], &[2i64, 0])?;
//! // x[..., [2, 0], ::-2]
//! let y = x.index(&[Index::Ellipsis, Index::Tensor(&rows), Index::slice(None, None, -2)])?;
//! assert_eq!(y.to_vec::<i64>()?, [11, 9, 3, 1, 23, 21, 15, 13]);
//! x.index_assign(&[Index::Int(1), Index::NewAxis], &Tensor::full(&ctx, &[], 7, ek::DType::I64)?, false)?;
//! assert_eq!(x.select(0, 1)?.sum(&[], false)?.item::<i64>()?, 7 * 12);
//! # Ok::<(), ek::Error>(())
//! ```
use ek_sys as sys;

use crate::error::{check, Result};
use crate::stream::{raw_stream, Stream};
use crate::tensor::{len_i32, ptr, Tensor};

/// One item of an indexing key (`ek_index_item`), as in `x[1, 2:, None, ..., idx]`.
#[derive(Copy, Clone, Debug)]
pub enum Index<'a> {
    /// One position of the next dim (negative counts from the end); the dim goes away.
    Int(i64),
    /// `start:stop:step` of the next dim, Python's rules (`None`: an open end).
    Slice { start: Option<i64>, stop: Option<i64>, step: i64 },
    /// A new dim of size 1 (`None` / `np.newaxis`).
    NewAxis,
    /// `...`: as many full slices as the other items leave.
    Ellipsis,
    /// An int64/int32 index tensor for the next dim, or a bool mask for as many dims as it has.
    Tensor(&'a Tensor),
}

impl Index<'_> {
    /// `start:stop:step`.
    pub fn slice(start: Option<i64>, stop: Option<i64>, step: i64) -> Index<'static> {
        Index::Slice { start, stop, step }
    }

    /// The C item (unused fields 0 / NULL, as the `ek_index_item_*` constructors).
    pub fn to_raw(&self) -> sys::ek_index_item {
        use sys::ek_index_kind as K;
        let mut it = sys::ek_index_item { kind: K::EK_INDEX_INT, reserved_: 0, start: 0, stop: 0, step: 0, tensor: std::ptr::null_mut() };
        match *self {
            Index::Int(i) => it.start = i,
            Index::Slice { start, stop, step } => {
                it.kind = K::EK_INDEX_SLICE;
                (it.start, it.stop, it.step) = slice_bounds(start, stop, step);
            }
            Index::NewAxis => it.kind = K::EK_INDEX_NONE,
            Index::Ellipsis => it.kind = K::EK_INDEX_ELLIPSIS,
            Index::Tensor(t) => {
                it.kind = K::EK_INDEX_TENSOR;
                it.tensor = t.as_raw();
            }
        }
        it
    }
}

/// Python's open ends: "from the first element in the step's direction" and
/// "past the last", which the C library clamps.
fn slice_bounds(start: Option<i64>, stop: Option<i64>, step: i64) -> (i64, i64, i64) {
    let (lo, hi) = if step > 0 { (sys::EK_SLICE_MIN, sys::EK_SLICE_MAX) } else { (sys::EK_SLICE_MAX, sys::EK_SLICE_MIN) };
    (start.unwrap_or(lo), stop.unwrap_or(hi), step)
}

impl Tensor {
    /// `self[key] = value` in place (`ek_index_assign`): `value` broadcasts to
    /// the indexed shape and casts to `self`'s dtype; `accumulate` adds instead
    /// (duplicated indices add up). Nothing is written on failure.
    pub fn index_assign(&self, key: &[Index<'_>], value: &Tensor, accumulate: bool) -> Result<()> {
        self.index_assign_impl(key, value, accumulate, None)
    }

    /// [`Tensor::index_assign`] on `stream`.
    pub fn index_assign_on(&self, key: &[Index<'_>], value: &Tensor, accumulate: bool, stream: &Stream) -> Result<()> {
        self.index_assign_impl(key, value, accumulate, Some(stream))
    }

    fn index_assign_impl(&self, key: &[Index<'_>], value: &Tensor, accumulate: bool, s: Option<&Stream>) -> Result<()> {
        let n = len_i32(key.len())?;
        let key: Vec<_> = key.iter().map(Index::to_raw).collect();
        // SAFETY: live handles; key holds n items whose tensors `key` borrows.
        check(unsafe { sys::ek_index_assign(raw_stream(s), value.as_raw(), accumulate as i32, self.as_raw(), n, ptr(&key)) })
    }

    /// [`Tensor::scatter`] adding at the indices (duplicates add up), as `torch.scatter_add`.
    pub fn scatter_add(&self, dim: i32, index: &Tensor, src: &Tensor) -> Result<Tensor> {
        // SAFETY: live handles.
        self.produce(None, |o| unsafe { sys::ek_scatter(std::ptr::null_mut(), self.as_raw(), dim, index.as_raw(), src.as_raw(), 1, o) })
    }

    /// [`Tensor::scatter_add`] in place.
    pub fn scatter_add_(&self, dim: i32, index: &Tensor, src: &Tensor) -> Result<()> {
        self.scatter_into(dim, index, src, true, self)
    }

    /// `self[..., start:stop:step, ...]` along `dim`, with Python's rules:
    /// `None` bounds, negative indices, clamping, negative steps (`ek_view_slice`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let t = ek::Tensor::arange(&ctx, 0.0, 10.0, 1.0, ek::DType::I64)?;
    /// assert_eq!(t.slice(0, Some(2), Some(-3), 2)?.to_vec::<i64>()?, [2, 4, 6]);
    /// assert_eq!(t.slice(0, None, None, -3)?.to_vec::<i64>()?, [9, 6, 3, 0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn slice(&self, dim: i32, start: Option<i64>, stop: Option<i64>, step: i64) -> Result<Tensor> {
        let (start, stop, step) = slice_bounds(start, stop, step);
        // SAFETY: live handle.
        self.view_of(|out| unsafe { sys::ek_view_slice(self.as_raw(), dim, start, stop, step, out) })
    }
}
