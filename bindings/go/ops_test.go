package ek_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// scope owns a CPU context and the tensors a test makes; at the end it
// closes them all, then the context, which fails if any handle leaked.
type scope struct {
	t    *testing.T
	ctx  *ek.Context
	open []*ek.Tensor
}

func newScope(t *testing.T) *scope {
	s := &scope{t: t, ctx: cpu(t)}
	t.Cleanup(func() {
		for i := len(s.open) - 1; i >= 0; i-- {
			if err := s.open[i].Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		}
		if err := s.ctx.Close(); err != nil {
			t.Errorf("context close (a handle leaked?): %v", err)
		}
	})
	return s
}

// k keeps a tensor result (failing the test on error) for closing at the end.
func (s *scope) k(x *ek.Tensor, err error) *ek.Tensor {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
	s.open = append(s.open, x)
	return x
}

func (s *scope) k2(v, i *ek.Tensor, err error) (*ek.Tensor, *ek.Tensor) {
	s.t.Helper()
	return s.k(v, err), s.k(i, nil)
}

func (s *scope) nok(err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
}

func from[T ek.Element](s *scope, shape []int64, v ...T) *ek.Tensor {
	s.t.Helper()
	return s.k(ek.FromSlice(s.ctx, shape, v))
}

func empty(s *scope, dt ek.DType, shape ...int64) *ek.Tensor {
	s.t.Helper()
	return s.k(ek.Empty(s.ctx, shape, dt))
}

func vals[T ek.Element](s *scope, x *ek.Tensor) []T {
	s.t.Helper()
	v, err := ek.ToSlice[T](x)
	if err != nil {
		s.t.Fatal(err)
	}
	return v
}

func item[T ek.Element](s *scope, x *ek.Tensor) T {
	s.t.Helper()
	v, err := ek.Item[T](x)
	if err != nil {
		s.t.Fatal(err)
	}
	return v
}

func eq[T any](t *testing.T, got, want T, what string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func near(t *testing.T, got []float64, want []float64, tol float64, what string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if (math.IsNaN(g) && math.IsNaN(w)) || g == w || math.Abs(g-w) <= tol*math.Max(1, math.Abs(w)) {
			continue
		}
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// wantErr checks an *ek.Error of the status whose message names fn.
func wantErr(t *testing.T, err error, st ek.Status, fn string) {
	t.Helper()
	var e *ek.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *ek.Error %v naming %q, got %v", st, fn, err)
	}
	if e.Status != st || !strings.Contains(e.Message, fn) {
		t.Fatalf("want %v naming %q, got %v (%q)", st, fn, e.Status, e.Message)
	}
	if !errors.Is(err, st) {
		t.Fatalf("errors.Is(err, %v) is false", st)
	}
}

// ---------------------------------------------------------------- smoke: one call per generated op

// TestEveryOpSmoke calls every op of the generated lists once, through the
// plain, On and InPlace forms (semantics are tested in C).
func TestEveryOpSmoke(t *testing.T) {
	s := newScope(t)
	x := from[float32](s, []int64{2, 2}, 0.5, 0.25, 0.75, 1)
	y := from[float32](s, []int64{2}, 0.5, 2)
	for _, op := range ek.UnaryOps() {
		r := s.k(x.Unary(op))
		eq(t, r.Shape(), []int64{2, 2}, op.String())
		s.k(x.UnaryOn(op, nil, nil))
	}
	i := from(s, []int64{2}, int32(6), 3)
	for _, op := range ek.BinaryOps() {
		a, b := x, y
		if strings.Contains(op.String(), "Bitwise") || strings.Contains(op.String(), "Shift") {
			a, b = i, i
		}
		eq(t, s.k(a.Binary(op, b)).Shape(), a.Shape(), op.String())
		eq(t, s.k(a.BinaryScalar(op, 1)).Shape(), a.Shape(), op.String()+" scalar")
		eq(t, s.k(a.RBinaryScalar(op, 1)).Shape(), a.Shape(), op.String()+" rscalar")
	}
	for _, op := range ek.ReduceOps() {
		eq(t, s.k(x.Reduce(op, []int{1}, false)).Shape(), []int64{2}, op.String())
	}
	for _, k := range []ek.VarKind{ek.VarVariance, ek.VarStd} {
		eq(t, s.k(x.Variance(k, nil, 0, true)).Shape(), []int64{1, 1}, k.String())
	}
	for _, k := range ek.SoftmaxKinds() {
		eq(t, s.k(x.SoftmaxOf(k, 1)).Shape(), []int64{2, 2}, k.String())
	}
	for _, k := range ek.ScanOps() {
		eq(t, s.k(x.Scan(k, 0)).Shape(), []int64{2, 2}, k.String())
	}
	// the per-name forms
	eq(t, vals[float32](s, s.k(y.Exp2())), []float32{float32(math.Sqrt2), 4}, "Exp2")
	eq(t, vals[float32](s, s.k(x.Add(y))), []float32{1, 2.25, 1.25, 3}, "Add")
	eq(t, vals[int32](s, s.k(i.ShiftLeftScalar(1))), []int32{12, 6}, "ShiftLeftScalar")
	eq(t, vals[float32](s, s.k(x.Sum([]int{0}, false))), []float32{1.25, 1.25}, "Sum")
	o := empty(s, ek.Float32, 2)
	if r, err := y.MulScalarOn(2, nil, o); err != nil || r != o {
		t.Fatalf("MulScalarOn into: %v", err)
	}
	eq(t, vals[float32](s, o), []float32{1, 4}, "MulScalarOn")
	s.nok(o.SqrtInPlace())
	eq(t, vals[float32](s, o), []float32{1, 2}, "SqrtInPlace")
	s.nok(o.SubScalarInPlace(1))
	eq(t, vals[float32](s, o), []float32{0, 1}, "SubScalarInPlace")
	eq(t, ek.UnaryIsNaN.String(), "UnaryIsNaN", "String")
	eq(t, ek.BinaryOp(99).String(), "BinaryOp(99)", "String of an unknown op")
}

// In-place forms pass out = t and rely on ek.h's out-dtype rule: an integer
// tensor cannot take a float result.
func TestInPlaceDTypeRule(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{2}, int32(1), 2)
	wantErr(t, x.AddInPlace(from[float32](s, []int64{2}, 0.5, 0.5)), ek.StatusDType, "ek_binary")
	s.nok(x.AddScalarInPlace(1))
	eq(t, vals[int32](s, x), []int32{2, 3}, "AddScalarInPlace")
}

func TestWhereClampLerpAxpby(t *testing.T) {
	s := newScope(t)
	cond := from(s, []int64{2, 1}, true, false)
	a := from(s, []int64{3}, int32(1), 2, 3)
	b := from(s, []int64{}, float32(0.5))
	w := s.k(ek.Where(cond, a, b))
	eq(t, w.DType(), ek.Float32, "where dtype")
	eq(t, vals[float32](s, w), []float32{1, 2, 3, 0.5, 0.5, 0.5}, "where")
	x := from[float64](s, []int64{3}, 4.0, 5, 6)
	z := s.k(ek.Zeros(s.ctx, []int64{3}, ek.Float64))
	s.nok(ek.WhereInto(from(s, []int64{3}, int64(0), 7, 0), x, z, x))
	eq(t, vals[float64](s, x), []float64{0, 5, 0}, "where into an operand")
	_, err := ek.Where(from(s, []int64{2}, true, false), a, b)
	wantErr(t, err, ek.StatusShape, "ek_where")

	f := from(s, []int64{5}, float32(-2), -0.5, float32(math.NaN()), 0.5, 9)
	c := vals[float32](s, s.k(f.Clamp(-1, 1)))
	eq(t, []float32{c[0], c[1], c[3], c[4]}, []float32{-1, -0.5, 0.5, 1}, "clamp")
	if !math.IsNaN(float64(c[2])) {
		t.Fatal("clamp keeps NaN")
	}
	eq(t, vals[float32](s, s.k(f.Clamp(3, 1)))[0], float32(1), "lo > hi gives hi")
	u := vals[float32](s, s.k(f.Clamp(0, nil)))
	eq(t, []float32{u[0], u[4]}, []float32{0, 9}, "clamp below only")
	i := from(s, []int64{3}, int32(-5), 0, 5)
	s.nok(i.ClampInto(-2.9, 2.9, i))
	eq(t, vals[int32](s, i), []int32{-2, 0, 2}, "int clamp in place, bounds truncated")
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	defer st.Close()
	o := empty(s, ek.Int32, 3)
	must[*ek.Tensor](t)(i.ClampOn(nil, 1, st, o))
	s.nok(st.Synchronize())
	eq(t, vals[int32](s, o), []int32{-2, 0, 1}, "clamp on a stream")

	start := from[float64](s, []int64{2}, 0.0, 10)
	end := from[float64](s, []int64{2, 1}, 1.0, 20)
	eq(t, vals[float64](s, s.k(start.Lerp(end, 0.5))), []float64{0.5, 5.5, 10, 15}, "lerp")
	s.nok(start.LerpInto(from[float64](s, []int64{2}, 4.0, 14), 0.25, start))
	eq(t, vals[float64](s, start), []float64{1, 11}, "lerp in place")
	_, err = i.Lerp(i, 0.5)
	wantErr(t, err, ek.StatusDType, "ek_lerp")

	p := from(s, []int64{3}, float32(1), 2, 3)
	q := from(s, []int64{3}, float32(10), 20, 30)
	eq(t, vals[float32](s, s.k(ek.Axpby(2, p, -1, q))), []float32{-8, -16, -24}, "axpby")
	s.nok(ek.AxpbyInto(0.5, p, 2, q, q))
	eq(t, vals[float32](s, q), []float32{20.5, 41, 61.5}, "axpby accumulating into y")
	_, err = ek.Axpby(1, p, 1, from(s, []int64{2}, float32(1), 2))
	wantErr(t, err, ek.StatusShape, "ek_axpby")
}

// ---------------------------------------------------------------- reductions

func TestReductions(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{2, 3}, float32(1), 5, 2, 7, 0, 3)
	eq(t, item[float32](s, s.k(x.Sum(nil, false))), float32(18), "sum")
	eq(t, vals[float32](s, s.k(x.Sum([]int{1}, false))), []float32{8, 10}, "sum dim 1")
	eq(t, s.k(x.Sum([]int{-1}, true)).Shape(), []int64{2, 1}, "keepdim")
	eq(t, vals[float32](s, s.k(x.Mean([]int{0}, false))), []float32{4, 2.5, 2.5}, "mean")
	eq(t, vals[float32](s, s.k(x.Prod([]int{1}, false))), []float32{10, 0}, "prod")
	eq(t, item[float32](s, s.k(x.Max(nil, false))), float32(7), "max")
	eq(t, vals[float32](s, s.k(x.Min([]int{0}, false))), []float32{1, 0, 2}, "min")
	eq(t, item[int64](s, s.k(x.Argmax(nil, false))), int64(3), "argmax")
	eq(t, vals[int64](s, s.k(x.Argmin([]int{1}, false))), []int64{0, 1}, "argmin")
	big := s.k(x.GtScalar(4))
	eq(t, vals[bool](s, s.k(big.Any([]int{1}, false))), []bool{true, true}, "any")
	eq(t, vals[bool](s, s.k(big.All([]int{0}, false))), []bool{false, false, false}, "all")
	y := from[float64](s, []int64{2, 2}, 3.0, -4, 0, -1)
	eq(t, vals[float64](s, s.k(y.NormL1([]int{1}, false))), []float64{7, 1}, "norm l1")
	eq(t, vals[float64](s, s.k(y.NormL2([]int{1}, false))), []float64{5, 1}, "norm l2")
	eq(t, item[float64](s, s.k(y.NormInf(nil, false))), 4.0, "norm inf")
	i8 := from(s, []int64{4}, int8(1), 2, 3, 4)
	sum := s.k(i8.Reduce(ek.ReduceSum, nil, false))
	eq(t, sum.DType(), ek.Int64, "sum of int8 is int64")
	eq(t, item[int64](s, s.k(i8.Reduce(ek.ReduceProd, []int{0}, false))), int64(24), "prod")
	o := empty(s, ek.Float32, 2)
	s.nok(x.ReduceInto(ek.ReduceMax, []int{1}, false, o))
	eq(t, vals[float32](s, o), []float32{5, 7}, "reduce into")
	eq(t, len(ek.ReduceOps()), 12, "reduce ops")
	eq(t, ek.ReduceNormInf.String(), "ReduceNormInf", "String")

	v := from[float64](s, []int64{2, 4}, 1.0, 2, 3, 4, 2, 2, 2, 2)
	near(t, vals[float64](s, s.k(v.Var([]int{1}, 1, false))), []float64{5.0 / 3, 0}, 1e-15, "var")
	near(t, vals[float64](s, s.k(v.Std([]int{1}, 0, false))), []float64{math.Sqrt(1.25), 0}, 1e-15, "std")
	o4 := empty(s, ek.Float64, 4)
	must[*ek.Tensor](t)(v.StdOn([]int{0}, 0, false, nil, o4))
	eq(t, vals[float64](s, o4), []float64{0.5, 0, 0.5, 1}, "std into")

	m := from(s, []int64{2, 3}, int32(3), 9, 9, -1, -5, 0)
	mv, mi := s.k2(m.MaxDim(1, false))
	eq(t, vals[int32](s, mv), []int32{9, 0}, "max_dim values")
	eq(t, vals[int64](s, mi), []int64{1, 2}, "max_dim indices (first occurrence)")
	mv, mi = s.k2(m.MinDim(-1, true))
	eq(t, mv.Shape(), []int64{2, 1}, "min_dim keepdim")
	eq(t, vals[int64](s, mi), []int64{0, 1}, "min_dim indices")
	vo, io := empty(s, ek.Int32, 3), empty(s, ek.Int64, 3)
	rv, ri, err := m.ReduceWithIndicesOn(ek.ReduceMax, 0, false, nil, vo, io)
	if err != nil || rv != vo || ri != io {
		t.Fatalf("MaxDimOn into: %v", err)
	}
	eq(t, vals[int32](s, vo), []int32{3, 9, 9}, "max_dim into")

	// errors
	_, err = i8.Mean(nil, false)
	wantErr(t, err, ek.StatusDType, "ek_reduce")
	emptyT := s.k(ek.Zeros(s.ctx, []int64{0, 3}, ek.Float32))
	eq(t, vals[float32](s, s.k(emptyT.Sum([]int{0}, false))), []float32{0, 0, 0}, "sum over nothing")
	_, err = emptyT.Max([]int{0}, false)
	wantErr(t, err, ek.StatusShape, "ek_reduce")
	_, err = from(s, []int64{2}, int32(1), 2).Var(nil, 1, false)
	wantErr(t, err, ek.StatusDType, "ek_var")
	_, _, err = s.k(ek.Zeros(s.ctx, []int64{2, 0}, ek.Float32)).MaxDim(1, false)
	wantErr(t, err, ek.StatusShape, "ek_reduce_with_indices")
}

// ---------------------------------------------------------------- softmax and scans

func TestSoftmaxAndScans(t *testing.T) {
	s := newScope(t)
	x := from[float64](s, []int64{2, 2}, 0, math.Log(3), 5, 5)
	near(t, vals[float64](s, s.k(x.Softmax(1))), []float64{0.25, 0.75, 0.5, 0.5}, 1e-15, "softmax")
	near(t, vals[float64](s, s.k(x.LogSoftmax(-1))),
		[]float64{math.Log(0.25), math.Log(0.75), math.Log(0.5), math.Log(0.5)}, 1e-14, "log_softmax")
	ninf := float32(math.Inf(-1))
	r := vals[float32](s, s.k(from(s, []int64{2, 2}, ninf, ninf, ninf, 0).Softmax(-1)))
	if !math.IsNaN(float64(r[0])) || r[2] != 0 || r[3] != 1 {
		t.Fatalf("softmax with -inf: %v", r)
	}
	c := from(s, []int64{2, 3}, float32(1), 2, 3, 4, 5, 6)
	eq(t, vals[float32](s, s.k(c.Cumsum(1))), []float32{1, 3, 6, 4, 9, 15}, "cumsum")
	eq(t, vals[float32](s, s.k(c.Cumprod(-1))), []float32{1, 2, 6, 4, 20, 120}, "cumprod")
	cs := s.k(from(s, []int64{4}, true, false, true, true).Cumsum(0))
	eq(t, cs.DType(), ek.Int64, "cumsum of bool is int64")
	eq(t, vals[int64](s, cs), []int64{1, 1, 2, 3}, "cumsum of bool")
	o := empty(s, ek.Float32, 2, 3)
	must[*ek.Tensor](t)(c.CumprodOn(0, nil, o))
	eq(t, vals[float32](s, o), []float32{1, 2, 3, 4, 10, 18}, "cumprod into")
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	defer st.Close()
	a := s.k(c.SoftmaxOn(0, st, nil))
	b := s.k(c.LogSoftmaxOn(0, st, nil))
	d := s.k(c.CumsumOn(0, st, nil))
	s.nok(st.Synchronize())
	eq(t, a.Shape(), []int64{2, 3}, "softmax on")
	eq(t, b.Shape(), []int64{2, 3}, "log_softmax on")
	eq(t, vals[float32](s, d)[3], float32(5), "cumsum on")
	_, err := from(s, []int64{2}, int32(1), 2).Softmax(0)
	wantErr(t, err, ek.StatusDType, "ek_softmax")
	_, err = c.Cumsum(2)
	var e *ek.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "ek_scan") {
		t.Fatalf("cumsum over a missing dim: %v", err)
	}
	_, err = c.SoftmaxOn(1, nil, empty(s, ek.Float32, 3, 2))
	wantErr(t, err, ek.StatusShape, "ek_softmax")
}

// ---------------------------------------------------------------- matrix products

func TestMatmulGemm(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{2, 3}, float32(1), 2, 3, 4, 5, 6)
	b := from(s, []int64{3, 2}, float32(1), 0, 0, 1, 1, 1)
	eq(t, vals[float32](s, s.k(a.Matmul(b))), []float32{4, 5, 10, 11}, "matmul")
	at, bt := s.k(a.Transpose(0, 1)), s.k(b.Transpose(0, 1))
	eq(t, vals[float32](s, s.k(bt.Matmul(at))), []float32{4, 10, 5, 11}, "matmul of transposed views")
	u := from(s, []int64{3}, float32(1), 1, 1)
	eq(t, vals[float32](s, s.k(a.Matmul(u))), []float32{6, 15}, "matrix @ vector")
	dot := s.k(u.Matmul(u))
	eq(t, len(dot.Shape()), 0, "dot is 0-d")
	eq(t, item[float32](s, dot), float32(3), "dot")
	batch := from[float64](s, []int64{2, 1, 3}, 1.0, 0, 0, 0, 0, 2)
	rhs := from[float64](s, []int64{3, 2}, 1.0, 2, 3, 4, 5, 6)
	p := s.k(batch.Matmul(rhs))
	eq(t, p.Shape(), []int64{2, 1, 2}, "batched shape")
	eq(t, vals[float64](s, p), []float64{1, 2, 10, 12}, "batched")
	o := empty(s, ek.Float32, 2, 2)
	s.nok(a.MatmulInto(b, o))
	eq(t, vals[float32](s, o), []float32{4, 5, 10, 11}, "matmul into")

	c := from(s, []int64{2, 2}, float32(math.NaN()), 1, 1, 1)
	s.nok(c.Gemm(1, a, b, 0))
	eq(t, vals[float32](s, c), []float32{4, 5, 10, 11}, "gemm beta 0 ignores NaN")
	s.nok(c.Gemm(-1, a, b, 2))
	eq(t, vals[float32](s, c), []float32{4, 5, 10, 11}, "gemm")
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	defer st.Close()
	s.nok(c.GemmOn(0.5, a, b, 0, st))
	s.nok(st.Synchronize())
	eq(t, vals[float32](s, c), []float32{2, 2.5, 5, 5.5}, "gemm on a stream")

	_, err := a.Matmul(a)
	wantErr(t, err, ek.StatusShape, "ek_matmul")
	eq(t, s.k(a.Matmul(rhs)).DType(), ek.Float64, "mixed dtypes promote")
	bits := from(s, []int64{2, 2}, true, false, true, true)
	_, err = bits.Matmul(bits)
	wantErr(t, err, ek.StatusDType, "ek_matmul: bool operands")
	wantErr(t, c.Gemm(1, a, a, 0), ek.StatusShape, "ek_gemm")
}

// ---------------------------------------------------------------- indexing

func TestIndexing(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{3, 2}, float32(1), 2, 3, 4, 5, 6)
	idx := from(s, []int64{2}, int32(-1), 0)
	eq(t, vals[float32](s, s.k(x.IndexSelect(0, idx))), []float32{5, 6, 1, 2}, "index_select")
	o := empty(s, ek.Float32, 2, 2)
	must[*ek.Tensor](t)(x.IndexSelectOn(0, idx, nil, o))
	eq(t, vals[float32](s, o), []float32{5, 6, 1, 2}, "index_select into")
	_, err := x.IndexSelect(0, from(s, []int64{1}, int64(5)))
	wantErr(t, err, ek.StatusIndex, "5")
	_, err = x.IndexSelect(0, from(s, []int64{1}, float32(0)))
	wantErr(t, err, ek.StatusDType, "ek_index_select")

	eq(t, vals[float32](s, s.k(x.Gather(0, from(s, []int64{2, 2}, int64(2), 0, 1, 2)))), []float32{5, 2, 3, 6}, "gather")
	_, err = x.Gather(0, from(s, []int64{2}, int64(0), 1))
	var e *ek.Error
	if !errors.As(err, &e) || !strings.Contains(e.Message, "ek_gather") {
		t.Fatalf("gather with a 1-D index: %v", err)
	}

	z := s.k(ek.Zeros(s.ctx, []int64{2, 3}, ek.Float32))
	sidx := from(s, []int64{2, 2}, int64(2), 0, 0, 0)
	src := from(s, []int64{2, 2}, float32(1), 2, 3, 4)
	eq(t, vals[float32](s, s.k(z.ScatterAdd(1, sidx, src))), []float32{2, 0, 1, 7, 0, 0}, "scatter_add")
	one := from(s, []int64{2, 1}, int64(1), 2)
	eq(t, vals[float32](s, s.k(z.Scatter(1, one, src))), []float32{0, 1, 0, 0, 0, 3}, "scatter")
	s.nok(z.ScatterInto(1, one, src, true, z))
	s.nok(z.ScatterInto(1, one, src, true, z))
	eq(t, vals[float32](s, z), []float32{0, 2, 0, 0, 0, 6}, "scatter_add in place")
	_, err = z.Scatter(1, from(s, []int64{2, 1}, int64(3), 0), src)
	wantErr(t, err, ek.StatusIndex, "ek_scatter")

	m := s.k(ek.Zeros(s.ctx, []int64{3, 2}, ek.Int64))
	rows := from(s, []int64{3}, int32(0), 2, 0)
	vv := from(s, []int64{2}, int64(1), 10)
	eq(t, vals[int64](s, s.k(m.IndexPut([]*ek.Tensor{rows}, vv, true))), []int64{2, 20, 0, 0, 1, 10}, "index_put accumulate")
	nine := from(s, []int64{}, int64(9))
	s.nok(m.IndexPutInto([]*ek.Tensor{from(s, []int64{1}, int64(-1)), from(s, []int64{1}, int64(1))}, nine, false, m))
	eq(t, vals[int64](s, m), []int64{0, 0, 0, 0, 0, 9}, "index_put in place")
	_, err = m.IndexPut([]*ek.Tensor{from(s, []int64{1}, int64(3))}, vv, false)
	wantErr(t, err, ek.StatusIndex, "ek_index_put")
	_, err = m.IndexPut([]*ek.Tensor{nil}, vv, false)
	if err == nil {
		t.Fatal("index_put with a nil index tensor")
	}

	mask := from(s, []int64{2}, true, false)
	eq(t, vals[float32](s, s.k(x.MaskedSelect(mask))), []float32{1, 3, 5}, "masked_select (broadcast mask)")
	eq(t, vals[float32](s, s.k(x.MaskedFill(mask, -1))), []float32{-1, 2, -1, 4, -1, 6}, "masked_fill")
	y := s.k(x.MulScalar(1))
	s.nok(y.MaskedFillInto(mask, 0, y))
	eq(t, vals[float32](s, y), []float32{0, 2, 0, 4, 0, 6}, "masked_fill in place")
	source := from(s, []int64{4}, float32(10), 20, 30, 40)
	eq(t, vals[float32](s, s.k(x.MaskedScatter(mask, source))), []float32{10, 2, 20, 4, 30, 6}, "masked_scatter")
	s.nok(y.MaskedScatterInto(mask, source, y))
	eq(t, vals[float32](s, y), []float32{10, 2, 20, 4, 30, 6}, "masked_scatter in place")
	_, err = x.MaskedScatter(mask, from(s, []int64{2}, float32(1), 2))
	if !errors.As(err, &e) || !strings.Contains(e.Message, "ek_masked_scatter") {
		t.Fatalf("masked_scatter with a short source: %v", err)
	}
	_, err = x.MaskedFill(from(s, []int64{2}, uint8(1), 0), 0)
	wantErr(t, err, ek.StatusDType, "ek_masked_fill")
	_, err = x.MaskedSelect(from(s, []int64{4}, true, true, true, true))
	wantErr(t, err, ek.StatusShape, "ek_masked_select")

	nz := s.k(from(s, []int64{2, 3}, int32(0), 5, 0, -1, 0, 2).Nonzero())
	eq(t, nz.Shape(), []int64{3, 2}, "nonzero shape")
	eq(t, vals[int64](s, nz), []int64{0, 1, 1, 0, 1, 2}, "nonzero")
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	defer st.Close()
	g := s.k(x.GatherOn(1, from(s, []int64{3, 1}, int64(0), 1, 0), st, nil))
	sc := s.k(x.ScatterOn(0, from(s, []int64{1, 2}, int64(0), 0), from(s, []int64{1, 2}, float32(0), 0), true, st, nil))
	ip := s.k(x.IndexPutOn([]*ek.Tensor{from(s, []int64{1}, int64(0))}, from(s, []int64{}, float32(0)), false, st, nil))
	ms := s.k(x.MaskedSelectOn(mask, st, nil))
	mf := s.k(x.MaskedFillOn(mask, 1, st, nil))
	msc := s.k(x.MaskedScatterOn(mask, source, st, nil))
	nzs := s.k(x.NonzeroOn(st, nil))
	s.nok(st.Synchronize())
	eq(t, vals[float32](s, g), []float32{1, 4, 5}, "gather on")
	eq(t, vals[float32](s, sc), vals[float32](s, x), "scatter on")
	eq(t, vals[float32](s, ip)[:2], []float32{0, 0}, "index_put on")
	eq(t, ms.Numel(), int64(3), "masked_select on")
	eq(t, vals[float32](s, mf)[0], float32(1), "masked_fill on")
	eq(t, vals[float32](s, msc)[0], float32(10), "masked_scatter on")
	eq(t, nzs.Shape(), []int64{6, 2}, "nonzero on")
}

// ---------------------------------------------------------------- random

func TestRandom(t *testing.T) {
	s := newScope(t)
	s.nok(s.ctx.SetRandomSeed(42))
	st0 := must[ek.PhiloxState](t)(s.ctx.RandomState())
	eq(t, st0, ek.PhiloxState{Seed: 42}, "state after seeding")
	a := s.k(ek.Randn(s.ctx, []int64{1000}, ek.Float64))
	eq(t, must[ek.PhiloxState](t)(s.ctx.RandomState()).Offset, uint64(1000), "offset advances by numel")
	b := s.k(ek.Randn(s.ctx, []int64{1000}, ek.Float64))
	if reflect.DeepEqual(vals[float64](s, a), vals[float64](s, b)) {
		t.Fatal("two draws are equal")
	}
	s.nok(s.ctx.SetRandomSeed(42))
	a2 := s.k(ek.Randn(s.ctx, []int64{1000}, ek.Float64))
	eq(t, vals[float64](s, a2), vals[float64](s, a), "same seed, same numbers")
	before := must[ek.PhiloxState](t)(s.ctx.RandomState())
	c := empty(s, ek.Float64, 500)
	s.nok(c.RandomWith(ek.RandomNormal, 0, 1, &ek.PhiloxState{Seed: 42, Offset: 500}, nil))
	eq(t, must[ek.PhiloxState](t)(s.ctx.RandomState()), before, "an explicit state leaves the generator")
	eq(t, vals[float64](s, c), vals[float64](s, a)[500:], "counter-based: offset 500 continues the stream")

	n := s.k(ek.RandomTensor(s.ctx, []int64{200000}, ek.Float32, ek.RandomNormal, 2, 0.5))
	mean := item[float32](s, s.k(n.Mean(nil, false)))
	std := item[float32](s, s.k(n.Std(nil, 1, false)))
	if math.Abs(float64(mean)-2) > 0.01 || math.Abs(float64(std)-0.5) > 0.01 {
		t.Fatalf("normal(2, 0.5): mean %v std %v", mean, std)
	}
	for _, v := range vals[float32](s, s.k(ek.Rand(s.ctx, []int64{1000}, ek.Float32))) {
		if v < 0 || v >= 1 {
			t.Fatalf("rand out of [0, 1): %v", v)
		}
	}
	ri := s.k(ek.RandomTensor(s.ctx, []int64{10000}, ek.Int64, ek.RandomRandint, -2, 3))
	seen := map[int64]bool{}
	for _, v := range vals[int64](s, ri) {
		if v < -2 || v >= 3 {
			t.Fatalf("randint out of range: %v", v)
		}
		seen[v] = true
	}
	eq(t, len(seen), 5, "randint covers [-2, 3)")
	bern := empty(s, ek.Bool, 1000)
	s.nok(bern.Random(ek.RandomBernoulli, 1, 0))
	for _, v := range vals[bool](s, bern) {
		if !v {
			t.Fatal("bernoulli(1) drew 0")
		}
	}
	frac := item[float32](s, s.k(s.k(ek.RandomTensor(s.ctx, []int64{10000}, ek.Float32, ek.RandomBernoulli, 0.25, 0)).Mean(nil, false)))
	if math.Abs(float64(frac)-0.25) > 0.02 {
		t.Fatalf("bernoulli(0.25): %v", frac)
	}
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	defer st.Close()
	w := empty(s, ek.Float32, 8)
	s.nok(w.RandomWith(ek.RandomUniform, 5, 6, nil, st))
	s.nok(st.Synchronize())
	for _, v := range vals[float32](s, w) {
		if v < 5 || v >= 6 {
			t.Fatalf("uniform(5, 6) on a stream: %v", v)
		}
	}
	eq(t, ek.RandomNormal.String(), "RandomNormal", "String")

	f := empty(s, ek.Float32, 4)
	bad := []struct {
		d    ek.RandomDist
		a, b float64
	}{{ek.RandomUniform, 1, 1}, {ek.RandomNormal, 0, -1}, {ek.RandomBernoulli, 1.5, 0}, {ek.RandomRandint, 3, 2}}
	for _, c := range bad {
		wantErr(t, f.Random(c.d, c.a, c.b), ek.StatusInvalidArgument, "ek_random")
	}
	wantErr(t, empty(s, ek.Int32, 4).Random(ek.RandomNormal, 0, 1), ek.StatusDType, "ek_random")
	wantErr(t, empty(s, ek.Bool, 4).Random(ek.RandomRandint, 0, 2), ek.StatusDType, "ek_random")
	if _, err := ek.RandomTensor(s.ctx, []int64{2}, ek.Int32, ek.RandomNormal, 0, 1); !errors.Is(err, ek.StatusDType) {
		t.Fatalf("RandomTensor of int32 normal: %v", err)
	}
}

// TestMLP runs the quickstart's workload and checks shapes and row sums.
func TestMLP(t *testing.T) {
	s := newScope(t)
	s.nok(s.ctx.SetRandomSeed(0))
	randn := func(shape ...int64) *ek.Tensor {
		return s.k(ek.RandomTensor(s.ctx, shape, ek.Float32, ek.RandomNormal, 0, 0.1))
	}
	x, w1, b1, w2, b2 := randn(64, 128), randn(128, 256), randn(256), randn(256, 10), randn(10)
	h := s.k(x.Matmul(w1))
	s.nok(h.BinaryInto(ek.BinaryAdd, b1, h))
	s.nok(h.UnaryInto(ek.UnaryRelu, h))
	z := s.k(h.Matmul(w2))
	s.nok(z.BinaryInto(ek.BinaryAdd, b2, z))
	y := s.k(z.Softmax(-1))
	eq(t, y.Shape(), []int64{64, 10}, "shape")
	rows := vals[float32](s, s.k(y.Sum([]int{1}, false)))
	for i, r := range rows {
		if math.Abs(float64(r)-1) > 1e-5 {
			t.Fatalf("row %d sums to %v", i, r)
		}
	}
}

// TestBinaryIntoAllocs: the small-op path allocates nothing on the Go heap.
func TestBinaryIntoAllocs(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{1}, float32(1))
	out := empty(s, ek.Float32, 1)
	n := testing.AllocsPerRun(100, func() {
		if err := a.BinaryInto(ek.BinaryAdd, a, out); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("BinaryInto allocates %v times per call", n)
	}
}

func BenchmarkBinaryInto(b *testing.B) {
	ctx, err := ek.NewContext(ek.CPUDevice())
	if err != nil {
		b.Fatal(err)
	}
	a, _ := ek.FromSlice(ctx, []int64{1}, []float32{1})
	out, _ := ek.Empty(ctx, []int64{1}, ek.Float32)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.BinaryInto(ek.BinaryAdd, a, out); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	a.Close()
	out.Close()
	ctx.Close()
}

// Fill and MaskedFill values keep their Go kind: int64 stays exact beyond
// 2^53, and a value that does not fit the dtype is refused.
func TestFillValuesAreExactOrRefused(t *testing.T) {
	s := newScope(t)
	big := int64(1<<60 + 1)
	x := s.k(ek.Zeros(s.ctx, []int64{3}, ek.Int64))
	s.nok(x.Fill(big))
	eq(t, vals[int64](s, x), []int64{big, big, big}, "fill int64")
	mask := from(s, []int64{3}, true, false, true)
	eq(t, vals[int64](s, s.k(s.k(ek.Zeros(s.ctx, []int64{3}, ek.Int64)).MaskedFill(mask, big))), []int64{big, 0, big}, "masked_fill int64")
	wantErr(t, x.Fill(uint64(1)<<63), ek.StatusInvalidArgument, "ek_fill")
	eq(t, vals[int64](s, x), []int64{big, big, big}, "untouched")
	i8 := s.k(ek.Zeros(s.ctx, []int64{3}, ek.Int8))
	_, err := i8.MaskedFill(mask, 1000)
	wantErr(t, err, ek.StatusInvalidArgument, "value 1000 does not fit the integer dtype int8")
	wantErr(t, i8.Fill(math.NaN()), ek.StatusInvalidArgument, "ek_fill")
	wantErr(t, i8.Fill("7"), ek.StatusInvalidArgument, "not string")
	s.nok(i8.Fill(-128.9))
	eq(t, vals[int8](s, i8), []int8{-128, -128, -128}, "fill truncates")
	b := s.k(ek.Zeros(s.ctx, []int64{1}, ek.Bool))
	s.nok(b.Fill(true))
	eq(t, vals[bool](s, b), []bool{true}, "fill bool")
}

// Index items marshal to ek_index_item: ints, slices with open ends, new
// axes, tensors; bad items are refused before the C call.
func TestIndexKeys(t *testing.T) {
	s := newScope(t)
	x := s.k(s.k(ek.Arange(s.ctx, 0, 6, 1, ek.Int32)).Reshape(2, 3))
	eq(t, vals[int32](s, s.k(x.Index(1, ek.Slice(ek.Idx(-2), ek.None, 1)))), []int32{4, 5}, "x[1, -2:]")
	eq(t, s.k(x.Index(ek.NewAxis, ek.Int(0))).Shape(), []int64{1, 3}, "x[None, 0]")
	eq(t, s.k(x.Index()).Shape(), []int64{2, 3}, "x[()]")
	_, err := x.Index(5)
	wantErr(t, err, ek.StatusIndex, "ek_index")
	_, err = x.Index("a")
	wantErr(t, err, ek.StatusInvalidArgument, "ek.Tensor.Index: key[0] is a string")
	closed := from(s, []int64{1}, int64(0))
	closed.Close()
	_, err = x.Index(closed)
	wantErr(t, err, ek.StatusNullPointer, "closed")
	s.nok(x.IndexAssign(from(s, []int64{1}, int32(7)), true, ek.Ellipsis, 0))
	eq(t, vals[int32](s, x), []int32{7, 1, 2, 10, 4, 5}, "x[..., 0] += 7")
}
