package ek_test

import (
	"math"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// Sorting and searching against hand-computed values: Sort (stable, NaN
// last), Argsort, Topk, Searchsorted, Unique with inverse and counts,
// CountNonzero, Diff, and a bad k's message naming the C function.

func TestSortArgsortTopk(t *testing.T) {
	s := newScope(t)
	x := from(s, []int64{2, 3}, float32(3), float32(math.NaN()), 1, 2, 2, 0)
	v, i := s.k2(x.Sort(1, false, true))
	eq(t, vals[int64](s, i), []int64{2, 0, 1, 2, 0, 1}, "sort indices")
	if got := vals[float32](s, v); got[0] != 1 || got[1] != 3 || !math.IsNaN(float64(got[2])) {
		t.Fatalf("sort values %v", got)
	}
	a := s.k(x.Argsort(-1, true, true))
	eq(t, vals[int64](s, a), []int64{1, 0, 2, 0, 1, 2}, "argsort descending")
	y := from(s, []int64{5}, int32(4), 9, 1, 7, 3)
	tv, ti := s.k2(y.Topk(2, 0, true, true))
	eq(t, vals[int32](s, tv), []int32{9, 7}, "topk values")
	eq(t, vals[int64](s, ti), []int64{1, 3}, "topk indices")
	_, _, err := y.Topk(6, 0, true, true)
	wantErr(t, err, ek.StatusIndex, "ek_topk: k 6 is out of range [0, 5] for dim 0 of size 5")
}

func TestSearchUniqueCountDiff(t *testing.T) {
	s := newScope(t)
	seq := from(s, []int64{4}, int64(1), 2, 2, 5)
	q := from(s, []int64{3}, int64(2), 0, 6)
	eq(t, vals[int64](s, s.k(seq.Searchsorted(q, false, ek.Int64))), []int64{1, 0, 4}, "left")
	eq(t, vals[int32](s, s.k(seq.Searchsorted(q, true, ek.Int32))), []int32{3, 0, 4}, "right int32")
	x := from(s, []int64{2, 3}, int32(3), 1, 3, 0, 1, 1)
	u, inv, cnt, err := x.Unique(true, true)
	s.nok(err)
	s.open = append(s.open, u, inv, cnt)
	eq(t, vals[int32](s, u), []int32{0, 1, 3}, "unique")
	eq(t, vals[int64](s, inv), []int64{2, 1, 2, 0, 1, 1}, "inverse")
	eq(t, vals[int64](s, cnt), []int64{1, 3, 2}, "counts")
	u2, inv2, cnt2, err := x.Unique(false, false)
	s.nok(err)
	s.open = append(s.open, u2)
	if inv2 != nil || cnt2 != nil {
		t.Fatal("unasked outputs are not nil")
	}
	eq(t, vals[int64](s, s.k(x.CountNonzero([]int{1}, false))), []int64{3, 2}, "count_nonzero")
	eq(t, vals[int32](s, s.k(x.Diff(1, -1, nil, nil))), []int32{-2, 2, 1, 0}, "diff")
}
