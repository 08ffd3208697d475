package ek

/*
#include "ekgo.h"

// Memory callbacks: the Go function (callback.go) gets the cgo.Handle of the
// Go callback as user_data.
extern void ekgoMemoryCallback(uintptr_t handle, int event, uint64_t bytes);
static inline void ekgo_memory_trampoline(ek_context c, ek_memory_event e, uint64_t b, void *u) {
  (void)c;
  ekgoMemoryCallback((uintptr_t)u, (int)e, b);
}
static inline ek_status ekgo_set_memory_callback(ek_context c, uintptr_t h, uint64_t threshold, char **msg) {
  return ekgo_ek_memory_set_callback(c, h ? ekgo_memory_trampoline : NULL, (void *)h, threshold, msg);
}
*/
import "C"

import (
	"runtime/cgo"
	"strings"
	"unsafe"
)

// MemoryStats are the pool's statistics (ek_memory_stats; fields documented in ek.h).
type MemoryStats struct {
	AllocatedBytes, ReservedBytes, RequestedBytes               uint64
	PeakAllocatedBytes, PeakReservedBytes, PeakRequestedBytes   uint64
	TotalAllocatedBytes, TotalFreedBytes                        uint64
	ActiveBlocks, CachedBlocks, Segments, AllocCount, FreeCount uint64
	CacheHits, DeviceMallocs, DeviceFrees, Retries, OOMCount    uint64
	LargestFreeBlock, CachedFreeBytes, LimitBytes               uint64
	Fragmentation                                               float64
}

// MemoryBlock is one block of a pool snapshot (ek_memory_block).
type MemoryBlock struct {
	SegmentAddress, SegmentSize uint64
	Address, Size, Requested    uint64
	Allocated                   bool // live; false: cached free
	StreamID                    uint64
}

// MemoryStats returns the pool's current statistics.
func (c *Context) MemoryStats() (MemoryStats, error) {
	var s C.ek_memory_stats
	err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_memory_get_stats(h, &s, m) })
	return statsOf(&s), err
}

// statsOf converts the C statistics (of the context pool or a graph pool).
func statsOf(s *C.ek_memory_stats) MemoryStats {
	return MemoryStats{
		uint64(s.allocated_bytes), uint64(s.reserved_bytes), uint64(s.requested_bytes),
		uint64(s.peak_allocated_bytes), uint64(s.peak_reserved_bytes), uint64(s.peak_requested_bytes),
		uint64(s.total_allocated_bytes), uint64(s.total_freed_bytes),
		uint64(s.active_blocks), uint64(s.cached_blocks), uint64(s.segments), uint64(s.alloc_count), uint64(s.free_count),
		uint64(s.cache_hits), uint64(s.device_mallocs), uint64(s.device_frees), uint64(s.retries), uint64(s.oom_count),
		uint64(s.largest_free_block), uint64(s.cached_free_bytes), uint64(s.limit_bytes),
		float64(s.fragmentation),
	}
}

// ResetPeaks restarts the peaks from the current values.
func (c *Context) ResetPeaks() error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_memory_reset_peaks(h, m) })
}

// EmptyCache returns every cached, fully free segment to the device.
func (c *Context) EmptyCache() error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_memory_empty_cache(h, m) })
}

// SetLimit limits reserved bytes (0: none).
func (c *Context) SetLimit(bytes uint64) error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_memory_set_limit(h, C.uint64_t(bytes), m)
	})
}

// SetFraction limits reserved bytes to a fraction (0, 1] of device memory.
func (c *Context) SetFraction(f float64) error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_memory_set_fraction(h, C.double(f), m)
	})
}

// Snapshot lists every block of the pool, segment by segment in address order.
func (c *Context) Snapshot() ([]MemoryBlock, error) {
	for {
		var n C.size_t
		if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
			return C.ekgo_ek_memory_get_snapshot(h, nil, 0, &n, m)
		}); err != nil {
			return nil, err
		}
		if n == 0 {
			return []MemoryBlock{}, nil
		}
		buf := make([]C.ek_memory_block, int(n))
		var total C.size_t
		if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
			return C.ekgo_ek_memory_get_snapshot(h, &buf[0], n, &total, m)
		}); err != nil {
			return nil, err
		}
		if total > n {
			continue // the pool grew between the two calls
		}
		out := make([]MemoryBlock, int(total))
		for i := range out {
			b := &buf[i]
			out[i] = MemoryBlock{uint64(b.segment_address), uint64(b.segment_size), uint64(b.address),
				uint64(b.size), uint64(b.requested), b.allocated != 0, uint64(b.stream_id)}
		}
		return out, nil
	}
}

// WriteMemorySnapshotJSON writes the pool's segments, blocks and statistics
// of one moment as JSON to path (ek_memory_write_snapshot_json; the format is
// in ek.h), replacing any file there atomically; StatusIO naming the path
// when it cannot be written. scripts/plot_memory.py draws the file.
func (c *Context) WriteMemorySnapshotJSON(path string) error {
	if strings.IndexByte(path, 0) >= 0 {
		return bindingError(StatusInvalidArgument, "ek: path %q contains a NUL byte", path)
	}
	p := C.CString(path)
	defer C.free(unsafe.Pointer(p))
	return c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_memory_write_snapshot_json(h, p, m)
	})
}

// MemorySnapshotJSON returns the JSON text WriteMemorySnapshotJSON writes
// (ek_memory_get_snapshot_json), for encoding/json.
func (c *Context) MemorySnapshotJSON() ([]byte, error) {
	var n C.size_t
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_memory_get_snapshot_json(h, nil, 0, &n, m)
	}); err != nil {
		return nil, err
	}
	for {
		buf := make([]byte, int(n)+4096) // slack for blocks added between the calls
		if err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
			return C.ekgo_ek_memory_get_snapshot_json(h, (*C.char)(unsafe.Pointer(&buf[0])),
				C.size_t(len(buf)), &n, m)
		}); err != nil {
			return nil, err
		}
		if int(n) < len(buf) {
			return buf[:int(n)], nil
		}
	}
}

// Malloc is a raw stream-ordered allocation from the pool (ek_malloc), 512-byte
// aligned: device memory on CUDA, host memory on the CPU; nil for 0 bytes.
// s nil: the default stream. Release with Free.
func (c *Context) Malloc(bytes uintptr, s *Stream) (unsafe.Pointer, error) {
	pinned, err := pin(c, s)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	var p unsafe.Pointer
	err = c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_malloc(s.rawOrNil(), h, C.size_t(bytes), &p, m)
	})
	if err == nil && p != nil {
		c.blocksMu.Lock()
		if c.blocks == nil {
			c.blocks = map[uintptr]struct{}{}
		}
		c.blocks[uintptr(p)] = struct{}{}
		c.blocksMu.Unlock()
	}
	return p, err
}

// Free returns a block from Malloc to the pool, ordered after the work already
// on s. Any other pointer (already freed, another context's, a tensor's
// storage) is StatusInvalidArgument and changes nothing; nil is a no-op.
func (c *Context) Free(p unsafe.Pointer, s *Stream) error {
	pinned, err := pin(c, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	// Held across ek_free, so that a Malloc returning the same address again
	// records it only after this Free removed it.
	c.blocksMu.Lock()
	defer c.blocksMu.Unlock()
	if _, ok := c.blocks[uintptr(p)]; p != nil && !ok {
		return bindingError(StatusInvalidArgument, "ek.Context.Free: %p is not a live block from Malloc of this context", p)
	}
	err = c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_free(s.rawOrNil(), h, p, m) })
	if err == nil {
		delete(c.blocks, uintptr(p))
	}
	return err
}

// RecordStream declares that the block at p (from Malloc) is also used on s:
// its reuse after Free waits for s's work too (ek_record_stream).
func (c *Context) RecordStream(p unsafe.Pointer, s *Stream) error {
	pinned, err := pin(c, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	err = c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_record_stream(s.rawOrNil(), h, p, m)
	})
	return err
}

// Memcpy copies bytes between any mix of host memory and the context's
// device memory, ordered on s (nil: default stream) (ek_memcpy). dst and src
// must stay valid until the copy completes (synchronize s): Go memory only
// for a copy that is synchronous, i.e. on a CPU context or followed at once
// by s.Synchronize() before the Go memory is used or released.
func (c *Context) Memcpy(dst, src unsafe.Pointer, bytes uintptr, s *Stream) error {
	pinned, err := pin(c, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	err = c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_memcpy(s.rawOrNil(), h, src, dst, C.size_t(bytes), m)
	})
	return err
}

// SetMemoryCallback makes the pool call f when an allocation cannot be
// served (before its final retry: f may free memory, e.g. close tensors) and
// when reserved memory rises past thresholdBytes (0: never)
// (ek_memory_set_callback). f runs on the allocating thread; a panic in it
// is recovered and discarded. It replaces any previous callback.
func (c *Context) SetMemoryCallback(thresholdBytes uint64, f MemoryCallback) error {
	if f == nil {
		return c.ClearMemoryCallback()
	}
	h := cgo.NewHandle(f)
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.call(func(raw C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_set_memory_callback(raw, C.uintptr_t(h), C.uint64_t(thresholdBytes), m)
	})
	if err != nil {
		h.Delete()
		return err
	}
	// A replaced callback may still be running on another thread: its handle
	// lives until Close.
	c.callbacks = append(c.callbacks, h)
	return nil
}

// ClearMemoryCallback removes the memory callback.
func (c *Context) ClearMemoryCallback() error {
	return c.call(func(raw C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_set_memory_callback(raw, 0, 0, m)
	})
}
