package ek_test

import (
	"errors"
	"strings"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// TestGraphCPUNotSupported: capture on the CPU backend is refused with a message.
func TestGraphCPUNotSupported(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	s := must[*ek.Stream](t)(ctx.NewStream())
	defer s.Close()
	if c := must[bool](t)(s.IsCapturing()); c {
		t.Fatal("a CPU stream reports capturing")
	}
	err := s.CaptureBegin(nil, ek.CaptureGlobal)
	var e *ek.Error
	if !errors.As(err, &e) || e.Status != ek.StatusNotSupported ||
		!strings.Contains(e.Message, "ek_graph_capture_begin: graph capture needs a CUDA context") {
		t.Fatalf("CaptureBegin on CPU: %v", err)
	}
	if _, err := ctx.NewGraphPool(); !errors.As(err, &e) || e.Status != ek.StatusNotSupported {
		t.Fatalf("NewGraphPool on CPU: %v", err)
	}
	var g *ek.Graph
	if err := g.Launch(nil); err == nil {
		t.Fatal("Launch of a nil graph succeeded")
	}
}

// TestGraphCUDAReplay captures a negation on the default stream and replays it.
func TestGraphCUDAReplay(t *testing.T) {
	ctx := cudaOrSkip(t)
	defer ctx.Close()
	ds := must[*ek.Stream](t)(ctx.DefaultStream())
	x := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{3}, []float32{1, 2, 3}))
	defer x.Close()
	pool := must[*ek.GraphPool](t)(ctx.NewGraphPool())
	defer pool.Close()
	if err := ds.CaptureBegin(pool, ek.CaptureThreadLocal); err != nil {
		t.Fatal(err)
	}
	y, err := x.Neg()
	g, endErr := ds.CaptureEnd()
	if err != nil || endErr != nil {
		t.Fatal(err, endErr)
	}
	defer y.Close()
	defer g.Close()
	if err := g.Launch(nil); err != nil {
		t.Fatal(err)
	}
	got := must[[]float32](t)(ek.ToSlice[float32](y))
	if got[0] != -1 || got[2] != -3 {
		t.Fatalf("replay gave %v", got)
	}
	if st := must[ek.MemoryStats](t)(pool.Stats()); st.ActiveBlocks != 1 {
		t.Fatalf("graph pool stats %+v", st)
	}
	if _, err := ds.CaptureEnd(); err == nil || !strings.Contains(err.Error(), "not capturing") {
		t.Fatalf("CaptureEnd without a capture: %v", err)
	}
}
