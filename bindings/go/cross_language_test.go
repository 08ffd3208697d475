package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// The three cases every binding runs the same way (COMMON14.md); the
// semantics are the C library's, so the languages agree.

// 1. x[..., [2, 0], ::-2] and an assignment through ek_index_assign.
func TestCrossLanguageIndex(t *testing.T) {
	s := newScope(t)
	r := s.k(ek.Arange(s.ctx, 0, 24, 1, ek.Int64))
	x := s.k(r.Reshape(2, 3, 4))
	idx := from(s, []int64{2}, int64(2), 0)
	got := s.k(x.Index(ek.Ellipsis, idx, ek.Slice(ek.None, ek.None, -2)))
	eq(t, got.Shape(), []int64{2, 2, 2}, "shape")
	eq(t, vals[int64](s, got), []int64{11, 9, 3, 1, 23, 21, 15, 13}, "x[..., [2,0], ::-2]")

	mask := from(s, []int64{3, 4}, false, true, false, false, false, false, false, false, true, false, false, true)
	s.nok(x.IndexAssign(from(s, []int64{1}, int64(-1)), false, 1, mask))
	want := make([]int64, 24)
	for i := range want {
		want[i] = int64(i)
	}
	want[12+1], want[12+8], want[12+11] = -1, -1, -1
	eq(t, vals[int64](s, x), want, "x[1, mask] = -1")
}

// 2. float32 x += float64 y in place stays float32 (the C out-dtype rule).
func TestCrossLanguageInPlaceMixedDTypes(t *testing.T) {
	s := newScope(t)
	x := from[float32](s, []int64{2}, 1.5, 2.5)
	s.nok(x.AddInPlace(from[float64](s, []int64{2}, 0.25, 0.5)))
	eq(t, x.DType(), ek.Float32, "dtype")
	eq(t, vals[float32](s, x), []float32{1.75, 3}, "x += y")
}

// 3. int64 [1, 2] + 2^60 is exact (an integer scalar).
func TestCrossLanguageIntegerScalar(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{2}, int64(1), 2)
	eq(t, vals[int64](s, s.k(x.AddScalar(int64(1)<<60))), []int64{1<<60 + 1, 1<<60 + 2}, "x + 2^60")
}
