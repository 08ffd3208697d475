package ek

/*
#include "ekgo.h"
*/
import "C"

// Automatic fusion of elementwise chains (ek.h, the fusion section): the
// per-stream switch, explicit evaluation and the context's counters. The
// context-wide switch is ContextConfig.Fusion.

// FusionStats are a context's fusion counters since its creation (ek.h
// documents each).
type FusionStats struct {
	OpsDeferred, GroupsEvaluated, FusedLaunches, KernelsCompiled uint64
	CacheHitsMemory, CacheHitsDisk, CompileNs                    uint64
	FallbacksCap, FallbacksCapture, FallbacksUnsupported         uint64
	PrologueFusions                                              uint64 // reductions fused with their input's chain (CUDA)
}

// SetFusion sets the stream's fusion mode (FusionOff, FusionOn,
// FusionRounded), or 0 to follow the context. Turning fusion off evaluates
// the stream's pending group first.
func (s *Stream) SetFusion(f Fusion) error {
	return s.call(func(h C.ek_stream, m **C.char) C.ek_status {
		return C.ekgo_ek_stream_set_fusion(h, C.ek_fusion(f), m)
	})
}

// Fusion is the stream's override (0: it follows the context).
func (s *Stream) Fusion() (Fusion, error) {
	var f C.ek_fusion
	err := s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_get_fusion(h, &f, m) })
	return Fusion(f), err
}

// Flush evaluates the stream's pending fusion group now (in stream order).
func (s *Stream) Flush() error {
	return s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_flush(h, m) })
}

// Eval produces the tensor's contents now if a fusion group holds them
// pending (asynchronously, on the group's stream).
func (t *Tensor) Eval() error {
	return t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return C.ekgo_ek_tensor_eval(h, m) })
}

// FusionStats reads the context's fusion counters.
func (c *Context) FusionStats() (FusionStats, error) {
	var s C.ek_fusion_stats
	err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_context_get_fusion_stats(h, &s, m) })
	return FusionStats{
		uint64(s.ops_deferred), uint64(s.groups_evaluated), uint64(s.fused_launches), uint64(s.kernels_compiled),
		uint64(s.cache_hits_memory), uint64(s.cache_hits_disk), uint64(s.compile_ns),
		uint64(s.fallbacks_cap), uint64(s.fallbacks_capture), uint64(s.fallbacks_unsupported),
		uint64(s.prologue_fusions),
	}, err
}
