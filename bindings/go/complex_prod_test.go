package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// Complex prod and cumprod, and Gemm with complex alpha and beta (issue 18,
// second round); a complex alpha for a real c is an error.

func TestComplexProdCumprodAndGemm(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{3}, complex128(1+2i), 1+2i, 1+2i)
	eq(t, vals[complex128](s, s.k(x.Prod(nil, false))), []complex128{-11 - 2i}, "prod")
	eq(t, vals[complex128](s, s.k(x.Cumprod(0))), []complex128{1 + 2i, -3 + 4i, -11 - 2i}, "cumprod")
	// c = i (a @ b) + (1 - i) c, a @ b = (1+i) 2 + i (1-i) = 3 + 3i
	a := from(s, []int64{1, 2}, complex128(1+1i), 1i)
	b := from(s, []int64{2, 1}, complex128(2), 1-1i)
	c := from(s, []int64{1, 1}, complex128(2))
	s.nok(c.Gemm(1i, a, b, 1-1i))
	eq(t, vals[complex128](s, c), []complex128{-1 + 1i}, "gemm")
	f := from(s, []int64{1, 1}, float32(0))
	wantErr(t, f.Gemm(1i, f, f, 0), ek.StatusDType, "alpha: a complex value ((0+1j)) is not taken here")
}
