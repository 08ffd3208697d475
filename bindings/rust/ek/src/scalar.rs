//! Values passed to the library with their kind (`ek_scalar`).
use ek_sys as sys;

/// A value passed to the library with its kind (`ek_scalar`), so 64-bit
/// integers stay exact: fill values, scalar operands, clamp bounds, lerp and
/// axpby coefficients, arange bounds, randint bounds, gemm's alpha and beta.
/// Built from any Rust number or `bool` with `From`/`Into` (`t.fill(3)`,
/// `t.fill(2.5)`, `t.fill(u64::MAX)`, `x.add_scalar(1i64 << 60)`); the Rust
/// type picks the kind, so `2` is an integer and `2.0` a float (which
/// matters where the kind does, e.g. the result dtype of an integer tensor
/// plus a scalar). Complex values come from [`Complex32`](crate::Complex32)
/// and [`Complex64`](crate::Complex64) (`x.mul_scalar(Complex64::new(0.0, 1.0))`).
///
/// Stored into a tensor ([`Tensor::fill`](crate::Tensor::fill),
/// [`Tensor::masked_fill`](crate::Tensor::masked_fill)), a value that does
/// not fit an integer dtype (`300` into `I8`, `f64::NAN` into `I32`) is an
/// error; floats are truncated toward zero first, and `Bool` tensors take
/// `value != 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    /// `re + im·i` (`EK_SCALAR_COMPLEX`), for complex tensors; from
    /// [`Complex32`](crate::Complex32) or [`Complex64`](crate::Complex64).
    /// A real tensor refuses it ([`Status::DTYPE`](crate::Status::DTYPE)).
    Complex { re: f64, im: f64 },
}

impl Scalar {
    /// The C value: the field the kind names set, every other field 0 (as
    /// `ek_scalar_int` and the other constructors of `ek.h`, which are
    /// `static inline` and so not in `ek-sys`).
    pub fn to_raw(self) -> sys::ek_scalar {
        use sys::ek_scalar_kind as K;
        let mut s = sys::ek_scalar { kind: K::EK_SCALAR_INT64, reserved_: 0, i: 0, u: 0, f: 0.0, imag: 0.0 };
        match self {
            Scalar::Bool(b) => {
                s.kind = K::EK_SCALAR_BOOL;
                s.i = i64::from(b);
            }
            Scalar::I64(i) => s.i = i,
            Scalar::U64(u) => {
                s.kind = K::EK_SCALAR_UINT64;
                s.u = u;
            }
            Scalar::F64(f) => {
                s.kind = K::EK_SCALAR_FLOAT64;
                s.f = f;
            }
            Scalar::Complex { re, im } => {
                s.kind = K::EK_SCALAR_COMPLEX;
                s.f = re;
                s.imag = im;
            }
        }
        s
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}

macro_rules! scalar_from {
    ($variant:ident, $wide:ty: $($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Self {
                Scalar::$variant(<$wide>::from(v))
            }
        }
    )*};
}
scalar_from!(I64, i64: i8, i16, i32, i64);
scalar_from!(U64, u64: u8, u16, u32, u64);
scalar_from!(F64, f64: f32, f64);

impl From<isize> for Scalar {
    fn from(v: isize) -> Self {
        Scalar::I64(v as i64) // isize is at most 64 bits on every target Rust supports here
    }
}

impl From<usize> for Scalar {
    fn from(v: usize) -> Self {
        Scalar::U64(v as u64)
    }
}
