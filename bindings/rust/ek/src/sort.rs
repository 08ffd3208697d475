//! Sorting and searching with several or optional tensors (`ek_sort`,
//! `ek_topk`, `ek_unique`, `ek_diff`), written here; `searchsorted` and
//! `count_nonzero` are generated. ek.h's order: NaN above +inf, -0.0 == +0.0.
use ek_sys as sys;

use crate::error::{check, Result};
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

/// The distinct elements of a tensor, sorted, and what was asked with them
/// ([`Tensor::unique`]).
#[derive(Debug)]
pub struct Unique {
    /// 1-D, the tensor's dtype.
    pub values: Tensor,
    /// int64, the tensor's shape: each element's position in `values`.
    pub inverse: Option<Tensor>,
    /// int64, `values`' length: how often each value occurs.
    pub counts: Option<Tensor>,
}

fn null() -> sys::ek_tensor {
    std::ptr::null_mut()
}

impl Tensor {
    // ek_sort or ek_topk into (values, indices), either of which may be skipped.
    fn two(&self, want_values: bool, want_indices: bool,
           call: impl FnOnce(*mut sys::ek_tensor, *mut sys::ek_tensor) -> sys::ek_status)
           -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (mut v, mut i) = (null(), null());
        let vp: *mut sys::ek_tensor = if want_values { &mut v } else { std::ptr::null_mut() };
        let ip: *mut sys::ek_tensor = if want_indices { &mut i } else { std::ptr::null_mut() };
        check(call(vp, ip))?;
        Ok((want_values.then(|| Tensor::adopt(self, v)), want_indices.then(|| Tensor::adopt(self, i))))
    }

    /// `self` sorted along `dim` and the int64 positions the values came
    /// from, as `torch.sort` (`ek_sort`). `stable` keeps equal elements in
    /// input order; NaN sorts last (first when `descending`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[4], &[3.0f32, f32::NAN, -1.0, 2.0])?;
    /// let (values, indices) = x.sort(-1, false, true)?;
    /// assert_eq!(indices.to_vec::<i64>()?, [2, 3, 0, 1]);
    /// assert!(values.to_vec::<f32>()?[3].is_nan());
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn sort(&self, dim: i32, descending: bool, stable: bool) -> Result<(Tensor, Tensor)> {
        self.sort_on(dim, descending, stable, None)
    }

    /// [`Tensor::sort`] ordered on `stream` (None: the default stream).
    pub fn sort_on(&self, dim: i32, descending: bool, stable: bool, stream: Option<&Stream>) -> Result<(Tensor, Tensor)> {
        // SAFETY: a live handle; the out-parameters receive new handles we own.
        let (v, i) = self.two(true, true, |v, i| unsafe {
            sys::ek_sort(raw_stream(stream), self.as_raw(), dim, descending as i32, stable as i32, v, i)
        })?;
        Ok((v.unwrap(), i.unwrap()))
    }

    /// The int64 positions that sort `self` along `dim` (`torch.argsort`;
    /// `ek_sort` without values).
    pub fn argsort(&self, dim: i32, descending: bool, stable: bool) -> Result<Tensor> {
        // SAFETY: as in sort_on; values is not asked for (NULL).
        let (_, i) = self.two(false, true, |v, i| unsafe {
            sys::ek_sort(std::ptr::null_mut(), self.as_raw(), dim, descending as i32, stable as i32, v, i)
        })?;
        Ok(i.unwrap())
    }

    /// The `k` largest (or smallest) elements along `dim` and their int64
    /// positions (`torch.topk`, `ek_topk`); `sorted` orders them.
    pub fn topk(&self, k: i64, dim: i32, largest: bool, sorted: bool) -> Result<(Tensor, Tensor)> {
        // SAFETY: as in sort_on.
        let (v, i) = self.two(true, true, |v, i| unsafe {
            sys::ek_topk(std::ptr::null_mut(), self.as_raw(), k, dim, largest as i32, sorted as i32, v, i)
        })?;
        Ok((v.unwrap(), i.unwrap()))
    }

    /// The distinct elements of `self` (flattened), sorted, with their
    /// inverse positions and counts when asked (`torch.unique`, `ek_unique`;
    /// each NaN is distinct). Synchronous on CUDA.
    pub fn unique(&self, return_inverse: bool, return_counts: bool) -> Result<Unique> {
        let (mut v, mut i, mut c) = (null(), null(), null());
        let ip: *mut sys::ek_tensor = if return_inverse { &mut i } else { std::ptr::null_mut() };
        let cp: *mut sys::ek_tensor = if return_counts { &mut c } else { std::ptr::null_mut() };
        // SAFETY: a live handle; the non-NULL out-parameters receive new handles we own.
        check(unsafe { sys::ek_unique(std::ptr::null_mut(), self.as_raw(), &mut v, ip, cp) })?;
        Ok(Unique {
            values: Tensor::adopt(self, v),
            inverse: return_inverse.then(|| Tensor::adopt(self, i)),
            counts: return_counts.then(|| Tensor::adopt(self, c)),
        })
    }

    /// The `n`-th forward difference along `dim` (`torch.diff`, `ek_diff`),
    /// `prepend` and `append` joined to `self` along `dim` first.
    pub fn diff(&self, n: i64, dim: i32, prepend: Option<&Tensor>, append: Option<&Tensor>) -> Result<Tensor> {
        let raw = |t: Option<&Tensor>| t.map_or(null(), |t| t.as_raw());
        let mut out = null();
        // SAFETY: live handles (or NULL for the absent ones); out receives a new handle we own.
        check(unsafe { sys::ek_diff(std::ptr::null_mut(), self.as_raw(), n, dim, raw(prepend), raw(append), &mut out) })?;
        Ok(Tensor::adopt(self, out))
    }
}
