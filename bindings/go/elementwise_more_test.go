package ek_test

// Issue 18's elementwise ops (asin ... signbit, logaddexp, hypot, copysign,
// nextafter) and the floor_div / remainder / sign fixes, on the CPU against
// Go's math package (NumPy's values where they differ), and their errors.

import (
	"math"
	"testing"

	"libek/ek"
)

// sameBits fails unless got and want are equal, NaN matching NaN and zeros
// matching in sign.
func sameBits(t *testing.T, got, want []float64, what string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		if math.IsNaN(want[i]) && math.IsNaN(got[i]) || math.Float64bits(got[i]) == math.Float64bits(want[i]) {
			continue
		}
		t.Fatalf("%s: element %d: got %v, want %v (all: %v)", what, i, got[i], want[i], got)
	}
}

func TestElementwiseMoreUnary(t *testing.T) {
	s := newScope(t)
	xs := []float64{-3.5, -0.75, math.Copysign(0, -1), 0.2, 0.5, 0.99, 1, 1.5, 8.5, math.Inf(1), math.NaN()}
	x := from(s, []int64{int64(len(xs))}, xs...)
	fs := map[ek.UnaryOp]func(float64) float64{ek.UnaryAsin: math.Asin, ek.UnaryAcos: math.Acos,
		ek.UnaryAtan: math.Atan, ek.UnarySinh: math.Sinh, ek.UnaryCosh: math.Cosh, ek.UnaryAsinh: math.Asinh,
		ek.UnaryAcosh: math.Acosh, ek.UnaryAtanh: math.Atanh, ek.UnaryLog10: math.Log10}
	for op, f := range fs {
		want := make([]float64, len(xs))
		for i, v := range xs {
			want[i] = f(v)
		}
		near(t, vals[float64](s, s.k(x.Unary(op))), want, 1e-14, op.String())
		x32 := s.k(x.Cast(ek.Float32))
		near(t, f64s(vals[float32](s, s.k(x32.Unary(op)))), want, 2e-6, op.String()+" float32")
	}
	named := map[string]func() (*ek.Tensor, error){"Asin": x.Asin, "Acos": x.Acos, "Atan": x.Atan,
		"Sinh": x.Sinh, "Cosh": x.Cosh, "Asinh": x.Asinh, "Acosh": x.Acosh, "Atanh": x.Atanh, "Log10": x.Log10}
	for name, f := range named {
		var op ek.UnaryOp
		for _, o := range ek.UnaryOps() {
			if o.String() == "Unary"+name {
				op = o
			}
		}
		sameBits(t, vals[float64](s, s.k(f())), vals[float64](s, s.k(x.Unary(op))), name)
	}
	i := from(s, []int64{2}, int32(10), 100)
	y := s.k(i.Log10())
	eq(t, y.DType(), ek.Float32, "log10 of int32")
	eq(t, vals[float32](s, y), []float32{1, 2}, "log10 of int32")
}

func TestElementwiseMoreSignbitAndSign(t *testing.T) {
	s := newScope(t)
	nan := float32(math.NaN())
	x := from(s, []int64{6}, float32(math.Copysign(0, -1)), 0, -nan, nan, -1, 2)
	sb := s.k(x.Signbit())
	eq(t, sb.DType(), ek.Bool, "signbit dtype")
	eq(t, vals[bool](s, sb), []bool{true, false, true, false, true, false}, "signbit")
	eq(t, vals[bool](s, s.k(from(s, []int64{3}, int64(-3), 0, 4).Signbit())), []bool{true, false, false},
		"signbit of int64")
	sign := vals[float32](s, s.k(x.Sign()))
	if !math.IsNaN(float64(sign[2])) || !math.IsNaN(float64(sign[3])) || sign[4] != -1 || sign[5] != 1 {
		t.Fatalf("sign: %v (NaN for NaN)", sign)
	}
}

func TestElementwiseMoreBinary(t *testing.T) {
	s := newScope(t)
	inf := math.Inf(1)
	av := []float64{1, -2, 3, math.Copysign(0, -1), 1000, inf, -inf, inf, math.NaN(), 1e-3}
	bv := []float64{2, 0.5, -4, 0, 1000, inf, -inf, -inf, 1, -7}
	a, b := from(s, []int64{10}, av...), from(s, []int64{10}, bv...)
	// NumPy's logaddexp: infinities of one sign give themselves.
	lae := func(x, y float64) float64 {
		if x == y && math.IsInf(x, 0) {
			return x
		}
		return math.Max(x, y) + math.Log1p(math.Exp(-math.Abs(x-y)))
	}
	// C's nextafter (and NumPy's): equal operands give y, so (-0, 0) is 0; Go's gives x.
	next := func(x, y float64) float64 {
		if x == y {
			return y
		}
		return math.Nextafter(x, y)
	}
	fs := map[ek.BinaryOp]func(float64, float64) float64{ek.BinaryLogaddexp: lae, ek.BinaryHypot: math.Hypot,
		ek.BinaryCopysign: math.Copysign, ek.BinaryNextafter: next}
	for op, f := range fs {
		want := make([]float64, len(av))
		for i := range av {
			want[i] = f(av[i], bv[i])
		}
		got := vals[float64](s, s.k(a.Binary(op, b)))
		if op == ek.BinaryCopysign || op == ek.BinaryNextafter {
			sameBits(t, got, want, op.String())
		} else {
			near(t, got, want, 1e-15, op.String())
		}
	}
	eq(t, vals[float64](s, s.k(a.Hypot(b)))[0], math.Sqrt(5), "Hypot")
	eq(t, vals[float64](s, s.k(a.Copysign(b)))[2], -3.0, "Copysign")
	eq(t, vals[float64](s, s.k(a.Nextafter(b)))[0], math.Nextafter(1, 2), "Nextafter")
	eq(t, vals[float64](s, s.k(a.Logaddexp(b)))[5], inf, "Logaddexp")
	// float16 steps by its own ulp: np.nextafter(np.float16(1), np.float16(2)).
	h := s.k(from(s, []int64{2}, float32(1), 0).Cast(ek.Float16))
	g := s.k(from(s, []int64{2}, float32(2), -1).Cast(ek.Float16))
	n := s.k(h.Nextafter(g))
	eq(t, n.DType(), ek.Float16, "nextafter float16 dtype")
	eq(t, vals[float32](s, s.k(n.Cast(ek.Float32))), []float32{1.0009765625, -5.960464477539063e-08},
		"nextafter float16")
	// Integers compute in float32.
	i := from(s, []int64{2}, int32(3), -4)
	eq(t, vals[float32](s, s.k(i.Hypot(i))), []float32{float32(math.Hypot(3, 3)), float32(math.Hypot(4, 4))},
		"hypot of int32")
}

func TestElementwiseMoreFloorDivRemainder(t *testing.T) {
	s := newScope(t)
	inf, negZero := math.Inf(1), math.Copysign(0, -1)
	one := func(v float64) *ek.Tensor { return from(s, []int64{1}, v) }
	// floor_div with an infinite operand is a / b (the array API standard);
	// a zero remainder has the divisor's sign (NumPy).
	sameBits(t, vals[float64](s, s.k(one(inf).FloorDivScalar(1.0))), []float64{inf}, "inf // 1")
	sameBits(t, vals[float64](s, s.k(one(1).FloorDivScalar(-inf))), []float64{negZero}, "1 // -inf")
	sameBits(t, vals[float64](s, s.k(one(negZero).RemainderScalar(1.0))), []float64{0}, "-0 % 1")
	sameBits(t, vals[float64](s, s.k(one(0).RemainderScalar(-1.0))), []float64{negZero}, "0 % -1")
	// np.remainder([-7, 7, -0.0, 7], [inf, -inf, -2, 2])
	r := s.k(from(s, []int64{4}, -7, 7, negZero, 7).Remainder(from(s, []int64{4}, inf, -inf, -2, 2)))
	sameBits(t, vals[float64](s, r), []float64{inf, -inf, negZero, 1}, "remainder")
}

func TestElementwiseMoreEmptyStridedErrors(t *testing.T) {
	s := newScope(t)
	e := empty(s, ek.Float32, 0, 3)
	eq(t, s.k(e.Cosh()).Shape(), []int64{0, 3}, "cosh of empty")
	eq(t, s.k(e.Hypot(from(s, []int64{3}, float32(1), 2, 3))).Shape(), []int64{0, 3}, "hypot of empty")
	m := from(s, []int64{2, 3}, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
	tr := s.k(m.Transpose(0, 1))
	if tr.IsContiguous() {
		t.Fatal("transpose is contiguous")
	}
	want := []float64{}
	for _, v := range []float64{0.1, 0.4, 0.2, 0.5, 0.3, 0.6} {
		want = append(want, math.Asin(v))
	}
	near(t, vals[float64](s, s.k(tr.Asin())), want, 1e-15, "asin of a transpose")
	_, err := from(s, []int64{3}, float32(1), 2, 3).Logaddexp(from(s, []int64{2}, float32(1), 2))
	wantErr(t, err, ek.StatusShape, "ek_binary")
}
