//! The `std::ops` operators on tensors, and the forms of the elementwise ops
//! that are not one C call each (the generated ones are in generated.rs).
use std::ops;

use ek_sys as sys;

use crate::error::Result;
use crate::generated::{BinaryOp, UnaryOp};
use crate::scalar::Scalar;
use crate::tensor::Tensor;

impl Tensor {
    /// `scalar op self` (`ek_binary_scalar` with `scalar_first`).
    pub fn rbinary_scalar(&self, op: BinaryOp, scalar: impl Into<Scalar>) -> Result<Tensor> {
        let s = scalar.into().to_raw();
        // SAFETY: live handle.
        self.produce(None, |o| unsafe { sys::ek_binary_scalar(std::ptr::null_mut(), op.to_raw(), self.as_raw(), s, 1, o) })
    }

    /// `scalar op self` written into `out` (which may be `self`).
    pub fn rbinary_scalar_into(&self, op: BinaryOp, scalar: impl Into<Scalar>, out: &Tensor) -> Result<()> {
        let s = scalar.into().to_raw();
        // SAFETY: live handles.
        Tensor::write_into(out, |o| unsafe { sys::ek_binary_scalar(std::ptr::null_mut(), op.to_raw(), self.as_raw(), s, 1, o) })
    }

    /// `max(self, lo)`: [`Tensor::clamp`] with no upper bound.
    pub fn clamp_min(&self, lo: impl Into<Scalar>) -> Result<Tensor> {
        self.clamp(Some(lo.into() as Scalar), None::<Scalar>)
    }

    /// `min(self, hi)`: [`Tensor::clamp`] with no lower bound.
    pub fn clamp_max(&self, hi: impl Into<Scalar>) -> Result<Tensor> {
        self.clamp(None::<Scalar>, Some(hi.into() as Scalar))
    }

    /// The fused update `self = alpha * x + beta * self`, in place ([`Tensor::axpby`]).
    pub fn axpby_(&self, alpha: impl Into<Scalar>, x: &Tensor, beta: impl Into<Scalar>) -> Result<()> {
        Tensor::axpby_into(alpha, x, beta, self, self)
    }
}

// ---------------------------------------------------------------- std::ops

// Every operator is fallible (shapes, dtypes, devices), so its Output is
// `Result<Tensor>`: `(&a + &b)?`. Operands: `&Tensor` or `Tensor` on either
// side, and a scalar (`f64`, or `i64`, passed exactly as an integer) on
// either side. Only these two, so that an unsuffixed literal (`&x << 1`)
// infers; other types go through the methods (`x.add_scalar(u64::MAX)`).
macro_rules! tensor_operator {
    ($Trait:ident $method:ident => $op:ident) => {
        impl ops::$Trait<&Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                self.binary(BinaryOp::$op, rhs)
            }
        }
        impl ops::$Trait<Tensor> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                self.binary(BinaryOp::$op, &rhs)
            }
        }
        impl ops::$Trait<&Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                self.binary(BinaryOp::$op, rhs)
            }
        }
        impl ops::$Trait<Tensor> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                self.binary(BinaryOp::$op, &rhs)
            }
        }
    };
}

macro_rules! scalar_operator {
    ($Trait:ident $method:ident => $op:ident, $($S:ty),*) => {$(
        impl ops::$Trait<$S> for &Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: $S) -> Result<Tensor> {
                self.binary_scalar(BinaryOp::$op, rhs)
            }
        }
        impl ops::$Trait<$S> for Tensor {
            type Output = Result<Tensor>;
            fn $method(self, rhs: $S) -> Result<Tensor> {
                self.binary_scalar(BinaryOp::$op, rhs)
            }
        }
        impl ops::$Trait<&Tensor> for $S {
            type Output = Result<Tensor>;
            fn $method(self, rhs: &Tensor) -> Result<Tensor> {
                rhs.rbinary_scalar(BinaryOp::$op, self)
            }
        }
        impl ops::$Trait<Tensor> for $S {
            type Output = Result<Tensor>;
            fn $method(self, rhs: Tensor) -> Result<Tensor> {
                rhs.rbinary_scalar(BinaryOp::$op, self)
            }
        }
    )*};
}

tensor_operator!(Add add => Add);
tensor_operator!(Sub sub => Sub);
tensor_operator!(Mul mul => Mul);
tensor_operator!(Div div => Div);
tensor_operator!(Rem rem => Remainder);
tensor_operator!(BitAnd bitand => BitwiseAnd);
tensor_operator!(BitOr bitor => BitwiseOr);
tensor_operator!(BitXor bitxor => BitwiseXor);
tensor_operator!(Shl shl => ShiftLeft);
tensor_operator!(Shr shr => ShiftRight);
scalar_operator!(Add add => Add, f64, i64);
scalar_operator!(Sub sub => Sub, f64, i64);
scalar_operator!(Mul mul => Mul, f64, i64);
scalar_operator!(Div div => Div, f64, i64);
scalar_operator!(Rem rem => Remainder, f64, i64);
scalar_operator!(BitAnd bitand => BitwiseAnd, i64);
scalar_operator!(BitOr bitor => BitwiseOr, i64);
scalar_operator!(BitXor bitxor => BitwiseXor, i64);
scalar_operator!(Shl shl => ShiftLeft, i64);
scalar_operator!(Shr shr => ShiftRight, i64);

/// `-x` (`UnaryOp::Neg`); `Status::DTYPE` for bool.
impl ops::Neg for &Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        self.unary(UnaryOp::Neg)
    }
}

/// `-x` (`UnaryOp::Neg`); `Status::DTYPE` for bool.
impl ops::Neg for Tensor {
    type Output = Result<Tensor>;
    fn neg(self) -> Result<Tensor> {
        self.unary(UnaryOp::Neg)
    }
}
