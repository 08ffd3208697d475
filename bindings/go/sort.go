package ek

/*
#include "ekgo.h"
*/
import "C"

// Sorting and searching (ek.h's section of that name): Sort, Topk,
// Searchsorted, CountNonzero and Diff are generated (ops_gen.go); Argsort
// (Sort without values) and Unique (optional outputs) are here. NaN sorts
// above +inf; -0.0 equals +0.0. Every result is a handle to Close.

// Argsort returns the int64 positions that sort t along dim (torch.argsort;
// ek_sort without values).
func (t *Tensor) Argsort(dim int, descending, stable bool) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_sort(nil, h, C.int(dim), b2i(descending), b2i(stable), nil, out, m)
	})
}

// Unique returns the distinct elements of t (flattened), sorted, and when
// asked the int64 position of each element of t among them (t's shape) and
// how often each occurs (torch.unique, ek_unique; each NaN is distinct).
// inverse and counts are nil when not asked for. Synchronous on CUDA.
func (t *Tensor) Unique(returnInverse, returnCounts bool) (values, inverse, counts *Tensor, err error) {
	var v, i, c C.ek_tensor
	var ip, cp *C.ek_tensor
	if returnInverse {
		ip = &i
	}
	if returnCounts {
		cp = &c
	}
	err = t.call(func(h C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_unique(nil, h, &v, ip, cp, m)
	})
	if err != nil {
		return nil, nil, nil, err
	}
	values = newTensor(v, t.ctx)
	if returnInverse {
		inverse = newTensor(i, t.ctx)
	}
	if returnCounts {
		counts = newTensor(c, t.ctx)
	}
	return values, inverse, counts, nil
}
