package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// Issue 18 through the Go binding: integer matmul (wrapping), tensordot
// (both forms), vecdot, outer, an integer sum into a narrower out, and the
// bad-input messages. Semantics are tested in C (tests/test_linalg_ext.cpp).
func TestLinalgExt(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{1, 2}, int8(100), 100)
	b := from(s, []int64{2, 1}, int8(2), 1)
	c := s.k(a.Matmul(b))
	eq(t, c.DType(), ek.Int8, "int8 @ int8")
	eq(t, vals[int8](s, c), []int8{44}, "300 wraps to 44")

	x := from[float64](s, []int64{2, 3}, 1, 2, 3, 4, 5, 6)
	eq(t, item[float64](s, s.k(x.TensordotN(x, 2))), 91.0, "full contraction")
	eq(t, vals[float64](s, s.k(x.Tensordot(x, []int{1}, []int{1}))), []float64{14, 32, 32, 77}, "x @ x^T")
	w := from[float64](s, []int64{3}, 1, 0, -1)
	eq(t, vals[float64](s, s.k(x.Vecdot(w, -1))), []float64{-2, -2}, "vecdot")
	u := from(s, []int64{2}, int32(1), 2)
	o := s.k(u.Outer(u))
	eq(t, o.Shape(), []int64{2, 2}, "outer shape")
	eq(t, vals[int32](s, o), []int32{1, 2, 2, 4}, "outer")

	i := from(s, []int64{3}, int8(100), 100, 100)
	narrow := empty(s, ek.Int8)
	s.nok(i.ReduceInto(ek.ReduceSum, nil, false, narrow))
	eq(t, item[int8](s, narrow), int8(44), "sum into int8 wraps")

	eq(t, vals[float64](s, s.k(x.Clamp(nil, nil))), []float64{1, 2, 3, 4, 5, 6}, "clamp without bounds copies")

	_, err := x.Tensordot(x, []int{0}, []int{1})
	wantErr(t, err, ek.StatusShape, "ek_tensordot: a's dim 0 (size 2) and b's dim 1 (size 3) differ")
	_, err = x.TensordotN(x, 3)
	wantErr(t, err, ek.StatusInvalidArgument, "ndims = 3")
	_, err = x.Outer(x)
	wantErr(t, err, ek.StatusShape, "ek_outer")
}
