package ek_test

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

type logged struct {
	Level ek.LogLevel
	Msg   string
}

// recordLogs installs a callback that keeps every message; it is removed
// when the test ends.
func recordLogs(t *testing.T) func() []logged {
	t.Helper()
	var mu sync.Mutex
	var got []logged
	if err := ek.SetLogCallback(func(level ek.LogLevel, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, logged{level, msg})
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ek.SetLogCallback(nil); err != nil {
			t.Error(err)
		}
	})
	return func() []logged {
		mu.Lock()
		defer mu.Unlock()
		out := got
		got = nil
		return out
	}
}

func contextAt(t *testing.T, level ek.LogLevel) *ek.Context {
	t.Helper()
	ctx, err := ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{LogLevel: level})
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// reserveAndRelease takes 1 MiB (a new 2 MiB segment) and gives it back to the device.
func reserveAndRelease(t *testing.T, ctx *ek.Context) {
	p, err := ctx.Malloc(1<<20, nil)
	if err == nil {
		err = ctx.Free(p, nil)
	}
	if err == nil {
		err = ctx.EmptyCache()
	}
	if err != nil {
		t.Error(err)
	}
}

func TestLogCallbackFollowsTheContextsLevel(t *testing.T) {
	take := recordLogs(t)
	ctx := contextAt(t, ek.LogInfo)
	reserveAndRelease(t, ctx)
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	want := []logged{
		{ek.LogInfo, "context created on cpu:0"},
		{ek.LogInfo, "pool cpu:0: reserved a new segment of 2.00 MiB from the device; reserved now 2.00 MiB"},
		{ek.LogInfo, "pool cpu:0: released 1 cached segment (2.00 MiB) to the device by empty_cache; reserved now 0 B"},
	}
	if got := take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	ctx = contextAt(t, ek.LogWarn)
	defer ctx.Close()
	reserveAndRelease(t, ctx)
	if got := take(); len(got) != 0 {
		t.Fatalf("info messages passed a warn context: %q", got)
	}
	if ek.LogWarn.String() != "warn" {
		t.Fatal(ek.LogWarn.String())
	}
}

func TestLogCallbackPanicsAndReentry(t *testing.T) {
	var errs []error
	if err := ek.SetLogCallback(func(level ek.LogLevel, msg string) {
		errs = append(errs, ek.SetLogCallback(nil))
		panic("boom: " + msg)
	}); err != nil {
		t.Fatal(err)
	}
	defer ek.SetLogCallback(nil)
	ctx := contextAt(t, ek.LogInfo) // the panic is recovered; the call returns
	ctx.Close()
	if err := ek.SetLogCallback(nil); err != nil {
		t.Fatal(err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], ek.StatusInvalidArgument) ||
		!strings.Contains(errs[0].Error(), "inside the log callback") {
		t.Fatalf("re-entry: %v", errs)
	}
}

func TestLogCallbackReplacedWhileGoroutinesLog(t *testing.T) {
	var count atomic.Int64
	install := func() {
		if err := ek.SetLogCallback(func(ek.LogLevel, string) { count.Add(1) }); err != nil {
			t.Error(err)
		}
	}
	install()
	defer ek.SetLogCallback(nil)
	var done atomic.Bool
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for !done.Load() {
			install()
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				// Not contextAt: t.Fatal belongs to the test's goroutine.
				ctx, err := ek.NewContextWithConfig(ek.CPUDevice(), &ek.ContextConfig{LogLevel: ek.LogInfo})
				if err != nil {
					t.Error(err)
					return
				}
				reserveAndRelease(t, ctx)
				ctx.Close()
			}
		}()
	}
	wg.Wait()
	done.Store(true)
	<-swapped
	if n := count.Load(); n != 3*100*3 { // created, reserved, released: each exactly once
		t.Fatalf("%d messages delivered, want %d", n, 3*100*3)
	}
}
