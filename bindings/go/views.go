package ek

/*
#include "ekgo.h"
*/
import "C"

// Views share storage with their source and copy nothing (Reshape copies
// when no view exists). Each returns a new handle to Close. The views of the
// uniform shape (Select, Permute, Transpose, View, ...) are in ops_gen.go.

// Slice is t[..., start:stop:step, ...] along dim with Python's rules
// (nil bounds, negative indices, clamping, negative steps).
func (t *Tensor) Slice(dim int, start, stop *int64, step int64) (*Tensor, error) {
	a, b := sliceBounds(start, stop, step)
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_slice(h, C.int(dim), C.int64_t(a), C.int64_t(b), C.int64_t(step), out, m)
	})
}
