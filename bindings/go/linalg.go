package ek

/*
#include "ekgo.h"
*/
import "C"

// ek_tensordot's count form (the dim-list form Tensordot, Vecdot and Outer
// are generated in ops_gen.go).

// TensordotN contracts t's last n dims with b's first n, in order
// (ek_tensordot with NULL dim lists; NumPy's tensordot(a, b, n)): the result
// has t's other dims, then b's; n == 0 is the outer product. Dtypes promote
// as Matmul; integers wrap.
func (t *Tensor) TensordotN(b *Tensor, n int) (*Tensor, error) {
	return t.TensordotNOn(b, n, nil, nil)
}

// TensordotNOn is TensordotN on stream s (nil: the default stream), writing
// into out when not nil.
func (t *Tensor) TensordotNOn(b *Tensor, n int, s *Stream, out *Tensor) (*Tensor, error) {
	pn, err := pin(s, t, b, out)
	if err != nil {
		return nil, err
	}
	defer pn.unpin()
	return result(C.ekgo_op_ek_tensordot(hs(s), h(t), h(b), C.int(n), nil, nil, h(out)), out, contextOf(t))
}
