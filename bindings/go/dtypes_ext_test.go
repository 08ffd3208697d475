package ek_test

import (
	"math"
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// uint16, uint32 and uint64 (issue 18): Go's unsigned slices as elements,
// values above 2^63 in the unsigned order, NumPy promotion, a bad fill value.

const top = uint64(1) << 63

func TestUnsignedRoundTripsAndViews(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{2, 2}, uint16(0), 1, math.MaxUint16, 7)
	eq(t, a.DType(), ek.Uint16, "uint16 dtype")
	eq(t, vals[uint16](s, s.k(s.k(a.Transpose(0, 1)).Contiguous())), []uint16{0, math.MaxUint16, 1, 7}, "transposed")
	b := from(s, []int64{3}, uint32(0), math.MaxUint32, 5)
	eq(t, vals[uint32](s, b), []uint32{0, math.MaxUint32, 5}, "uint32")
	e := s.k(ek.FromSlice(s.ctx, []int64{0}, []uint64{}))
	eq(t, s.k(e.Sum(nil, false)).DType(), ek.Uint64, "sum of uint64 is uint64")
	eq(t, ek.Uint64.Size(), 8, "size")
	eq(t, ek.Uint32.String(), "uint32", "name")
}

func TestUint64OrderAndPromotion(t *testing.T) {
	s := newScope(t)
	a := from(s, []int64{4}, uint64(1), top+5, math.MaxUint64, top-1)
	b := from(s, []int64{4}, uint64(2), top, 3, top)
	eq(t, vals[uint64](s, s.k(a.Maximum(b))), []uint64{2, top + 5, math.MaxUint64, top}, "maximum")
	eq(t, vals[bool](s, s.k(a.Lt(b))), []bool{true, false, false, true}, "lt")
	eq(t, vals[uint64](s, s.k(a.Max(nil, false))), []uint64{math.MaxUint64}, "max")
	u := from(s, []int64{2}, uint16(1), 2)
	i := from(s, []int64{2}, int16(1), 2)
	eq(t, s.k(u.Add(i)).DType(), ek.Int32, "uint16 + int16")
	eq(t, s.k(a.Add(from(s, []int64{4}, int64(1), 2, 3, 4))).DType(), ek.Float64, "uint64 + int64")
}

func TestUnsignedFillOutOfRange(t *testing.T) {
	s := newScope(t)
	_, err := ek.Full(s.ctx, []int64{2}, 70000, ek.Uint16)
	wantErr(t, err, ek.StatusInvalidArgument, "uint16")
}
