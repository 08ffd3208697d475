package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// complex64 and complex128 (issue 18): Go's complex slices as elements, the
// Real/Imag views, Conj, a product and a complex scalar, and the error of an
// op that refuses complex tensors.

func TestComplexRoundTripViewsAndOps(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{2}, complex64(1+2i), 3-1i)
	eq(t, a.DType(), ek.Complex64, "complex64 dtype")
	eq(t, vals[complex64](s, a), []complex64{1 + 2i, 3 - 1i}, "round trip")
	eq(t, vals[float32](s, s.k(a.Real())), []float32{1, 3}, "real view")
	eq(t, vals[float32](s, s.k(s.k(a.Imag()).Contiguous())), []float32{2, -1}, "imag view")
	eq(t, vals[complex64](s, s.k(a.Conj())), []complex64{1 - 2i, 3 + 1i}, "conj")
	eq(t, vals[complex64](s, s.k(a.Mul(a))), []complex64{-3 + 4i, 8 - 6i}, "square")
	eq(t, vals[complex64](s, s.k(a.MulScalar(1i))), []complex64{-2 + 1i, 1 + 3i}, "times i")
	w := from(s, []int64{1}, complex128(2-5i))
	eq(t, vals[complex128](s, w), []complex128{2 - 5i}, "complex128")
	eq(t, ek.Complex128.Size(), 16, "size")
}

func TestComplexMaxIsAnError(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{1}, complex128(1+1i))
	_, err := a.Max(nil, false)
	wantErr(t, err, ek.StatusDType, "max does not support complex dtypes, got complex128")
}
