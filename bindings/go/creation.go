package ek

/*
#include "ekgo.h"
*/
import "C"

// Full is a tensor with every element value (ek_full), converted to dt as by
// Fill: a value that does not fit an integer dtype is StatusInvalidArgument.
// value is a Go integer, float or bool, passed with its kind (int64 exact).
func Full(ctx *Context, shape []int64, value any, dt DType) (*Tensor, error) {
	v, err := toScalar("ek.Full: value", value)
	if err != nil {
		return nil, err
	}
	var out C.ek_tensor
	err = ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_full(h, C.int(len(shape)), i64ptr(shape), C.ek_dtype(dt), v, &out, m)
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out, ctx), nil
}

// Linspace is num evenly spaced values from start to stop (stop included when
// endpoint), as numpy.linspace (ek_linspace): computed in float64, the last
// element exactly stop; integer dtypes round toward -inf.
func Linspace(ctx *Context, start, stop any, num int64, endpoint bool, dt DType) (*Tensor, error) {
	a, b, err := toScalars("ek.Linspace: start", start, "ek.Linspace: stop", stop)
	if err != nil {
		return nil, err
	}
	var out C.ek_tensor
	err = ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_linspace(h, a, b, C.int64_t(num), b2i(endpoint), C.ek_dtype(dt), &out, m)
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out, ctx), nil
}

// Eye is an n x m tensor with ones on diagonal k (0 the main one, k > 0
// above it, k < 0 below) and zeros elsewhere, as numpy.eye (ek_eye).
func Eye(ctx *Context, n, m, k int64, dt DType) (*Tensor, error) {
	var out C.ek_tensor
	err := ctx.call(func(h C.ek_context, msg **C.char) C.ek_status {
		return C.ekgo_ek_eye(h, C.int64_t(n), C.int64_t(m), C.int64_t(k), C.ek_dtype(dt), &out, msg)
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out, ctx), nil
}

// TrilOn is the lower triangle of each matrix over t's last two dims
// (ek_tril): elements with j - i <= k kept, the rest 0 (numpy.tril), on
// stream s (nil: default), into out when not nil (out may be t: in place).
func (t *Tensor) TrilOn(k int64, s *Stream, out *Tensor) (*Tensor, error) {
	return t.triangle(true, k, s, out)
}

// Tril returns the lower triangle (see TrilOn).
func (t *Tensor) Tril(k int64) (*Tensor, error) { return t.triangle(true, k, nil, nil) }

// TrilInto writes the lower triangle into out (t itself: in place).
func (t *Tensor) TrilInto(k int64, out *Tensor) error { return t.triangleInto(true, k, out) }

// TriuOn is the upper triangle of each matrix over t's last two dims
// (ek_triu): elements with j - i >= k kept, the rest 0 (numpy.triu), on
// stream s (nil: default), into out when not nil (out may be t: in place).
func (t *Tensor) TriuOn(k int64, s *Stream, out *Tensor) (*Tensor, error) {
	return t.triangle(false, k, s, out)
}

// Triu returns the upper triangle (see TriuOn).
func (t *Tensor) Triu(k int64) (*Tensor, error) { return t.triangle(false, k, nil, nil) }

// TriuInto writes the upper triangle into out (t itself: in place).
func (t *Tensor) TriuInto(k int64, out *Tensor) error { return t.triangleInto(false, k, out) }

func (t *Tensor) triangle(lower bool, k int64, s *Stream, out *Tensor) (*Tensor, error) {
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
	if lower {
		r = C.ekgo_op_ek_tril(s.rawOrNil(), rawOf(t), C.int64_t(k), o)
	} else {
		r = C.ekgo_op_ek_triu(s.rawOrNil(), rawOf(t), C.int64_t(k), o)
	}
	return result(r, out, contextOf(t))
}

func (t *Tensor) triangleInto(lower bool, k int64, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.triangle(lower, k, nil, out)
	return err
}
