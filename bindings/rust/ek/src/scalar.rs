//! Values passed to the library with their kind (`ek_scalar`).
use ek_sys as sys;

/// A value for [`Tensor::fill`](crate::Tensor::fill) and
/// [`Tensor::masked_fill`](crate::Tensor::masked_fill): 64-bit integers stay
/// exact. Built from any Rust number or `bool` with `From`/`Into`
/// (`t.fill(3)`, `t.fill(2.5)`, `t.fill(u64::MAX)`). A value that does not fit
/// an integer dtype (`300` into `I8`, `f64::NAN` into `I32`) is an error;
/// floats are truncated toward zero first, and `Bool` tensors take
/// `value != 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
}

impl Scalar {
    pub(crate) fn to_raw(self) -> sys::ek_scalar {
        let mut s = sys::ek_scalar { kind: sys::ek_scalar_kind::EK_SCALAR_INT64, reserved_: 0, i: 0, u: 0, f: 0.0 };
        match self {
            Scalar::Bool(b) => {
                s.kind = sys::ek_scalar_kind::EK_SCALAR_BOOL;
                s.i = i64::from(b);
            }
            Scalar::I64(i) => s.i = i,
            Scalar::U64(u) => {
                s.kind = sys::ek_scalar_kind::EK_SCALAR_UINT64;
                s.u = u;
            }
            Scalar::F64(f) => {
                s.kind = sys::ek_scalar_kind::EK_SCALAR_FLOAT64;
                s.f = f;
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
