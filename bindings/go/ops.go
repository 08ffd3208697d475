package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Ops of the C library (ek_unary, ek_binary, ...). Each comes in up to three
// forms:
//
//   - x.Op(...) returns a new tensor, computed on the default stream;
//   - x.OpInto(..., out) writes the result into an existing tensor of the
//     result's shape and dtype (out may be x itself where the C library allows
//     it: elementwise ops, where, clamp, lerp, axpby, scatter, index_put,
//     masked_fill, masked_scatter);
//   - x.OpOn(..., s, out) runs on stream s (nil: the default stream) and writes
//     into out when it is not nil, returning out itself; otherwise it returns a
//     new tensor.
//
// Broadcasting, type promotion and result dtypes are the C library's
// (NumPy/PyTorch rules, documented in ek.h). New tensors are closed by the
// caller.

// UnaryOp selects an elementwise unary operation (ek_unary_op).
type UnaryOp int

// Unary ops of ek.h.
const (
	UnaryNeg        UnaryOp = C.EK_UNARY_NEG
	UnaryAbs        UnaryOp = C.EK_UNARY_ABS
	UnarySign       UnaryOp = C.EK_UNARY_SIGN // sign(NaN) = NaN
	UnaryExp        UnaryOp = C.EK_UNARY_EXP
	UnaryExp2       UnaryOp = C.EK_UNARY_EXP2
	UnaryExpm1      UnaryOp = C.EK_UNARY_EXPM1
	UnaryLog        UnaryOp = C.EK_UNARY_LOG
	UnaryLog2       UnaryOp = C.EK_UNARY_LOG2
	UnaryLog1p      UnaryOp = C.EK_UNARY_LOG1P
	UnarySqrt       UnaryOp = C.EK_UNARY_SQRT
	UnaryRsqrt      UnaryOp = C.EK_UNARY_RSQRT
	UnarySquare     UnaryOp = C.EK_UNARY_SQUARE
	UnaryReciprocal UnaryOp = C.EK_UNARY_RECIPROCAL
	UnarySin        UnaryOp = C.EK_UNARY_SIN
	UnaryCos        UnaryOp = C.EK_UNARY_COS
	UnaryTan        UnaryOp = C.EK_UNARY_TAN
	UnaryTanh       UnaryOp = C.EK_UNARY_TANH
	UnarySigmoid    UnaryOp = C.EK_UNARY_SIGMOID
	UnaryRelu       UnaryOp = C.EK_UNARY_RELU
	UnaryGelu       UnaryOp = C.EK_UNARY_GELU      // exact (erf) form
	UnaryGeluTanh   UnaryOp = C.EK_UNARY_GELU_TANH // tanh approximation
	UnarySilu       UnaryOp = C.EK_UNARY_SILU
	UnaryErf        UnaryOp = C.EK_UNARY_ERF
	UnaryFloor      UnaryOp = C.EK_UNARY_FLOOR
	UnaryCeil       UnaryOp = C.EK_UNARY_CEIL
	UnaryRound      UnaryOp = C.EK_UNARY_ROUND // half to even
	UnaryTrunc      UnaryOp = C.EK_UNARY_TRUNC
	UnaryLogicalNot UnaryOp = C.EK_UNARY_LOGICAL_NOT // bool result
	UnaryIsNaN      UnaryOp = C.EK_UNARY_ISNAN       // bool result
	UnaryIsInf      UnaryOp = C.EK_UNARY_ISINF       // bool result
	UnaryIsFinite   UnaryOp = C.EK_UNARY_ISFINITE    // bool result
	UnaryAsin       UnaryOp = C.EK_UNARY_ASIN
	UnaryAcos       UnaryOp = C.EK_UNARY_ACOS
	UnaryAtan       UnaryOp = C.EK_UNARY_ATAN
	UnarySinh       UnaryOp = C.EK_UNARY_SINH
	UnaryCosh       UnaryOp = C.EK_UNARY_COSH
	UnaryAsinh      UnaryOp = C.EK_UNARY_ASINH
	UnaryAcosh      UnaryOp = C.EK_UNARY_ACOSH
	UnaryAtanh      UnaryOp = C.EK_UNARY_ATANH
	UnaryLog10      UnaryOp = C.EK_UNARY_LOG10
	UnarySignbit    UnaryOp = C.EK_UNARY_SIGNBIT // bool result: the sign bit (-0.0, -NaN too)
)

var unaryNames = [...]string{"Neg", "Abs", "Sign", "Exp", "Exp2", "Expm1", "Log", "Log2", "Log1p", "Sqrt",
	"Rsqrt", "Square", "Reciprocal", "Sin", "Cos", "Tan", "Tanh", "Sigmoid", "Relu", "Gelu", "GeluTanh", "Silu",
	"Erf", "Floor", "Ceil", "Round", "Trunc", "LogicalNot", "IsNaN", "IsInf", "IsFinite", "Asin", "Acos", "Atan",
	"Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Log10", "Signbit"}

// UnaryOps lists every unary op, in the order of ek.h.
func UnaryOps() []UnaryOp {
	ops := make([]UnaryOp, len(unaryNames))
	for i := range ops {
		ops[i] = UnaryOp(i)
	}
	return ops
}

func (op UnaryOp) String() string {
	if op >= 0 && int(op) < len(unaryNames) {
		return "Unary" + unaryNames[op]
	}
	return fmt.Sprintf("UnaryOp(%d)", int(op))
}

// BinaryOp selects an elementwise binary operation (ek_binary_op).
type BinaryOp int

// Binary ops of ek.h.
const (
	BinaryAdd        BinaryOp = C.EK_BINARY_ADD
	BinarySub        BinaryOp = C.EK_BINARY_SUB
	BinaryMul        BinaryOp = C.EK_BINARY_MUL
	BinaryDiv        BinaryOp = C.EK_BINARY_DIV       // true division: integers give float32
	BinaryFloorDiv   BinaryOp = C.EK_BINARY_FLOOR_DIV // Python's //
	BinaryRemainder  BinaryOp = C.EK_BINARY_REMAINDER // Python's %: the divisor's sign
	BinaryPow        BinaryOp = C.EK_BINARY_POW
	BinaryAtan2      BinaryOp = C.EK_BINARY_ATAN2
	BinaryMaximum    BinaryOp = C.EK_BINARY_MAXIMUM
	BinaryMinimum    BinaryOp = C.EK_BINARY_MINIMUM
	BinaryEq         BinaryOp = C.EK_BINARY_EQ
	BinaryNe         BinaryOp = C.EK_BINARY_NE
	BinaryLt         BinaryOp = C.EK_BINARY_LT
	BinaryLe         BinaryOp = C.EK_BINARY_LE
	BinaryGt         BinaryOp = C.EK_BINARY_GT
	BinaryGe         BinaryOp = C.EK_BINARY_GE
	BinaryLogicalAnd BinaryOp = C.EK_BINARY_LOGICAL_AND
	BinaryLogicalOr  BinaryOp = C.EK_BINARY_LOGICAL_OR
	BinaryLogicalXor BinaryOp = C.EK_BINARY_LOGICAL_XOR
	BinaryBitwiseAnd BinaryOp = C.EK_BINARY_BITWISE_AND // integer or bool only, as the other bitwise ops and shifts
	BinaryBitwiseOr  BinaryOp = C.EK_BINARY_BITWISE_OR
	BinaryBitwiseXor BinaryOp = C.EK_BINARY_BITWISE_XOR
	BinaryShiftLeft  BinaryOp = C.EK_BINARY_SHIFT_LEFT
	BinaryShiftRight BinaryOp = C.EK_BINARY_SHIFT_RIGHT
	BinaryLogaddexp  BinaryOp = C.EK_BINARY_LOGADDEXP // log(e^a + e^b), stable; integers give float32 (as the three below)
	BinaryHypot      BinaryOp = C.EK_BINARY_HYPOT
	BinaryCopysign   BinaryOp = C.EK_BINARY_COPYSIGN  // |a| with b's sign bit
	BinaryNextafter  BinaryOp = C.EK_BINARY_NEXTAFTER // the next float after a toward b
)

var binaryNames = [...]string{"Add", "Sub", "Mul", "Div", "FloorDiv", "Remainder", "Pow", "Atan2", "Maximum",
	"Minimum", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "LogicalAnd", "LogicalOr", "LogicalXor", "BitwiseAnd",
	"BitwiseOr", "BitwiseXor", "ShiftLeft", "ShiftRight", "Logaddexp", "Hypot", "Copysign", "Nextafter"}

// BinaryOps lists every binary op, in the order of ek.h.
func BinaryOps() []BinaryOp {
	ops := make([]BinaryOp, len(binaryNames))
	for i := range ops {
		ops[i] = BinaryOp(i)
	}
	return ops
}

func (op BinaryOp) String() string {
	if op >= 0 && int(op) < len(binaryNames) {
		return "Binary" + binaryNames[op]
	}
	return fmt.Sprintf("BinaryOp(%d)", int(op))
}

// ---------------------------------------------------------------- plumbing

// rawOf is t's handle, NULL for a nil tensor: the C library then reports
// EK_ERROR_NULL_POINTER naming the function and the argument. t must be
// pinned around the C call.
func rawOf(t *Tensor) C.ek_tensor {
	if t == nil {
		return nil
	}
	return t.raw
}

// hnd is t's handle as an integer (0 for a nil tensor), for the wrappers
// that take handles as uintptr_t; t must be pinned around the C call.
func hnd(t *Tensor) C.uintptr_t {
	if t == nil {
		return 0
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(t.raw)))
}

func closedError() error { return &Error{Status: StatusNullPointer, Message: errClosed.Error()} }

// outOf is the *out to pass for a given out tensor: NULL (allocate) for nil.
// out must be pinned (a closed out then is an error before this: passing
// NULL would allocate instead of writing).
func outOf(out *Tensor) (C.ek_tensor, error) {
	if out == nil {
		return nil, nil
	}
	return out.raw, nil
}

// result turns an op's ekgo_result into (out, nil) when out was given, a new
// tensor of ctx otherwise, or an error.
func result(r C.ekgo_result, out *Tensor, ctx *Context) (*Tensor, error) {
	if r.status != C.EK_SUCCESS {
		return nil, check(r.status, r.msg)
	}
	if out != nil {
		return out, nil
	}
	return newTensor(r.out, ctx), nil
}

func contextOf(t *Tensor) *Context {
	if t == nil {
		return nil
	}
	return t.ctx
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------- unary

// UnaryOn computes op(t) on stream s (nil: default), into out when not nil (ek_unary).
func (t *Tensor) UnaryOn(op UnaryOp, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_unary(s.rawOrNil(), C.ek_unary_op(op), rawOf(t), o)
	return result(r, out, contextOf(t))
}

// Unary returns op(t) elementwise. The result has t's dtype, except bool for
// the predicates and float32 for the float-only ops on integer input.
func (t *Tensor) Unary(op UnaryOp) (*Tensor, error) { return t.UnaryOn(op, nil, nil) }

// UnaryInto writes op(t) into out (which may be t).
func (t *Tensor) UnaryInto(op UnaryOp, out *Tensor) error {
	pinned, err := pin(t, out)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	if out == nil {
		return closedError()
	}
	r := C.ekgo_into_unary(0, C.int(op), hnd(t), hnd(out))
	if r.status != C.EK_SUCCESS {
		return check(r.status, r.msg)
	}
	return nil
}

// Neg returns -t.
func (t *Tensor) Neg() (*Tensor, error) { return t.Unary(UnaryNeg) }

// Abs returns |t|.
func (t *Tensor) Abs() (*Tensor, error) { return t.Unary(UnaryAbs) }

// Sign returns the sign of t (-1, 0, 1; NaN for NaN).
func (t *Tensor) Sign() (*Tensor, error) { return t.Unary(UnarySign) }

// Exp returns e^t.
func (t *Tensor) Exp() (*Tensor, error) { return t.Unary(UnaryExp) }

// Exp2 returns 2^t.
func (t *Tensor) Exp2() (*Tensor, error) { return t.Unary(UnaryExp2) }

// Expm1 returns e^t - 1.
func (t *Tensor) Expm1() (*Tensor, error) { return t.Unary(UnaryExpm1) }

// Log returns ln t.
func (t *Tensor) Log() (*Tensor, error) { return t.Unary(UnaryLog) }

// Log2 returns log2 t.
func (t *Tensor) Log2() (*Tensor, error) { return t.Unary(UnaryLog2) }

// Log1p returns ln(1 + t).
func (t *Tensor) Log1p() (*Tensor, error) { return t.Unary(UnaryLog1p) }

// Sqrt returns the square root of t.
func (t *Tensor) Sqrt() (*Tensor, error) { return t.Unary(UnarySqrt) }

// Rsqrt returns 1 / sqrt(t).
func (t *Tensor) Rsqrt() (*Tensor, error) { return t.Unary(UnaryRsqrt) }

// Square returns t * t.
func (t *Tensor) Square() (*Tensor, error) { return t.Unary(UnarySquare) }

// Reciprocal returns 1 / t.
func (t *Tensor) Reciprocal() (*Tensor, error) { return t.Unary(UnaryReciprocal) }

// Sin returns sin t.
func (t *Tensor) Sin() (*Tensor, error) { return t.Unary(UnarySin) }

// Cos returns cos t.
func (t *Tensor) Cos() (*Tensor, error) { return t.Unary(UnaryCos) }

// Tan returns tan t.
func (t *Tensor) Tan() (*Tensor, error) { return t.Unary(UnaryTan) }

// Tanh returns tanh t.
func (t *Tensor) Tanh() (*Tensor, error) { return t.Unary(UnaryTanh) }

// Sigmoid returns 1 / (1 + e^-t).
func (t *Tensor) Sigmoid() (*Tensor, error) { return t.Unary(UnarySigmoid) }

// Relu returns max(t, 0).
func (t *Tensor) Relu() (*Tensor, error) { return t.Unary(UnaryRelu) }

// Gelu returns t * Phi(t) (exact, erf form).
func (t *Tensor) Gelu() (*Tensor, error) { return t.Unary(UnaryGelu) }

// GeluTanh returns the tanh approximation of Gelu.
func (t *Tensor) GeluTanh() (*Tensor, error) { return t.Unary(UnaryGeluTanh) }

// Silu returns t * sigmoid(t).
func (t *Tensor) Silu() (*Tensor, error) { return t.Unary(UnarySilu) }

// Erf returns the error function of t.
func (t *Tensor) Erf() (*Tensor, error) { return t.Unary(UnaryErf) }

// Floor rounds toward -inf.
func (t *Tensor) Floor() (*Tensor, error) { return t.Unary(UnaryFloor) }

// Ceil rounds toward +inf.
func (t *Tensor) Ceil() (*Tensor, error) { return t.Unary(UnaryCeil) }

// Round rounds half to even.
func (t *Tensor) Round() (*Tensor, error) { return t.Unary(UnaryRound) }

// Trunc rounds toward zero.
func (t *Tensor) Trunc() (*Tensor, error) { return t.Unary(UnaryTrunc) }

// LogicalNot returns the bool tensor t == 0.
func (t *Tensor) LogicalNot() (*Tensor, error) { return t.Unary(UnaryLogicalNot) }

// IsNaN returns the bool tensor of NaN positions.
func (t *Tensor) IsNaN() (*Tensor, error) { return t.Unary(UnaryIsNaN) }

// IsInf returns the bool tensor of infinite positions.
func (t *Tensor) IsInf() (*Tensor, error) { return t.Unary(UnaryIsInf) }

// IsFinite returns the bool tensor of finite positions.
func (t *Tensor) IsFinite() (*Tensor, error) { return t.Unary(UnaryIsFinite) }

// Asin returns the inverse sine of t.
func (t *Tensor) Asin() (*Tensor, error) { return t.Unary(UnaryAsin) }

// Acos returns the inverse cosine of t.
func (t *Tensor) Acos() (*Tensor, error) { return t.Unary(UnaryAcos) }

// Atan returns the inverse tangent of t.
func (t *Tensor) Atan() (*Tensor, error) { return t.Unary(UnaryAtan) }

// Sinh returns sinh t.
func (t *Tensor) Sinh() (*Tensor, error) { return t.Unary(UnarySinh) }

// Cosh returns cosh t.
func (t *Tensor) Cosh() (*Tensor, error) { return t.Unary(UnaryCosh) }

// Asinh returns the inverse hyperbolic sine of t.
func (t *Tensor) Asinh() (*Tensor, error) { return t.Unary(UnaryAsinh) }

// Acosh returns the inverse hyperbolic cosine of t.
func (t *Tensor) Acosh() (*Tensor, error) { return t.Unary(UnaryAcosh) }

// Atanh returns the inverse hyperbolic tangent of t.
func (t *Tensor) Atanh() (*Tensor, error) { return t.Unary(UnaryAtanh) }

// Log10 returns log10 t.
func (t *Tensor) Log10() (*Tensor, error) { return t.Unary(UnaryLog10) }

// Signbit returns the bool tensor of positions whose sign bit is set (-0.0 too).
func (t *Tensor) Signbit() (*Tensor, error) { return t.Unary(UnarySignbit) }

// ---------------------------------------------------------------- binary

// BinaryOn computes t op b, broadcast, on stream s (nil: default), into out
// when not nil (ek_binary). t and b must share a context.
func (t *Tensor) BinaryOn(op BinaryOp, b *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, b, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_binary(s.rawOrNil(), C.ek_binary_op(op), rawOf(t), rawOf(b), o)
	return result(r, out, contextOf(t))
}

// Binary returns t op b, broadcast.
func (t *Tensor) Binary(op BinaryOp, b *Tensor) (*Tensor, error) { return t.BinaryOn(op, b, nil, nil) }

// BinaryInto writes t op b into out (which may be t or b).
func (t *Tensor) BinaryInto(op BinaryOp, b, out *Tensor) error {
	pinned, err := pin(t, b, out)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	if out == nil {
		return closedError()
	}
	// The small-op hot path: handles cross as integers (no cgo pointer
	// checks, no allocation).
	r := C.ekgo_into_binary(0, C.int(op), hnd(t), hnd(b), hnd(out))
	if r.status != C.EK_SUCCESS {
		return check(r.status, r.msg)
	}
	return nil
}

// BinaryScalarOn computes t op scalar (scalar op t when scalarFirst) on
// stream s (nil: default), into out when not nil (ek_binary_scalar). scalar
// is a Go integer, float or bool and behaves as a Python number: its kind
// only raises t's category (int tensor + 2.5 is float32, + 2 stays int;
// bool tensor + 2 is int64), and an integer takes part exactly in integer
// arithmetic (int64 tensor + (1<<62 + 1) is exact).
func (t *Tensor) BinaryScalarOn(op BinaryOp, scalar any, scalarFirst bool, s *Stream, out *Tensor) (*Tensor, error) {
	v, err := toScalar("ek.Tensor.BinaryScalar: scalar", scalar)
	if err != nil {
		return nil, err
	}
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_binary_scalar(s.rawOrNil(), C.ek_binary_op(op), rawOf(t), v, b2i(scalarFirst), o)
	return result(r, out, contextOf(t))
}

// BinaryScalar returns t op scalar.
func (t *Tensor) BinaryScalar(op BinaryOp, scalar any) (*Tensor, error) {
	return t.BinaryScalarOn(op, scalar, false, nil, nil)
}

// RBinaryScalar returns scalar op t.
func (t *Tensor) RBinaryScalar(op BinaryOp, scalar any) (*Tensor, error) {
	return t.BinaryScalarOn(op, scalar, true, nil, nil)
}

// BinaryScalarInto writes t op scalar into out (which may be t).
func (t *Tensor) BinaryScalarInto(op BinaryOp, scalar any, out *Tensor) error {
	v, err := toScalar("ek.Tensor.BinaryScalarInto: scalar", scalar)
	if err != nil {
		return err
	}
	pinned, err := pin(t, out)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	if out == nil {
		return closedError()
	}
	r := C.ekgo_into_binary_scalar(0, C.int(op), hnd(t), v, 0, hnd(out))
	if r.status != C.EK_SUCCESS {
		return check(r.status, r.msg)
	}
	return nil
}

// Add returns t + b.
func (t *Tensor) Add(b *Tensor) (*Tensor, error) { return t.Binary(BinaryAdd, b) }

// Sub returns t - b.
func (t *Tensor) Sub(b *Tensor) (*Tensor, error) { return t.Binary(BinarySub, b) }

// Mul returns t * b.
func (t *Tensor) Mul(b *Tensor) (*Tensor, error) { return t.Binary(BinaryMul, b) }

// Div returns t / b (true division: integers give float32).
func (t *Tensor) Div(b *Tensor) (*Tensor, error) { return t.Binary(BinaryDiv, b) }

// FloorDiv returns floor(t / b) (Python's //).
func (t *Tensor) FloorDiv(b *Tensor) (*Tensor, error) { return t.Binary(BinaryFloorDiv, b) }

// Remainder returns t mod b with the divisor's sign (Python's %).
func (t *Tensor) Remainder(b *Tensor) (*Tensor, error) { return t.Binary(BinaryRemainder, b) }

// Pow returns t ** b.
func (t *Tensor) Pow(b *Tensor) (*Tensor, error) { return t.Binary(BinaryPow, b) }

// Atan2 returns atan2(t, b).
func (t *Tensor) Atan2(b *Tensor) (*Tensor, error) { return t.Binary(BinaryAtan2, b) }

// Maximum returns the elementwise maximum (NaN propagates).
func (t *Tensor) Maximum(b *Tensor) (*Tensor, error) { return t.Binary(BinaryMaximum, b) }

// Minimum returns the elementwise minimum (NaN propagates).
func (t *Tensor) Minimum(b *Tensor) (*Tensor, error) { return t.Binary(BinaryMinimum, b) }

// Eq returns the bool tensor t == b.
func (t *Tensor) Eq(b *Tensor) (*Tensor, error) { return t.Binary(BinaryEq, b) }

// Ne returns the bool tensor t != b.
func (t *Tensor) Ne(b *Tensor) (*Tensor, error) { return t.Binary(BinaryNe, b) }

// Lt returns the bool tensor t < b.
func (t *Tensor) Lt(b *Tensor) (*Tensor, error) { return t.Binary(BinaryLt, b) }

// Le returns the bool tensor t <= b.
func (t *Tensor) Le(b *Tensor) (*Tensor, error) { return t.Binary(BinaryLe, b) }

// Gt returns the bool tensor t > b.
func (t *Tensor) Gt(b *Tensor) (*Tensor, error) { return t.Binary(BinaryGt, b) }

// Ge returns the bool tensor t >= b.
func (t *Tensor) Ge(b *Tensor) (*Tensor, error) { return t.Binary(BinaryGe, b) }

// LogicalAnd returns the bool tensor t && b (nonzero is true).
func (t *Tensor) LogicalAnd(b *Tensor) (*Tensor, error) { return t.Binary(BinaryLogicalAnd, b) }

// LogicalOr returns the bool tensor t || b.
func (t *Tensor) LogicalOr(b *Tensor) (*Tensor, error) { return t.Binary(BinaryLogicalOr, b) }

// LogicalXor returns the bool tensor (t != 0) != (b != 0).
func (t *Tensor) LogicalXor(b *Tensor) (*Tensor, error) { return t.Binary(BinaryLogicalXor, b) }

// BitwiseAnd returns t & b (integer or bool tensors).
func (t *Tensor) BitwiseAnd(b *Tensor) (*Tensor, error) { return t.Binary(BinaryBitwiseAnd, b) }

// BitwiseOr returns t | b.
func (t *Tensor) BitwiseOr(b *Tensor) (*Tensor, error) { return t.Binary(BinaryBitwiseOr, b) }

// BitwiseXor returns t ^ b.
func (t *Tensor) BitwiseXor(b *Tensor) (*Tensor, error) { return t.Binary(BinaryBitwiseXor, b) }

// ShiftLeft returns t << b.
func (t *Tensor) ShiftLeft(b *Tensor) (*Tensor, error) { return t.Binary(BinaryShiftLeft, b) }

// ShiftRight returns t >> b (arithmetic for signed integers).
func (t *Tensor) ShiftRight(b *Tensor) (*Tensor, error) { return t.Binary(BinaryShiftRight, b) }

// Logaddexp returns log(e^t + e^b), computed stably.
func (t *Tensor) Logaddexp(b *Tensor) (*Tensor, error) { return t.Binary(BinaryLogaddexp, b) }

// Hypot returns sqrt(t^2 + b^2).
func (t *Tensor) Hypot(b *Tensor) (*Tensor, error) { return t.Binary(BinaryHypot, b) }

// Copysign returns |t| with b's sign bit.
func (t *Tensor) Copysign(b *Tensor) (*Tensor, error) { return t.Binary(BinaryCopysign, b) }

// Nextafter returns the next float after t toward b (one ulp of the result dtype).
func (t *Tensor) Nextafter(b *Tensor) (*Tensor, error) { return t.Binary(BinaryNextafter, b) }

// AddScalar returns t + v.
func (t *Tensor) AddScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryAdd, v) }

// SubScalar returns t - v.
func (t *Tensor) SubScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinarySub, v) }

// MulScalar returns t * v.
func (t *Tensor) MulScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryMul, v) }

// DivScalar returns t / v.
func (t *Tensor) DivScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryDiv, v) }

// FloorDivScalar returns floor(t / v).
func (t *Tensor) FloorDivScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryFloorDiv, v) }

// RemainderScalar returns t mod v (the divisor's sign).
func (t *Tensor) RemainderScalar(v any) (*Tensor, error) {
	return t.BinaryScalar(BinaryRemainder, v)
}

// PowScalar returns t ** v.
func (t *Tensor) PowScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryPow, v) }

// Atan2Scalar returns atan2(t, v).
func (t *Tensor) Atan2Scalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryAtan2, v) }

// MaximumScalar returns max(t, v).
func (t *Tensor) MaximumScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryMaximum, v) }

// MinimumScalar returns min(t, v).
func (t *Tensor) MinimumScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryMinimum, v) }

// EqScalar returns the bool tensor t == v.
func (t *Tensor) EqScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryEq, v) }

// NeScalar returns the bool tensor t != v.
func (t *Tensor) NeScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryNe, v) }

// LtScalar returns the bool tensor t < v.
func (t *Tensor) LtScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryLt, v) }

// LeScalar returns the bool tensor t <= v.
func (t *Tensor) LeScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryLe, v) }

// GtScalar returns the bool tensor t > v.
func (t *Tensor) GtScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryGt, v) }

// GeScalar returns the bool tensor t >= v.
func (t *Tensor) GeScalar(v any) (*Tensor, error) { return t.BinaryScalar(BinaryGe, v) }

// LogicalAndScalar returns the bool tensor t && v.
func (t *Tensor) LogicalAndScalar(v any) (*Tensor, error) {
	return t.BinaryScalar(BinaryLogicalAnd, v)
}

// LogicalOrScalar returns the bool tensor t || v.
func (t *Tensor) LogicalOrScalar(v any) (*Tensor, error) {
	return t.BinaryScalar(BinaryLogicalOr, v)
}

// LogicalXorScalar returns the bool tensor (t != 0) != (v != 0).
func (t *Tensor) LogicalXorScalar(v any) (*Tensor, error) {
	return t.BinaryScalar(BinaryLogicalXor, v)
}

// BitwiseAndScalar returns t & v.
func (t *Tensor) BitwiseAndScalar(v int64) (*Tensor, error) {
	return t.BinaryScalar(BinaryBitwiseAnd, v)
}

// BitwiseOrScalar returns t | v.
func (t *Tensor) BitwiseOrScalar(v int64) (*Tensor, error) {
	return t.BinaryScalar(BinaryBitwiseOr, v)
}

// BitwiseXorScalar returns t ^ v.
func (t *Tensor) BitwiseXorScalar(v int64) (*Tensor, error) {
	return t.BinaryScalar(BinaryBitwiseXor, v)
}

// ShiftLeftScalar returns t << v.
func (t *Tensor) ShiftLeftScalar(v int64) (*Tensor, error) {
	return t.BinaryScalar(BinaryShiftLeft, v)
}

// ShiftRightScalar returns t >> v.
func (t *Tensor) ShiftRightScalar(v int64) (*Tensor, error) {
	return t.BinaryScalar(BinaryShiftRight, v)
}

// ---------------------------------------------------------------- selection and fused updates

// WhereOn computes cond ? a : b, broadcast over all three, on stream s (nil:
// default), into out when not nil (ek_where). cond may have any dtype
// (nonzero is true); the result has a's and b's promoted dtype.
func WhereOn(cond, a, b *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(cond, a, b, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_where(s.rawOrNil(), rawOf(cond), rawOf(a), rawOf(b), o)
	return result(r, out, contextOf(a))
}

// Where returns cond ? a : b elementwise (as torch.where).
func Where(cond, a, b *Tensor) (*Tensor, error) { return WhereOn(cond, a, b, nil, nil) }

// WhereInto writes cond ? a : b into out (which may be a or b).
func WhereInto(cond, a, b, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := WhereOn(cond, a, b, nil, out)
	return err
}

// clampBound is a Clamp bound as ek_clamp takes it: nil leaves the side open.
func clampBound(what string, v any) (has C.int, s C.ek_scalar, err error) {
	if v == nil {
		return 0, s, nil
	}
	s, err = toScalar(what, v)
	return 1, s, err
}

// ClampOn computes min(max(t, lo), hi) on stream s (nil: default), into out
// when not nil (ek_clamp). Each bound is a Go integer, float or bool, or nil
// to leave that side open. NaN stays NaN; the bounds are cast to t's dtype
// (for integer t truncated and saturated to its range; an integer bound is
// exact, int64 beyond 2^53 included).
func (t *Tensor) ClampOn(lo, hi any, s *Stream, out *Tensor) (*Tensor, error) {
	hasLo, l, err := clampBound("ek.Tensor.Clamp: lo", lo)
	if err != nil {
		return nil, err
	}
	hasHi, h, err := clampBound("ek.Tensor.Clamp: hi", hi)
	if err != nil {
		return nil, err
	}
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_clamp(s.rawOrNil(), rawOf(t), hasLo, l, hasHi, h, o)
	return result(r, out, contextOf(t))
}

// Clamp returns min(max(t, lo), hi); nil leaves that side open:
// x.Clamp(0, nil).
func (t *Tensor) Clamp(lo, hi any) (*Tensor, error) { return t.ClampOn(lo, hi, nil, nil) }

// ClampInto writes Clamp(lo, hi) into out (which may be t).
func (t *Tensor) ClampInto(lo, hi any, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.ClampOn(lo, hi, nil, out)
	return err
}

// LerpOn computes t + weight * (end - t), float tensors only, broadcast, on
// stream s (nil: default), into out when not nil (ek_lerp). weight is a Go
// integer or float, rounded to the compute type.
func (t *Tensor) LerpOn(end *Tensor, weight any, s *Stream, out *Tensor) (*Tensor, error) {
	w, err := toScalar("ek.Tensor.Lerp: weight", weight)
	if err != nil {
		return nil, err
	}
	pinned, err := pin(t, end, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_lerp(s.rawOrNil(), rawOf(t), rawOf(end), w, o)
	return result(r, out, contextOf(t))
}

// Lerp returns t + weight * (end - t).
func (t *Tensor) Lerp(end *Tensor, weight any) (*Tensor, error) {
	return t.LerpOn(end, weight, nil, nil)
}

// LerpInto writes Lerp(end, weight) into out (which may be t or end).
func (t *Tensor) LerpInto(end *Tensor, weight any, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.LerpOn(end, weight, nil, out)
	return err
}

// AxpbyOn computes alpha*x + beta*y in one pass on stream s (nil: default),
// into out when not nil (ek_axpby); out == y accumulates in place. alpha and
// beta are Go integers or floats; with integer (or bool) tensors they must be
// integers, exact beyond 2^53, and the arithmetic wraps.
func AxpbyOn(alpha any, x *Tensor, beta any, y *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	al, be, err := toScalars("ek.Axpby: alpha", alpha, "ek.Axpby: beta", beta)
	if err != nil {
		return nil, err
	}
	pinned, err := pin(x, y, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_axpby(s.rawOrNil(), al, rawOf(x), be, rawOf(y), o)
	return result(r, out, contextOf(x))
}

// Axpby returns alpha*x + beta*y (broadcast and promotion as Add).
func Axpby(alpha any, x *Tensor, beta any, y *Tensor) (*Tensor, error) {
	return AxpbyOn(alpha, x, beta, y, nil, nil)
}

// AxpbyInto writes alpha*x + beta*y into out (which may be x or y: with y,
// the fused update y = alpha*x + beta*y).
func AxpbyInto(alpha any, x *Tensor, beta any, y, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := AxpbyOn(alpha, x, beta, y, nil, out)
	return err
}
