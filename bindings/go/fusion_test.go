package ek_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

func fusionChain(t *testing.T, x *ek.Tensor) *ek.Tensor {
	a := must[*ek.Tensor](t)(x.MulScalar(2.0))
	b := must[*ek.Tensor](t)(a.Relu())
	c := must[*ek.Tensor](t)(b.Add(x))
	a.Close()
	b.Close()
	return c
}

func TestFusionSwitchEvalAndStats(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	s := must[*ek.Stream](t)(ctx.DefaultStream())
	x := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{4}, []float32{-1, 0.5, 2, 3}))
	defer x.Close()
	e := fusionChain(t, x)
	eager := must[[]float32](t)(ek.ToSlice[float32](e))
	e.Close()
	if err := s.SetFusion(ek.FusionOn); err != nil {
		t.Fatal(err)
	}
	if f := must[ek.Fusion](t)(s.Fusion()); f != ek.FusionOn {
		t.Fatalf("Fusion() = %v", f)
	}
	before := must[ek.FusionStats](t)(ctx.FusionStats()).OpsDeferred
	y := fusionChain(t, x)
	defer y.Close()
	if got := must[ek.FusionStats](t)(ctx.FusionStats()).OpsDeferred; got != before+3 {
		t.Fatalf("ops deferred %d, want %d", got, before+3)
	}
	if err := y.Eval(); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := must[[]float32](t)(ek.ToSlice[float32](y)); !reflect.DeepEqual(got, eager) {
		t.Fatalf("fused %v, eager %v", got, eager)
	}
	if err := s.SetFusion(0); err != nil {
		t.Fatal(err)
	}
}

func TestFusionConfigAndBadValue(t *testing.T) {
	ctx, err := ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{Fusion: ek.FusionRounded, FusionMaxKernels: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	cfg := must[ek.ContextConfig](t)(ctx.Config())
	if cfg.Fusion != ek.FusionRounded || cfg.FusionMaxKernels != 8 {
		t.Fatalf("config %+v", cfg)
	}
	s := must[*ek.Stream](t)(ctx.DefaultStream())
	err = s.SetFusion(ek.Fusion(7))
	var e *ek.Error
	if !errors.As(err, &e) || e.Status != ek.StatusInvalidArgument || !strings.Contains(e.Message, "fusion 7 is not an ek_fusion") {
		t.Fatalf("SetFusion(7): %v", err)
	}
}

// A sum of a pending chain joins the chain's group: nothing runs until it is read.
func TestFusionSumOfPendingChain(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	s := must[*ek.Stream](t)(ctx.DefaultStream())
	x := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{2, 2}, []float32{-1, 0.5, 2, 3}))
	defer x.Close()
	if err := s.SetFusion(ek.FusionOn); err != nil {
		t.Fatal(err)
	}
	y := fusionChain(t, x)
	before := must[ek.FusionStats](t)(ctx.FusionStats())
	sum := must[*ek.Tensor](t)(y.Sum([]int{-1}, false))
	defer sum.Close()
	y.Close()
	after := must[ek.FusionStats](t)(ctx.FusionStats())
	if after.OpsDeferred != before.OpsDeferred+1 || after.GroupsEvaluated != before.GroupsEvaluated {
		t.Fatalf("stats before %+v after %+v", before, after)
	}
	if got := must[[]float32](t)(ek.ToSlice[float32](sum)); !reflect.DeepEqual(got, []float32{0.5, 15}) {
		t.Fatalf("sum %v", got)
	}
	if after.PrologueFusions != 0 {
		t.Fatalf("the CPU fuses no reduction: %d", after.PrologueFusions)
	}
}
