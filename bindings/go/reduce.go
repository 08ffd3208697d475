package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"fmt"
	"runtime"
)

// ReduceOp selects a reduction (ek_reduce_op). PyTorch's dtypes: sum/prod of
// bool or integers give int64; mean and the norms need a float input;
// argmax/argmin give int64; any/all give bool.
type ReduceOp int

// Reductions of ek.h.
const (
	ReduceSum     ReduceOp = C.EK_REDUCE_SUM
	ReduceMean    ReduceOp = C.EK_REDUCE_MEAN
	ReduceProd    ReduceOp = C.EK_REDUCE_PROD
	ReduceMax     ReduceOp = C.EK_REDUCE_MAX
	ReduceMin     ReduceOp = C.EK_REDUCE_MIN
	ReduceArgmax  ReduceOp = C.EK_REDUCE_ARGMAX
	ReduceArgmin  ReduceOp = C.EK_REDUCE_ARGMIN
	ReduceAny     ReduceOp = C.EK_REDUCE_ANY
	ReduceAll     ReduceOp = C.EK_REDUCE_ALL
	ReduceNormL1  ReduceOp = C.EK_REDUCE_NORM_L1
	ReduceNormL2  ReduceOp = C.EK_REDUCE_NORM_L2
	ReduceNormInf ReduceOp = C.EK_REDUCE_NORM_INF
)

var reduceNames = [...]string{"Sum", "Mean", "Prod", "Max", "Min", "Argmax", "Argmin", "Any", "All", "NormL1",
	"NormL2", "NormInf"}

// ReduceOps lists every reduction, in the order of ek.h.
func ReduceOps() []ReduceOp {
	ops := make([]ReduceOp, len(reduceNames))
	for i := range ops {
		ops[i] = ReduceOp(i)
	}
	return ops
}

func (op ReduceOp) String() string {
	if op >= 0 && int(op) < len(reduceNames) {
		return "Reduce" + reduceNames[op]
	}
	return fmt.Sprintf("ReduceOp(%d)", int(op))
}

// ReduceOn reduces t over dims (negative count from the end; none: every
// dim), keeping them with size 1 when keepdim, on stream s (nil: default),
// into out when not nil (ek_reduce).
func (t *Tensor) ReduceOn(op ReduceOp, dims []int, keepdim bool, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	p, keep := intptr(dims)
	r := C.ekgo_op_ek_reduce(s.rawOrNil(), C.ek_reduce_op(op), rawOf(t), C.int(len(dims)), p, b2i(keepdim), o)
	runtime.KeepAlive(keep)
	return result(r, out, contextOf(t))
}

// Reduce reduces t over dims (nil: every dim).
func (t *Tensor) Reduce(op ReduceOp, dims []int, keepdim bool) (*Tensor, error) {
	return t.ReduceOn(op, dims, keepdim, nil, nil)
}

// ReduceInto writes Reduce(op, dims, keepdim) into out.
func (t *Tensor) ReduceInto(op ReduceOp, dims []int, keepdim bool, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.ReduceOn(op, dims, keepdim, nil, out)
	return err
}

// Sum over dims (nil: all).
func (t *Tensor) Sum(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceSum, dims, keepdim)
}

// Mean over dims (nil: all); float input.
func (t *Tensor) Mean(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceMean, dims, keepdim)
}

// Prod is the product over dims (nil: all).
func (t *Tensor) Prod(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceProd, dims, keepdim)
}

// Max over dims (nil: all); NaN propagates. See MaxDim for indices.
func (t *Tensor) Max(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceMax, dims, keepdim)
}

// Min over dims (nil: all).
func (t *Tensor) Min(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceMin, dims, keepdim)
}

// Argmax is the int64 index of the first maximum over dims (nil: the flat index).
func (t *Tensor) Argmax(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceArgmax, dims, keepdim)
}

// Argmin is the int64 index of the first minimum over dims.
func (t *Tensor) Argmin(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceArgmin, dims, keepdim)
}

// Any is true where some element over dims is nonzero.
func (t *Tensor) Any(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceAny, dims, keepdim)
}

// All is true where every element over dims is nonzero.
func (t *Tensor) All(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceAll, dims, keepdim)
}

// NormL1 is the sum of absolute values over dims.
func (t *Tensor) NormL1(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceNormL1, dims, keepdim)
}

// NormL2 is the Euclidean norm over dims.
func (t *Tensor) NormL2(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceNormL2, dims, keepdim)
}

// NormInf is the largest absolute value over dims.
func (t *Tensor) NormInf(dims []int, keepdim bool) (*Tensor, error) {
	return t.Reduce(ReduceNormInf, dims, keepdim)
}

// VarOn computes the variance over dims (nil: all) with divisor
// max(0, N - correction), the standard deviation when takeSqrt, on stream s
// (nil: default), into out when not nil (ek_var with EK_VAR_VARIANCE or
// EK_VAR_STD). Float inputs only.
func (t *Tensor) VarOn(dims []int, correction float64, keepdim, takeSqrt bool, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	p, keep := intptr(dims)
	kind := C.ek_var_kind(C.EK_VAR_VARIANCE)
	if takeSqrt {
		kind = C.EK_VAR_STD
	}
	r := C.ekgo_op_ek_var(s.rawOrNil(), kind, rawOf(t), C.int(len(dims)), p, C.double(correction), b2i(keepdim), o)
	runtime.KeepAlive(keep)
	return result(r, out, contextOf(t))
}

// Var is the variance over dims (nil: all) with divisor max(0, N - correction).
func (t *Tensor) Var(dims []int, correction float64, keepdim bool) (*Tensor, error) {
	return t.VarOn(dims, correction, keepdim, false, nil, nil)
}

// Std is the standard deviation, the square root of Var.
func (t *Tensor) Std(dims []int, correction float64, keepdim bool) (*Tensor, error) {
	return t.VarOn(dims, correction, keepdim, true, nil, nil)
}

// MaxDimOn computes the maximum (minimum when takeMin) along dim: the values
// in t's dtype and the int64 indices of their first occurrence (NaN wins),
// as torch.max(x, dim) (ek_reduce_with_indices with EK_REDUCE_MAX or
// EK_REDUCE_MIN). On stream s (nil: default); into values and indices when
// they are not nil (each independently).
func (t *Tensor) MaxDimOn(dim int, keepdim, takeMin bool, s *Stream, values, indices *Tensor) (*Tensor, *Tensor, error) {
	pinned, err := pin(t, s, values, indices)
	if err != nil {
		return nil, nil, err
	}
	defer pinned.unpin()
	v, err := outOf(values)
	if err != nil {
		return nil, nil, err
	}
	i, err := outOf(indices)
	if err != nil {
		return nil, nil, err
	}
	op := C.ek_reduce_op(C.EK_REDUCE_MAX)
	if takeMin {
		op = C.EK_REDUCE_MIN
	}
	r := C.ekgo_op_ek_reduce_with_indices(s.rawOrNil(), op, rawOf(t), C.int(dim), b2i(keepdim), v, i)
	if r.status != C.EK_SUCCESS {
		return nil, nil, check(r.status, r.msg)
	}
	if values == nil {
		values = newTensor(r.values, t.ctx)
	}
	if indices == nil {
		indices = newTensor(r.indices, t.ctx)
	}
	return values, indices, nil
}

// MaxDim returns the maximum along dim and the indices of its first occurrence.
func (t *Tensor) MaxDim(dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.MaxDimOn(dim, keepdim, false, nil, nil, nil)
}

// MinDim returns the minimum along dim and the indices of its first occurrence.
func (t *Tensor) MinDim(dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.MaxDimOn(dim, keepdim, true, nil, nil, nil)
}

// alongDim picks along's op: softmax or log_softmax (ek_softmax's kinds),
// cumsum or cumprod (ek_scan's ops).
type alongDim int

const (
	alongSoftmax alongDim = iota
	alongLogSoftmax
	alongCumsum
	alongCumprod
)

func (t *Tensor) along(which alongDim, dim int, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	var r C.ekgo_result
	switch which {
	case alongSoftmax:
		r = C.ekgo_op_ek_softmax(s.rawOrNil(), C.EK_SOFTMAX_PLAIN, rawOf(t), C.int(dim), o)
	case alongLogSoftmax:
		r = C.ekgo_op_ek_softmax(s.rawOrNil(), C.EK_SOFTMAX_LOG, rawOf(t), C.int(dim), o)
	case alongCumsum:
		r = C.ekgo_op_ek_scan(s.rawOrNil(), C.EK_SCAN_SUM, rawOf(t), C.int(dim), o)
	default:
		r = C.ekgo_op_ek_scan(s.rawOrNil(), C.EK_SCAN_PROD, rawOf(t), C.int(dim), o)
	}
	return result(r, out, contextOf(t))
}

// Softmax along dim (negative counts from the end), float tensors only;
// stable for large values (ek_softmax with EK_SOFTMAX_PLAIN).
func (t *Tensor) Softmax(dim int) (*Tensor, error) { return t.along(alongSoftmax, dim, nil, nil) }

// LogSoftmax is log(softmax(t)) along dim, computed stably (ek_softmax with
// EK_SOFTMAX_LOG).
func (t *Tensor) LogSoftmax(dim int) (*Tensor, error) { return t.along(alongLogSoftmax, dim, nil, nil) }

// Cumsum is the inclusive cumulative sum along dim; int64 for bool and
// integer input (ek_scan with EK_SCAN_SUM).
func (t *Tensor) Cumsum(dim int) (*Tensor, error) { return t.along(alongCumsum, dim, nil, nil) }

// Cumprod is the inclusive cumulative product along dim (ek_scan with
// EK_SCAN_PROD).
func (t *Tensor) Cumprod(dim int) (*Tensor, error) { return t.along(alongCumprod, dim, nil, nil) }

// SoftmaxOn is Softmax on stream s (nil: default), into out when not nil.
func (t *Tensor) SoftmaxOn(dim int, s *Stream, out *Tensor) (*Tensor, error) {
	return t.along(alongSoftmax, dim, s, out)
}

// LogSoftmaxOn is LogSoftmax on stream s (nil: default), into out when not nil.
func (t *Tensor) LogSoftmaxOn(dim int, s *Stream, out *Tensor) (*Tensor, error) {
	return t.along(alongLogSoftmax, dim, s, out)
}

// CumsumOn is Cumsum on stream s (nil: default), into out when not nil.
func (t *Tensor) CumsumOn(dim int, s *Stream, out *Tensor) (*Tensor, error) {
	return t.along(alongCumsum, dim, s, out)
}

// CumprodOn is Cumprod on stream s (nil: default), into out when not nil.
func (t *Tensor) CumprodOn(dim int, s *Stream, out *Tensor) (*Tensor, error) {
	return t.along(alongCumprod, dim, s, out)
}
