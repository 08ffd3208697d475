package ek

/*
#include "ekgo.h"
*/
import "C"

import "runtime"

// Joining and rearranging (ek.h's section of that name), with PyTorch's
// semantics. Concat, Stack, Flip, Roll, Repeat and Meshgrid copy into new
// tensors; Split, SplitSizes, Chunk, Unbind, Moveaxis and BroadcastTensors
// return views of their input's storage. Every result is a handle to Close.

// MeshgridIndexing lays out Meshgrid's grids.
type MeshgridIndexing int

const (
	// MeshgridIJ is matrix indexing (PyTorch's default): grid i varies along dim i.
	MeshgridIJ MeshgridIndexing = C.EK_MESHGRID_IJ
	// MeshgridXY is Cartesian indexing (NumPy's default): dims 0 and 1 swapped.
	MeshgridXY MeshgridIndexing = C.EK_MESHGRID_XY
)

// rawList pins ts and returns their handles (one spare entry, so that an
// empty list still has an element to point at: C names the empty list).
func rawList(what string, ts []*Tensor) ([]C.ek_tensor, func(), error) {
	unpin, err := pinEach(what, ts, false)
	if err != nil {
		return nil, nil, err
	}
	raw := make([]C.ek_tensor, len(ts)+1)
	for i, t := range ts {
		raw[i] = t.raw
	}
	return raw, unpin, nil
}

func firstContext(ts []*Tensor) *Context {
	if len(ts) == 0 {
		return nil
	}
	return ts[0].ctx
}

// joinList runs ek_concat or ek_stack (f) over ts.
func joinList(what string, ts []*Tensor, f func(n C.int, xs *C.ek_tensor) C.ekgo_result) (*Tensor, error) {
	raw, unpin, err := rawList(what, ts)
	if err != nil {
		return nil, err
	}
	defer unpin()
	return result(f(C.int(len(ts)), &raw[0]), nil, firstContext(ts))
}

// Concat joins the tensors along dim (ek_concat, torch.cat): equal sizes
// outside dim; the dtype promotes all of theirs; 1-D empty tensors are
// skipped, as in PyTorch.
func Concat(ts []*Tensor, dim int) (*Tensor, error) {
	return joinList("ek.Concat: ts", ts, func(n C.int, xs *C.ek_tensor) C.ekgo_result {
		return C.ekgo_op_ek_concat(nil, n, xs, C.int(dim), nil)
	})
}

// Stack joins the tensors (one shape) along a new dim (ek_stack).
func Stack(ts []*Tensor, dim int) (*Tensor, error) {
	return joinList("ek.Stack: ts", ts, func(n C.int, xs *C.ek_tensor) C.ekgo_result {
		return C.ekgo_op_ek_stack(nil, n, xs, C.int(dim), nil)
	})
}

// op runs an ekgo_op_* call on t's handle (pinned) and wraps the new tensor.
func (t *Tensor) op(f func(h C.ek_tensor) C.ekgo_result) (*Tensor, error) {
	pinned, err := pin(t)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	if t == nil {
		return nil, closedError()
	}
	return result(f(t.raw), nil, t.ctx)
}

// Flip returns a copy of t reversed along dims (ek_flip).
func (t *Tensor) Flip(dims ...int) (*Tensor, error) {
	d, keep := intptr(dims)
	r, err := t.op(func(h C.ek_tensor) C.ekgo_result {
		return C.ekgo_op_ek_flip(nil, h, C.int(len(dims)), d, nil)
	})
	runtime.KeepAlive(keep)
	return r, err
}

// Roll returns t with its elements shifted by shifts[i] along dims[i],
// wrapping round (ek_roll, torch.roll); nil dims with one shift rolls the
// flattened tensor.
func (t *Tensor) Roll(shifts []int64, dims []int) (*Tensor, error) {
	if len(dims) != 0 && len(dims) != len(shifts) {
		return nil, bindingError(StatusInvalidArgument, "ek.Tensor.Roll: %d shifts for %d dims", len(shifts), len(dims))
	}
	d, keep := intptr(dims)
	r, err := t.op(func(h C.ek_tensor) C.ekgo_result {
		return C.ekgo_op_ek_roll(nil, h, C.int(len(shifts)), i64ptr(shifts), d, nil)
	})
	runtime.KeepAlive(keep)
	return r, err
}

// Repeat returns t tiled repeats[i] times along dim i (ek_repeat:
// torch.Tensor.repeat, numpy.tile).
func (t *Tensor) Repeat(repeats ...int64) (*Tensor, error) {
	return t.op(func(h C.ek_tensor) C.ekgo_result {
		return C.ekgo_op_ek_repeat(nil, h, C.int(len(repeats)), i64ptr(repeats), nil)
	})
}

// views wraps handles a call wrote as new tensors of t's context.
func (t *Tensor) views(raw []C.ek_tensor) []*Tensor {
	out := make([]*Tensor, len(raw))
	for i, h := range raw {
		out[i] = newTensor(h, t.ctx)
	}
	return out
}

// pieces runs a two-phase split (the count, then the views).
func (t *Tensor) pieces(f func(h C.ek_tensor, capacity C.int64_t, outs *C.ek_tensor, n *C.int64_t, m **C.char) C.ek_status) ([]*Tensor, error) {
	var n C.int64_t
	if err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return f(h, 0, nil, &n, m) }); err != nil {
		return nil, err
	}
	raw := make([]C.ek_tensor, int(n)+1)
	if err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return f(h, n, &raw[0], &n, m) }); err != nil {
		return nil, err
	}
	return t.views(raw[:int(n)]), nil
}

// Split cuts t along dim into views of size splitSize, the last maybe
// smaller (ek_view_split, torch.split).
func (t *Tensor) Split(splitSize int64, dim int) ([]*Tensor, error) {
	return t.pieces(func(h C.ek_tensor, c C.int64_t, o *C.ek_tensor, n *C.int64_t, m **C.char) C.ek_status {
		return C.ekgo_ek_view_split(h, C.int(dim), C.int64_t(splitSize), c, o, n, m)
	})
}

// SplitSizes cuts t along dim into views of the given sizes, which add up
// to dim's size (ek_view_split_sizes).
func (t *Tensor) SplitSizes(sizes []int64, dim int) ([]*Tensor, error) {
	raw := make([]C.ek_tensor, len(sizes)+1)
	err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_split_sizes(h, C.int(dim), C.int64_t(len(sizes)), i64ptr(sizes), &raw[0], m)
	})
	if err != nil {
		return nil, err
	}
	return t.views(raw[:len(sizes)]), nil
}

// Chunk cuts t along dim into chunks views of ceil(size / chunks), maybe
// fewer (ek_view_chunk, torch.chunk).
func (t *Tensor) Chunk(chunks int64, dim int) ([]*Tensor, error) {
	return t.pieces(func(h C.ek_tensor, c C.int64_t, o *C.ek_tensor, n *C.int64_t, m **C.char) C.ek_status {
		return C.ekgo_ek_view_chunk(h, C.int(dim), C.int64_t(chunks), c, o, n, m)
	})
}

// Unbind returns the views t[..., i, ...] along dim for every i (torch.unbind).
func (t *Tensor) Unbind(dim int) ([]*Tensor, error) {
	pieces, err := t.Split(1, dim)
	if err != nil {
		return nil, err
	}
	out := make([]*Tensor, len(pieces))
	for i, p := range pieces {
		out[i], err = p.Squeeze(dim)
		p.Close()
		if err != nil {
			for _, o := range out[:i] {
				o.Close()
			}
			return nil, err
		}
	}
	return out, nil
}

// Moveaxis returns a view of t with dims src moved to dst
// (ek_view_moveaxis, numpy.moveaxis, torch.movedim).
func (t *Tensor) Moveaxis(src, dst []int) (*Tensor, error) {
	if len(src) != len(dst) {
		return nil, bindingError(StatusInvalidArgument, "ek.Tensor.Moveaxis: %d source dims but %d destinations", len(src), len(dst))
	}
	s, keepS := intptr(src)
	d, keepD := intptr(dst)
	r, err := t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_view_moveaxis(h, C.int(len(src)), s, d, out, m)
	})
	runtime.KeepAlive(keepS)
	runtime.KeepAlive(keepD)
	return r, err
}

// BroadcastTensors returns views of the tensors expanded to their broadcast
// shape (ek_broadcast_tensors; stride 0 where broadcast).
func BroadcastTensors(ts ...*Tensor) ([]*Tensor, error) {
	return multiOut("ek.BroadcastTensors: ts", ts, func(n C.int, xs, outs *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_broadcast_tensors(n, xs, outs, m)
	})
}

// Meshgrid returns the coordinate grids of the 1-D tensors (one dtype), as
// copies (ek_meshgrid).
func Meshgrid(ts []*Tensor, indexing MeshgridIndexing) ([]*Tensor, error) {
	return multiOut("ek.Meshgrid: ts", ts, func(n C.int, xs, outs *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_meshgrid(nil, n, xs, C.ek_meshgrid_indexing(indexing), outs, m)
	})
}

// multiOut runs a call taking n tensors and writing n new handles.
func multiOut(what string, ts []*Tensor, f func(n C.int, xs, outs *C.ek_tensor, m **C.char) C.ek_status) ([]*Tensor, error) {
	raw, unpin, err := rawList(what, ts)
	if err != nil {
		return nil, err
	}
	defer unpin()
	outs := make([]C.ek_tensor, len(ts)+1)
	var msg *C.char
	if err := check(f(C.int(len(ts)), &raw[0], &outs[0], &msg), msg); err != nil {
		return nil, err
	}
	res := make([]*Tensor, len(ts))
	for i := range ts {
		res[i] = newTensor(outs[i], ts[i].ctx)
	}
	return res, nil
}
