package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"math"
	"runtime"
)

// Views share storage with their source and copy nothing (Reshape copies
// when no view exists). Each returns a new handle to Close.

// None is a slice bound meaning Python's None ("from the start" / "to the end").
var None *int64

// Idx is a slice bound: Idx(-1) means index -1.
func Idx(i int64) *int64 { return &i }

// Slice is t[..., start:stop:step, ...] along dim with Python's rules
// (nil bounds, negative indices, clamping, negative steps).
func (t *Tensor) Slice(dim int, start, stop *int64, step int64) (*Tensor, error) {
	// None is the first element in the step's direction / past the last: the
	// library clamps these extremes accordingly (EK_SLICE_MIN/MAX).
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	a, b := lo, hi
	if step < 0 {
		a, b = hi, lo
	}
	if start != nil {
		a = *start
	}
	if stop != nil {
		b = *stop
	}
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_slice(h, C.int(dim), C.int64_t(a), C.int64_t(b), C.int64_t(step), out, m)
	})
}

// Select is t[..., index, ...]: removes dim; index may be negative.
func (t *Tensor) Select(dim int, index int64) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_select(h, C.int(dim), C.int64_t(index), out, m)
	})
}

// Permute reorders dims: dim i of the result is dim perm[i] of t.
func (t *Tensor) Permute(perm ...int) (*Tensor, error) {
	p, keep := intptr(perm)
	r, err := t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_permute(h, C.int(len(perm)), p, out, m)
	})
	runtime.KeepAlive(keep)
	return r, err
}

// Transpose swaps two dims.
func (t *Tensor) Transpose(dim0, dim1 int) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_transpose(h, C.int(dim0), C.int(dim1), out, m)
	})
}

// Reshape gives a new shape (one entry may be -1): a view when the strides
// allow, otherwise a contiguous copy (ek_reshape).
func (t *Tensor) Reshape(shape ...int64) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_reshape(nil, h, C.int(len(shape)), i64ptr(shape), out, m)
	})
}

// View gives a new shape without copying; StatusShape when the strides do not
// allow it (ek_view_reshape).
func (t *Tensor) View(shape ...int64) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_reshape(h, C.int(len(shape)), i64ptr(shape), out, m)
	})
}

// Expand broadcasts size-1 dims (stride 0) and prepends dims; -1 keeps a size.
func (t *Tensor) Expand(shape ...int64) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_expand(h, C.int(len(shape)), i64ptr(shape), out, m)
	})
}

// Squeeze removes the listed size-1 dims; no dims removes every size-1 dim.
func (t *Tensor) Squeeze(dims ...int) (*Tensor, error) {
	p, keep := intptr(dims)
	r, err := t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_squeeze(h, C.int(len(dims)), p, out, m)
	})
	runtime.KeepAlive(keep)
	return r, err
}

// Unsqueeze inserts a size-1 dim at dim (in [-ndim-1, ndim]).
func (t *Tensor) Unsqueeze(dim int) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_unsqueeze(h, C.int(dim), out, m)
	})
}

// Flatten merges dims startDim..endDim (inclusive); StatusShape when the
// strides do not allow a view (Reshape copies).
func (t *Tensor) Flatten(startDim, endDim int) (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_flatten(h, C.int(startDim), C.int(endDim), out, m)
	})
}

// AsStrided is any shape/strides/offset (elements) over t's storage; every
// reachable element must lie inside it (StatusIndex otherwise).
func (t *Tensor) AsStrided(shape, strides []int64, offset int64) (*Tensor, error) {
	if len(shape) != len(strides) {
		return nil, bindingError(StatusShape, "ek.AsStrided: %d strides for %d dims", len(strides), len(shape))
	}
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_as_strided(h, C.int(len(shape)), i64ptr(shape), i64ptr(strides), C.int64_t(offset), out, m)
	})
}
