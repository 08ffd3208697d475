//! The joining functions with several outputs: `split`, `split_sizes`,
//! `chunk`, `unbind` and [`Tensor::broadcast_tensors`] return views of their
//! input's storage, [`Tensor::meshgrid`] copies (`concat`, `stack`, `flip`,
//! `roll`, `repeat` and `moveaxis` are generated).
use ek_sys as sys;

use crate::error::{check, Result};
use crate::generated::MeshgridIndexing;
use crate::tensor::{first, len_i32, Tensor};

fn raws(xs: &[&Tensor]) -> Vec<sys::ek_tensor> {
    xs.iter().map(|t| t.as_raw()).collect()
}

impl Tensor {
    /// Views of `self`: raw handles a two-phase C call wrote, each adopted as
    /// a view of this storage.
    fn pieces(&self, f: impl Fn(i64, *mut sys::ek_tensor, *mut i64) -> sys::ek_status) -> Result<Vec<Tensor>> {
        let mut n = 0i64;
        check(f(0, std::ptr::null_mut(), &mut n))?;
        let mut hs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); n as usize];
        check(f(n, hs.as_mut_ptr(), &mut n))?;
        Ok(self.adopt_views(hs))
    }

    fn adopt_views(&self, hs: Vec<sys::ek_tensor>) -> Vec<Tensor> {
        // SAFETY (in the closure): o is view_of's out-parameter; h is a new handle we own.
        hs.into_iter().map(|h| self.view_of(|o| unsafe { *o = h; sys::ek_status::EK_SUCCESS }).expect("infallible")).collect()
    }

    /// Views of `self` along `dim` in pieces of `split_size`, the last maybe
    /// smaller (`ek_view_split`, `torch.split`).
    pub fn split(&self, split_size: i64, dim: i32) -> Result<Vec<Tensor>> {
        // SAFETY: live handle; outs holds capacity handles (or is NULL with 0).
        self.pieces(|cap, outs, n| unsafe { sys::ek_view_split(self.as_raw(), dim, split_size, cap, outs, n) })
    }

    /// Views of `self` along `dim` of the given sizes, which add up to the
    /// dim's size (`ek_view_split_sizes`).
    pub fn split_sizes(&self, sizes: &[i64], dim: i32) -> Result<Vec<Tensor>> {
        let mut hs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); sizes.len()];
        // SAFETY: live handle; sizes and hs hold sizes.len() entries.
        check(unsafe { sys::ek_view_split_sizes(self.as_raw(), dim, sizes.len() as i64, sizes.as_ptr(), hs.as_mut_ptr()) })?;
        Ok(self.adopt_views(hs))
    }

    /// Views of `self` along `dim` in `chunks` pieces of ceil(size / chunks),
    /// maybe fewer (`ek_view_chunk`, `torch.chunk`).
    pub fn chunk(&self, chunks: i64, dim: i32) -> Result<Vec<Tensor>> {
        // SAFETY: live handle; outs holds capacity handles (or is NULL with 0).
        self.pieces(|cap, outs, n| unsafe { sys::ek_view_chunk(self.as_raw(), dim, chunks, cap, outs, n) })
    }

    /// The views `self[..., i, ...]` along `dim` for every `i` (`torch.unbind`).
    pub fn unbind(&self, dim: i32) -> Result<Vec<Tensor>> {
        let size = if self.ndim() == 0 { 1 } else { self.shape()[dim.rem_euclid(self.ndim() as i32) as usize] };
        (0..size).map(|i| self.select(dim, i)).collect()
    }

    /// Views of the tensors expanded to their broadcast shape
    /// (`ek_broadcast_tensors`; stride 0 where broadcast).
    pub fn broadcast_tensors(tensors: &[&Tensor]) -> Result<Vec<Tensor>> {
        let n = len_i32(tensors.len())?;
        first(tensors, "ek_broadcast_tensors")?;
        let mut outs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); tensors.len()];
        // SAFETY: n live handles; outs has room for n.
        check(unsafe { sys::ek_broadcast_tensors(n, raws(tensors).as_ptr(), outs.as_mut_ptr()) })?;
        Ok(outs.into_iter().zip(tensors).flat_map(|(h, t)| t.adopt_views(vec![h])).collect())
    }

    /// Coordinate grids of the 1-D tensors (one dtype), copies (`ek_meshgrid`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[3], &[1i32, 2, 3])?;
    /// let y = ek::Tensor::from_slice(&ctx, &[2], &[7i32, 8])?;
    /// let g = ek::Tensor::meshgrid(&[&x, &y], ek::MeshgridIndexing::Ij)?;
    /// assert_eq!(g[1].to_vec::<i32>()?, [7, 8, 7, 8, 7, 8]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn meshgrid(tensors: &[&Tensor], indexing: MeshgridIndexing) -> Result<Vec<Tensor>> {
        let n = len_i32(tensors.len())?;
        let x = first(tensors, "ek_meshgrid")?;
        let mut outs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); tensors.len()];
        // SAFETY: n live handles; outs has n NULL entries (allocate).
        check(unsafe { sys::ek_meshgrid(std::ptr::null_mut(), n, raws(tensors).as_ptr(), indexing.to_raw(), outs.as_mut_ptr()) })?;
        Ok(outs.into_iter().map(|h| Tensor::adopt(x, h)).collect())
    }
}
