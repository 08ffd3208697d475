package ek_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	ek "github.com/libek/libek/bindings/go"
)

func cpu(t *testing.T) *ek.Context {
	t.Helper()
	ctx, err := ek.NewContext(ek.CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func roundTrip[T ek.Element](t *testing.T, ctx *ek.Context, vals []T) {
	t.Helper()
	x := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{2, int64(len(vals) / 2)}, vals))
	defer x.Close()
	if x.DType() != ek.DTypeOf[T]() || x.Numel() != int64(len(vals)) || !x.IsContiguous() {
		t.Fatalf("bad tensor %v", x)
	}
	got := must[[]T](t)(ek.ToSlice[T](x))
	if !reflect.DeepEqual(got, vals) {
		t.Fatalf("%v: got %v want %v", x.DType(), got, vals)
	}
}

func TestRoundTrips(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	roundTrip(t, ctx, []bool{true, false, false, true})
	roundTrip(t, ctx, []uint8{0, 1, 200, 255})
	roundTrip(t, ctx, []int8{-128, -1, 0, 127})
	roundTrip(t, ctx, []int16{-32768, -2, 3, 32767})
	roundTrip(t, ctx, []int32{-1 << 31, -2, 3, 1<<31 - 1})
	roundTrip(t, ctx, []int64{-1 << 63, -2, 3, 1<<63 - 1})
	roundTrip(t, ctx, []float32{1e-30, -0.5, 1e30, 3})
	roundTrip(t, ctx, []float64{1e-300, -0.5, 1e300, 3})
	roundTrip(t, ctx, []ek.Float16Bits{0x3c00, 0xc000, 0, 0x7bff})
	roundTrip(t, ctx, []ek.BFloat16Bits{0x3f80, 0xc000, 0, 0x7f7f})
	for dt, want := range map[ek.DType]int{ek.Bool: 1, ek.Int16: 2, ek.BFloat16: 2, ek.Float32: 4, ek.Int64: 8} {
		if dt.Size() != want {
			t.Errorf("%v size %d", dt, dt.Size())
		}
	}
	if ek.Float32.String() != "float32" || ek.DType(99).String() != "unknown" {
		t.Error("dtype names")
	}
}

func TestConstructorsCopyCast(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	z := must[*ek.Tensor](t)(ek.Zeros(ctx, []int64{2, 2}, ek.Int32))
	defer z.Close()
	if v := must[[]int32](t)(ek.ToSlice[int32](z)); !reflect.DeepEqual(v, []int32{0, 0, 0, 0}) {
		t.Fatal(v)
	}
	a := must[*ek.Tensor](t)(ek.Arange(ctx, 5, 0, -2, ek.Int64))
	defer a.Close()
	if v := must[[]int64](t)(ek.ToSlice[int64](a)); !reflect.DeepEqual(v, []int64{5, 3, 1}) {
		t.Fatal(v)
	}
	f := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{3}, []float32{-1.5, 0, 2.7}))
	defer f.Close()
	c := must[*ek.Tensor](t)(f.Cast(ek.Int32))
	defer c.Close()
	if v := must[[]int32](t)(ek.ToSlice[int32](c)); !reflect.DeepEqual(v, []int32{-1, 0, 2}) {
		t.Fatal(v)
	}
	b := must[*ek.Tensor](t)(f.Cast(ek.Bool))
	defer b.Close()
	if v := must[[]bool](t)(ek.ToSlice[bool](b)); !reflect.DeepEqual(v, []bool{true, false, true}) {
		t.Fatal(v)
	}
	dst := must[*ek.Tensor](t)(ek.Full(ctx, []int64{2, 3}, 9, ek.Float64))
	defer dst.Close()
	if err := dst.CopyFrom(f); err != nil {
		t.Fatal(err)
	}
	if v := must[[]float64](t)(ek.ToSlice[float64](dst)); v[3] != -1.5 || v[5] != float64(float32(2.7)) {
		t.Fatal(v)
	}
	if err := z.Fill(int64(1<<62 + 1)); !errors.Is(err, ek.StatusInvalidArgument) {
		t.Fatalf("filling int32 with 2^62+1: %v", err) // does not fit: refused, not wrapped
	}
	if err := z.Fill(int64(math.MaxInt32)); err != nil {
		t.Fatal(err)
	}
	other := cpu(t)
	moved := must[*ek.Tensor](t)(a.ToContext(other))
	if v := must[[]int64](t)(ek.ToSlice[int64](moved)); !reflect.DeepEqual(v, []int64{5, 3, 1}) {
		t.Fatal(v)
	}
	moved.Close()
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}

	s := must[*ek.Stream](t)(ctx.NewStream())
	defer s.Close()
	e := must[*ek.Event](t)(ctx.NewEvent())
	defer e.Close()
	u := must[*ek.Tensor](t)(ek.EmptyOn(ctx, []int64{3}, ek.Uint8, s))
	defer u.Close()
	if err := u.FillOn(7, s); err != nil {
		t.Fatal(err)
	}
	if err := e.Record(s); err != nil {
		t.Fatal(err)
	}
	ds := must[*ek.Stream](t)(ctx.DefaultStream())
	if err := ds.WaitEvent(e); err != nil {
		t.Fatal(err)
	}
	ds.Close() // borrowed: no-op
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if done := must[bool](t)(s.Query()); !done {
		t.Fatal("stream not done")
	}
	if done := must[bool](t)(e.Query()); !done {
		t.Fatal("event not done")
	}
	if v := must[[]uint8](t)(ek.ToSliceOn[uint8](u, s)); !reflect.DeepEqual(v, []uint8{7, 7, 7}) {
		t.Fatal(v)
	}
	if err := ctx.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

func TestViews(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	r := must[*ek.Tensor](t)(ek.Arange(ctx, 0, 24, 1, ek.Int32))
	defer r.Close()
	x := must[*ek.Tensor](t)(r.View(2, 3, 4))
	defer x.Close()
	vals := func(v *ek.Tensor) []int32 { defer v.Close(); return must[[]int32](t)(ek.ToSlice[int32](v)) }
	s := must[*ek.Tensor](t)(x.Slice(2, ek.Idx(1), ek.None, 2))
	if !reflect.DeepEqual(s.Strides(), []int64{12, 4, 2}) || !reflect.DeepEqual(s.Shape(), []int64{2, 3, 2}) {
		t.Fatal(s)
	}
	if v := vals(s); !reflect.DeepEqual(v, []int32{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23}) {
		t.Fatal(v)
	}
	flat := must[*ek.Tensor](t)(r.Slice(0, ek.None, ek.None, -5))
	if v := vals(flat); !reflect.DeepEqual(v, []int32{23, 18, 13, 8, 3}) {
		t.Fatal(v)
	}
	if v := vals(must[*ek.Tensor](t)(x.Select(-1, -1))); !reflect.DeepEqual(v, []int32{3, 7, 11, 15, 19, 23}) {
		t.Fatal(v)
	}
	p := must[*ek.Tensor](t)(x.Permute(2, 0, 1))
	if !reflect.DeepEqual(p.Strides(), []int64{1, 12, 4}) {
		t.Fatal(p)
	}
	pc := must[*ek.Tensor](t)(p.Contiguous())
	if v := vals(pc); !reflect.DeepEqual(v[:6], []int32{0, 4, 8, 12, 16, 20}) {
		t.Fatal(v)
	}
	tr := must[*ek.Tensor](t)(x.Transpose(1, 2))
	if _, err := tr.View(-1); !errors.Is(err, ek.StatusShape) {
		t.Fatal(err)
	}
	if _, err := tr.Flatten(1, 2); !errors.Is(err, ek.StatusShape) {
		t.Fatal(err)
	}
	if v := vals(must[*ek.Tensor](t)(tr.Reshape(2, 12))); !reflect.DeepEqual(v[:4], []int32{0, 4, 8, 1}) {
		t.Fatal(v)
	}
	tr.Close()
	p.Close()
	u := must[*ek.Tensor](t)(x.Unsqueeze(1))
	if !reflect.DeepEqual(u.Shape(), []int64{2, 1, 3, 4}) {
		t.Fatal(u)
	}
	sq := must[*ek.Tensor](t)(u.Squeeze())
	if !reflect.DeepEqual(sq.Shape(), []int64{2, 3, 4}) {
		t.Fatal(sq)
	}
	sq.Close()
	u.Close()
	fl := must[*ek.Tensor](t)(x.Flatten(0, 1))
	if !reflect.DeepEqual(fl.Shape(), []int64{6, 4}) {
		t.Fatal(fl)
	}
	fl.Close()
	row := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{1, 3}, []int32{1, 2, 3}))
	ex := must[*ek.Tensor](t)(row.Expand(2, -1))
	row.Close()
	if !reflect.DeepEqual(ex.Strides(), []int64{0, 1}) {
		t.Fatal(ex)
	}
	if v := vals(ex); !reflect.DeepEqual(v, []int32{1, 2, 3, 1, 2, 3}) {
		t.Fatal(v)
	}
	if v := vals(must[*ek.Tensor](t)(x.AsStrided([]int64{3}, []int64{5}, 0))); !reflect.DeepEqual(v, []int32{0, 5, 10}) {
		t.Fatal(v)
	}
	if _, err := x.AsStrided([]int64{2}, []int64{1}, 23); !errors.Is(err, ek.StatusIndex) {
		t.Fatal(err)
	}
	// writes through a view reach the storage
	sel := must[*ek.Tensor](t)(x.Select(0, 1))
	if err := sel.Fill(-1); err != nil {
		t.Fatal(err)
	}
	sel.Close()
	if v := must[[]int32](t)(ek.ToSlice[int32](r)); v[11] != 11 || v[12] != -1 || v[23] != -1 {
		t.Fatal(v)
	}
}

func TestErrors(t *testing.T) {
	ctx := cpu(t)
	defer ctx.Close()
	x := must[*ek.Tensor](t)(ek.Zeros(ctx, []int64{2, 3}, ek.Float32))
	defer x.Close()
	cases := []struct {
		err    error
		status ek.Status
		fn     string
	}{
		{second(x.Select(0, 7)), ek.StatusIndex, "ek_view_select"},
		{second(x.Permute(0, 0)), 0, "ek_view_permute"},
		{second(x.Slice(0, ek.None, ek.None, 0)), ek.StatusInvalidArgument, "ek_view_slice"},
		{second(x.Expand(4, 3)), 0, "ek_view_expand"},
		{second(ek.Empty(ctx, []int64{-1}, ek.Float32)), 0, "ek_tensor_empty"},
		{second(ek.Empty(ctx, []int64{1 << 40, 1 << 40}, ek.Float64)), ek.StatusOverflow, "ek_tensor_empty"},
		{second(ek.Empty(ctx, []int64{2}, ek.DType(42))), ek.StatusDType, "ek_tensor_empty"},
		{second(ek.Arange(ctx, 0, 1, 0, ek.Float32)), 0, "ek_arange"},
		{second(ek.NewContext(ek.Device{Type: ek.CUDA, Index: 4096})), ek.StatusNoDevice, "ek_context_create"},
	}
	for i, c := range cases {
		var e *ek.Error
		if !errors.As(c.err, &e) {
			t.Fatalf("case %d: %v is not an *ek.Error", i, c.err)
		}
		if c.status != 0 && e.Status != c.status {
			t.Errorf("case %d: status %v, want %v (%v)", i, e.Status, c.status, e)
		}
		if !strings.Contains(e.Message, c.fn) || !strings.HasPrefix(e.Error(), e.Status.String()+": ") {
			t.Errorf("case %d: message %q does not name %s", i, e.Message, c.fn)
		}
	}
	if _, err := ek.ToSlice[int32](x); !errors.Is(err, ek.StatusDType) {
		t.Error(err)
	}
	if _, err := ek.FromSlice(ctx, []int64{2, 2}, []int32{1}); !errors.Is(err, ek.StatusShape) {
		t.Error(err)
	}
	if ek.StatusOutOfMemory.String() != "EK_ERROR_OUT_OF_MEMORY" || ek.StatusShape.Description() != "shape mismatch" {
		t.Error("status names")
	}
	// a context with live tensors refuses to close, and says so
	if err := ctx.Close(); !errors.Is(err, ek.StatusInvalidArgument) {
		t.Errorf("close with live tensor: %v", err)
	}
	// closed handles are errors, not crashes
	y := must[*ek.Tensor](t)(ek.Zeros(ctx, []int64{1}, ek.Float32))
	y.Close()
	y.Close()
	if _, err := y.Transpose(0, 0); !errors.Is(err, ek.StatusNullPointer) {
		t.Error(err)
	}
}

func second[T any](_ T, err error) error { return err }

func TestDevicesAndConfig(t *testing.T) {
	if n := must[int](t)(ek.DeviceCount(ek.CPU)); n != 1 {
		t.Fatal(n)
	}
	info := must[ek.DeviceInfo](t)(ek.CPUDevice().Info())
	if info.Name == "" || info.Device != ek.CPUDevice() || info.TotalMemory == 0 {
		t.Fatal(info)
	}
	if ek.Version()/10000 != 0 {
		t.Fatal(ek.Version())
	}
	dir := t.TempDir()
	ctx := must[*ek.Context](t)(ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{
		MemoryLimit: 32 << 20, AllowTF32: true, KernelCacheDir: dir, LogLevel: ek.LogError}))
	defer ctx.Close()
	cfg := must[ek.ContextConfig](t)(ctx.Config())
	if cfg.MemoryLimit != 32<<20 || !cfg.AllowTF32 || cfg.KernelCacheDir != dir || cfg.LogLevel != ek.LogError {
		t.Fatal(cfg)
	}
	if d := must[ek.Device](t)(ctx.Device()); d != ek.CPUDevice() {
		t.Fatal(d)
	}
	threaded := must[*ek.Context](t)(ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{NumThreads: 3}))
	defer threaded.Close()
	if n := must[ek.ContextConfig](t)(threaded.Config()).NumThreads; n != 3 {
		t.Fatal(n)
	}
	if _, err := ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{NumThreads: -1}); err == nil ||
		!strings.Contains(err.Error(), "num_threads -1") {
		t.Fatal(err)
	}
	deferred := must[*ek.Context](t)(ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{IndexCheck: ek.IndexCheckDeferred}))
	defer deferred.Close()
	if m := must[ek.ContextConfig](t)(deferred.Config()).IndexCheck; m != ek.IndexCheckDeferred {
		t.Fatal(m)
	}
	if _, err := ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{IndexCheck: 7}); err == nil ||
		!strings.Contains(err.Error(), "index_check 7") {
		t.Fatal(err)
	}
}

func TestLifetimesAndMemory(t *testing.T) {
	base := must[int64](t)(ek.LiveHandles())
	ctx := cpu(t)
	st0 := must[ek.MemoryStats](t)(ctx.MemoryStats())
	x := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{4}, []int64{1, 2, 3, 4}))
	c := must[*ek.Tensor](t)(x.Clone())
	v := must[*ek.Tensor](t)(x.Slice(0, ek.Idx(1), ek.Idx(3), 1))
	x.Close()
	if got := must[[]int64](t)(ek.ToSlice[int64](c)); !reflect.DeepEqual(got, []int64{1, 2, 3, 4}) {
		t.Fatal(got)
	}
	c.Close()
	if got := must[[]int64](t)(ek.ToSlice[int64](v)); !reflect.DeepEqual(got, []int64{2, 3}) {
		t.Fatal(got)
	}
	snap := must[[]ek.MemoryBlock](t)(ctx.Snapshot())
	live := 0
	for _, b := range snap {
		if b.Allocated {
			live++
		}
	}
	if live != 1 {
		t.Fatalf("snapshot %+v", snap)
	}
	v.Close()
	st := must[ek.MemoryStats](t)(ctx.MemoryStats())
	if st.AllocatedBytes != st0.AllocatedBytes || st.ActiveBlocks != st0.ActiveBlocks {
		t.Fatalf("not back to baseline: %+v", st)
	}
	if err := ctx.ResetPeaks(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	if st := must[ek.MemoryStats](t)(ctx.MemoryStats()); st.ReservedBytes != 0 || st.PeakAllocatedBytes != st0.AllocatedBytes {
		t.Fatalf("%+v", st)
	}
	p := must[unsafe.Pointer](t)(ctx.Malloc(4096, nil))
	if p == nil || uintptr(p)%512 != 0 {
		t.Fatal(p)
	}
	if err := ctx.Free(p, nil); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Free(p, nil); !errors.Is(err, ek.StatusInvalidArgument) {
		t.Fatal(err)
	}
	if err := ctx.SetLimit(4 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := ek.Empty(ctx, []int64{8 << 20}, ek.Uint8); !errors.Is(err, ek.StatusOutOfMemory) {
		t.Fatal(err)
	}
	if err := ctx.SetFraction(1.5); err == nil {
		t.Fatal("fraction 1.5 accepted")
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if n := must[int64](t)(ek.LiveHandles()); n != base {
		t.Fatalf("live handles %d, want %d", n, base)
	}
}

func TestCUDA(t *testing.T) {
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
	ctx := must[*ek.Context](t)(ek.NewContext(ek.CUDADevice(0)))
	defer ctx.Close()
	x := must[*ek.Tensor](t)(ek.FromSlice(ctx, []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6}))
	defer x.Close()
	if x.Device() != ek.CUDADevice(0) {
		t.Fatal(x)
	}
	tr := must[*ek.Tensor](t)(x.Transpose(0, 1))
	defer tr.Close()
	c := must[*ek.Tensor](t)(tr.Contiguous())
	defer c.Close()
	if v := must[[]float32](t)(ek.ToSlice[float32](c)); !reflect.DeepEqual(v, []float32{1, 4, 2, 5, 3, 6}) {
		t.Fatal(v)
	}
	s := must[*ek.Stream](t)(ctx.NewStream())
	defer s.Close()
	a, b := must[*ek.Event](t)(ctx.NewEvent()), must[*ek.Event](t)(ctx.NewEvent())
	defer a.Close()
	defer b.Close()
	if err := a.Record(s); err != nil {
		t.Fatal(err)
	}
	z := must[*ek.Tensor](t)(ek.EmptyOn(ctx, []int64{1 << 20}, ek.Float32, s))
	defer z.Close()
	if err := z.FillOn(1, s); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(s); err != nil {
		t.Fatal(err)
	}
	if err := b.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if ms := must[float32](t)(a.ElapsedMs(b)); ms < 0 {
		t.Fatal(ms)
	}
}

// VersionString spells out Version: both read the loaded library.
func TestVersionString(t *testing.T) {
	v := ek.Version()
	if want := fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100); ek.VersionString() != want {
		t.Fatalf("VersionString() = %q, Version() = %d (want %q)", ek.VersionString(), v, want)
	}
}
