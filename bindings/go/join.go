package ek

/*
#include "ekgo.h"
*/
import "C"

// Joining and rearranging (ek.h's section of that name), with PyTorch's
// semantics. Concat, Stack, Flip, Roll, Repeat and Moveaxis are generated
// (ops_gen.go); Split, SplitSizes, Chunk, Unbind and BroadcastTensors return
// views of their input's storage, Meshgrid copies. Every result is a handle
// to Close.

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
	for i, t := range ts {
		if t == nil {
			return nil, bindingError(StatusNullPointer, "%s[%d]: %v", what, i, errClosed)
		}
	}
	raw, unpin, err := tensorList(what, ts)
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
