package ek_test

import (
	"testing"

	ek "github.com/libek/libek/bindings/go"
)

// ek_stream_get_context and ek_tensor_get_context give back the Go context.
func TestGetContext(t *testing.T) {
	s := newScope(t)
	st := must[*ek.Stream](t)(s.ctx.NewStream())
	if c := must[*ek.Context](t)(st.Context()); c != s.ctx {
		t.Fatalf("stream context %p, want %p", c, s.ctx)
	}
	ds := must[*ek.Stream](t)(s.ctx.DefaultStream())
	if c := must[*ek.Context](t)(ds.Context()); c != s.ctx {
		t.Fatal("default stream context")
	}
	s.nok(st.Close())
	wantErr(t, second(st.Context()), ek.StatusNullPointer, "closed")
	x := must[*ek.Tensor](t)(ek.Zeros(s.ctx, []int64{2}, ek.Float32))
	v := s.k(x.Slice(0, ek.Idx(1), nil, 1))
	if x.Context() != s.ctx || v.Context() != s.ctx {
		t.Fatal("tensor context")
	}
	s.nok(x.Close())
	if x.Context() != nil {
		t.Fatal("a closed tensor has no context")
	}
}
