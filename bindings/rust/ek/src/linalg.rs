//! The in-place matrix product `ek_gemm` (`ek_matmul` is generated): cuBLAS on CUDA, a blocked loop on
//! the CPU; float16, bfloat16, float32 and float64, both operands of one dtype; integers (uint8 to
//! int64) on libek's own kernel, wrapping, with integral `alpha` and `beta`.
use ek_sys as sys;

use crate::error::{check, Result};
use crate::scalar::Scalar;
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

impl Tensor {
    /// `self = alpha * a @ b + beta * self`, in place on `self` (`ek_gemm`):
    /// 2-D `a [m,k]`, `b [k,n]`, `self [m,n]`, or 3-D with a batch dim (`a`
    /// and `b` may broadcast a batch of 1). `beta == 0` ignores `self`'s old
    /// values (NaN included). `alpha` and `beta` of any [`Scalar`] kind are
    /// converted to the compute type (`f64` for F64, `f32` otherwise); for
    /// C64/C128 tensors they may be complex (`Complex64::new(0.0, 1.0)`).
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let a = ek::Tensor::from_slice(&ctx, &[1, 2], &[1.0f64, 2.0])?;
    /// let b = ek::Tensor::from_slice(&ctx, &[2, 1], &[3.0f64, 4.0])?;
    /// let c = ek::Tensor::full(&ctx, &[1, 1], 100.0, ek::DType::F64)?;
    /// c.gemm(2, &a, &b, 0.5)?; // 2 * 11 + 0.5 * 100
    /// assert_eq!(c.item::<f64>()?, 72.0);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn gemm(&self, alpha: impl Into<Scalar>, a: &Tensor, b: &Tensor, beta: impl Into<Scalar>) -> Result<()> {
        self.gemm_impl(alpha.into(), a, b, beta.into(), None)
    }

    /// [`Tensor::gemm`] on `stream`.
    pub fn gemm_on(
        &self,
        alpha: impl Into<Scalar>,
        a: &Tensor,
        b: &Tensor,
        beta: impl Into<Scalar>,
        stream: &Stream,
    ) -> Result<()> {
        self.gemm_impl(alpha.into(), a, b, beta.into(), Some(stream))
    }

    fn gemm_impl(&self, alpha: Scalar, a: &Tensor, b: &Tensor, beta: Scalar, s: Option<&Stream>) -> Result<()> {
        let (al, be) = (alpha.to_raw(), beta.to_raw());
        // SAFETY: live handles.
        check(unsafe { sys::ek_gemm(raw_stream(s), al, a.as_raw(), b.as_raw(), be, self.as_raw()) })
    }
}
