package ek

import (
	"runtime"
	"testing"
)

// ClearError empties the OS thread's ek_last_error(); the goroutine stays on
// one thread so that the failing call, the reads and the clear share it.
func TestClearError(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_, err := CUDADevice(1 << 20).Info()
	if err == nil {
		t.Fatal("Info of cuda:1048576 succeeded")
	}
	if got := lastError(); got == "" || got != err.(*Error).Message {
		t.Fatalf("ek_last_error() = %q after %v", got, err)
	}
	ClearError()
	if got := lastError(); got != "" {
		t.Fatalf("ek_last_error() = %q after ClearError", got)
	}
	ClearError() // clearing nothing is fine
}
