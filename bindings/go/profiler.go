package ek

/*
// The profiler is experimental in ek.h. cgo applies CFLAGS to the whole
// package; it is named here, where it is needed.
#cgo CFLAGS: -DEK_EXPERIMENTAL
#include "ekgo.h"
*/
import "C"

import "unsafe"

// ProfileRecord is one call recorded by the profiler (ek_profile_record);
// times are microseconds since the session started. The profiler is
// experimental (ek.h's EK_EXPERIMENTAL section): it may change in a minor
// release.
type ProfileRecord struct {
	Name          string // "binary.add", "matmul", "kernel.saxpy"
	Args          string // "float32[64,32] float32[32,8] -> float32[64,8]"
	Device        Device
	StreamID      uint64
	ThreadID      uint64 // 1, 2, ...: OS threads in order of their first record
	HostStartUS   float64
	HostUS        float64
	DeviceStartUS float64
	DeviceUS      float64 // negative when the device could not time the call
}

// ProfilerStart records every op and kernel launch on the context, from any
// goroutine, until ProfilerStop; it forgets the last session.
func (c *Context) ProfilerStart() error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_profiler_start(h, m) })
}

// ProfilerStop stops recording and waits for the recorded device work.
func (c *Context) ProfilerStop() error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_profiler_stop(h, m) })
}

// ProfilerRecords returns the last stopped session's calls in order of completion.
func (c *Context) ProfilerRecords() ([]ProfileRecord, error) {
	var n C.size_t
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_profiler_get_records(h, nil, 0, &n, m)
	}); err != nil || n == 0 {
		return []ProfileRecord{}, err
	}
	buf := make([]C.ek_profile_record, int(n))
	var total C.size_t
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_profiler_get_records(h, &buf[0], n, &total, m)
	}); err != nil {
		return nil, err
	}
	if int(total) < len(buf) {
		buf = buf[:int(total)]
	}
	out := make([]ProfileRecord, len(buf))
	for i := range out {
		r := &buf[i]
		out[i] = ProfileRecord{C.GoString(&r.name[0]), C.GoString(&r.args[0]), deviceFromC(r.device),
			uint64(r.stream_id), uint64(r.thread_id), float64(r.host_start_us), float64(r.host_us),
			float64(r.device_start_us), float64(r.device_us)}
	}
	return out, nil
}

// ProfilerSummary returns the last session as a table: per op, calls and
// total and mean device and host times, slowest first.
func (c *Context) ProfilerSummary() (string, error) {
	var n C.size_t
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_profiler_get_summary(h, nil, 0, &n, m)
	}); err != nil {
		return "", err
	}
	buf := make([]byte, int(n)+1)
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_profiler_get_summary(h, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)), &n, m)
	}); err != nil {
		return "", err
	}
	if int(n) > len(buf)-1 {
		n = C.size_t(len(buf) - 1)
	}
	return string(buf[:int(n)]), nil
}

// WriteChromeTrace writes the last session as Chrome trace JSON, for
// ui.perfetto.dev or chrome://tracing (ek_profiler_write_chrome_trace).
func (c *Context) WriteChromeTrace(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_profiler_write_chrome_trace(h, cpath, m)
	})
}
