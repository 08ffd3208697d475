package ek_test

import (
	"math"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// Creation ops against values written out from NumPy; on the CPU, and on
// CUDA too when EK_TEST_DEVICE selects it (TestCreationCUDA).
func checkCreation(t *testing.T, s *scope) {
	big := int64(1)<<62 + 1
	eq(t, vals[int64](s, s.k(ek.Full(s.ctx, []int64{3}, big, ek.Int64))), []int64{big, big, big}, "Full int64 exact")
	eq(t, vals[float32](s, s.k(ek.Full(s.ctx, []int64{2, 2}, -1.5, ek.Float32))), []float32{-1.5, -1.5, -1.5, -1.5}, "Full f32")
	eq(t, s.k(ek.Full(s.ctx, []int64{0, 3}, 1, ek.Uint8)).Shape(), []int64{0, 3}, "Full empty")

	// numpy.linspace(0.18, -0.59, 8).tolist()
	want := []float64{0.18, 0.06999999999999999, -0.04000000000000001, -0.15000000000000002, -0.26,
		-0.37000000000000005, -0.48000000000000004, -0.59}
	eq(t, vals[float64](s, s.k(ek.Linspace(s.ctx, 0.18, -0.59, 8, true, ek.Float64))), want, "Linspace f64")
	eq(t, vals[float32](s, s.k(ek.Linspace(s.ctx, 0, 1, 4, false, ek.Float32))), []float32{0, 0.25, 0.5, 0.75}, "Linspace open")
	eq(t, vals[int32](s, s.k(ek.Linspace(s.ctx, -1, 1, 5, true, ek.Int32))), []int32{-1, -1, 0, 0, 1}, "Linspace floor")
	inf := vals[float64](s, s.k(ek.Linspace(s.ctx, 0, math.Inf(1), 3, true, ek.Float64)))
	if !math.IsNaN(inf[0]) || inf[1] != math.Inf(1) || inf[2] != math.Inf(1) {
		t.Fatalf("Linspace(0, inf, 3): got %v, want [NaN +Inf +Inf]", inf)
	}

	// numpy.eye(3, 4, k=1), numpy.eye(3, 2, k=-1)
	eq(t, vals[float32](s, s.k(ek.Eye(s.ctx, 3, 4, 1, ek.Float32))), []float32{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, "Eye k=1")
	eq(t, vals[int32](s, s.k(ek.Eye(s.ctx, 3, 2, -1, ek.Int32))), []int32{0, 0, 1, 0, 0, 1}, "Eye k=-1")
	eq(t, vals[uint8](s, s.k(ek.Eye(s.ctx, 2, 2, math.MaxInt64, ek.Uint8))), []uint8{0, 0, 0, 0}, "Eye k beyond")

	data := make([]int32, 24)
	for i := range data {
		data[i] = int32(i + 1)
	}
	x := from(s, []int64{2, 3, 4}, data...)
	// numpy.tril(arange(1, 25).reshape(2, 3, 4), -1) and numpy.triu(.., 2)
	lo := []int32{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0, 0, 0, 0, 0, 17, 0, 0, 0, 21, 22, 0, 0}
	up := []int32{0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 15, 16, 0, 0, 0, 20, 0, 0, 0, 0}
	eq(t, vals[int32](s, s.k(x.Tril(-1))), lo, "Tril")
	eq(t, vals[int32](s, s.k(x.Triu(2))), up, "Triu")
	eq(t, vals[int32](s, s.k(x.Tril(math.MaxInt64))), data, "Tril k beyond")
	out := empty(s, ek.Int32, 2, 3, 4)
	s.nok(x.TriuInto(2, out))
	eq(t, vals[int32](s, out), up, "TriuInto")
	// a transposed view: element (b, i, j) is x[b, j, i]; numpy.triu(x.transpose(0, 2, 1))
	xt := s.k(x.Transpose(1, 2))
	eq(t, vals[int32](s, s.k(xt.Triu(0))), []int32{1, 5, 9, 0, 6, 10, 0, 0, 11, 0, 0, 0, 13, 17, 21, 0, 18, 22, 0, 0, 23, 0, 0, 0}, "Triu transposed")
	s.nok(x.TrilInto(-1, x)) // in place
	eq(t, vals[int32](s, x), lo, "Tril in place")
}

func TestCreation(t *testing.T) {
	checkCreation(t, newScope(t))
}

func TestCreationCUDA(t *testing.T) {
	g := &scope{t: t, ctx: cudaOrSkip(t)}
	t.Cleanup(func() {
		for i := len(g.open) - 1; i >= 0; i-- {
			g.open[i].Close()
		}
		if err := g.ctx.Close(); err != nil {
			t.Errorf("context close (a handle leaked?): %v", err)
		}
	})
	checkCreation(t, g)
}

func TestCreationErrors(t *testing.T) {
	s := newScope(t)
	_, err := ek.Full(s.ctx, []int64{2}, 300, ek.Int8)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_full: value 300 does not fit the integer dtype int8")
	_, err = ek.Linspace(s.ctx, 0, 1, -1, true, ek.Float32)
	wantErr(t, err, ek.StatusInvalidArgument, "num must be >= 0")
	_, err = ek.Linspace(s.ctx, 0, 300, 4, true, ek.Int8)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_linspace: linspace(0, 300, num=4): element 3 is 300, outside int8")
	_, err = ek.Eye(s.ctx, -1, 3, 0, ek.Float32)
	wantErr(t, err, ek.StatusShape, "ek_eye: n and m must be >= 0, not n = -1, m = 3")
	v := from(s, []int64{4}, float32(1), 2, 3, 4)
	_, err = v.Tril(0)
	wantErr(t, err, ek.StatusShape, "ek_tril: x must have at least 2 dims")
	x := s.k(ek.Zeros(s.ctx, []int64{3, 3}, ek.Float32))
	wrong := s.k(ek.Zeros(s.ctx, []int64{3, 3}, ek.Float64))
	wantErr(t, x.TriuInto(0, wrong), ek.StatusDType, "ek_triu: out has dtype float64")
	_, err = ek.Full(s.ctx, []int64{1}, "seven", ek.Int8)
	if err == nil {
		t.Fatal("Full with a string value: want an error")
	}
}
