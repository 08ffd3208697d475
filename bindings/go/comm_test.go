package ek_test

import (
	"os"
	"os/exec"
	"testing"
	"time"

	ek "github.com/libek/libek/bindings/go"
)

func TestCommOnCPUIsNotSupported(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	_, err := ek.InitRank(ctx, 1, ek.UniqueID{}, 0, 0)
	asError(t, err, ek.StatusNotSupported, "ek_comm_init_rank", "CPU context")
	_, err = ek.InitAll(nil, 0)
	asError(t, err, ek.StatusInvalidArgument, "no context")
	var c *ek.Comm
	_, err = c.AllReduce(nil, ek.ReduceSum, nil, nil)
	if err == nil {
		t.Fatal("a nil Comm was accepted")
	}
}

// TestNcclMissing re-runs itself with EK_NCCL_LIBRARY pointing nowhere (NCCL
// is opened once a process).
func TestNcclMissing(t *testing.T) {
	if os.Getenv("EK_TEST_NCCL_CHILD") == "1" {
		_, err := ek.NewUniqueID()
		asError(t, err, ek.StatusLibrary, "NCCL not found (", "/nonexistent/libnccl.so.2")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNcclMissing$", "-test.count=1")
	cmd.Env = append(os.Environ(), "EK_TEST_NCCL_CHILD=1", "EK_NCCL_LIBRARY=/nonexistent/libnccl.so.2")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
}

func TestAllReduceOverEveryGPU(t *testing.T) {
	first := cudaOrSkip(t)
	n := must[int](t)(ek.DeviceCount(ek.CUDA))
	if n < 2 {
		first.Close()
		t.Skip("SKIPPED: needs 2 CUDA devices")
	}
	ctxs := []*ek.Context{first}
	for i := 1; i < n; i++ {
		ctxs = append(ctxs, must[*ek.Context](t)(ek.NewContext(ek.CUDADevice(i))))
	}
	comms := must[[]*ek.Comm](t)(ek.InitAll(ctxs, 2*time.Minute))
	xs := make([]*ek.Tensor, n)
	outs := make([]*ek.Tensor, n)
	for i := range ctxs {
		xs[i] = must[*ek.Tensor](t)(ek.FromSlice(ctxs[i], []int64{3}, []float32{float32(i), float32(i), float32(i)}))
	}
	err := ek.Group(func() error {
		for i, c := range comms {
			var err error
			if outs[i], err = c.AllReduce(nil, ek.ReduceSum, xs[i], nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := float32(n * (n - 1) / 2)
	for i, c := range comms {
		if err := c.Synchronize(nil); err != nil {
			t.Fatal(err)
		}
		got := must[[]float32](t)(ek.ToSlice[float32](outs[i]))
		if got[0] != want || got[2] != want {
			t.Fatalf("rank %d: %v, want %v", i, got, want)
		}
		if r := must[int](t)(c.Rank()); r != i {
			t.Fatalf("rank %d reports %d", i, r)
		}
	}
	for i := range comms {
		outs[i].Close()
		xs[i].Close()
		if err := comms[i].Close(); err != nil {
			t.Fatal(err)
		}
		if err := ctxs[i].Close(); err != nil {
			t.Fatal(err)
		}
	}
}
