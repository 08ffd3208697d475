package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Stream is an ordered queue of work of a context (ek_stream): a non-blocking
// cudaStream_t on CUDA; on the CPU work runs synchronously. A nil *Stream
// passed to a call means the default stream.
type Stream struct {
	raw C.ek_stream // set at creation, passed to C only while pinned
	ctx *Context    // keeps the Go context reachable while the stream lives
	own guard
	g   *guard // &own, or the context's guard for the borrowed default stream
}

// rawOrNil is the handle to pass for s (NULL: default stream); s must be
// pinned (pin, or a call helper's also) around the C call.
func (s *Stream) rawOrNil() C.ek_stream {
	if s == nil {
		return nil
	}
	return s.raw
}

func (s *Stream) guardOf() *guard {
	if s == nil {
		return nil
	}
	return s.g
}

func newStream(raw C.ek_stream, c *Context) *Stream {
	s := &Stream{raw: raw, ctx: c}
	s.own.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_stream_destroy(raw, &msg), msg)
	}
	s.g = &s.own
	runtime.SetFinalizer(s, (*Stream).Close)
	return s
}

// NewStream creates a stream of the context.
func (c *Context) NewStream() (*Stream, error) {
	var raw C.ek_stream
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_stream_create(h, &raw, m) }); err != nil {
		return nil, err
	}
	return newStream(raw, c), nil
}

// WrapStream wraps an existing cudaStream_t (nil: the legacy default stream)
// without taking ownership; CUDA contexts only. The native stream must
// outlive the Stream and its work.
func (c *Context) WrapStream(native unsafe.Pointer) (*Stream, error) {
	var raw C.ek_stream
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_stream_wrap(h, native, &raw, m) }); err != nil {
		return nil, err
	}
	return newStream(raw, c), nil
}

// Close destroys a stream created or wrapped by NewStream/WrapStream after its
// pending work and after any call using it that is in progress; a no-op for
// the default stream (which lives as long as its context) and for a closed
// stream.
func (s *Stream) Close() error {
	if s == nil || s.g != &s.own {
		return nil
	}
	err := s.own.close()
	runtime.SetFinalizer(s, nil)
	return err
}

// call runs f with s's handle pinned, and with the handles in also pinned.
func (s *Stream) call(f func(C.ek_stream, **C.char) C.ek_status, also ...pinnable) error {
	if s == nil {
		return closedError()
	}
	return callPinned(s, &s.raw, f, also)
}

// Synchronize waits for the work submitted to the stream.
func (s *Stream) Synchronize() error {
	return s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_synchronize(h, m) })
}

// Query reports whether all work submitted to the stream has completed.
func (s *Stream) Query() (bool, error) {
	var d C.int
	err := s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_query(h, &d, m) })
	return d != 0, err
}

// WaitEvent makes later work on the stream wait for e (no host wait).
func (s *Stream) WaitEvent(e *Event) error {
	if e == nil {
		return closedError()
	}
	return s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_wait_event(h, e.raw, m) }, e)
}

// Native returns the cudaStream_t on CUDA, nil on the CPU; borrowed.
func (s *Stream) Native() (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_get_native(h, &p, m) })
	return p, err
}

// Context returns the stream's context (ek_stream_get_context).
func (s *Stream) Context() (*Context, error) {
	var raw C.ek_context
	if err := s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_get_context(h, &raw, m) }); err != nil {
		return nil, err
	}
	if c := s.ctx.ifHandle(raw); c != nil {
		return c, nil
	}
	return nil, bindingError(StatusInternal, "ek.Stream.Context: ek_stream_get_context returned %p, not the stream's context", raw)
}

// Event marks a point in a stream, with timing (ek_event).
type Event struct {
	raw C.ek_event // set at creation, passed to C only while pinned
	ctx *Context
	g   guard
}

func (e *Event) guardOf() *guard {
	if e == nil {
		return nil
	}
	return &e.g
}

// NewEvent creates an event of the context.
func (c *Context) NewEvent() (*Event, error) {
	var raw C.ek_event
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_event_create(h, &raw, m) }); err != nil {
		return nil, err
	}
	e := &Event{raw: raw, ctx: c}
	e.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_event_destroy(raw, &msg), msg)
	}
	runtime.SetFinalizer(e, (*Event).Close)
	return e, nil
}

// Close destroys the event, after any call using it that is in progress;
// closing again is a no-op.
func (e *Event) Close() error {
	if e == nil {
		return nil
	}
	err := e.g.close()
	runtime.SetFinalizer(e, nil)
	return err
}

// call runs f with e's handle pinned, and with the handles in also pinned.
func (e *Event) call(f func(C.ek_event, **C.char) C.ek_status, also ...pinnable) error {
	if e == nil {
		return closedError()
	}
	return callPinned(e, &e.raw, f, also)
}

// Record captures the work submitted to s so far (nil: default stream).
func (e *Event) Record(s *Stream) error {
	return e.call(func(h C.ek_event, m **C.char) C.ek_status { return C.ekgo_ek_event_record(s.rawOrNil(), h, m) }, s)
}

// Synchronize waits until the captured work has completed.
func (e *Event) Synchronize() error {
	return e.call(func(h C.ek_event, m **C.char) C.ek_status { return C.ekgo_ek_event_synchronize(h, m) })
}

// Query reports whether the captured work has completed (true if never recorded).
func (e *Event) Query() (bool, error) {
	var d C.int
	err := e.call(func(h C.ek_event, m **C.char) C.ek_status { return C.ekgo_ek_event_query(h, &d, m) })
	return d != 0, err
}

// ElapsedMs is the time from e to end in milliseconds; StatusNotReady if
// either has not completed.
func (e *Event) ElapsedMs(end *Event) (float32, error) {
	if end == nil {
		return 0, closedError()
	}
	var ms C.float
	err := e.call(func(h C.ek_event, m **C.char) C.ek_status { return C.ekgo_ek_event_get_elapsed_ms(h, end.raw, &ms, m) }, end)
	return float32(ms), err
}
