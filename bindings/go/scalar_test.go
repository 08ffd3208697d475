package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// Every value argument reaches the library as an ek_scalar of its Go kind,
// so integers above 2^53 (which a float64 would round) stay exact.

const (
	big53 = int64(1)<<53 + 1 // the first int64 a float64 cannot hold
	big62 = int64(1)<<62 + 1
)

func TestBinaryScalarIntegersAreExact(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{3}, int64(0), 1, -1)
	eq(t, vals[int64](s, s.k(x.AddScalar(big62))), []int64{big62, big62 + 1, big62 - 1}, "int64 + int64")
	eq(t, vals[int64](s, s.k(x.AddScalar(uint64(big62)))), []int64{big62, big62 + 1, big62 - 1}, "int64 + uint64")
	eq(t, vals[int64](s, s.k(x.RBinaryScalar(ek.BinarySub, big53))), []int64{big53, big53 - 1, big53 + 1}, "int64 - x")
	eq(t, vals[bool](s, s.k(s.k(x.AddScalar(big53)).EqScalar(big53))), []bool{true, false, false}, "eq exact")
	out := empty(s, ek.Int64, 3)
	s.nok(x.BinaryScalarInto(ek.BinaryMul, big53, out))
	eq(t, vals[int64](s, out), []int64{0, big53, -big53}, "into")
	eq(t, vals[int64](s, s.k(x.BitwiseXorScalar(big62))), []int64{big62, big62 ^ 1, big62 ^ -1}, "xor")
	eq(t, s.k(from(s, []int64{1}, true).AddScalar(2)).DType(), ek.Int64, "bool + int is int64")
	_, err := x.AddScalar("1")
	wantErr(t, err, ek.StatusInvalidArgument, "ek.Tensor.BinaryScalar: scalar must be a Go integer, float, complex or bool, not string")
	wantErr(t, x.BinaryScalarInto(ek.BinaryAdd, nil, out), ek.StatusInvalidArgument, "not nil")
}

func TestClampBoundsAreExact(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{4}, -big62, -big53-1, big53+1, big62)
	eq(t, vals[int64](s, s.k(x.Clamp(-big53, uint64(big53)))), []int64{-big53, -big53, big53, big53}, "both")
	eq(t, vals[int64](s, s.k(x.Clamp(nil, big53))), []int64{-big62, -big53 - 1, big53, big53}, "hi only")
	s.nok(x.ClampInto(big62-1, nil, x))
	eq(t, vals[int64](s, x), []int64{big62 - 1, big62 - 1, big62 - 1, big62}, "lo only, in place")
	_, err := x.Clamp(0, []int{1})
	wantErr(t, err, ek.StatusInvalidArgument, "ek.Tensor.Clamp: hi must be")
}

func TestAxpbyLerpCoefficients(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{2}, int64(1), 2)
	y := from(s, []int64{2}, int64(1), -1)
	eq(t, vals[int64](s, s.k(ek.Axpby(big53, x, int64(3), y))), []int64{big53 + 3, 2*big53 - 3}, "int64 alpha")
	eq(t, vals[int64](s, s.k(ek.Axpby(1, x, uint64(big62), y))), []int64{1 + big62, 2 - big62}, "uint64 beta")
	_, err := ek.Axpby(0.5, x, 1, y)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_axpby")
	_, err = ek.Axpby(1, x, "2", y)
	wantErr(t, err, ek.StatusInvalidArgument, "ek.Axpby: beta")

	a := from(s, []int64{2}, 1.0, 2.0)
	b := from(s, []int64{2}, 3.0, 7.0)
	eq(t, vals[float64](s, s.k(a.Lerp(b, 1))), []float64{3, 7}, "integer weight 1 gives end")
	eq(t, vals[float64](s, s.k(a.Lerp(b, uint8(0)))), []float64{1, 2}, "weight 0 gives start")
	_, err = a.Lerp(b, struct{}{})
	wantErr(t, err, ek.StatusInvalidArgument, "ek.Tensor.Lerp: weight")
}

func TestArangeIntegersAreExact(t *testing.T) {
	s := newScope(t)
	eq(t, vals[int64](s, s.k(ek.Arange(s.ctx, big62, big62+3, 1, ek.Int64))), []int64{big62, big62 + 1, big62 + 2}, "int64")
	eq(t, vals[int64](s, s.k(ek.Arange(s.ctx, uint64(big53), big53-3, int8(-1), ek.Int64))), []int64{big53, big53 - 1, big53 - 2}, "mixed kinds")
	eq(t, vals[float32](s, s.k(ek.Arange(s.ctx, 0, 1, 0.25, ek.Float32))), []float32{0, 0.25, 0.5, 0.75}, "float step")
	_, err := ek.Arange(s.ctx, 0, 1e300, 1, ek.Int64)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_arange")
	_, err = ek.Arange(s.ctx, 0, 3, "1", ek.Int64)
	wantErr(t, err, ek.StatusInvalidArgument, "ek.Arange: step")
}

func TestRandintBoundsAreExact(t *testing.T) {
	s := newScope(t)
	// [2^62+1, 2^62+5): as float64 both bounds round to 2^62 (an empty range).
	x := empty(s, ek.Int64, 1000)
	s.nok(x.Random(ek.RandomRandint, big62, big62+4))
	seen := map[int64]bool{}
	for _, v := range vals[int64](s, x) {
		if v < big62 || v >= big62+4 {
			t.Fatalf("randint value %d outside [%d, %d)", v, big62, big62+4)
		}
		seen[v] = true
	}
	if len(seen) < 2 {
		t.Fatalf("1000 draws gave only %v", seen)
	}
	u := empty(s, ek.Int64, 8)
	s.nok(u.RandomWith(ek.RandomRandint, uint64(big53), uint64(big53+1), &ek.PhiloxState{Seed: 1}, nil))
	eq(t, vals[int64](s, u), []int64{big53, big53, big53, big53, big53, big53, big53, big53}, "one-value range")
	wantErr(t, u.Random(ek.RandomRandint, 0, 1.5), ek.StatusInvalidArgument, "ek_random")
	wantErr(t, u.Random(ek.RandomRandint, 0, []byte{1}), ek.StatusInvalidArgument, "ek.Tensor.Random: b")
}

func TestGemmCoefficientKinds(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{1, 2}, 1.0, 2.0)
	b := from(s, []int64{2, 1}, 3.0, 4.0)
	c := from(s, []int64{1, 1}, 10.0)
	s.nok(c.Gemm(int64(2), a, b, uint64(1))) // 2*11 + 10
	eq(t, vals[float64](s, c), []float64{32}, "integer alpha and beta")
	s.nok(c.Gemm(float32(0.5), a, b, 0))
	eq(t, vals[float64](s, c), []float64{5.5}, "float alpha")
	wantErr(t, c.Gemm(1, a, b, "0"), ek.StatusInvalidArgument, "ek.Tensor.Gemm: beta")
	eq(t, vals[float64](s, c), []float64{5.5}, "untouched")
}
