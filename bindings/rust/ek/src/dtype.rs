//! Element types: the `DType` enum and the host types that map onto it.
use std::fmt;

use ek_sys as sys;

use crate::complex::{Complex32, Complex64};
use crate::error::static_str;

/// Element type of a tensor (`ek_dtype`). `Unknown` carries a code this
/// binding does not know (from a newer library); the library rejects it where
/// it does not know it either.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
    U16,
    U32,
    U64,
    /// complex64: [`Complex32`] elements.
    C64,
    /// complex128: [`Complex64`] elements.
    C128,
    Unknown(u32),
}

impl DType {
    pub(crate) fn to_raw(self) -> sys::ek_dtype {
        use sys::ek_dtype as D;
        match self {
            DType::Bool => D::EK_BOOL,
            DType::U8 => D::EK_UINT8,
            DType::I8 => D::EK_INT8,
            DType::I16 => D::EK_INT16,
            DType::I32 => D::EK_INT32,
            DType::I64 => D::EK_INT64,
            DType::F16 => D::EK_FLOAT16,
            DType::BF16 => D::EK_BFLOAT16,
            DType::F32 => D::EK_FLOAT32,
            DType::F64 => D::EK_FLOAT64,
            DType::U16 => D::EK_UINT16,
            DType::U32 => D::EK_UINT32,
            DType::U64 => D::EK_UINT64,
            DType::C64 => D::EK_COMPLEX64,
            DType::C128 => D::EK_COMPLEX128,
            DType::Unknown(v) => D(v),
        }
    }

    pub(crate) fn from_raw(d: sys::ek_dtype) -> DType {
        use sys::ek_dtype as D;
        match d {
            D::EK_BOOL => DType::Bool,
            D::EK_UINT8 => DType::U8,
            D::EK_INT8 => DType::I8,
            D::EK_INT16 => DType::I16,
            D::EK_INT32 => DType::I32,
            D::EK_INT64 => DType::I64,
            D::EK_FLOAT16 => DType::F16,
            D::EK_BFLOAT16 => DType::BF16,
            D::EK_FLOAT32 => DType::F32,
            D::EK_FLOAT64 => DType::F64,
            D::EK_UINT16 => DType::U16,
            D::EK_UINT32 => DType::U32,
            D::EK_UINT64 => DType::U64,
            D::EK_COMPLEX64 => DType::C64,
            D::EK_COMPLEX128 => DType::C128,
            D(v) => DType::Unknown(v),
        }
    }

    /// Bytes per element (`ek_dtype_size`); 0 for an unknown dtype.
    ///
    /// ```
    /// assert_eq!(ek::DType::BF16.size(), 2);
    /// assert_eq!(ek::DType::F64.size(), 8);
    /// ```
    pub fn size(self) -> usize {
        // SAFETY: plain value.
        unsafe { sys::ek_dtype_size(self.to_raw()) }
    }

    /// The library's name, e.g. `"float32"` (`ek_dtype_name`).
    ///
    /// ```
    /// assert_eq!(ek::DType::F32.name(), "float32");
    /// ```
    pub fn name(self) -> &'static str {
        // SAFETY: static string, never NULL.
        unsafe { static_str(sys::ek_dtype_name(self.to_raw())) }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The bits of an IEEE float16 value, for `DType::F16` tensors.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct F16Bits(pub u16);

/// The bits of a bfloat16 value (the high half of an f32), for `DType::BF16`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct BF16Bits(pub u16);

mod sealed {
    pub trait Sealed {}
}

/// A host type whose values are a tensor's elements: its memory layout is the
/// one the library uses for `DTYPE`. Sealed; implemented for `bool`, `u8`,
/// `i8`, `i16`, `i32`, `i64`, `u16`, `u32`, `u64`, `f32`, `f64`, [`F16Bits`],
/// [`BF16Bits`], [`Complex32`] and [`Complex64`].
///
/// ```
/// use ek::Element;
/// assert_eq!(<i16 as Element>::DTYPE, ek::DType::I16);
/// ```
pub trait Element: Copy + Send + Sync + 'static + sealed::Sealed {
    const DTYPE: DType;
    /// Builds values from the bytes the library wrote (host order). Only
    /// `bool` needs more than a reinterpretation: a byte other than 0 or 1
    /// must not become a Rust `bool`.
    #[doc(hidden)]
    fn from_host(bytes: Vec<u8>) -> Vec<Self>;
}

macro_rules! element {
    ($t:ty, $d:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn from_host(bytes: Vec<u8>) -> Vec<Self> {
                let n = bytes.len() / std::mem::size_of::<$t>();
                let mut v: Vec<$t> = Vec::with_capacity(n);
                // SAFETY: every bit pattern is a valid $t; the regions are
                // disjoint and n elements fit both.
                unsafe {
                    std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<$t>());
                    v.set_len(n);
                }
                v
            }
        }
    };
}

element!(u8, U8);
element!(i8, I8);
element!(i16, I16);
element!(i32, I32);
element!(i64, I64);
element!(u16, U16);
element!(u32, U32);
element!(u64, U64);
element!(f32, F32);
element!(f64, F64);
element!(F16Bits, F16);
element!(BF16Bits, BF16);
element!(Complex32, C64);
element!(Complex64, C128);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn from_host(bytes: Vec<u8>) -> Vec<Self> {
        bytes.into_iter().map(|b| b != 0).collect()
    }
}
