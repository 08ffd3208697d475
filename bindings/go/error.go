// Package ek is the Go binding of libek, a GPU tensor runtime with a stable C
// ABI (include/ek.h). It translates types, errors and lifetimes only; the
// semantics (shapes, broadcasting, casting, clamping) are the C library's and
// documented in ek.h.
//
// Every failing call returns an *Error carrying the Status and the library's
// message, which names the C function; the message is read in the same C call
// as the failure (ekgo.h), since goroutines change OS threads between cgo calls.
// Handles are freed with Close; a finalizer is only a safety net. Calls that
// take no stream use the default stream of the context involved; *On variants
// take a *Stream (nil: the default stream).
//
// Value arguments (Fill, scalar operands, clamp bounds, coefficients, arange
// and random bounds) are any Go integer, float, complex or bool and reach the library
// with their kind (ek_scalar), so int64 and uint64 values stay exact. The
// profiler, ElementwiseKernel and Kernel.LaunchAuto wrap ek.h's experimental
// section (EK_EXPERIMENTAL): they may change in a minor release.
//
// The import path is github.com/libek/libek/bindings/go; the package name is
// ek. cgo finds libek with pkg-config (PKG_CONFIG_PATH naming the directory
// of ek.pc). So that a program starts without LD_LIBRARY_PATH when libek is
// in a non-system prefix, link it with an rpath to that directory:
//
//	CGO_LDFLAGS="-Wl,-rpath,$(pkg-config --variable=libdir ek)" go build
//
// cgo's flag allowlist also accepts -Wl,-rpath,DIR in a program's own
// "#cgo LDFLAGS:" line and in the Libs of ek.pc.
package ek

/*
#cgo pkg-config: ek
#include "ekgo.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Status (generated: enums_gen.go) implements error, so that
// errors.Is(err, ek.StatusShape) matches an *Error of that status.

// String names the code, e.g. "EK_ERROR_SHAPE" (ek_status_string).
func (s Status) String() string { return C.GoString(C.ek_status_string(C.ek_status(s))) }

// Description is a short text, e.g. "shape mismatch" (ek_status_description).
func (s Status) Description() string {
	return C.GoString(C.ek_status_description(C.ek_status(s)))
}

// Error implements error.
func (s Status) Error() string { return s.String() + ": " + s.Description() }

// Error is a failed libek call: its status and the library's message.
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Status.Error()
	}
	return e.Status.String() + ": " + e.Message
}

// Is reports whether target is this error's Status.
func (e *Error) Is(target error) bool {
	s, ok := target.(Status)
	return ok && s == e.Status
}

// check turns a wrapper's status and message (malloc'd by ekgo_fail) into an error.
// callPinned is every handle type's call method: f runs on *raw (read once
// self and the handles in also are pinned, so never a released handle) and
// its status becomes an error.
func callPinned[H any](self pinnable, raw *H, f func(H, **C.char) C.ek_status, also []pinnable) error {
	pinned, err := pin(append(also, self)...)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	var msg *C.char
	return check(f(*raw, &msg), msg)
}

func check(s C.ek_status, msg *C.char) error {
	if s == C.EK_SUCCESS {
		return nil
	}
	e := &Error{Status: Status(s)}
	if msg != nil {
		e.Message = C.GoString(msg)
		C.free(unsafe.Pointer(msg))
	}
	return e
}

// bindingError is an error raised by the binding itself, before any C call.
func bindingError(s Status, format string, args ...any) error {
	return &Error{Status: s, Message: fmt.Sprintf(format, args...)}
}

// ClearError forgets the calling OS thread's last error message
// (ek_clear_error). The binding reads each message inside the failing call
// (see the package comment), so its errors never depend on it; it is for C
// code called through cgo on the same thread (the goroutine locked with
// runtime.LockOSThread) that reads ek_last_error itself.
func ClearError() { C.ek_clear_error() }

// lastError is the calling OS thread's ek_last_error(), for the tests
// (cgo is not available in _test files).
func lastError() string { return C.GoString(C.ek_last_error()) }

// Version is the loaded library's MAJOR*10000 + MINOR*100 + PATCH (ek_version).
func Version() int { return int(C.ek_version()) }

// VersionString is the loaded library's "MAJOR.MINOR.PATCH" (ek_version_string).
func VersionString() string { return C.GoString(C.ek_version_string()) }

// LiveHandles is the number of live contexts, streams, events, tensors,
// modules, kernels and elementwise kernels in the process (ek_live_handles), for leak checks.
func LiveHandles() (int64, error) {
	var n C.int64_t
	var msg *C.char
	if err := check(C.ekgo_ek_live_handles(&n, &msg), msg); err != nil {
		return 0, err
	}
	return int64(n), nil
}
