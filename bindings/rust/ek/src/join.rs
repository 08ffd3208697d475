//! Joining and rearranging (`include/ek.h`'s section of that name), with
//! PyTorch's semantics: [`Tensor::concat`], [`Tensor::stack`], `flip`,
//! `roll`, `repeat` (`numpy.tile`) and [`Tensor::meshgrid`] copy;
//! `split`, `split_sizes`, `chunk`, `unbind`, `moveaxis` and
//! [`Tensor::broadcast_tensors`] return views of their input's storage.
use ek_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::tensor::{ndim, Tensor};

/// How [`Tensor::meshgrid`] lays out its grids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshgridIndexing {
    /// Matrix indexing (PyTorch's default): grid `i` varies along dim `i`.
    Ij,
    /// Cartesian indexing (NumPy's default): the first two dims swapped.
    Xy,
}

impl MeshgridIndexing {
    /// The C constant.
    pub fn to_raw(self) -> sys::ek_meshgrid_indexing {
        match self {
            MeshgridIndexing::Ij => sys::ek_meshgrid_indexing::EK_MESHGRID_IJ,
            MeshgridIndexing::Xy => sys::ek_meshgrid_indexing::EK_MESHGRID_XY,
        }
    }
}

fn count(n: usize, what: &str) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::new(Status::INVALID_ARGUMENT, format!("ek::Tensor::{what}: too many tensors")))
}

fn raws(xs: &[&Tensor]) -> Vec<sys::ek_tensor> {
    xs.iter().map(|t| t.as_raw()).collect()
}

/// The first tensor of a list, whose context the result takes.
fn first<'a>(xs: &[&'a Tensor], what: &str) -> Result<&'a Tensor> {
    xs.first().copied().ok_or_else(|| {
        Error::new(Status::INVALID_ARGUMENT, format!("ek::Tensor::{what}: at least one tensor is needed"))
    })
}

impl Tensor {
    /// The tensors joined along `dim` (`ek_concat`, `torch.cat`): equal sizes
    /// outside `dim`; the dtype promotes all of theirs; 1-D empty tensors are
    /// skipped, as in PyTorch.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let a = ek::Tensor::from_slice(&ctx, &[2], &[1i32, 2])?;
    /// let b = ek::Tensor::from_slice(&ctx, &[1], &[0.5f32])?;
    /// let c = ek::Tensor::concat(&[&a, &b], 0)?;
    /// assert_eq!(c.to_vec::<f32>()?, [1.0, 2.0, 0.5]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn concat(tensors: &[&Tensor], dim: i32) -> Result<Tensor> {
        let n = count(tensors.len(), "concat")?;
        let x = first(tensors, "concat")?;
        let hs = raws(tensors);
        // SAFETY: hs holds n live handles.
        x.derive(|o| unsafe { sys::ek_concat(std::ptr::null_mut(), n, hs.as_ptr(), dim, o) })
    }

    /// The tensors (one shape) joined along a new `dim` (`ek_stack`).
    pub fn stack(tensors: &[&Tensor], dim: i32) -> Result<Tensor> {
        let n = count(tensors.len(), "stack")?;
        let x = first(tensors, "stack")?;
        let hs = raws(tensors);
        // SAFETY: hs holds n live handles.
        x.derive(|o| unsafe { sys::ek_stack(std::ptr::null_mut(), n, hs.as_ptr(), dim, o) })
    }

    /// A copy of `self` reversed along `dims` (`ek_flip`).
    pub fn flip(&self, dims: &[i32]) -> Result<Tensor> {
        let n = ndim(dims.len())?;
        // SAFETY: live handle; dims holds n values.
        self.derive(|o| unsafe { sys::ek_flip(std::ptr::null_mut(), self.as_raw(), n, dims.as_ptr(), o) })
    }

    /// `self` with its elements shifted by `shifts[i]` along `dims[i]`,
    /// wrapping round (`ek_roll`, `torch.roll`); empty `dims` with one shift
    /// rolls the flattened tensor.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let m = ek::Tensor::arange(&ctx, 0.0, 6.0, 1.0, ek::DType::I64)?.view(&[2, 3])?;
    /// assert_eq!(m.roll(&[1], &[1])?.to_vec::<i64>()?, [2, 0, 1, 5, 3, 4]);
    /// assert_eq!(m.roll(&[-1], &[])?.to_vec::<i64>()?, [1, 2, 3, 4, 5, 0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn roll(&self, shifts: &[i64], dims: &[i32]) -> Result<Tensor> {
        let n = ndim(shifts.len())?;
        if !dims.is_empty() && dims.len() != shifts.len() {
            return Err(Error::new(
                Status::INVALID_ARGUMENT,
                format!("ek::Tensor::roll: {} shifts for {} dims", shifts.len(), dims.len()),
            ));
        }
        let d = if dims.is_empty() { std::ptr::null() } else { dims.as_ptr() };
        // SAFETY: live handle; shifts (and dims, unless NULL) hold n values.
        self.derive(|o| unsafe { sys::ek_roll(std::ptr::null_mut(), self.as_raw(), n, shifts.as_ptr(), d, o) })
    }

    /// `self` tiled `repeats[i]` times along dim `i` (`ek_repeat`:
    /// `torch.Tensor.repeat`, `numpy.tile`).
    pub fn repeat(&self, repeats: &[i64]) -> Result<Tensor> {
        let n = ndim(repeats.len())?;
        // SAFETY: live handle; repeats holds n values.
        self.derive(|o| unsafe { sys::ek_repeat(std::ptr::null_mut(), self.as_raw(), n, repeats.as_ptr(), o) })
    }

    /// Views of `self`: raw handles a two-phase C call wrote, each adopted as
    /// a view of this storage.
    fn pieces(&self, f: impl Fn(i64, *mut sys::ek_tensor, *mut i64) -> sys::ek_status) -> Result<Vec<Tensor>> {
        let mut n = 0i64;
        check(f(0, std::ptr::null_mut(), &mut n))?;
        let mut hs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); n as usize];
        check(f(n, hs.as_mut_ptr(), &mut n))?;
        self.adopt_views(hs)
    }

    fn adopt_views(&self, hs: Vec<sys::ek_tensor>) -> Result<Vec<Tensor>> {
        hs.into_iter()
            .map(|h| {
                self.view_of(|o| {
                    // SAFETY: o is view_of's out-parameter; h is a new handle we own.
                    unsafe { *o = h };
                    sys::ek_status::EK_SUCCESS
                })
            })
            .collect()
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
        self.adopt_views(hs)
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

    /// A view with dims `src` moved to `dst` (`ek_view_moveaxis`,
    /// `numpy.moveaxis`, `torch.movedim`).
    pub fn moveaxis(&self, src: &[i32], dst: &[i32]) -> Result<Tensor> {
        if src.len() != dst.len() {
            return Err(Error::new(
                Status::INVALID_ARGUMENT,
                format!("ek::Tensor::moveaxis: {} source dims but {} destinations", src.len(), dst.len()),
            ));
        }
        let n = ndim(src.len())?;
        // SAFETY: live handle; src and dst hold n values.
        self.view_of(|o| unsafe { sys::ek_view_moveaxis(self.as_raw(), n, src.as_ptr(), dst.as_ptr(), o) })
    }

    /// Views of the tensors expanded to their broadcast shape
    /// (`ek_broadcast_tensors`; stride 0 where broadcast).
    pub fn broadcast_tensors(tensors: &[&Tensor]) -> Result<Vec<Tensor>> {
        let n = count(tensors.len(), "broadcast_tensors")?;
        first(tensors, "broadcast_tensors")?;
        let hs = raws(tensors);
        let mut outs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); tensors.len()];
        // SAFETY: hs holds n live handles; outs has room for n.
        check(unsafe { sys::ek_broadcast_tensors(n, hs.as_ptr(), outs.as_mut_ptr()) })?;
        let mut views = Vec::with_capacity(outs.len());
        for (h, t) in outs.into_iter().zip(tensors) {
            views.extend(t.adopt_views(vec![h])?);
        }
        Ok(views)
    }

    /// Coordinate grids of the 1-D tensors (one dtype), copies
    /// (`ek_meshgrid`).
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
        let n = count(tensors.len(), "meshgrid")?;
        let x = first(tensors, "meshgrid")?;
        let hs = raws(tensors);
        let mut outs: Vec<sys::ek_tensor> = vec![std::ptr::null_mut(); tensors.len()];
        // SAFETY: hs holds n live handles; outs has n NULL entries (allocate).
        check(unsafe { sys::ek_meshgrid(std::ptr::null_mut(), n, hs.as_ptr(), indexing.to_raw(), outs.as_mut_ptr()) })?;
        Ok(outs.into_iter().map(|h| Tensor::adopt(x, h)).collect())
    }
}
