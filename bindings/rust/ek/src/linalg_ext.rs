//! `ek_tensordot`'s count form (the dim-list form, `ek_vecdot` and
//! `ek_outer` are generated): NumPy's `tensordot(a, b, axes=n)`.
use ek_sys as sys;

use crate::error::Result;
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

impl Tensor {
    /// Contracts `self`'s last `n` dims with `b`'s first `n`, in order
    /// (`ek_tensordot` with NULL dim lists; NumPy's `tensordot(a, b, n)`).
    /// The result has `self`'s other dims, then `b`'s; `n == 0` is the outer
    /// product. Integer dtypes wrap; dtypes promote as [`Tensor::matmul`].
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let a = ek::Tensor::from_slice(&ctx, &[2, 2], &[1i32, 2, 3, 4])?;
    /// assert_eq!(a.tensordot_n(&a, 2)?.item::<i32>()?, 30);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn tensordot_n(&self, b: &Tensor, n: i32) -> Result<Tensor> {
        self.tensordot_n_on(b, n, None, None)
    }

    /// [`Tensor::tensordot_n`] on `stream` (None: the default one), into
    /// `out` when given (its shape and dtype must be the result's).
    pub fn tensordot_n_on(&self, b: &Tensor, n: i32, stream: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        let null = std::ptr::null::<i32>();
        // SAFETY: live handles; NULL dim lists select the count form.
        self.produce(out, |o| unsafe { sys::ek_tensordot(raw_stream(stream), self.as_raw(), b.as_raw(), n, null, null, o) })
    }
}
