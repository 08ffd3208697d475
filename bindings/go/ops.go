package ek

/*
#include "ekgo.h"
*/
import "C"

import "unsafe"

// Ops of the C library (ek_unary, ek_binary, ...) are generated from ek.h
// (ops_gen.go, with their docs). Each comes in up to four forms:
//
//   - x.Op(...) returns a new tensor, computed on the default stream;
//   - x.OpOn(..., s, out) runs on stream s (nil: the default stream) and writes
//     into out when it is not nil, returning out itself; otherwise it returns a
//     new tensor;
//   - x.OpInto(..., out) writes the result into an existing tensor (out may be
//     x itself where the C library allows it: in place);
//   - x.OpInPlace(...) for the elementwise ops by name (x.AddInPlace(y)):
//     out = x, converted to x's dtype by ek.h's in-place rule (float32 x,
//     float64 y works; int x, float y is StatusDType).
//
// Broadcasting, type promotion and result dtypes are the C library's
// (NumPy/PyTorch rules, documented in ek.h). New tensors are closed by the
// caller.

// h is t's handle as an integer (0 for a nil tensor: the C library then
// reports EK_ERROR_NULL_POINTER naming the function and argument). The op
// shims take handles as uintptr_t, so that cgo adds no pointer checks (three
// heap allocations per call with pointer-typed arguments); handles are C
// memory. t must be pinned around the C call.
func h(t *Tensor) C.uintptr_t {
	if t == nil {
		return 0
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(t.raw)))
}

// hs is s's handle as an integer (0: the default stream); s must be pinned.
func hs(s *Stream) C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(s.rawOrNil()))) }

// hc is c's handle as an integer (0 for nil); c must be pinned.
func hc(c *Context) C.uintptr_t {
	if c == nil {
		return 0
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(c.raw)))
}

func closedError() error { return &Error{Status: StatusNullPointer, Message: errClosed.Error()} }

// result turns an op's ekgo_result into (out, nil) when out was given, a new
// tensor of ctx otherwise, or an error.
func result(r C.ekgo_result, out *Tensor, ctx *Context) (*Tensor, error) {
	if r.status != C.EK_SUCCESS {
		return nil, check(r.status, r.msg)
	}
	if out != nil {
		return out, nil
	}
	return newTensor(r.out[0], ctx), nil
}

// result2 is result for the ops with two outputs.
func result2(r C.ekgo_result, a, b *Tensor, ctx *Context) (*Tensor, *Tensor, error) {
	if r.status != C.EK_SUCCESS {
		return nil, nil, check(r.status, r.msg)
	}
	if a == nil {
		a = newTensor(r.out[0], ctx)
	}
	if b == nil {
		b = newTensor(r.out[1], ctx)
	}
	return a, b, nil
}

func contextOf(t *Tensor) *Context {
	if t == nil {
		return nil
	}
	return t.ctx
}

// ctxOr is ctx, or s's context when ctx is nil (creators take either).
func ctxOr(ctx *Context, s *Stream) *Context {
	if ctx == nil && s != nil {
		return s.ctx
	}
	return ctx
}

func firstContext(ts []*Tensor) *Context {
	for _, t := range ts {
		if t != nil {
			return t.ctx
		}
	}
	return nil
}

func b2i(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// optScalar is an optional value (a Clamp bound) as the op shims take it:
// nil leaves it out.
func optScalar(what string, v any) (has C.int, s C.ek_scalar, err error) {
	if v == nil {
		return 0, s, nil
	}
	s, err = toScalar(what, v)
	return 1, s, err
}

// tensorList pins ts and returns their handles, with one spare entry so that
// an empty list still has an element to point at (C names the empty list). A
// nil entry passes NULL, which C reports; a closed one is refused here.
func tensorList(what string, ts []*Tensor) ([]C.ek_tensor, func(), error) {
	unpin, err := pinEach(what, ts, true)
	if err != nil {
		return nil, nil, err
	}
	raw := make([]C.ek_tensor, len(ts)+1)
	for i, t := range ts {
		if t != nil {
			raw[i] = t.raw
		}
	}
	return raw, unpin, nil
}

// RBinaryScalar returns scalar op t.
func (t *Tensor) RBinaryScalar(op BinaryOp, scalar any) (*Tensor, error) {
	return t.BinaryScalarOn(op, scalar, true, nil, nil)
}

// MaxDim returns the maximum along dim and the indices of its first occurrence.
func (t *Tensor) MaxDim(dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.ReduceWithIndices(ReduceMax, dim, keepdim)
}

// MinDim returns the minimum along dim and the indices of its first occurrence.
func (t *Tensor) MinDim(dim int, keepdim bool) (values, indices *Tensor, err error) {
	return t.ReduceWithIndices(ReduceMin, dim, keepdim)
}

// Scatter returns a copy of t with src written at index along dim.
func (t *Tensor) Scatter(dim int, index, src *Tensor) (*Tensor, error) {
	return t.ScatterOn(dim, index, src, false, nil, nil)
}

// ScatterAdd returns a copy of t with src added at index along dim.
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) (*Tensor, error) {
	return t.ScatterOn(dim, index, src, true, nil, nil)
}

// GemmOn computes c = alpha * a @ b + beta * c in place on c (the receiver)
// on stream s (nil: default) (ek_gemm): 2-D a [m,k], b [k,n], c [m,n], or 3-D
// with a batch dim (a and b may broadcast a batch of 1). alpha and beta are
// Go integers or floats, converted to the compute type. beta == 0 ignores
// c's old values.
func (c *Tensor) GemmOn(alpha any, a, b *Tensor, beta any, s *Stream) error {
	al, be, err := toScalars("ek.Tensor.Gemm: alpha", alpha, "ek.Tensor.Gemm: beta", beta)
	if err != nil {
		return err
	}
	pinned, err := pin(c, a, b, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	var msg *C.char
	return check(C.ekgo_ek_gemm(s.rawOrNil(), al, rawOf(a), rawOf(b), be, rawOf(c), &msg), msg)
}

// Gemm computes c = alpha * a @ b + beta * c in place on c, the receiver.
func (c *Tensor) Gemm(alpha any, a, b *Tensor, beta any) error {
	return c.GemmOn(alpha, a, b, beta, nil)
}

// rawOf is t's handle, NULL for a nil tensor; t must be pinned.
func rawOf(t *Tensor) C.ek_tensor {
	if t == nil {
		return nil
	}
	return t.raw
}
