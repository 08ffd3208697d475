//! Elementwise ops (`ek_unary`, `ek_binary`, `ek_binary_scalar`), selection
//! and fused updates (`ek_where`, `ek_clamp`, `ek_lerp`, `ek_axpby`), and the
//! `std::ops` operators on tensors.
//!
//! Each C function has up to four forms here:
//! - `x.op(…)`: a new tensor on the default stream;
//! - `x.op_into(…, &out)`: the result written into an existing tensor of the
//!   result's shape and dtype (the C call's `*out` given);
//! - `x.op_(…)`: in place, `out` being `self` (where the C library allows it);
//! - `x.op_on(…, &stream, out)`: on a given stream, into `out` when `Some`
//!   (then the returned tensor is a new reference to `out`).
//!
//! Broadcasting, type promotion and result dtypes are the C library's
//! (NumPy/PyTorch rules, documented in `ek.h`).
use std::ops;

use ek_sys as sys;

use crate::error::{check, Result};
use crate::scalar::{raw_bound, Scalar};
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

/// Elementwise unary operations (`ek_unary_op`).
///
/// ```
/// use ek::{Context, Device, Tensor, UnaryOp};
/// let ctx = Context::new(Device::Cpu)?;
/// let x = Tensor::from_slice(&ctx, &[3], &[-1.5f32, 0.0, 2.5])?;
/// assert_eq!(x.unary(UnaryOp::Abs)?.to_vec::<f32>()?, [1.5, 0.0, 2.5]);
/// assert_eq!(x.relu()?.to_vec::<f32>()?, [0.0, 0.0, 2.5]);
/// assert_eq!(x.round()?.to_vec::<f32>()?, [-2.0, 0.0, 2.0]); // half to even
/// # Ok::<(), ek::Error>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum UnaryOp {
    Neg,
    Abs,
    /// sign(NaN) = NaN, as PyTorch.
    Sign,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log1p,
    Sqrt,
    Rsqrt,
    Square,
    Reciprocal,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Relu,
    /// Exact (erf) form.
    Gelu,
    /// tanh approximation.
    GeluTanh,
    Silu,
    Erf,
    Floor,
    Ceil,
    /// Half to even.
    Round,
    Trunc,
    /// Result dtype bool.
    LogicalNot,
    /// Result dtype bool.
    IsNan,
    /// Result dtype bool.
    IsInf,
    /// Result dtype bool.
    IsFinite,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Log10,
    /// Result dtype bool: the sign bit is set (true for -0.0 and -NaN).
    Signbit,
}

impl UnaryOp {
    /// Every op, in the order of `ek.h`.
    pub const ALL: [UnaryOp; 41] = {
        use UnaryOp::*;
        [
            Neg, Abs, Sign, Exp, Exp2, Expm1, Log, Log2, Log1p, Sqrt, Rsqrt, Square, Reciprocal, Sin, Cos, Tan, Tanh,
            Sigmoid, Relu, Gelu, GeluTanh, Silu, Erf, Floor, Ceil, Round, Trunc, LogicalNot, IsNan, IsInf, IsFinite,
            Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh, Log10, Signbit,
        ]
    };

    /// The C constant.
    pub fn to_raw(self) -> sys::ek_unary_op {
        use sys::ek_unary_op as R;
        match self {
            UnaryOp::Neg => R::EK_UNARY_NEG,
            UnaryOp::Abs => R::EK_UNARY_ABS,
            UnaryOp::Sign => R::EK_UNARY_SIGN,
            UnaryOp::Exp => R::EK_UNARY_EXP,
            UnaryOp::Exp2 => R::EK_UNARY_EXP2,
            UnaryOp::Expm1 => R::EK_UNARY_EXPM1,
            UnaryOp::Log => R::EK_UNARY_LOG,
            UnaryOp::Log2 => R::EK_UNARY_LOG2,
            UnaryOp::Log1p => R::EK_UNARY_LOG1P,
            UnaryOp::Sqrt => R::EK_UNARY_SQRT,
            UnaryOp::Rsqrt => R::EK_UNARY_RSQRT,
            UnaryOp::Square => R::EK_UNARY_SQUARE,
            UnaryOp::Reciprocal => R::EK_UNARY_RECIPROCAL,
            UnaryOp::Sin => R::EK_UNARY_SIN,
            UnaryOp::Cos => R::EK_UNARY_COS,
            UnaryOp::Tan => R::EK_UNARY_TAN,
            UnaryOp::Tanh => R::EK_UNARY_TANH,
            UnaryOp::Sigmoid => R::EK_UNARY_SIGMOID,
            UnaryOp::Relu => R::EK_UNARY_RELU,
            UnaryOp::Gelu => R::EK_UNARY_GELU,
            UnaryOp::GeluTanh => R::EK_UNARY_GELU_TANH,
            UnaryOp::Silu => R::EK_UNARY_SILU,
            UnaryOp::Erf => R::EK_UNARY_ERF,
            UnaryOp::Floor => R::EK_UNARY_FLOOR,
            UnaryOp::Ceil => R::EK_UNARY_CEIL,
            UnaryOp::Round => R::EK_UNARY_ROUND,
            UnaryOp::Trunc => R::EK_UNARY_TRUNC,
            UnaryOp::LogicalNot => R::EK_UNARY_LOGICAL_NOT,
            UnaryOp::IsNan => R::EK_UNARY_ISNAN,
            UnaryOp::IsInf => R::EK_UNARY_ISINF,
            UnaryOp::IsFinite => R::EK_UNARY_ISFINITE,
            UnaryOp::Asin => R::EK_UNARY_ASIN,
            UnaryOp::Acos => R::EK_UNARY_ACOS,
            UnaryOp::Atan => R::EK_UNARY_ATAN,
            UnaryOp::Sinh => R::EK_UNARY_SINH,
            UnaryOp::Cosh => R::EK_UNARY_COSH,
            UnaryOp::Asinh => R::EK_UNARY_ASINH,
            UnaryOp::Acosh => R::EK_UNARY_ACOSH,
            UnaryOp::Atanh => R::EK_UNARY_ATANH,
            UnaryOp::Log10 => R::EK_UNARY_LOG10,
            UnaryOp::Signbit => R::EK_UNARY_SIGNBIT,
        }
    }
}

/// Elementwise binary operations (`ek_binary_op`), for [`Tensor::binary`]
/// and [`Tensor::binary_scalar`].
///
/// ```
/// use ek::{BinaryOp, Context, Device, Tensor};
/// let ctx = Context::new(Device::Cpu)?;
/// let a = Tensor::from_slice(&ctx, &[4], &[-7i32, -1, 5, 8])?;
/// assert_eq!(a.binary_scalar(BinaryOp::FloorDiv, 2)?.to_vec::<i32>()?, [-4, -1, 2, 4]);
/// assert_eq!(a.binary_scalar(BinaryOp::Remainder, 3)?.to_vec::<i32>()?, [2, 2, 2, 2]);
/// assert_eq!(a.binary_scalar(BinaryOp::Gt, 0)?.to_vec::<bool>()?, [false, false, true, true]);
/// # Ok::<(), ek::Error>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// True division: integers give float32.
    Div,
    /// Python's `//`: rounds toward -inf.
    FloorDiv,
    /// Python's `%`: the divisor's sign.
    Remainder,
    Pow,
    Atan2,
    Maximum,
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    /// Integer or bool only (as the other bitwise ops and shifts).
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    ShiftLeft,
    ShiftRight,
    /// `log(e^a + e^b)`, computed stably; integers give float32 (as the
    /// three below).
    Logaddexp,
    Hypot,
    /// `|a|` with `b`'s sign bit.
    Copysign,
    /// The next float after `a` toward `b` (one ulp of the result dtype).
    Nextafter,
}

impl BinaryOp {
    /// Every op, in the order of `ek.h`.
    pub const ALL: [BinaryOp; 28] = {
        use BinaryOp::*;
        [
            Add, Sub, Mul, Div, FloorDiv, Remainder, Pow, Atan2, Maximum, Minimum, Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd,
            LogicalOr, LogicalXor, BitwiseAnd, BitwiseOr, BitwiseXor, ShiftLeft, ShiftRight, Logaddexp, Hypot,
            Copysign, Nextafter,
        ]
    };

    /// The C constant.
    pub fn to_raw(self) -> sys::ek_binary_op {
        use sys::ek_binary_op as R;
        match self {
            BinaryOp::Add => R::EK_BINARY_ADD,
            BinaryOp::Sub => R::EK_BINARY_SUB,
            BinaryOp::Mul => R::EK_BINARY_MUL,
            BinaryOp::Div => R::EK_BINARY_DIV,
            BinaryOp::FloorDiv => R::EK_BINARY_FLOOR_DIV,
            BinaryOp::Remainder => R::EK_BINARY_REMAINDER,
            BinaryOp::Pow => R::EK_BINARY_POW,
            BinaryOp::Atan2 => R::EK_BINARY_ATAN2,
            BinaryOp::Maximum => R::EK_BINARY_MAXIMUM,
            BinaryOp::Minimum => R::EK_BINARY_MINIMUM,
            BinaryOp::Eq => R::EK_BINARY_EQ,
            BinaryOp::Ne => R::EK_BINARY_NE,
            BinaryOp::Lt => R::EK_BINARY_LT,
            BinaryOp::Le => R::EK_BINARY_LE,
            BinaryOp::Gt => R::EK_BINARY_GT,
            BinaryOp::Ge => R::EK_BINARY_GE,
            BinaryOp::LogicalAnd => R::EK_BINARY_LOGICAL_AND,
            BinaryOp::LogicalOr => R::EK_BINARY_LOGICAL_OR,
            BinaryOp::LogicalXor => R::EK_BINARY_LOGICAL_XOR,
            BinaryOp::BitwiseAnd => R::EK_BINARY_BITWISE_AND,
            BinaryOp::BitwiseOr => R::EK_BINARY_BITWISE_OR,
            BinaryOp::BitwiseXor => R::EK_BINARY_BITWISE_XOR,
            BinaryOp::ShiftLeft => R::EK_BINARY_SHIFT_LEFT,
            BinaryOp::ShiftRight => R::EK_BINARY_SHIFT_RIGHT,
            BinaryOp::Logaddexp => R::EK_BINARY_LOGADDEXP,
            BinaryOp::Hypot => R::EK_BINARY_HYPOT,
            BinaryOp::Copysign => R::EK_BINARY_COPYSIGN,
            BinaryOp::Nextafter => R::EK_BINARY_NEXTAFTER,
        }
    }
}

impl Tensor {
    /// Writes a C call's result into `out` (its `*out` given, never replaced).
    pub(crate) fn write_into(out: &Tensor, f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status) -> Result<()> {
        let mut o = out.as_raw();
        check(f(&mut o))
    }

    /// A new tensor from a C call, or, with `out`, the result written there
    /// and a new reference to it returned.
    pub(crate) fn produce(
        &self,
        out: Option<&Tensor>,
        f: impl FnOnce(*mut sys::ek_tensor) -> sys::ek_status,
    ) -> Result<Tensor> {
        match out {
            Some(o) => {
                Tensor::write_into(o, f)?;
                Ok(o.clone())
            }
            None => self.derive(f),
        }
    }

    // ------------------------------------------------------------ unary

    fn unary_impl(&self, op: UnaryOp, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_unary(raw_stream(s), op.to_raw(), self.as_raw(), o) })
    }

    /// `op(self)` elementwise, as a new tensor (`ek_unary`). The result has
    /// `self`'s dtype, except bool for the predicates and float32 for the
    /// float-only ops on integer input.
    pub fn unary(&self, op: UnaryOp) -> Result<Tensor> {
        self.unary_impl(op, None, None)
    }

    /// `op(self)` written into `out` (which may be `self`).
    ///
    /// ```
    /// use ek::{Context, DType, Device, Tensor, UnaryOp};
    /// let ctx = Context::new(Device::Cpu)?;
    /// let x = Tensor::from_slice(&ctx, &[2], &[4.0f64, 9.0])?;
    /// let y = Tensor::empty(&ctx, &[2], DType::F64)?;
    /// x.unary_into(UnaryOp::Sqrt, &y)?;
    /// assert_eq!(y.to_vec::<f64>()?, [2.0, 3.0]);
    /// let bad = Tensor::empty(&ctx, &[3], DType::F64)?;
    /// assert_eq!(x.unary_into(UnaryOp::Sqrt, &bad).unwrap_err().status, ek::Status::SHAPE);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn unary_into(&self, op: UnaryOp, out: &Tensor) -> Result<()> {
        self.unary_impl(op, None, Some(out)).map(drop)
    }

    /// `op(self)` in place.
    pub fn unary_(&self, op: UnaryOp) -> Result<()> {
        self.unary_into(op, self)
    }

    /// `op(self)` on `stream`, into `out` when given.
    pub fn unary_on(&self, op: UnaryOp, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.unary_impl(op, Some(stream), out)
    }

    // ------------------------------------------------------------ binary

    fn binary_impl(&self, op: BinaryOp, b: &Tensor, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_binary(raw_stream(s), op.to_raw(), self.as_raw(), b.as_raw(), o) })
    }

    /// `self op b`, broadcast, as a new tensor (`ek_binary`). The operands
    /// must share a context.
    ///
    /// ```
    /// use ek::{BinaryOp, Context, Device, Tensor};
    /// let ctx = Context::new(Device::Cpu)?;
    /// let a = Tensor::from_slice(&ctx, &[2, 1], &[1.0f32, 2.0])?;
    /// let b = Tensor::from_slice(&ctx, &[3], &[10.0f32, 20.0, 30.0])?;
    /// let c = a.binary(BinaryOp::Mul, &b)?; // [2,1] * [3] -> [2,3]
    /// assert_eq!(c.shape(), [2, 3]);
    /// assert_eq!(c.to_vec::<f32>()?, [10.0, 20.0, 30.0, 20.0, 40.0, 60.0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn binary(&self, op: BinaryOp, b: &Tensor) -> Result<Tensor> {
        self.binary_impl(op, b, None, None)
    }

    /// `self op b` written into `out` (which may be `self` or `b`).
    pub fn binary_into(&self, op: BinaryOp, b: &Tensor, out: &Tensor) -> Result<()> {
        self.binary_impl(op, b, None, Some(out)).map(drop)
    }

    /// `self = self op b` in place (`b` broadcasts to `self`'s shape).
    pub fn binary_(&self, op: BinaryOp, b: &Tensor) -> Result<()> {
        self.binary_into(op, b, self)
    }

    /// `self op b` on `stream`, into `out` when given.
    pub fn binary_on(&self, op: BinaryOp, b: &Tensor, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.binary_impl(op, b, Some(stream), out)
    }

    fn scalar_impl(
        &self,
        op: BinaryOp,
        scalar: Scalar,
        first: bool,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe {
            sys::ek_binary_scalar(raw_stream(s), op.to_raw(), self.as_raw(), scalar.to_raw(), first as i32, o)
        })
    }

    /// `self op scalar` (`ek_binary_scalar`). The scalar behaves as a Python
    /// number: its kind ([`Scalar`]: bool < integer < float, from the Rust
    /// type) only raises `self`'s category (int tensor + 2.5 or + 2.0 is
    /// float32, int tensor + 2 stays int, f16 tensor * 2.0 stays f16). An
    /// integer scalar is exact in integer arithmetic, beyond 2^53 too.
    ///
    /// ```
    /// use ek::{BinaryOp, Context, Device, DType, Tensor};
    /// let ctx = Context::new(Device::Cpu)?;
    /// let i = Tensor::from_slice(&ctx, &[2], &[1i32, 2])?;
    /// assert_eq!(i.binary_scalar(BinaryOp::Add, 2)?.dtype(), DType::I32);
    /// assert_eq!(i.binary_scalar(BinaryOp::Add, 2.5)?.to_vec::<f32>()?, [3.5, 4.5]);
    /// let big = Tensor::from_slice(&ctx, &[1], &[1i64 << 62])?;
    /// assert_eq!(big.binary_scalar(BinaryOp::Add, 1i64)?.item::<i64>()?, (1 << 62) + 1);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn binary_scalar(&self, op: BinaryOp, scalar: impl Into<Scalar>) -> Result<Tensor> {
        self.scalar_impl(op, scalar.into(), false, None, None)
    }

    /// `scalar op self` (`ek_binary_scalar` with `scalar_first`).
    ///
    /// ```
    /// use ek::{BinaryOp, Context, Device, Tensor};
    /// let ctx = Context::new(Device::Cpu)?;
    /// let x = Tensor::from_slice(&ctx, &[2], &[1.0f32, 4.0])?;
    /// assert_eq!(x.rbinary_scalar(BinaryOp::Div, 8.0)?.to_vec::<f32>()?, [8.0, 2.0]);
    /// assert_eq!(x.rbinary_scalar(BinaryOp::Pow, 2.0)?.to_vec::<f32>()?, [2.0, 16.0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn rbinary_scalar(&self, op: BinaryOp, scalar: impl Into<Scalar>) -> Result<Tensor> {
        self.scalar_impl(op, scalar.into(), true, None, None)
    }

    /// `self op scalar` written into `out` (which may be `self`).
    pub fn binary_scalar_into(&self, op: BinaryOp, scalar: impl Into<Scalar>, out: &Tensor) -> Result<()> {
        self.scalar_impl(op, scalar.into(), false, None, Some(out)).map(drop)
    }

    /// `scalar op self` written into `out` (which may be `self`).
    pub fn rbinary_scalar_into(&self, op: BinaryOp, scalar: impl Into<Scalar>, out: &Tensor) -> Result<()> {
        self.scalar_impl(op, scalar.into(), true, None, Some(out)).map(drop)
    }

    /// `self = self op scalar` in place.
    pub fn binary_scalar_(&self, op: BinaryOp, scalar: impl Into<Scalar>) -> Result<()> {
        self.binary_scalar_into(op, scalar, self)
    }

    /// `self op scalar` (or `scalar op self` when `scalar_first`) on
    /// `stream`, into `out` when given.
    pub fn binary_scalar_on(
        &self,
        op: BinaryOp,
        scalar: impl Into<Scalar>,
        scalar_first: bool,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        self.scalar_impl(op, scalar.into(), scalar_first, Some(stream), out)
    }

    // ------------------------------------------------------------ selection and fused updates

    fn where_impl(cond: &Tensor, a: &Tensor, b: &Tensor, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        // SAFETY: live handles; out is NULL or a live handle.
        a.produce(out, |o| unsafe { sys::ek_where(raw_stream(s), cond.as_raw(), a.as_raw(), b.as_raw(), o) })
    }

    /// `cond ? a : b` elementwise, broadcast over all three (`ek_where`, as
    /// `torch.where`); `cond` of any dtype (nonzero is true).
    ///
    /// ```
    /// use ek::{Context, Device, Tensor};
    /// let ctx = Context::new(Device::Cpu)?;
    /// let x = Tensor::from_slice(&ctx, &[4], &[-2.0f32, 3.0, -1.0, 5.0])?;
    /// let zero = Tensor::zeros(&ctx, &[], ek::DType::F32)?;
    /// let y = Tensor::where_(&x.gt_scalar(0.0)?, &x, &zero)?;
    /// assert_eq!(y.to_vec::<f32>()?, [0.0, 3.0, 0.0, 5.0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn where_(cond: &Tensor, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        Tensor::where_impl(cond, a, b, None, None)
    }

    /// `cond ? a : b` written into `out` (which may be `a` or `b`).
    pub fn where_into(cond: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        Tensor::where_impl(cond, a, b, None, Some(out)).map(drop)
    }

    /// `cond ? a : b` on `stream`, into `out` when given.
    pub fn where_on(cond: &Tensor, a: &Tensor, b: &Tensor, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        Tensor::where_impl(cond, a, b, Some(stream), out)
    }

    fn clamp_impl(
        &self,
        lo: Option<sys::ek_scalar>,
        hi: Option<sys::ek_scalar>,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        let lo_p = lo.as_ref().map_or(std::ptr::null(), |v| v as *const sys::ek_scalar);
        let hi_p = hi.as_ref().map_or(std::ptr::null(), |v| v as *const sys::ek_scalar);
        // SAFETY: live handles; the bounds are NULL or point at locals that
        // outlive the call.
        self.produce(out, |o| unsafe { sys::ek_clamp(raw_stream(s), self.as_raw(), lo_p, hi_p, o) })
    }

    /// `min(max(self, lo), hi)`; `None` leaves that side unbounded
    /// (`ek_clamp`; a bare `None` needs its type, `None::<f64>`, or use
    /// [`Tensor::clamp_min`] / [`Tensor::clamp_max`]). NaN stays NaN; the
    /// bounds are cast to the dtype, and for an integer tensor an integer
    /// bound is exact (`i64`/`u64` beyond 2^53 included) and saturates to the
    /// dtype's range.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::from_slice(&ctx, &[4], &[-3i64, 0, 4, 9])?;
    /// assert_eq!(x.clamp(Some(-1), Some(5))?.to_vec::<i64>()?, [-1, 0, 4, 5]);
    /// assert_eq!(x.clamp(None::<i64>, Some(0.0))?.to_vec::<i64>()?, [-3, 0, 0, 0]);
    /// assert_eq!(x.clamp_min(2)?.to_vec::<i64>()?, [2, 2, 4, 9]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn clamp<L: Into<Scalar>, H: Into<Scalar>>(&self, lo: Option<L>, hi: Option<H>) -> Result<Tensor> {
        self.clamp_impl(raw_bound(lo), raw_bound(hi), None, None)
    }

    /// `max(self, lo)`: [`Tensor::clamp`] with no upper bound.
    pub fn clamp_min(&self, lo: impl Into<Scalar>) -> Result<Tensor> {
        self.clamp_impl(Some(lo.into().to_raw()), None, None, None)
    }

    /// `min(self, hi)`: [`Tensor::clamp`] with no lower bound.
    pub fn clamp_max(&self, hi: impl Into<Scalar>) -> Result<Tensor> {
        self.clamp_impl(None, Some(hi.into().to_raw()), None, None)
    }

    /// [`Tensor::clamp`] written into `out` (which may be `self`).
    pub fn clamp_into<L: Into<Scalar>, H: Into<Scalar>>(&self, lo: Option<L>, hi: Option<H>, out: &Tensor) -> Result<()> {
        self.clamp_impl(raw_bound(lo), raw_bound(hi), None, Some(out)).map(drop)
    }

    /// [`Tensor::clamp`] in place.
    pub fn clamp_<L: Into<Scalar>, H: Into<Scalar>>(&self, lo: Option<L>, hi: Option<H>) -> Result<()> {
        self.clamp_into(lo, hi, self)
    }

    /// [`Tensor::clamp`] on `stream`, into `out` when given.
    pub fn clamp_on<L: Into<Scalar>, H: Into<Scalar>>(
        &self,
        lo: Option<L>,
        hi: Option<H>,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        self.clamp_impl(raw_bound(lo), raw_bound(hi), Some(stream), out)
    }

    fn lerp_impl(&self, end: &Tensor, weight: Scalar, s: Option<&Stream>, out: Option<&Tensor>) -> Result<Tensor> {
        let w = weight.to_raw();
        // SAFETY: live handles; out is NULL or a live handle.
        self.produce(out, |o| unsafe { sys::ek_lerp(raw_stream(s), self.as_raw(), end.as_raw(), w, o) })
    }

    /// `self + weight * (end - self)`, float tensors only, broadcast
    /// (`ek_lerp`); `weight` of any [`Scalar`] kind, rounded to the compute type.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let a = ek::Tensor::from_slice(&ctx, &[2], &[0.0f32, 10.0])?;
    /// let b = ek::Tensor::from_slice(&ctx, &[2], &[4.0f32, 20.0])?;
    /// assert_eq!(a.lerp(&b, 0.25)?.to_vec::<f32>()?, [1.0, 12.5]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn lerp(&self, end: &Tensor, weight: impl Into<Scalar>) -> Result<Tensor> {
        self.lerp_impl(end, weight.into(), None, None)
    }

    /// [`Tensor::lerp`] written into `out` (which may be `self` or `end`).
    pub fn lerp_into(&self, end: &Tensor, weight: impl Into<Scalar>, out: &Tensor) -> Result<()> {
        self.lerp_impl(end, weight.into(), None, Some(out)).map(drop)
    }

    /// [`Tensor::lerp`] in place: `self += weight * (end - self)`.
    pub fn lerp_(&self, end: &Tensor, weight: impl Into<Scalar>) -> Result<()> {
        self.lerp_into(end, weight, self)
    }

    /// [`Tensor::lerp`] on `stream`, into `out` when given.
    pub fn lerp_on(&self, end: &Tensor, weight: impl Into<Scalar>, stream: &Stream, out: Option<&Tensor>) -> Result<Tensor> {
        self.lerp_impl(end, weight.into(), Some(stream), out)
    }

    fn axpby_impl(
        alpha: Scalar,
        x: &Tensor,
        beta: Scalar,
        y: &Tensor,
        s: Option<&Stream>,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        let (a, b) = (alpha.to_raw(), beta.to_raw());
        // SAFETY: live handles; out is NULL or a live handle.
        x.produce(out, |o| unsafe { sys::ek_axpby(raw_stream(s), a, x.as_raw(), b, y.as_raw(), o) })
    }

    /// `alpha * x + beta * y` in one pass (`ek_axpby`); broadcast and
    /// promotion as [`BinaryOp::Add`]. With integer (or bool) operands
    /// `alpha` and `beta` must be integers (an integer [`Scalar`] is exact,
    /// beyond 2^53 too) and the arithmetic wraps.
    ///
    /// ```
    /// use ek::Tensor;
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = Tensor::from_slice(&ctx, &[2], &[1.0f32, 2.0])?;
    /// let y = Tensor::from_slice(&ctx, &[2], &[10.0f32, 20.0])?;
    /// assert_eq!(Tensor::axpby(2.0, &x, 0.5, &y)?.to_vec::<f32>()?, [7.0, 14.0]);
    /// y.axpby_(-1.0, &x, 1.0)?; // y -= x, in place
    /// assert_eq!(y.to_vec::<f32>()?, [9.0, 18.0]);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn axpby(alpha: impl Into<Scalar>, x: &Tensor, beta: impl Into<Scalar>, y: &Tensor) -> Result<Tensor> {
        Tensor::axpby_impl(alpha.into(), x, beta.into(), y, None, None)
    }

    /// `alpha * x + beta * y` written into `out` (which may be `x` or `y`).
    pub fn axpby_into(
        alpha: impl Into<Scalar>,
        x: &Tensor,
        beta: impl Into<Scalar>,
        y: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        Tensor::axpby_impl(alpha.into(), x, beta.into(), y, None, Some(out)).map(drop)
    }

    /// The fused update `self = alpha * x + beta * self`, in place.
    pub fn axpby_(&self, alpha: impl Into<Scalar>, x: &Tensor, beta: impl Into<Scalar>) -> Result<()> {
        Tensor::axpby_into(alpha, x, beta, self, self)
    }

    /// `alpha * x + beta * y` on `stream`, into `out` when given.
    pub fn axpby_on(
        alpha: impl Into<Scalar>,
        x: &Tensor,
        beta: impl Into<Scalar>,
        y: &Tensor,
        stream: &Stream,
        out: Option<&Tensor>,
    ) -> Result<Tensor> {
        Tensor::axpby_impl(alpha.into(), x, beta.into(), y, Some(stream), out)
    }
}

// ---------------------------------------------------------------- named ops

macro_rules! unary_named {
    ($( $name:ident $inplace:ident => $op:ident ),* $(,)?) => {
        /// Named elementwise unary ops: `x.exp()` is `x.unary(UnaryOp::Exp)`,
        /// `x.exp_()` the same in place.
        impl Tensor {
            $(
                #[doc = concat!("`", stringify!($name), "(self)` elementwise ([`UnaryOp::", stringify!($op), "`]).")]
                pub fn $name(&self) -> Result<Tensor> {
                    self.unary(UnaryOp::$op)
                }
                #[doc = concat!("`", stringify!($name), "(self)` in place ([`UnaryOp::", stringify!($op), "`]).")]
                pub fn $inplace(&self) -> Result<()> {
                    self.unary_(UnaryOp::$op)
                }
            )*
        }
    };
}

unary_named! {
    neg neg_ => Neg, abs abs_ => Abs, sign sign_ => Sign,
    exp exp_ => Exp, exp2 exp2_ => Exp2, expm1 expm1_ => Expm1,
    log log_ => Log, log2 log2_ => Log2, log1p log1p_ => Log1p,
    sqrt sqrt_ => Sqrt, rsqrt rsqrt_ => Rsqrt, square square_ => Square, reciprocal reciprocal_ => Reciprocal,
    sin sin_ => Sin, cos cos_ => Cos, tan tan_ => Tan, tanh tanh_ => Tanh,
    sigmoid sigmoid_ => Sigmoid, relu relu_ => Relu, gelu gelu_ => Gelu, gelu_tanh gelu_tanh_ => GeluTanh,
    silu silu_ => Silu, erf erf_ => Erf,
    floor floor_ => Floor, ceil ceil_ => Ceil, round round_ => Round, trunc trunc_ => Trunc,
    asin asin_ => Asin, acos acos_ => Acos, atan atan_ => Atan, sinh sinh_ => Sinh, cosh cosh_ => Cosh,
    asinh asinh_ => Asinh, acosh acosh_ => Acosh, atanh atanh_ => Atanh, log10 log10_ => Log10,
}

macro_rules! unary_predicates {
    ($( $name:ident => $op:ident ),* $(,)?) => {
        impl Tensor {
            $(
                #[doc = concat!("`", stringify!($name), "(self)` elementwise, a bool tensor ([`UnaryOp::", stringify!($op), "`]).")]
                pub fn $name(&self) -> Result<Tensor> {
                    self.unary(UnaryOp::$op)
                }
            )*
        }
    };
}

unary_predicates! { logical_not => LogicalNot, isnan => IsNan, isinf => IsInf, isfinite => IsFinite }
unary_predicates! { signbit => Signbit }

macro_rules! binary_named {
    ($( $name:ident $scalar:ident => $op:ident $( ; $inplace:ident $scalar_inplace:ident )? ),* $(,)?) => {
        /// Named elementwise binary ops: `a.add(&b)` is
        /// `a.binary(BinaryOp::Add, &b)`, `a.add_scalar(2.0)` is
        /// `a.binary_scalar(BinaryOp::Add, 2.0)`; `add_`/`add_scalar_` work in place.
        impl Tensor {
            $(
                #[doc = concat!("`self ", stringify!($name), " b`, broadcast ([`BinaryOp::", stringify!($op), "`]).")]
                pub fn $name(&self, b: &Tensor) -> Result<Tensor> {
                    self.binary(BinaryOp::$op, b)
                }
                #[doc = concat!("`self ", stringify!($name), " scalar` ([`BinaryOp::", stringify!($op), "`], see [`Tensor::binary_scalar`]).")]
                pub fn $scalar(&self, scalar: impl Into<Scalar>) -> Result<Tensor> {
                    self.binary_scalar(BinaryOp::$op, scalar)
                }
                $(
                    #[doc = concat!("`self = self ", stringify!($name), " b` in place ([`BinaryOp::", stringify!($op), "`]).")]
                    pub fn $inplace(&self, b: &Tensor) -> Result<()> {
                        self.binary_(BinaryOp::$op, b)
                    }
                    #[doc = concat!("`self = self ", stringify!($name), " scalar` in place ([`BinaryOp::", stringify!($op), "`]).")]
                    pub fn $scalar_inplace(&self, scalar: impl Into<Scalar>) -> Result<()> {
                        self.binary_scalar_(BinaryOp::$op, scalar)
                    }
                )?
            )*
        }
    };
}

binary_named! {
    add add_scalar => Add; add_ add_scalar_,
    sub sub_scalar => Sub; sub_ sub_scalar_,
    mul mul_scalar => Mul; mul_ mul_scalar_,
    div div_scalar => Div; div_ div_scalar_,
    floor_div floor_div_scalar => FloorDiv; floor_div_ floor_div_scalar_,
    remainder remainder_scalar => Remainder; remainder_ remainder_scalar_,
    pow pow_scalar => Pow; pow_ pow_scalar_,
    atan2 atan2_scalar => Atan2; atan2_ atan2_scalar_,
    maximum maximum_scalar => Maximum; maximum_ maximum_scalar_,
    minimum minimum_scalar => Minimum; minimum_ minimum_scalar_,
    bitwise_and bitwise_and_scalar => BitwiseAnd; bitwise_and_ bitwise_and_scalar_,
    bitwise_or bitwise_or_scalar => BitwiseOr; bitwise_or_ bitwise_or_scalar_,
    bitwise_xor bitwise_xor_scalar => BitwiseXor; bitwise_xor_ bitwise_xor_scalar_,
    shift_left shift_left_scalar => ShiftLeft; shift_left_ shift_left_scalar_,
    shift_right shift_right_scalar => ShiftRight; shift_right_ shift_right_scalar_,
    logaddexp logaddexp_scalar => Logaddexp; logaddexp_ logaddexp_scalar_,
    hypot hypot_scalar => Hypot; hypot_ hypot_scalar_,
    copysign copysign_scalar => Copysign; copysign_ copysign_scalar_,
    nextafter nextafter_scalar => Nextafter; nextafter_ nextafter_scalar_,
    eq eq_scalar => Eq,
    ne ne_scalar => Ne,
    lt lt_scalar => Lt,
    le le_scalar => Le,
    gt gt_scalar => Gt,
    ge ge_scalar => Ge,
    logical_and logical_and_scalar => LogicalAnd,
    logical_or logical_or_scalar => LogicalOr,
    logical_xor logical_xor_scalar => LogicalXor,
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
