package ek

/*
#include "ekgo.h"
*/
import "C"

// Indexing and masks, with PyTorch's semantics. Index tensors are int64 or
// int32 (negative values count from the end; out of range is StatusIndex,
// naming the value and the size); masks are bool tensors that broadcast to
// t. MaskedSelect and Nonzero synchronize the stream, since their result's
// size depends on the data.

// IndexSelectOn takes t's slices along dim at the positions of the 1-D index
// (torch.index_select) on stream s (nil: default), into out when not nil.
func (t *Tensor) IndexSelectOn(dim int, index *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, index, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_index_select(s.rawOrNil(), rawOf(t), C.int(dim), rawOf(index), o)
	return result(r, out, contextOf(t))
}

// IndexSelect returns t's slices along dim at the positions of the 1-D index.
func (t *Tensor) IndexSelect(dim int, index *Tensor) (*Tensor, error) {
	return t.IndexSelectOn(dim, index, nil, nil)
}

// GatherOn computes out[i][j] = t[index[i][j]][j] for dim 0 (torch.gather) on
// stream s (nil: default), into out when not nil; the result has index's shape.
func (t *Tensor) GatherOn(dim int, index *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, index, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_gather(s.rawOrNil(), rawOf(t), C.int(dim), rawOf(index), o)
	return result(r, out, contextOf(t))
}

// Gather returns out[i][j] = t[index[i][j]][j] for dim 0 (torch.gather).
func (t *Tensor) Gather(dim int, index *Tensor) (*Tensor, error) {
	return t.GatherOn(dim, index, nil, nil)
}

// ScatterOn computes a copy of t with out[index[i][j]][j] = src[i][j] for dim
// 0 (torch.scatter; with accumulate, scatter_add: duplicates add up) on stream
// s (nil: default), into out when not nil (out may be t: in place). src has
// t's dtype.
func (t *Tensor) ScatterOn(dim int, index, src *Tensor, accumulate bool, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, index, src, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_scatter(s.rawOrNil(), rawOf(t), C.int(dim), rawOf(index), rawOf(src), b2i(accumulate), o)
	return result(r, out, contextOf(t))
}

// Scatter returns a copy of t with src written at index along dim.
func (t *Tensor) Scatter(dim int, index, src *Tensor) (*Tensor, error) {
	return t.ScatterOn(dim, index, src, false, nil, nil)
}

// ScatterAdd returns a copy of t with src added at index along dim.
func (t *Tensor) ScatterAdd(dim int, index, src *Tensor) (*Tensor, error) {
	return t.ScatterOn(dim, index, src, true, nil, nil)
}

// ScatterInto writes the scatter (adding when accumulate) into out (which may be t).
func (t *Tensor) ScatterInto(dim int, index, src *Tensor, accumulate bool, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.ScatterOn(dim, index, src, accumulate, nil, out)
	return err
}

// IndexPutOn computes a copy of t with t[indices[0], ..., indices[n-1]] =
// values (torch.index_put): the index tensors broadcast together and address
// t's first n dims; values broadcast to the indexed shape; accumulate adds
// instead (duplicates add up). On stream s (nil: default), into out when not
// nil (out may be t: in place).
func (t *Tensor) IndexPutOn(indices []*Tensor, values *Tensor, accumulate bool, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, values, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	// nil indices reach C, which names them; closed ones are refused here.
	unpinIdx, err := pinEach("ek.Tensor.IndexPut: indices", indices, true)
	if err != nil {
		return nil, err
	}
	defer unpinIdx()
	// Handles are C pointers: a Go slice of them may be passed to C.
	raw := make([]C.ek_tensor, len(indices)+1)
	for i, x := range indices {
		raw[i] = rawOf(x)
	}
	r := C.ekgo_op_ek_index_put(s.rawOrNil(), rawOf(t), C.int(len(indices)), &raw[0], rawOf(values), b2i(accumulate), o)
	return result(r, out, contextOf(t))
}

// IndexPut returns a copy of t with t[indices...] = values (added when accumulate).
func (t *Tensor) IndexPut(indices []*Tensor, values *Tensor, accumulate bool) (*Tensor, error) {
	return t.IndexPutOn(indices, values, accumulate, nil, nil)
}

// IndexPutInto writes IndexPut into out (which may be t).
func (t *Tensor) IndexPutInto(indices []*Tensor, values *Tensor, accumulate bool, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.IndexPutOn(indices, values, accumulate, nil, out)
	return err
}

// MaskedSelectOn returns the 1-D tensor of t's elements where mask is true,
// in C order, on stream s (nil: default), into out when not nil.
func (t *Tensor) MaskedSelectOn(mask *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, mask, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_masked_select(s.rawOrNil(), rawOf(t), rawOf(mask), o)
	return result(r, out, contextOf(t))
}

// MaskedSelect returns the 1-D tensor of t's elements where mask is true.
func (t *Tensor) MaskedSelect(mask *Tensor) (*Tensor, error) { return t.MaskedSelectOn(mask, nil, nil) }

// MaskedFillOn computes a copy of t with value where mask is true, on stream
// s (nil: default), into out when not nil (out may be t: in place). value is
// converted as by Fill (exact, or StatusInvalidArgument when it does not fit).
func (t *Tensor) MaskedFillOn(mask *Tensor, value any, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, mask, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	v, err := toScalar("ek.Tensor.MaskedFill: value", value)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_masked_fill(s.rawOrNil(), rawOf(t), rawOf(mask), v, o)
	return result(r, out, contextOf(t))
}

// MaskedFill returns a copy of t with value where mask is true.
func (t *Tensor) MaskedFill(mask *Tensor, value any) (*Tensor, error) {
	return t.MaskedFillOn(mask, value, nil, nil)
}

// MaskedFillInto writes MaskedFill into out (which may be t).
func (t *Tensor) MaskedFillInto(mask *Tensor, value any, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.MaskedFillOn(mask, value, nil, out)
	return err
}

// MaskedScatterOn computes a copy of t whose positions where mask is true
// take source's elements in C order, on stream s (nil: default), into out
// when not nil (out may be t: in place).
func (t *Tensor) MaskedScatterOn(mask, source *Tensor, s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, mask, source, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_masked_scatter(s.rawOrNil(), rawOf(t), rawOf(mask), rawOf(source), o)
	return result(r, out, contextOf(t))
}

// MaskedScatter returns a copy of t whose masked positions take source's elements.
func (t *Tensor) MaskedScatter(mask, source *Tensor) (*Tensor, error) {
	return t.MaskedScatterOn(mask, source, nil, nil)
}

// MaskedScatterInto writes MaskedScatter into out (which may be t).
func (t *Tensor) MaskedScatterInto(mask, source, out *Tensor) error {
	if out == nil {
		return closedError()
	}
	_, err := t.MaskedScatterOn(mask, source, nil, out)
	return err
}

// NonzeroOn returns the int64 tensor [n, ndim] of the indices of t's nonzero
// elements, in C order, on stream s (nil: default), into out when not nil.
func (t *Tensor) NonzeroOn(s *Stream, out *Tensor) (*Tensor, error) {
	pinned, err := pin(t, s, out)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	o, err := outOf(out)
	if err != nil {
		return nil, err
	}
	r := C.ekgo_op_ek_nonzero(s.rawOrNil(), rawOf(t), o)
	return result(r, out, contextOf(t))
}

// Nonzero returns the int64 tensor [n, ndim] of the indices of t's nonzero elements.
func (t *Tensor) Nonzero() (*Tensor, error) { return t.NonzeroOn(nil, nil) }
