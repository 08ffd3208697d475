package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// Joining and rearranging against hand-computed values: concat, stack, flip,
// roll, repeat, split/chunk/unbind, moveaxis, broadcast, meshgrid, with a
// non-contiguous input, mixed dtypes and bad arguments naming the C function.

// keepAll keeps a list of results for closing at the end of the test.
func (s *scope) keepAll(ts []*ek.Tensor, err error) []*ek.Tensor {
	s.t.Helper()
	if err != nil {
		s.t.Fatal(err)
	}
	s.open = append(s.open, ts...)
	return ts
}

func TestJoinConcatStack(t *testing.T) {
	s := newScope(t)
	m := s.k(from(s, []int64{6}, int32(0), 1, 2, 3, 4, 5).View(2, 3))
	mt := s.k(s.k(m.Transpose(0, 1)).Transpose(0, 1)) // values of m, transposed strides
	c := s.k(ek.Concat([]*ek.Tensor{m, mt}, -1))
	eq(t, c.Shape(), []int64{2, 6}, "concat shape")
	eq(t, vals[int32](s, c), []int32{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}, "concat")
	f := from(s, []int64{1, 3}, 0.5, 1.5, 2.5)
	p := s.k(ek.Concat([]*ek.Tensor{m, f}, 0))
	eq(t, p.DType(), ek.Float64, "promoted dtype")
	eq(t, vals[float64](s, p), []float64{0, 1, 2, 3, 4, 5, 0.5, 1.5, 2.5}, "promoted concat")
	st := s.k(ek.Stack([]*ek.Tensor{m, m}, -1))
	eq(t, st.Shape(), []int64{2, 3, 2}, "stack shape")
	eq(t, vals[int32](s, st), []int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, "stack")
}

func TestJoinBadInput(t *testing.T) {
	s := newScope(t)
	m := s.k(from(s, []int64{6}, int32(0), 1, 2, 3, 4, 5).View(2, 3))
	mt := s.k(m.Transpose(0, 1))
	_, err := ek.Concat([]*ek.Tensor{m, mt}, 0)
	wantErr(t, err, ek.StatusShape, "ek_concat: xs[1] has shape [3,2] but xs[0] has [2,3]")
	_, err = ek.Concat(nil, 0)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_concat: n is 0")
	_, err = m.Flip(0, -2)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_flip: dim 0 appears twice in dims")
	_, err = m.SplitSizes([]int64{1, 1}, 1)
	wantErr(t, err, ek.StatusShape, "ek_view_split_sizes: the 2 sizes add up to 2, but dim 1 has size 3")
	_, err = m.Repeat(1, -2)
	wantErr(t, err, ek.StatusInvalidArgument, "ek_repeat: repeats[1] is -2")
	x := from(s, []int64{2}, float32(1), 2)
	_, err = ek.Meshgrid([]*ek.Tensor{x, s.k(m.Select(0, 0))}, ek.MeshgridIJ)
	wantErr(t, err, ek.StatusDType, "ek_meshgrid: xs[1] is int32 but xs[0] is float32")
	_, err = ek.BroadcastTensors(m, x)
	wantErr(t, err, ek.StatusShape, "ek_broadcast_tensors")
	_, err = ek.Concat([]*ek.Tensor{m, nil}, 0)
	if err == nil {
		t.Fatal("a nil tensor in the list must fail")
	}
}

func TestJoinFlipRollRepeat(t *testing.T) {
	s := newScope(t)
	m := s.k(from(s, []int64{6}, int32(0), 1, 2, 3, 4, 5).View(2, 3))
	eq(t, vals[int32](s, s.k(m.Flip(-1))), []int32{2, 1, 0, 5, 4, 3}, "flip")
	eq(t, vals[int32](s, s.k(m.Roll([]int64{1, -1}, []int{0, 1}))), []int32{4, 5, 3, 1, 2, 0}, "roll")
	mt := s.k(m.Transpose(0, 1))
	eq(t, vals[int32](s, s.k(mt.Roll([]int64{2}, nil))), []int32{2, 5, 0, 3, 1, 4}, "flattened roll")
	r := s.k(m.Repeat(2, 1, 2))
	eq(t, r.Shape(), []int64{2, 2, 6}, "repeat shape")
	eq(t, vals[int32](s, r)[:12], []int32{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}, "repeat")
}

func TestJoinViews(t *testing.T) {
	s := newScope(t)
	m := s.k(from(s, []int64{6}, int32(0), 1, 2, 3, 4, 5).View(2, 3))
	p := s.keepAll(m.Split(2, 1))
	eq(t, len(p), 2, "pieces")
	eq(t, p[0].Shape(), []int64{2, 2}, "piece 0")
	eq(t, vals[int32](s, p[1]), []int32{2, 5}, "piece 1")
	s.nok(p[1].Fill(9)) // a view: writes through to m
	eq(t, vals[int32](s, m), []int32{0, 1, 9, 3, 4, 9}, "through the view")
	eq(t, len(s.keepAll(m.Chunk(2, 1))), 2, "chunks")
	sz := s.keepAll(m.SplitSizes([]int64{1, 0, 2}, -1))
	eq(t, sz[1].Shape(), []int64{2, 0}, "empty piece")
	rows := s.keepAll(m.Unbind(0))
	eq(t, vals[int32](s, rows[1]), []int32{3, 4, 9}, "unbind")
	mv := s.k(m.Moveaxis([]int{0}, []int{-1}))
	eq(t, vals[int32](s, mv), []int32{0, 3, 1, 4, 9, 9}, "moveaxis")
	col := from(s, []int64{2, 1}, int32(10), 20)
	b := s.keepAll(ek.BroadcastTensors(m, col))
	eq(t, b[1].Strides(), []int64{1, 0}, "broadcast strides")
	eq(t, vals[int32](s, b[1]), []int32{10, 10, 10, 20, 20, 20}, "broadcast")
	x := from(s, []int64{3}, float32(1), 2, 3)
	y := from(s, []int64{2}, float32(7), 8)
	g := s.keepAll(ek.Meshgrid([]*ek.Tensor{x, y}, ek.MeshgridXY))
	eq(t, g[0].Shape(), []int64{2, 3}, "xy grid shape")
	eq(t, vals[float32](s, g[1]), []float32{7, 7, 7, 8, 8, 8}, "xy grid")
}
