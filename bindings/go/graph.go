package ek

/*
#include "ekgo.h"
*/
import "C"

import "runtime"

// GraphPool is a pool that graph captures may share (ek_graph_pool, as
// torch.cuda.graph_pool_handle): graphs captured into one pool must be
// replayed in the order they were captured. CUDA contexts only.
type GraphPool struct {
	raw C.ek_graph_pool
	ctx *Context
	g   guard
}

func (p *GraphPool) guardOf() *guard {
	if p == nil {
		return nil
	}
	return &p.g
}

// NewGraphPool creates a graph pool of the context.
func (c *Context) NewGraphPool() (*GraphPool, error) {
	var raw C.ek_graph_pool
	if err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_graph_pool_create(h, &raw, m) }); err != nil {
		return nil, err
	}
	p := &GraphPool{raw: raw, ctx: c}
	p.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_graph_pool_destroy(raw, &msg), msg)
	}
	runtime.SetFinalizer(p, (*GraphPool).Close)
	return p, nil
}

// Close drops the handle; the pool's memory lives on while graphs or tensors
// use it. Closing again is a no-op.
func (p *GraphPool) Close() error {
	if p == nil {
		return nil
	}
	err := p.g.close()
	runtime.SetFinalizer(p, nil)
	return err
}

// Stats returns the pool's statistics (ek_graph_pool_get_stats).
func (p *GraphPool) Stats() (MemoryStats, error) {
	if p == nil {
		return MemoryStats{}, closedError()
	}
	var s C.ek_memory_stats
	err := callPinned(p, &p.raw, func(h C.ek_graph_pool, m **C.char) C.ek_status {
		return C.ekgo_ek_graph_pool_get_stats(h, &s, m)
	}, nil)
	return statsOf(&s), err
}

// Graph is a captured, instantiated CUDA graph (ek_graph).
type Graph struct {
	raw C.ek_graph
	ctx *Context
	g   guard
}

func (g *Graph) guardOf() *guard {
	if g == nil {
		return nil
	}
	return &g.g
}

// CaptureBegin starts capturing the work enqueued on s into a graph; pool nil
// gives the graph a pool of its own. End it with CaptureEnd on s.
func (s *Stream) CaptureBegin(pool *GraphPool, mode CaptureMode) error {
	if pool == nil {
		return s.call(func(h C.ek_stream, m **C.char) C.ek_status {
			return C.ekgo_ek_graph_capture_begin(h, nil, C.ek_capture_mode(mode), m)
		})
	}
	return s.call(func(h C.ek_stream, m **C.char) C.ek_status {
		return C.ekgo_ek_graph_capture_begin(h, pool.raw, C.ek_capture_mode(mode), m)
	}, pool)
}

// CaptureEnd ends the capture begun on s and instantiates the graph.
func (s *Stream) CaptureEnd() (*Graph, error) {
	var raw C.ek_graph
	if err := s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_graph_capture_end(h, &raw, m) }); err != nil {
		return nil, err
	}
	g := &Graph{raw: raw, ctx: s.ctx}
	g.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_graph_destroy(raw, &msg), msg)
	}
	runtime.SetFinalizer(g, (*Graph).Close)
	return g, nil
}

// IsCapturing reports whether s captures a graph, its own or one it joined.
func (s *Stream) IsCapturing() (bool, error) {
	var c C.int
	err := s.call(func(h C.ek_stream, m **C.char) C.ek_status { return C.ekgo_ek_stream_is_capturing(h, &c, m) })
	return c != 0, err
}

func (g *Graph) call(f func(C.ek_graph, **C.char) C.ek_status, also ...pinnable) error {
	if g == nil {
		return closedError()
	}
	return callPinned(g, &g.raw, f, also)
}

// Launch replays the graph on s (nil: the context's default stream).
func (g *Graph) Launch(s *Stream) error {
	return g.call(func(h C.ek_graph, m **C.char) C.ek_status { return C.ekgo_ek_graph_launch(s.rawOrNil(), h, m) }, s)
}

// Upload uploads the graph ahead of its first launch (optional).
func (g *Graph) Upload(s *Stream) error {
	return g.call(func(h C.ek_graph, m **C.char) C.ek_status { return C.ekgo_ek_graph_upload(s.rawOrNil(), h, m) }, s)
}

// Close frees the graph; closing again is a no-op.
func (g *Graph) Close() error {
	if g == nil {
		return nil
	}
	err := g.g.close()
	runtime.SetFinalizer(g, nil)
	return err
}
