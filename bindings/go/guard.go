package ek

import "sync/atomic"

// A guard orders the release of a C handle after every call using it, so that
// no call ever passes a released handle to C, whatever goroutines and
// finalizers do. Each call pins the handles it passes for the duration of the
// C call; Close marks the handle closed, after which pins fail with a
// "closed handle" error; the C handle is released exactly once, by Close when
// nothing is pinned, otherwise by the last unpin. Close is idempotent and may
// race other Closes, calls and the finalizer. Cost: one atomic
// compare-and-swap and one atomic add per handle per call.
type guard struct {
	state atomic.Int64 // closedBit | number of pins
	// free releases the C handle. It must not refer to the Go object owning
	// the guard: that cycle would keep the object's finalizer from running.
	free func() error
}

const closedBit = int64(1) << 62

func (g *guard) pin() bool {
	for {
		s := g.state.Load()
		if s&closedBit != 0 {
			return false
		}
		if g.state.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

func (g *guard) unpin() {
	if g.state.Add(-1) == closedBit {
		_ = g.free() // Close has returned: nobody to report a failure to
	}
}

// close marks the guard closed; it releases the handle now when nothing is
// pinned and returns that release's error. Closing again does nothing.
func (g *guard) close() error {
	for {
		s := g.state.Load()
		if s&closedBit != 0 {
			return nil
		}
		if g.state.CompareAndSwap(s, s|closedBit) {
			if s == 0 {
				return g.free()
			}
			return nil
		}
	}
}

// closeIdle closes only when nothing is pinned, and reopens when the release
// fails, so that a failed Close (a context with live handles) can be retried.
func (g *guard) closeIdle() (closed bool, err error) {
	if !g.state.CompareAndSwap(0, closedBit) {
		if g.state.Load()&closedBit != 0 {
			return false, nil
		}
		return false, bindingError(StatusInvalidArgument, "ek: Close of a context while calls on it are in progress")
	}
	if err := g.free(); err != nil {
		g.state.Store(0)
		return false, err
	}
	return true, nil
}

// pinnable is a handle type: its guard, nil for a nil handle (which the C
// library reports as a NULL argument, or reads as "default" for streams).
type pinnable interface{ guardOf() *guard }

// pins holds the guards a call pinned; a value, so that pinning allocates
// nothing on the hot path.
type pins struct {
	gs [8]*guard
	n  int
}

// pin pins every non-nil handle of hs, or none and returns the closed-handle
// error. Unpin after the C call (defer p.unpin()): the guards held keep the
// handles' Go objects reachable until then, as runtime.KeepAlive would.
func pin(hs ...pinnable) (p pins, err error) {
	for _, h := range hs {
		if h == nil {
			continue
		}
		g := h.guardOf()
		if g == nil {
			continue
		}
		if !g.pin() {
			p.unpin()
			return pins{}, closedError()
		}
		p.gs[p.n] = g // at most 8 handles per call: a bug otherwise (index panic)
		p.n++
	}
	return p, nil
}

func (p *pins) unpin() {
	for _, g := range p.gs[:p.n] {
		g.unpin()
	}
	p.n = 0
}

// pinEach pins the tensors of ts, or none; a nil entry is an error unless
// allowNil, and the error names the entry: "<what>[i]: ...".
func pinEach(what string, ts []*Tensor, allowNil bool) (unpin func(), err error) {
	gs := make([]*guard, 0, len(ts))
	unpinAll := func() {
		for _, g := range gs {
			g.unpin()
		}
	}
	for i, t := range ts {
		if t == nil && allowNil {
			continue
		}
		if t == nil || !t.g.pin() {
			unpinAll()
			return nil, bindingError(StatusNullPointer, "%s[%d]: %v", what, i, errClosed)
		}
		gs = append(gs, &t.g)
	}
	return unpinAll, nil
}
