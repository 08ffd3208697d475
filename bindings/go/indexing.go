package ek

/*
#include "ekgo.h"
*/
import "C"

import "math"

// Indexing by a key, t[key] and t[key] = value with NumPy's rules, resolved
// by the C library (ek_index, ek_index_assign) so every binding agrees. A key
// item is an integer (a position: the dim goes away), an IndexItem (Int,
// Slice, NewAxis, Ellipsis) or a *Tensor (an int64/int32 index tensor, or a
// bool mask). IndexSelect, Gather, Scatter, IndexPut, MaskedSelect,
// MaskedFill, MaskedScatter and Nonzero (ops_gen.go) take index tensors
// directly.

// IndexItem is one item of an indexing key (ek_index_item).
type IndexItem struct {
	kind              C.ek_index_kind
	start, stop, step int64
	t                 *Tensor
}

// None is a slice bound meaning Python's None ("from the start" / "to the end").
var None *int64

// Idx is a slice bound: Idx(-1) means index -1.
func Idx(i int64) *int64 { return &i }

var (
	// NewAxis inserts a dim of size 1 (Python's None in a key).
	NewAxis = IndexItem{kind: C.EK_INDEX_NONE}
	// Ellipsis stands for as many full slices as the other items leave (...).
	Ellipsis = IndexItem{kind: C.EK_INDEX_ELLIPSIS}
)

// Int is position i of the next dim (negative counts from the end).
func Int(i int64) IndexItem { return IndexItem{kind: C.EK_INDEX_INT, start: i} }

// Slice is start:stop:step of the next dim with Python's rules; None (a nil
// bound) is an open end.
func Slice(start, stop *int64, step int64) IndexItem {
	a, b := sliceBounds(start, stop, step)
	return IndexItem{kind: C.EK_INDEX_SLICE, start: a, stop: b, step: step}
}

// sliceBounds resolves open ends: the first element in the step's direction
// and past the last, which the library clamps (EK_SLICE_MIN/MAX).
func sliceBounds(start, stop *int64, step int64) (int64, int64) {
	a, b := int64(math.MinInt64), int64(math.MaxInt64)
	if step < 0 {
		a, b = b, a
	}
	if start != nil {
		a = *start
	}
	if stop != nil {
		b = *stop
	}
	return a, b
}

// indexKey converts key to ek_index_items and pins its tensors.
func indexKey(what string, key []any) ([]C.ek_index_item, func(), error) {
	items := make([]C.ek_index_item, len(key)+1)
	tensors := []*Tensor{}
	for i, k := range key {
		var it IndexItem
		switch v := k.(type) {
		case IndexItem:
			it = v
		case int:
			it = Int(int64(v))
		case int64:
			it = Int(v)
		case *Tensor:
			if v == nil {
				return nil, nil, bindingError(StatusNullPointer, "%s: key[%d] is a nil tensor", what, i)
			}
			it = IndexItem{kind: C.EK_INDEX_TENSOR, t: v}
		default:
			return nil, nil, bindingError(StatusInvalidArgument, "%s: key[%d] is a %s, not an int, IndexItem or *Tensor", what, i, typeName(k))
		}
		items[i].kind, items[i].start, items[i].stop, items[i].step = it.kind, C.int64_t(it.start), C.int64_t(it.stop), C.int64_t(it.step)
		if it.t != nil {
			tensors = append(tensors, it.t)
		}
	}
	unpin, err := pinEach(what+": key tensor", tensors, false)
	if err != nil {
		return nil, nil, err
	}
	for i, j := 0, 0; i < len(key); i++ { // handles read once pinned
		if items[i].kind == C.EK_INDEX_TENSOR {
			items[i].tensor, j = tensors[j].raw, j+1
		}
	}
	return items, unpin, nil
}

// Index returns t[key...] (ek_index): a view for a basic key (no tensor
// items), a new tensor otherwise. t.Index(Ellipsis, idx, Slice(None, None, -2))
// is x[..., idx, ::-2].
func (t *Tensor) Index(key ...any) (*Tensor, error) {
	items, unpin, err := indexKey("ek.Tensor.Index", key)
	if err != nil {
		return nil, err
	}
	defer unpin()
	pinned, err := pin(t)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	var out C.ek_tensor
	var msg *C.char
	if err := check(C.ekgo_ek_index(nil, rawOf(t), C.int(len(key)), &items[0], &out, &msg), msg); err != nil {
		return nil, err
	}
	return newTensor(out, t.ctx), nil
}

// IndexAssign sets t[key...] = value in place (ek_index_assign); value
// broadcasts to t[key...]'s shape and casts to t's dtype. With accumulate it
// adds instead (duplicate indices add up).
func (t *Tensor) IndexAssign(value *Tensor, accumulate bool, key ...any) error {
	items, unpin, err := indexKey("ek.Tensor.IndexAssign", key)
	if err != nil {
		return err
	}
	defer unpin()
	pinned, err := pin(t, value)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	var msg *C.char
	return check(C.ekgo_ek_index_assign(nil, rawOf(value), b2i(accumulate), rawOf(t), C.int(len(key)), &items[0], &msg), msg)
}
