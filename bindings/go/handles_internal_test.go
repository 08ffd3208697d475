package ek

import (
	"errors"
	"sync"
	"testing"
	"unsafe"
)

// Handles: Close is idempotent, races calls, Closes and finalizers safely,
// and a closed handle is an error, never a stale pointer passed to C.

func liveHandles(t *testing.T) int64 {
	t.Helper()
	n, err := LiveHandles()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func isClosedErr(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == StatusNullPointer && errors.Is(err, StatusNullPointer)
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	base := liveHandles(t)
	ctx, err := NewContext(CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	x, _ := FromSlice(ctx, []int64{3}, []float32{1, 2, 3})
	y, _ := x.Clone()
	s, _ := ctx.NewStream()
	e, _ := ctx.NewEvent()
	ds, _ := ctx.DefaultStream()
	for _, c := range []interface{ Close() error }{x, x, s, s, e, e, ds, ds} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// every use of a closed handle is an error, whichever argument it is
	if _, err := x.Exp(); !isClosedErr(err) {
		t.Error("receiver", err)
	}
	if _, err := y.Add(x); !isClosedErr(err) {
		t.Error("operand", err)
	}
	if err := y.UnaryInto(UnaryExp, x); !isClosedErr(err) {
		t.Error("out", err)
	}
	if _, err := y.UnaryOn(UnaryExp, s, nil); !isClosedErr(err) {
		t.Error("stream", err)
	}
	if err := e.Record(nil); !isClosedErr(err) {
		t.Error("event", err)
	}
	if err := s.Synchronize(); !isClosedErr(err) {
		t.Error("stream call", err)
	}
	if _, err := y.IndexPut([]*Tensor{x}, y, false); !isClosedErr(err) {
		t.Error("index list", err)
	}
	if err := ds.Synchronize(); err != nil { // borrowed: its Close does nothing
		t.Error(err)
	}
	if got, err := ToSlice[float32](y); err != nil || got[2] != 3 {
		t.Error(got, err) // y, a second handle of the same tensor, is unaffected
	}
	// the context refuses while y lives, then closes; afterwards it and its
	// default stream are errors (that stream's C handle died with it)
	if err := ctx.Close(); !errors.Is(err, StatusInvalidArgument) {
		t.Error(err)
	}
	y.Close()
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Close(); err != nil {
		t.Error("second close", err)
	}
	if err := ds.Synchronize(); !isClosedErr(err) {
		t.Error("default stream after its context", err)
	}
	if _, err := Empty(ctx, []int64{1}, Float32); !isClosedErr(err) {
		t.Error("context", err)
	}
	if n := liveHandles(t); n != base {
		t.Errorf("live handles %d, want %d", n, base)
	}
}

func TestCloseWhileInUse(t *testing.T) {
	base := liveHandles(t)
	ctx, _ := NewContext(CPUDevice())
	x, _ := FromSlice(ctx, []int64{2}, []int32{1, 2})
	// a call in progress (pinned) delays the release to its end
	p, err := pin(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Neg(); !isClosedErr(err) {
		t.Error(err)
	}
	if n := liveHandles(t); n != base+2 { // the context and x
		t.Errorf("released while in use: %d live, want %d", n, base+2)
	}
	p.unpin()
	if n := liveHandles(t); n != base+1 {
		t.Errorf("not released by the last user: %d live, want %d", n, base+1)
	}
	// a context refuses to close during a call on it, and may be closed later
	p, _ = pin(ctx)
	if err := ctx.Close(); !errors.Is(err, StatusInvalidArgument) {
		t.Error(err)
	}
	p.unpin()
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if n := liveHandles(t); n != base {
		t.Errorf("live handles %d, want %d", n, base)
	}
}

// Run with -race: Closes, calls and copies race on shared handles.
func TestConcurrentCloseAndUse(t *testing.T) {
	base := liveHandles(t)
	ctx, _ := NewContext(CPUDevice())
	for round := 0; round < 50; round++ {
		x, _ := Arange(ctx, 0, 64, 1, Float32)
		out, _ := Empty(ctx, []int64{64}, Float32)
		s, _ := ctx.NewStream()
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				switch g % 4 {
				case 0:
					x.Close()
				case 1:
					s.Close()
				default:
					for i := 0; i < 20; i++ {
						if _, err := x.UnaryOn(UnaryExp, s, out); err != nil && !isClosedErr(err) {
							t.Error(err)
						}
						if v, err := x.Sum(nil, false); err == nil {
							v.Close()
						} else if !isClosedErr(err) {
							t.Error(err)
						}
					}
				}
			}(g)
		}
		wg.Wait()
		out.Close()
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if n := liveHandles(t); n != base {
		t.Errorf("live handles %d, want %d", n, base)
	}
}

func TestFreeTakesOnlyMallocBlocks(t *testing.T) {
	ctx, _ := NewContext(CPUDevice())
	defer ctx.Close()
	x, _ := Zeros(ctx, []int64{256}, Float32)
	defer x.Close()
	info, _ := x.Info()
	// the pool would free a tensor's storage and hand it to the next Malloc
	if err := ctx.Free(info.Data, nil); !errors.Is(err, StatusInvalidArgument) {
		t.Fatal(err)
	}
	p, err := ctx.Malloc(1024, nil)
	if err != nil || p == info.Data {
		t.Fatal(p, err)
	}
	other, _ := NewContext(CPUDevice())
	defer other.Close()
	if err := other.Free(p, nil); !errors.Is(err, StatusInvalidArgument) {
		t.Error(err)
	}
	if err := ctx.Free(p, nil); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Free(p, nil); !errors.Is(err, StatusInvalidArgument) {
		t.Error(err)
	}
	if err := ctx.Free(unsafe.Pointer(nil), nil); err != nil {
		t.Error(err)
	}
	if err := x.Fill(1); err != nil {
		t.Fatal(err)
	}
	if got, _ := ToSlice[float32](x); got[255] != 1 {
		t.Error(got[255])
	}
}
