//! Complex values as [`Scalar`]s: fill values, scalar operands and gemm's
//! alpha and beta of complex tensors.
use crate::complex::{Complex32, Complex64};
use crate::scalar::Scalar;

impl From<Complex64> for Scalar {
    fn from(z: Complex64) -> Self {
        Scalar::Complex { re: z.re, im: z.im }
    }
}

impl From<Complex32> for Scalar {
    fn from(z: Complex32) -> Self {
        Scalar::Complex { re: f64::from(z.re), im: f64::from(z.im) }
    }
}

impl Scalar {
    /// `re + im·i`, the same as `Scalar::from(Complex64::new(re, im))`.
    ///
    /// ```
    /// assert_eq!(ek::Scalar::complex(1.0, -2.0), ek::Scalar::Complex { re: 1.0, im: -2.0 });
    /// ```
    pub const fn complex(re: f64, im: f64) -> Self {
        Scalar::Complex { re, im }
    }
}
