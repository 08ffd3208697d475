package ek_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

func TestProfilerRecordsSummaryAndTrace(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	a := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	defer a.Close()
	if err := ctx.ProfilerStart(); err != nil {
		t.Fatal(err)
	}
	e := must[*ek.Tensor](t)(a.Exp())
	defer e.Close()
	at := must[*ek.Tensor](t)(a.Transpose(0, 1))
	defer at.Close()
	p := must[*ek.Tensor](t)(a.Matmul(at))
	defer p.Close()
	if err := ctx.ProfilerStop(); err != nil {
		t.Fatal(err)
	}
	recs := must[[]ek.ProfileRecord](t)(ctx.ProfilerRecords())
	if len(recs) != 2 || recs[0].Name != "unary.exp" || recs[1].Name != "matmul" {
		t.Fatalf("records %+v", recs)
	}
	if want := "float32[2,3] float32[3,2]{1,3} -> float32[2,2]"; recs[1].Args != want {
		t.Fatalf("args %q, want %q", recs[1].Args, want)
	}
	if recs[0].Device != ek.CPUDevice() || recs[0].HostUS < 0 || recs[0].DeviceUS < 0 {
		t.Fatalf("record %+v", recs[0])
	}
	table := must[string](t)(ctx.ProfilerSummary())
	if !strings.HasSuffix(table, "2 calls recorded\n") || !strings.Contains(table, "unary.exp ") {
		t.Fatalf("summary:\n%s", table)
	}
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := ctx.WriteChromeTrace(path); err != nil {
		t.Fatal(err)
	}
	json := string(must[[]byte](t)(os.ReadFile(path)))
	if strings.Count(json, `"cat":"call"`) != 2 {
		t.Fatalf("trace:\n%s", json)
	}
}

func TestProfilerSessionErrors(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	if _, err := ctx.ProfilerRecords(); !errors.Is(err, ek.StatusNotReady) {
		t.Fatalf("records before any session: %v", err)
	}
	if err := ctx.ProfilerStop(); !errors.Is(err, ek.StatusInvalidArgument) {
		t.Fatalf("stop while stopped: %v", err)
	}
	if err := ctx.ProfilerStart(); err != nil {
		t.Fatal(err)
	}
	if _, err := ctx.ProfilerSummary(); !errors.Is(err, ek.StatusNotReady) {
		t.Fatalf("summary while running: %v", err)
	}
	if err := ctx.ProfilerStop(); err != nil {
		t.Fatal(err)
	}
	err := ctx.WriteChromeTrace("/nonexistent-dir/t.json")
	if !errors.Is(err, ek.StatusIO) || !strings.Contains(err.Error(), "/nonexistent-dir/t.json") {
		t.Fatalf("bad path: %v", err)
	}
}
