package ek_test

import (
	"errors"
	"testing"
	"unsafe"

	ek "github.com/libek/libek/bindings/go"
)

func TestWrapMemcpyRecordStream(t *testing.T) {
	s := newScope(t)
	p := must[unsafe.Pointer](t)(s.ctx.Malloc(48, nil))
	src := []float64{1, 2, 3, 4, 5, 6}
	s.nok(s.ctx.Memcpy(p, unsafe.Pointer(&src[0]), 48, nil)) // CPU context: synchronous
	w := s.k(ek.Wrap(s.ctx, p, []int64{3, 2}, []int64{1, 3}, ek.Float64))
	eq(t, vals[float64](s, w), []float64{1, 4, 2, 5, 3, 6}, "wrapped with strides")
	s.nok(w.Fill(0.5))
	dst := make([]float64, 6)
	s.nok(s.ctx.Memcpy(unsafe.Pointer(&dst[0]), p, 48, nil))
	eq(t, dst, []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, "writes land in the wrapped memory")
	_, err := ek.Wrap(s.ctx, p, []int64{3}, []int64{1, 1}, ek.Float64)
	wantErr(t, err, ek.StatusShape, "ek.Wrap")
	_, err = ek.Wrap(s.ctx, nil, []int64{3}, nil, ek.Float64)
	wantErr(t, err, ek.StatusNullPointer, "ek_tensor_wrap")
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	defer st.Close()
	s.nok(s.ctx.RecordStream(p, st))
	s.nok(w.Close())
	s.nok(s.ctx.Free(p, nil))
	var e *ek.Error
	if err := s.ctx.RecordStream(p, st); !errors.As(err, &e) {
		t.Fatalf("record_stream of a freed block: %v", err)
	}
}

func TestMemoryCallback(t *testing.T) {
	ctx := must[*ek.Context](t)(ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{MemoryLimit: 64 << 20}))
	held := must[*ek.Tensor](t)(ek.Empty(ctx, []int64{10 << 20}, ek.Float32)) // 40 MiB
	var events []ek.MemoryEvent
	var sizes []uint64
	err := ctx.SetMemoryCallback(0, func(ev ek.MemoryEvent, bytes uint64) {
		events, sizes = append(events, ev), append(sizes, bytes)
		if ev == ek.MemoryOutOfMemory {
			held.Close() // free memory so that the retry succeeds
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	big := must[*ek.Tensor](t)(ek.Empty(ctx, []int64{5 << 20}, ek.Float64)) // 40 MiB more
	if len(events) == 0 || events[0] != ek.MemoryOutOfMemory || sizes[0] < 40<<20 {
		t.Fatalf("events %v %v", events, sizes)
	}
	big.Close()
	if err := ctx.SetMemoryCallback(0, func(ek.MemoryEvent, uint64) { panic("from a callback") }); err != nil {
		t.Fatal(err)
	}
	_, err = ek.Empty(ctx, []int64{1 << 24}, ek.Float64)
	wantErr(t, err, ek.StatusOutOfMemory, "ek_tensor_empty")
	if err := ctx.ClearMemoryCallback(); err != nil {
		t.Fatal(err)
	}
	var seen uint64
	if err := ctx.SetMemoryCallback(1<<20, func(ev ek.MemoryEvent, bytes uint64) {
		if ev == ek.MemoryThreshold {
			seen = bytes
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := ctx.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	x := must[*ek.Tensor](t)(ek.Empty(ctx, []int64{1 << 20}, ek.Float32))
	if seen < 4<<20 {
		t.Fatalf("threshold callback: %d", seen)
	}
	x.Close()
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestDLPackRoundTrip(t *testing.T) {
	s := newScope(t)
	before := must[int64](t)(ek.LiveHandles())
	x := from(s, []int64{2, 3}, int32(1), 2, 3, 4, 5, 6)
	v := must[*ek.Tensor](t)(x.Transpose(0, 1))
	m := must[unsafe.Pointer](t)(v.ToDLPack())
	s.nok(v.Close()) // the export holds the storage, not the handle
	u := s.k(ek.FromDLPack(s.ctx, m, 0))
	eq(t, must[ek.Info](t)(u.Info()).Data, must[ek.Info](t)(x.Info()).Data, "shared, not copied")
	eq(t, u.Strides(), []int64{1, 3}, "strides")
	eq(t, vals[int32](s, u), []int32{1, 4, 2, 5, 3, 6}, "values")
	m = must[unsafe.Pointer](t)(x.ToDLPack())
	_, err := ek.FromDLPack(s.ctx, m, 4) // refused: m is still ours
	wantErr(t, err, ek.StatusInvalidArgument, "ek_tensor_from_dlpack")
	c := s.k(ek.FromDLPack(s.ctx, m, ek.DLPackCopy)) // the export's deleter ran at once
	if must[ek.Info](t)(c.Info()).Data == must[ek.Info](t)(x.Info()).Data {
		t.Fatal("DLPackCopy shared the memory")
	}
	eq(t, vals[int32](s, c), []int32{1, 2, 3, 4, 5, 6}, "copied values")
	_, err = ek.FromDLPack(s.ctx, nil, 0)
	wantErr(t, err, ek.StatusNullPointer, "ek_tensor_from_dlpack")
	eq(t, must[int64](t)(ek.LiveHandles()), before+4, "x, u (holding the export of v) and c")
}
