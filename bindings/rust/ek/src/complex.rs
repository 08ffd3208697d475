//! Elements of complex tensors (`DType::C64`, `DType::C128`): the real part
//! first, as C's `float _Complex` and `num_complex::Complex<T>` lay them out.
//! [`Tensor::real`](crate::Tensor::real) and
//! [`Tensor::imag`](crate::Tensor::imag) view the parts as `f32`/`f64`
//! tensors; [`Tensor::conj`](crate::Tensor::conj) conjugates.

/// A complex64 element.
///
/// ```
/// let z = ek::Complex32::new(1.0, -2.0);
/// assert_eq!((z.re, z.im), (1.0, -2.0));
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Complex32 {
    pub re: f32,
    pub im: f32,
}

/// A complex128 element.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Complex64 {
    pub re: f64,
    pub im: f64,
}

impl Complex32 {
    pub const fn new(re: f32, im: f32) -> Self {
        Complex32 { re, im }
    }
}

impl Complex64 {
    pub const fn new(re: f64, im: f64) -> Self {
        Complex64 { re, im }
    }
}
