// Command overhead measures the host overhead of the Go binding per op over
// the raw C call made through cgo.
//
// It times N back-to-back out = a + b calls into an existing out, through the
// binding (a.BinaryInto(ek.BinaryAdd, b, out)), through a direct cgo call of
// ek_binary per op, and through a loop in C (one cgo call for all N: the C
// baseline), alternating in rounds, and prints the per-op host time of each
// (the best round, and the median) and the differences. Tensors have 1M
// float32 elements on CUDA and 1 element on the CPU (or -numel K); the device
// is CUDA when present (-cpu or EK_DEVICE=cpu forces the CPU).
//
//	cd examples/go/overhead && CGO_LDFLAGS=-Wl,-rpath,<build> go build -o <dir>/overhead-go .
//	<dir>/overhead-go [-cpu] [-numel K] [-iters N] [-rounds R]
//
// With 1M elements on a GPU the loop can be paced by the GPU once its launch
// queue is full; -numel 1 shows the host cost alone.
package main

/*
#cgo pkg-config: ek
#include <ek.h>
#include <stdint.h>

// The raw call, as a C program would make it (handles as integers so that cgo
// adds no pointer checks to the Go side of the call).
static inline ek_status raw_add(uintptr_t a, uintptr_t b, uintptr_t out) {
  ek_tensor o = (ek_tensor)out;
  return ek_binary(NULL, EK_BINARY_ADD, (ek_tensor)a, (ek_tensor)b, &o);
}

// The same loop entirely in C: one cgo transition for n calls (the C baseline).
static inline ek_status c_loop(uintptr_t a, uintptr_t b, uintptr_t out, int n) {
  for (int i = 0; i < n; ++i) {
    ek_status s = raw_add(a, b, out);
    if (s != EK_SUCCESS) return s;
  }
  return EK_SUCCESS;
}
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"time"

	ek "github.com/libek/libek/bindings/go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "overhead failed:", err)
		os.Exit(1)
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		if x < m {
			m = x
		}
	}
	return m
}

func run() error {
	forceCPU := flag.Bool("cpu", false, "run on the CPU even when a GPU is present")
	numel := flag.Int64("numel", 0, "elements per tensor (default: 1M on CUDA, 1 on the CPU)")
	iters := flag.Int("iters", 20000, "back-to-back calls per round")
	rounds := flag.Int("rounds", 5, "rounds (alternating binding and raw)")
	flag.Parse()
	if *rounds < 1 {
		*rounds = 1
	}
	dev := ek.CPUDevice()
	if n, err := ek.DeviceCount(ek.CUDA); err != nil {
		return err
	} else if n > 0 && !*forceCPU && os.Getenv("EK_DEVICE") != "cpu" {
		dev = ek.CUDADevice(0)
	}
	if *numel == 0 {
		*numel = 1
		if dev.Type == ek.CUDA {
			*numel = 1 << 20
		}
	}
	ctx, err := ek.NewContext(dev)
	if err != nil {
		return err
	}
	defer ctx.Close()
	a, err := ek.Full(ctx, []int64{*numel}, 1, ek.Float32)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := ek.Full(ctx, []int64{*numel}, 2, ek.Float32)
	if err != nil {
		return err
	}
	defer b.Close()
	out, err := ek.Empty(ctx, []int64{*numel}, ek.Float32)
	if err != nil {
		return err
	}
	defer out.Close()

	binding := func(n int) error {
		for i := 0; i < n; i++ {
			if err := a.BinaryInto(ek.BinaryAdd, b, out); err != nil {
				return err
			}
		}
		return nil
	}
	ra := C.uintptr_t(uintptr(a.Handle()))
	rb := C.uintptr_t(uintptr(b.Handle()))
	ro := C.uintptr_t(uintptr(out.Handle()))
	raw := func(n int) error {
		for i := 0; i < n; i++ {
			if st := C.raw_add(ra, rb, ro); st != C.EK_SUCCESS {
				return fmt.Errorf("ek_binary failed: status %d", int(st))
			}
		}
		return nil
	}
	cLoop := func(n int) error {
		if st := C.c_loop(ra, rb, ro, C.int(n)); st != C.EK_SUCCESS {
			return fmt.Errorf("ek_binary failed: status %d", int(st))
		}
		return nil
	}
	time1 := func(f func(int) error) (host, total float64, err error) {
		if err := ctx.Synchronize(); err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		if err := f(*iters); err != nil {
			return 0, 0, err
		}
		h := time.Since(t0)
		if err := ctx.Synchronize(); err != nil {
			return 0, 0, err
		}
		tt := time.Since(t0)
		per := float64(*iters) / 1e6
		return h.Seconds() / per, tt.Seconds() / per, nil
	}

	if err := binding(*iters/10 + 1); err != nil { // warm-up: pool, kernels, caches
		return err
	}
	if err := raw(*iters/10 + 1); err != nil {
		return err
	}
	if err := cLoop(*iters/10 + 1); err != nil {
		return err
	}
	var bh, bt, rh, rt, ch, ct []float64
	for r := 0; r < *rounds; r++ {
		runtime.GC() // no collection inside a timed loop
		h, tt, err := time1(binding)
		if err != nil {
			return err
		}
		bh, bt = append(bh, h), append(bt, tt)
		runtime.GC()
		h, tt, err = time1(raw)
		if err != nil {
			return err
		}
		rh, rt = append(rh, h), append(rt, tt)
		runtime.GC()
		h, tt, err = time1(cLoop)
		if err != nil {
			return err
		}
		ch, ct = append(ch, h), append(ct, tt)
	}
	first, err := out.Slice(0, ek.Idx(0), ek.Idx(1), 1)
	if err != nil {
		return err
	}
	v, err := ek.ToSlice[float32](first)
	first.Close()
	if err != nil {
		return err
	}
	if v[0] != 3 {
		return fmt.Errorf("wrong result %v", v[0])
	}
	runtime.KeepAlive(a)
	runtime.KeepAlive(b)
	runtime.KeepAlive(out)

	fmt.Printf("overhead (Go): add of two [%d] float32 tensors into an existing out on %v, "+
		"%d back-to-back calls, %d rounds; us/op host (median host, median incl. sync)\n", *numel, dev, *iters, *rounds)
	fmt.Printf("  ek binding   BinaryInto : %8.3f (%.3f, %.3f)\n", minOf(bh), median(bh), median(bt))
	fmt.Printf("  raw cgo call ek_binary  : %8.3f (%.3f, %.3f)\n", minOf(rh), median(rh), median(rt))
	fmt.Printf("  C loop (no cgo per call): %8.3f (%.3f, %.3f)\n", minOf(ch), median(ch), median(ct))
	fmt.Printf("  binding over raw cgo    : %8.3f (median %.3f)\n", minOf(bh)-minOf(rh), median(bh)-median(rh))
	fmt.Printf("  Go overhead over C call : %8.3f (median %.3f)  (binding + cgo transition)\n", minOf(bh)-minOf(ch), median(bh)-median(ch))
	return nil
}
