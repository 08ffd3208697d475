package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// ContextConfig holds context options (ek_context_config). Zero fields mean
// "not set": the environment (EK_MEMORY_LIMIT, EK_MEMORY_FRACTION,
// EK_KERNEL_CACHE_DIR, EK_LOG_LEVEL) applies, then the default.
type ContextConfig struct {
	MemoryLimit    uint64  // pool limit in bytes
	MemoryFraction float64 // of device memory, (0, 1]
	AllowTF32      bool    // float32 matrix products may use TF32
	KernelCacheDir string
	LogLevel       LogLevel
	// NumThreads: CPU contexts' threads for large ops, 1 to 1024; 0 (unset):
	// EK_NUM_THREADS, else one per hardware thread. Results do not depend on
	// it; Config reports the count in use.
	NumThreads int
	// IndexCheck: when a CUDA gather reports an index out of range; 0 (unset):
	// EK_INDEX_CHECK, else IndexCheckDeferred on CUDA (at the stream's next
	// synchronization) and IndexCheckAtCall on the CPU. IndexCheckAtCall makes
	// the CUDA call itself fail.
	IndexCheck IndexCheck
	// Fusion: automatic fusion of elementwise chains (FusionOff, FusionOn,
	// FusionRounded); 0 (unset): EK_FUSION, else off.
	Fusion Fusion
	// FusionMaxKernels: distinct fused kernels the context may compile; 0
	// (unset): EK_FUSION_MAX_KERNELS, else 256.
	FusionMaxKernels int64
}

// Context is a libek context on one device: its memory pool, default stream
// and caches. Close it after closing its tensors, streams and events.
type Context struct {
	raw C.ek_context // set at creation, passed to C only while pinned
	g   guard

	mu        sync.Mutex
	callbacks []cgo.Handle // every memory callback registered; deleted by Close

	// The blocks Malloc returned and Free has not freed: Free takes only
	// these, since the pool would also free a tensor's storage (whose address
	// Tensor.Info gives) and hand it out again.
	blocksMu sync.Mutex
	blocks   map[uintptr]struct{}
}

// NewContext creates a context with the default configuration.
func NewContext(d Device) (*Context, error) { return NewContextWithConfig(d, nil) }

// NewContextWithConfig creates a context; cfg may be nil. Set fields win over
// the environment.
func NewContextWithConfig(d Device, cfg *ContextConfig) (*Context, error) {
	var msg *C.char
	var c C.ek_context_config
	var pc *C.ek_context_config
	if cfg != nil {
		if err := check(C.ekgo_ek_context_config_init(&c, &msg), msg); err != nil {
			return nil, err
		}
		c.memory_limit = C.uint64_t(cfg.MemoryLimit)
		c.memory_fraction = C.double(cfg.MemoryFraction)
		if cfg.AllowTF32 {
			c.allow_tf32 = 1
		}
		if cfg.KernelCacheDir != "" {
			s := C.CString(cfg.KernelCacheDir) // copied by the library
			defer C.free(unsafe.Pointer(s))
			c.kernel_cache_dir = s
		}
		c.log_level = C.ek_log_level(cfg.LogLevel)
		c.num_threads = C.int64_t(cfg.NumThreads)
		c.index_check = C.int64_t(cfg.IndexCheck)
		c.fusion = C.int64_t(cfg.Fusion)
		c.fusion_max_kernels = C.int64_t(cfg.FusionMaxKernels)
		pc = &c
	}
	var raw C.ek_context
	if err := check(C.ekgo_ek_context_create(d.c(), pc, &raw, &msg), msg); err != nil {
		return nil, err
	}
	ctx := &Context{raw: raw}
	ctx.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_context_destroy(raw, &msg), msg)
	}
	runtime.SetFinalizer(ctx, (*Context).Close)
	return ctx, nil
}

// Close waits for the context's work and frees it. Its tensors, streams and
// events must be closed first, otherwise StatusInvalidArgument and nothing is
// freed (Close may then be called again); the same while a call on the context
// (or its default stream) is in progress in another goroutine. Closing twice
// is a no-op; a closed context's methods return a StatusNullPointer error.
func (c *Context) Close() error {
	if c == nil {
		return nil
	}
	closed, err := c.g.closeIdle()
	if !closed {
		return err
	}
	runtime.SetFinalizer(c, nil)
	c.mu.Lock()
	for _, h := range c.callbacks {
		h.Delete()
	}
	c.callbacks = nil
	c.mu.Unlock()
	return nil
}

var errClosed = errors.New("ek: use of a closed handle")

func (c *Context) guardOf() *guard {
	if c == nil {
		return nil
	}
	return &c.g
}

// call runs f with the context's handle pinned, and with the handles in also
// pinned.
func (c *Context) call(f func(C.ek_context, **C.char) C.ek_status, also ...pinnable) error {
	if c == nil {
		return closedError()
	}
	return callPinned(c, &c.raw, f, also)
}

// ifHandle is c when raw is its handle (what ek_*_get_context returned for
// an object of c), else nil.
func (c *Context) ifHandle(raw C.ek_context) *Context {
	if c == nil || raw == nil || c.raw != raw {
		return nil
	}
	return c
}

// Device returns the context's device.
func (c *Context) Device() (Device, error) {
	var d C.ek_device
	err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_context_get_device(h, &d, m) })
	return deviceFromC(d), err
}

// Config returns the effective configuration (environment and defaults applied).
func (c *Context) Config() (ContextConfig, error) {
	var r C.ek_context_config
	var dir string
	err := c.call(func(h C.ek_context, m **C.char) C.ek_status {
		if s := C.ekgo_ek_context_config_init(&r, m); s != C.EK_SUCCESS {
			return s
		}
		s := C.ekgo_ek_context_get_config(h, &r, m)
		if s == C.EK_SUCCESS && r.kernel_cache_dir != nil {
			dir = C.GoString(r.kernel_cache_dir) // borrowed from c: copied while pinned
		}
		return s
	})
	if err != nil {
		return ContextConfig{}, err
	}
	cfg := ContextConfig{
		MemoryLimit:      uint64(r.memory_limit),
		MemoryFraction:   float64(r.memory_fraction),
		AllowTF32:        r.allow_tf32 != 0,
		LogLevel:         LogLevel(r.log_level),
		KernelCacheDir:   dir,
		NumThreads:       int(r.num_threads),
		IndexCheck:       IndexCheck(r.index_check),
		Fusion:           Fusion(r.fusion),
		FusionMaxKernels: int64(r.fusion_max_kernels),
	}
	return cfg, nil
}

// Synchronize waits for all work on all streams of the context.
func (c *Context) Synchronize() error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_context_synchronize(h, m) })
}

// DefaultStream returns the context's default stream, borrowed: its Close
// does nothing.
func (c *Context) DefaultStream() (*Stream, error) {
	var s C.ek_stream
	err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_context_get_default_stream(h, &s, m) })
	if err != nil {
		return nil, err
	}
	// Borrowed: it lives as long as the context, so it shares its guard.
	return &Stream{raw: s, ctx: c, g: &c.g}, nil
}
