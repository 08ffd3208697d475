package ek_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

const saxpySource = `
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`

// y = a * x: the same result however often it runs, as LaunchAuto needs.
const scaleSource = `
extern "C" __global__ void scale(unsigned long long n, float a, const float *x, float *y) {
  unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
`

// asError checks that err is an *ek.Error of status st whose message holds each of want.
func asError(t *testing.T, err error, st ek.Status, want ...string) {
	t.Helper()
	var e *ek.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *ek.Error %v, got %v", st, err)
	}
	if e.Status != st || !errors.Is(err, st) || e.Message == "" {
		t.Fatalf("want %v with a message, got %v (%q)", st, e.Status, e.Message)
	}
	for _, w := range want {
		if !strings.Contains(e.Message, w) {
			t.Fatalf("message %q does not hold %q", e.Message, w)
		}
	}
}

func TestKernelsOnCPU(t *testing.T) {
	s := newScope(t) // its cleanup fails if a module or kernel leaked
	_, err := ek.ModuleFromSource(s.ctx, saxpySource, "saxpy.cu")
	asError(t, err, ek.StatusNotSupported, "ek_module_from_source", "CUDA")
	_, err = ek.ModuleFromSource(s.ctx, saxpySource, "", "-DN=4", "--use_fast_math")
	asError(t, err, ek.StatusNotSupported, "ek_module_from_source")
	_, err = ek.ModuleFromImage(s.ctx, []byte("not an image"))
	asError(t, err, ek.StatusNotSupported, "ek_module_from_image")
	_, err = ek.ModuleFromImage(s.ctx, nil)
	asError(t, err, ek.StatusInvalidArgument, "empty")
	asError(t, ek.KernelCacheClear(s.ctx), ek.StatusNotSupported, "ek_kernel_cache_clear")
	_, err = ek.NewElementwiseKernel(s.ctx, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)", "f")
	asError(t, err, ek.StatusNotSupported, "ek_elementwise_create")

	// the lists are checked before the device
	for _, c := range []struct{ in, out, token string }{
		{"float33 x", "float32 z", "float33"},
		{"float32 x, float32 x", "float32 z", "x"},
		{"float32 i", "float32 z", "i"},
		{"float32 x", "float32 2z", "2z"},
	} {
		_, err := ek.NewElementwiseKernel(s.ctx, c.in, c.out, "z = x", "")
		asError(t, err, ek.StatusInvalidArgument, "ek_elementwise_create", c.token)
	}
	_, err = ek.NewElementwiseKernel(s.ctx, "float32 x", "", "x", "")
	asError(t, err, ek.StatusInvalidArgument, "ek_elementwise_create")

	// nil and closed handles are errors, not crashes
	var m *ek.Module
	var k *ek.Kernel
	var ew *ek.ElementwiseKernel
	if m.Close() != nil || k.Close() != nil || ew.Close() != nil {
		t.Error("Close of nil handles")
	}
	if !errors.Is(m.Compile(), ek.StatusNullPointer) || m.Origin() != ek.ModuleNotLoaded {
		t.Error("nil module")
	}
	if _, err := m.Kernel("saxpy"); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if _, err := m.Clone(); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if _, err := k.Clone(); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if _, err := k.Attributes(); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if err := k.Launch(nil, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if _, err := k.LaunchAuto(nil, 10, 0); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if _, err := ew.Launch(nil, nil, nil); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
	if ek.ModuleDiskCache.String() != "ModuleDiskCache" || ek.ModuleOrigin(9).String() != "ModuleOrigin(9)" {
		t.Error(ek.ModuleDiskCache, ek.ModuleOrigin(9))
	}
}

// cudaKernels returns a CUDA scope, skipping visibly without a device.
func cudaKernels(t *testing.T) *scope {
	gctx := cudaOrSkip(t)
	g := &scope{t: t, ctx: gctx}
	t.Cleanup(func() {
		for i := len(g.open) - 1; i >= 0; i-- {
			g.open[i].Close()
		}
		if err := gctx.Close(); err != nil {
			t.Errorf("CUDA context close (a handle leaked?): %v", err)
		}
	})
	return g
}

func TestKernelsCUDA(t *testing.T) {
	g := cudaKernels(t)
	t.Run("saxpy", func(t *testing.T) {
		m := must[*ek.Module](t)(ek.ModuleFromSource(g.ctx, saxpySource, "saxpy.cu"))
		defer m.Close()
		k := must[*ek.Kernel](t)(m.Kernel("saxpy"))
		defer k.Close()
		if o := m.Origin(); o == ek.ModuleNotLoaded || o == ek.ModuleImage {
			t.Errorf("origin after Kernel: %v", o)
		}
		attr := must[ek.KernelAttributes](t)(k.Attributes())
		if attr.NumParams != 4 || attr.MaxThreadsPerBlock < 256 {
			t.Errorf("attributes %+v", attr)
		}
		const n = 1003 // not a multiple of the block
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i] = 0.5 * float32(i%100)
			ys[i] = float32(i%7) - 3
		}
		x := from(g, []int64{n}, xs...)
		y := from(g, []int64{n}, ys...)
		a := float32(3)
		g.nok(k.Launch(nil, [3]uint32{(n + 255) / 256, 1, 1}, [3]uint32{256, 1, 1}, 0,
			ek.Int32Arg(n), ek.Float32Arg(a), ek.TensorArg(x), ek.TensorArg(y)))
		want := make([]float32, n)
		for i := range want {
			want[i] = a*xs[i] + ys[i]
		}
		near(t, f64s(vals[float32](g, y)), f64s(want), 1e-5, "saxpy")

		// wrong argument count, bad block, closed tensor, unknown kernel
		err := k.Launch(nil, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, ek.Int32Arg(n), ek.TensorArg(x), ek.TensorArg(y))
		asError(t, err, ek.StatusInvalidArgument, "ek_kernel_launch")
		err = k.Launch(nil, [3]uint32{1, 1, 1}, [3]uint32{0, 1, 1}, 0, ek.Int32Arg(n), ek.Float32Arg(a), ek.TensorArg(x), ek.TensorArg(y))
		asError(t, err, ek.StatusInvalidArgument, "ek_kernel_launch")
		err = k.Launch(nil, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, ek.Int64Arg(n), ek.Float32Arg(a), ek.TensorArg(x), ek.TensorArg(y))
		asError(t, err, ek.StatusInvalidArgument, "ek_kernel_launch")
		_, err = m.Kernel("saxpy_typo")
		asError(t, err, ek.StatusInvalidArgument, "saxpy_typo")

		// on a stream of its own
		st := must[*ek.Stream](t)(g.ctx.NewStream())
		defer st.Close()
		g.nok(k.Launch(st, [3]uint32{(n + 127) / 128, 1, 1}, [3]uint32{128, 1, 1}, 0,
			ek.Int32Arg(n), ek.Float32Arg(-a), ek.TensorArg(x), ek.TensorArg(y)))
		g.nok(st.Synchronize())
		near(t, f64s(vals[float32](g, y)), f64s(ys), 1e-5, "saxpy back")
	})
	t.Run("clone", func(t *testing.T) {
		// Each handle of a cloned module or kernel (ek_module_retain,
		// ek_kernel_retain) is closed on its own; the last keeps it usable.
		base, err := ek.LiveHandles()
		g.nok(err)
		m := must[*ek.Module](t)(ek.ModuleFromSource(g.ctx, saxpySource, "saxpy.cu"))
		m2 := must[*ek.Module](t)(m.Clone())
		g.nok(m.Close())
		k := must[*ek.Kernel](t)(m2.Kernel("saxpy"))
		g.nok(m2.Close())
		k2 := must[*ek.Kernel](t)(k.Clone())
		g.nok(k.Close())
		if _, err := k.Clone(); !errors.Is(err, ek.StatusNullPointer) {
			t.Errorf("clone of a closed kernel: %v", err)
		}
		x := from(g, []int64{4}, float32(1), 2, 3, 4)
		y := from(g, []int64{4}, float32(0), 0, 0, 0)
		g.nok(k2.Launch(nil, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0,
			ek.Int32Arg(4), ek.Float32Arg(2), ek.TensorArg(x), ek.TensorArg(y)))
		eq(t, vals[float32](g, y), []float32{2, 4, 6, 8}, "launch through a cloned kernel")
		g.nok(k2.Close())
		if n, _ := ek.LiveHandles(); n != base+2 { // x and y
			t.Errorf("live handles: %d, want %d", n, base+2)
		}
	})
	t.Run("compile error", func(t *testing.T) {
		m := must[*ek.Module](t)(ek.ModuleFromSource(g.ctx, "extern \"C\" __global__ void f() { nope; }", "bad.cu"))
		defer m.Close()
		asError(t, m.Compile(), ek.StatusCompile, "bad.cu")
		_, err := m.Kernel("f")
		asError(t, err, ek.StatusCompile)
	})
	t.Run("launch auto", func(t *testing.T) {
		m := must[*ek.Module](t)(ek.ModuleFromSource(g.ctx, scaleSource, "scale.cu", "--use_fast_math"))
		defer m.Close()
		g.nok(m.Compile())
		k := must[*ek.Kernel](t)(m.Kernel("scale"))
		defer k.Close()
		const n = 1 << 16
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(i%251) - 125
		}
		x := from(g, []int64{n}, xs...)
		y := empty(g, ek.Float32, n)
		block := must[uint32](t)(k.LaunchAuto(nil, n, 0, ek.Uint64Arg(n), ek.Float32Arg(2), ek.TensorArg(x), ek.TensorArg(y)))
		if block < 32 || block > 1024 || block&(block-1) != 0 {
			t.Fatalf("block %d is not a power of two in 32..1024", block)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = 2 * xs[i]
		}
		near(t, f64s(vals[float32](g, y)), f64s(want), 1e-5, "scale")
		// n == 0 launches nothing
		if b := must[uint32](t)(k.LaunchAuto(nil, 0, 0, ek.Uint64Arg(0), ek.Float32Arg(2), ek.TensorArg(x), ek.TensorArg(y))); b != 0 {
			t.Errorf("n = 0 launched a block of %d", b)
		}
		_, err := k.LaunchAuto(nil, n, 0, ek.Uint64Arg(n), ek.TensorArg(x))
		asError(t, err, ek.StatusInvalidArgument, "ek_kernel_launch_auto")
	})
	t.Run("image", func(t *testing.T) {
		path := os.Getenv("EK_TEST_FATBIN")
		if path == "" {
			t.Skip("SKIPPED: set EK_TEST_FATBIN to a fatbin of tests/module_kernel.cu (meson builds build/tests/module_kernel.fatbin)")
		}
		img := must[[]byte](t)(os.ReadFile(path))
		m := must[*ek.Module](t)(ek.ModuleFromImage(g.ctx, img))
		defer m.Close()
		if o := m.Origin(); o != ek.ModuleImage {
			t.Errorf("origin %v", o)
		}
		k := must[*ek.Kernel](t)(m.Kernel("scale"))
		defer k.Close()
		x := from(g, []int64{3}, float32(1), 2, 3)
		y := empty(g, ek.Float32, 3)
		g.nok(k.Launch(nil, [3]uint32{1, 1, 1}, [3]uint32{32, 1, 1}, 0, ek.Uint64Arg(3), ek.Float32Arg(-3), ek.TensorArg(x), ek.TensorArg(y)))
		near(t, f64s(vals[float32](g, y)), []float64{-3, -6, -9}, 0, "scale")
		_, err := ek.ModuleFromImage(g.ctx, []byte("not an image at all"))
		var e *ek.Error
		if !errors.As(err, &e) {
			t.Fatalf("a bad image: %v", err)
		}
	})
	t.Run("cache clear", func(t *testing.T) {
		// a context of its own, so that the user's disk cache is left alone
		ctx := must[*ek.Context](t)(ek.NewContextWithConfig(ek.CUDADevice(0),
			&ek.ContextConfig{KernelCacheDir: t.TempDir(), LogLevel: ek.LogWarn}))
		defer func() {
			if err := ctx.Close(); err != nil {
				t.Errorf("context close (a handle leaked?): %v", err)
			}
		}()
		m := must[*ek.Module](t)(ek.ModuleFromSource(ctx, saxpySource, "saxpy.cu", "-DCACHE_CLEAR_TEST"))
		defer m.Close()
		g.nok(m.Compile())
		g.nok(ek.KernelCacheClear(ctx))
		// loaded modules stay usable; a new one compiles again
		k := must[*ek.Kernel](t)(m.Kernel("saxpy"))
		defer k.Close()
		m2 := must[*ek.Module](t)(ek.ModuleFromSource(ctx, saxpySource, "saxpy.cu", "-DCACHE_CLEAR_TEST"))
		defer m2.Close()
		g.nok(m2.Compile())
		if o := m2.Origin(); o != ek.ModuleCompiled {
			t.Errorf("origin after clearing the caches: %v", o)
		}
	})
	t.Run("elementwise", func(t *testing.T) {
		ew := must[*ek.ElementwiseKernel](t)(ek.NewElementwiseKernel(g.ctx,
			"float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)", "fma_relu"))
		defer ew.Close()
		xs := []float32{-2, -1, 0, 1, 2, 3, -0.5, 0.5, 4, -4, 1.5, -1.5}
		ys := []float32{0.5, -1, 2, 3}
		x := from(g, []int64{3, 4}, xs...)
		y := from(g, []int64{4}, ys...) // broadcast over the rows
		want := make([]float32, len(xs))
		for i, v := range xs {
			want[i] = v*ys[i%4] + float32(math.Max(float64(v), 0))
		}
		outs := must[[]*ek.Tensor](t)(ew.Launch(nil, []*ek.Tensor{x, y}, nil))
		if len(outs) != 1 {
			t.Fatalf("%d outputs", len(outs))
		}
		z := g.k(outs[0], nil)
		eq(t, z.Shape(), []int64{3, 4}, "shape")
		near(t, f64s(vals[float32](g, z)), f64s(want), 1e-5, "z")
		// into a given output, on a stream
		st := must[*ek.Stream](t)(g.ctx.NewStream())
		defer st.Close()
		z2 := g.k(ek.Zeros(g.ctx, []int64{3, 4}, ek.Float32))
		outs = must[[]*ek.Tensor](t)(ew.Launch(st, []*ek.Tensor{x, y}, []*ek.Tensor{z2}))
		if outs[0] != z2 {
			t.Fatal("the given output was not returned")
		}
		g.nok(st.Synchronize())
		near(t, f64s(vals[float32](g, z2)), f64s(want), 1e-5, "z2")
		// a wrong dtype and a wrong count leave nothing behind
		xd := g.k(xs64(g, xs))
		_, err := ew.Launch(nil, []*ek.Tensor{xd, y}, nil)
		asError(t, err, ek.StatusDType, "ek_elementwise_launch")
		_, err = ew.Launch(nil, []*ek.Tensor{x}, nil)
		asError(t, err, ek.StatusInvalidArgument, "ek_elementwise_launch")
	})
}

func xs64(g *scope, xs []float32) (*ek.Tensor, error) {
	d := make([]float64, len(xs))
	for i, v := range xs {
		d[i] = float64(v)
	}
	return ek.FromSlice(g.ctx, []int64{3, 4}, d)
}

// ExampleModuleFromSource compiles a kernel at run time and launches it
// (CUDA only: without a device it prints nothing).
func ExampleModuleFromSource() {
	if n, err := ek.DeviceCount(ek.CUDA); err != nil || n == 0 {
		return
	}
	ctx, err := ek.NewContext(ek.CUDADevice(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	m, err := ek.ModuleFromSource(ctx, `
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}`, "saxpy.cu")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	k, err := m.Kernel("saxpy")
	if err != nil {
		fmt.Println(err) // a compile error carries NVRTC's log
		return
	}
	defer k.Close()
	x, _ := ek.FromSlice(ctx, []int64{4}, []float32{1, 2, 3, 4})
	defer x.Close()
	y, _ := ek.FromSlice(ctx, []int64{4}, []float32{10, 20, 30, 40})
	defer y.Close()
	block, err := k.LaunchAuto(nil, 4, 0, ek.Int32Arg(4), ek.Float32Arg(2), ek.TensorArg(x), ek.TensorArg(y))
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := ek.ToSlice[float32](y) // ordered after the launch on the default stream
	fmt.Println(v, "block", block)
}

// ExampleNewElementwiseKernel builds a kernel from an expression (CUDA only).
func ExampleNewElementwiseKernel() {
	if n, err := ek.DeviceCount(ek.CUDA); err != nil || n == 0 {
		return
	}
	ctx, err := ek.NewContext(ek.CUDADevice(0))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ctx.Close()
	k, err := ek.NewElementwiseKernel(ctx, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)", "fma_relu")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Close()
	x, _ := ek.FromSlice(ctx, []int64{3}, []float32{-1, 0, 2})
	defer x.Close()
	y, _ := ek.FromSlice(ctx, []int64{3}, []float32{4, 5, 6})
	defer y.Close()
	out, err := k.Launch(nil, []*ek.Tensor{x, y}, nil) // nil outputs: allocated
	if err != nil {
		fmt.Println(err)
		return
	}
	defer out[0].Close()
	v, _ := ek.ToSlice[float32](out[0])
	fmt.Println(v)
}
