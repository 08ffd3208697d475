package ek

/*
#include "ekgo.h"
*/
import "C"

// MatmulOn computes t @ b with NumPy's rules on stream s (nil: default),
// into out when not nil (ek_matmul): 1-D operands are vectors, dims before
// the last two are broadcast batch dims. float16, bfloat16, float32 and
// float64, both operands of one dtype; cuBLAS on CUDA.
func (t *Tensor) MatmulOn(b *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, b, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_matmul(s.rawOrNil(), rawOf(t), rawOf(b), o)
	return result(r, out, contextOf(t))
}

// Matmul returns t @ b.
func (t *Tensor) Matmul(b *Tensor) (*Tensor, error) { return t.MatmulOn(b, nil, nil) }

// MatmulInto writes t @ b into out (which must not overlap t or b).
func (t *Tensor) MatmulInto(b, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.MatmulOn(b, nil, out)
	return err
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
	r := C.ekgo_op_ek_gemm(s.rawOrNil(), al, rawOf(a), rawOf(b), be, rawOf(c))
	return check(r.status, r.msg)
}

// Gemm computes c = alpha * a @ b + beta * c in place on c, the receiver.
func (c *Tensor) Gemm(alpha any, a, b *Tensor, beta any) error {
	return c.GemmOn(alpha, a, b, beta, nil)
}
