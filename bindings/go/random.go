package ek

/*
#include "ekgo.h"
*/
import "C"

// PhiloxState is a counter-based generator state (ek_philox_state): element
// i (C order) of a filled tensor takes its numbers from counter Offset + i
// under key Seed, so the same state gives the same values on the CPU and on
// CUDA.
type PhiloxState struct {
	Seed, Offset uint64
}

// RandomWith fills t in place from dist with parameters a, b (ek_random):
// with state when not nil (the context's generator is then left alone), else
// with the context's generator, whose offset advances by t's element count;
// on stream s (nil: default). a and b are Go integers or floats, passed with
// their kind (RandomRandint's bounds are exact integers, beyond 2^53
// included). Bad parameters (b <= a, std < 0, p outside [0, 1]) are
// StatusInvalidArgument.
func (t *Tensor) RandomWith(dist RandomDist, a, b any, state *PhiloxState, s *Stream) error {
	ca, cb, err := toScalars("ek.Tensor.Random: a", a, "ek.Tensor.Random: b", b)
	if err != nil {
		return err
	}
	pinned, err := pin(t, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	var st *C.ek_philox_state
	if state != nil {
		st = &C.ek_philox_state{seed: C.uint64_t(state.Seed), offset: C.uint64_t(state.Offset)}
		st.struct_size = C.sizeof_ek_philox_state
	}
	var msg *C.char
	return check(C.ekgo_ek_random(s.rawOrNil(), C.ek_random_dist(dist), ca, cb, st, rawOf(t), &msg), msg)
}

// Random fills t in place from dist with parameters a, b, using the
// context's generator.
func (t *Tensor) Random(dist RandomDist, a, b any) error {
	return t.RandomWith(dist, a, b, nil, nil)
}

// RandomTensor is a new tensor drawn from dist (parameters a, b) by the
// context's generator.
func RandomTensor(ctx *Context, shape []int64, dt DType, dist RandomDist, a, b any) (*Tensor, error) {
	t, err := Empty(ctx, shape, dt)
	if err != nil {
		return nil, err
	}
	if err := t.Random(dist, a, b); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Rand is a new tensor uniform on [0, 1).
func Rand(ctx *Context, shape []int64, dt DType) (*Tensor, error) {
	return RandomTensor(ctx, shape, dt, RandomUniform, 0, 1)
}

// Randn is a new standard normal tensor.
func Randn(ctx *Context, shape []int64, dt DType) (*Tensor, error) {
	return RandomTensor(ctx, shape, dt, RandomNormal, 0, 1)
}

// SetRandomSeed seeds the context's generator and resets its offset to 0
// (ek_random_set_seed).
func (c *Context) SetRandomSeed(seed uint64) error {
	return c.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_random_set_seed(h, C.uint64_t(seed), m)
	})
}

// RandomState returns the generator's current seed and offset (ek_random_get_state).
func (c *Context) RandomState() (PhiloxState, error) {
	var st C.ek_philox_state
	err := c.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_random_get_state(h, &st, m) })
	return PhiloxState{Seed: uint64(st.seed), Offset: uint64(st.offset)}, err
}
