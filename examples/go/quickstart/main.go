// Command quickstart is libek's quickstart in Go: the forward pass of a
// two-layer perceptron,
//
//	h = relu(x @ W1 + b1),  y = softmax(h @ W2 + b2, dim -1),
//
// with x [64,128], W1 [128,256], b1 [256], W2 [256,10], b2 [10] drawn from
// N(0, 0.1^2) by the context's generator seeded with 0 (in that order), on
// the GPU when there is one, else on the CPU (EK_DEVICE=cpu or -cpu forces
// the CPU). The same workload as examples/c/quickstart.c.
//
//	cd examples/go/quickstart && PKG_CONFIG_PATH=<build>/meson-uninstalled CGO_LDFLAGS=-Wl,-rpath,<build> \
//	  go run .
//
// (the rpath lets it start without LD_LIBRARY_PATH; for an installed libek it is
// $(pkg-config --variable=libdir ek)).
//
// A module of its own that uses the binding through a replace directive (offline).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	ek "github.com/libek/libek/bindings/go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart failed:", err)
		os.Exit(1)
	}
}

func run() error {
	forceCPU := flag.Bool("cpu", false, "run on the CPU even when a GPU is present")
	flag.Parse()
	gpus, err := ek.DeviceCount(ek.CUDA)
	if err != nil {
		return err
	}
	dev := ek.CPUDevice()
	if gpus > 0 && !*forceCPU && os.Getenv("EK_DEVICE") != "cpu" {
		dev = ek.CUDADevice(0)
	}
	info, err := dev.Info()
	if err != nil {
		return err
	}
	v := ek.Version() // MAJOR*10000 + MINOR*100 + PATCH
	fmt.Printf("libek %d.%d.%d on %s (%v)\n", v/10000, v/100%100, v%100, info.Name, dev)

	ctx, err := ek.NewContext(dev)
	if err != nil {
		return err
	}
	var open []*ek.Tensor // closed before the context, last first
	defer func() {
		for i := len(open) - 1; i >= 0; i-- {
			open[i].Close()
		}
		ctx.Close()
	}()
	keep := func(t *ek.Tensor, err error) (*ek.Tensor, error) {
		if err == nil {
			open = append(open, t)
		}
		return t, err
	}
	if err := ctx.SetRandomSeed(0); err != nil {
		return err
	}
	var params [5]*ek.Tensor // x, W1, b1, W2, b2
	for i, shape := range [][]int64{{64, 128}, {128, 256}, {256}, {256, 10}, {10}} {
		if params[i], err = keep(ek.RandomTensor(ctx, shape, ek.Float32, ek.RandomNormal, 0, 0.1)); err != nil {
			return err
		}
	}
	x, w1, b1, w2, b2 := params[0], params[1], params[2], params[3], params[4]

	// h = relu(x @ W1 + b1): the bias add and the relu write in place.
	h, err := keep(x.Matmul(w1))
	if err != nil {
		return err
	}
	if err := h.BinaryInto(ek.BinaryAdd, b1, h); err != nil {
		return err
	}
	if err := h.UnaryInto(ek.UnaryRelu, h); err != nil {
		return err
	}
	// y = softmax(h @ W2 + b2, dim -1)
	z, err := keep(h.Matmul(w2))
	if err != nil {
		return err
	}
	if err := z.BinaryInto(ek.BinaryAdd, b2, z); err != nil {
		return err
	}
	y, err := keep(z.Softmax(-1))
	if err != nil {
		return err
	}

	// Every row of y sums to 1, so the total is 64.
	total, err := keep(y.Sum(nil, false))
	if err != nil {
		return err
	}
	sum, err := ek.Item[float32](total)
	if err != nil {
		return err
	}
	first, err := keep(y.Select(0, 0))
	if err != nil {
		return err
	}
	row, err := ek.ToSlice[float32](first)
	if err != nil {
		return err
	}
	shape := y.Shape()
	fmt.Printf("y = softmax(relu(x @ W1 + b1) @ W2 + b2): shape [%d, %d]\n", shape[0], shape[1])
	fmt.Printf("sum(y) = %.6f\n", sum)
	fmt.Printf("y[0][0:3] = %.6f %.6f %.6f\n", row[0], row[1], row[2])
	if len(shape) != 2 || shape[0] != 64 || shape[1] != 10 || math.Abs(float64(sum)-64) > 1e-3 {
		return fmt.Errorf("unexpected result: shape %v, sum %v", shape, sum)
	}
	return nil
}
