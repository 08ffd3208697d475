package ek_test

import (
	"math"
	"os"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// cudaOrSkip returns a CUDA context when EK_TEST_DEVICE selects CUDA and a
// device exists; it skips visibly otherwise (a failure with EK_REQUIRE_GPU=1).
func cudaOrSkip(t *testing.T) *ek.Context {
	t.Helper()
	want := os.Getenv("EK_TEST_DEVICE")
	require := os.Getenv("EK_REQUIRE_GPU") == "1"
	if want != "cuda" && want != "all" {
		if require {
			t.Fatalf("EK_REQUIRE_GPU=1 but EK_TEST_DEVICE=%q does not select CUDA", want)
		}
		t.Skip("SKIPPED: set EK_TEST_DEVICE=cuda (or all) to run on a GPU")
	}
	if n := must[int](t)(ek.DeviceCount(ek.CUDA)); n == 0 {
		if require {
			t.Fatal("EK_REQUIRE_GPU=1 but no CUDA device was found")
		}
		t.Skip("SKIPPED: no CUDA device")
	}
	return must[*ek.Context](t)(ek.NewContext(ek.CUDADevice(0)))
}

// TestCUDAOpsMatchCPU runs the op groups on CUDA and on the CPU backend with
// the same inputs (the same seed: Philox gives the same numbers on both).
func TestCUDAOpsMatchCPU(t *testing.T) {
	gctx := cudaOrSkip(t)
	g := &scope{t: t, ctx: gctx}
	c := newScope(t)
	t.Cleanup(func() {
		for i := len(g.open) - 1; i >= 0; i-- {
			g.open[i].Close()
		}
		if err := gctx.Close(); err != nil {
			t.Errorf("CUDA context close: %v", err)
		}
	})
	same := func(x, y *ek.Tensor, tol float64, what string) {
		t.Helper()
		eq(t, x.Shape(), y.Shape(), what+" shape")
		a, b := vals[float32](g, x), vals[float32](c, y)
		for i := range a {
			p, q := float64(a[i]), float64(b[i])
			if !(math.Abs(p-q) <= tol*math.Max(1, math.Abs(q)) || (math.IsNaN(p) && math.IsNaN(q))) {
				t.Fatalf("%s[%d]: cuda %v, cpu %v", what, i, p, q)
			}
		}
	}
	g.nok(gctx.SetRandomSeed(3))
	c.nok(c.ctx.SetRandomSeed(3))
	xg := g.k(ek.Randn(gctx, []int64{64, 96}, ek.Float32))
	xc := c.k(ek.Randn(c.ctx, []int64{64, 96}, ek.Float32))
	same(xg, xc, 1e-6, "randn")
	wg := g.k(ek.Randn(gctx, []int64{96, 32}, ek.Float32))
	wc := c.k(ek.Randn(c.ctx, []int64{96, 32}, ek.Float32))
	same(g.k(xg.Matmul(wg)), c.k(xc.Matmul(wc)), 1e-4, "matmul")
	same(g.k(xg.Softmax(-1)), c.k(xc.Softmax(-1)), 1e-5, "softmax")
	same(g.k(xg.LogSoftmax(0)), c.k(xc.LogSoftmax(0)), 1e-5, "log_softmax")
	same(g.k(xg.Cumsum(1)), c.k(xc.Cumsum(1)), 1e-4, "cumsum")
	for _, op := range []ek.UnaryOp{ek.UnaryExp, ek.UnaryTanh, ek.UnaryGelu, ek.UnaryRelu} {
		same(g.k(xg.Unary(op)), c.k(xc.Unary(op)), 1e-5, op.String())
	}
	same(g.k(xg.MulScalar(3)), c.k(xc.MulScalar(3)), 1e-6, "mul scalar")
	same(g.k(xg.Sum([]int{0}, false)), c.k(xc.Sum([]int{0}, false)), 1e-4, "sum")
	same(g.k(xg.Std([]int{1}, 1, false)), c.k(xc.Std([]int{1}, 1, false)), 1e-5, "std")
	mg, mc := g.k(xg.GtScalar(0.5)), c.k(xc.GtScalar(0.5))
	same(g.k(xg.MaskedSelect(mg)), c.k(xc.MaskedSelect(mc)), 0, "masked_select")
	ig := from(g, []int64{4}, int64(5), -1, 0, 7)
	ic := from(c, []int64{4}, int64(5), -1, 0, 7)
	same(g.k(xg.IndexSelect(0, ig)), c.k(xc.IndexSelect(0, ic)), 0, "index_select")
	// CUDA's default index check is deferred: the next synchronization names the bad index.
	if m := must[ek.ContextConfig](t)(gctx.Config()).IndexCheck; m != ek.IndexCheckDeferred {
		t.Fatalf("CUDA's default index check: %v", m)
	}
	g.k(xg.IndexSelect(0, from(g, []int64{1}, int64(64))))
	wantErr(t, gctx.Synchronize(), ek.StatusIndex, "ek_index_select (or indexing by a tensor) met index 64")
	actx := must[*ek.Context](t)(ek.NewContextWithConfig(ek.CUDADevice(0), &ek.ContextConfig{IndexCheck: ek.IndexCheckAtCall}))
	a := &scope{t: t, ctx: actx}
	_, err := a.k(ek.Zeros(actx, []int64{2}, ek.Float32)).IndexSelect(0, from(a, []int64{1}, int64(64)))
	wantErr(t, err, ek.StatusIndex, "ek_index_select: index 64 is out of range for dim 0 of size 2")
	for i := len(a.open) - 1; i >= 0; i-- {
		a.open[i].Close()
	}
	if err := actx.Close(); err != nil {
		t.Errorf("at-call CUDA context close: %v", err)
	}
	out := g.k(ek.Empty(gctx, []int64{64, 96}, ek.Float32))
	g.nok(xg.BinaryInto(ek.BinaryAdd, xg, out))
	same(out, c.k(xc.Add(xc)), 1e-6, "add into")
}
