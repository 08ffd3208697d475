package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"runtime"
	"time"
	"unsafe"
)

// UniqueID is NCCL's unique id: 128 plain bytes that rank 0 makes
// (NewUniqueID) and sends to every rank by any channel.
type UniqueID [128]byte

// NewUniqueID makes a unique id (ek_comm_get_unique_id). Without NCCL:
// StatusLibrary, "NCCL not found (...)" (EK_NCCL_LIBRARY overrides the file).
func NewUniqueID() (UniqueID, error) {
	var id C.ek_comm_unique_id
	var msg *C.char
	if err := check(C.ekgo_ek_comm_get_unique_id(&id, &msg), msg); err != nil {
		return UniqueID{}, err
	}
	return *(*UniqueID)(unsafe.Pointer(&id.internal[0])), nil
}

func commConfig(timeout time.Duration) C.ek_comm_config {
	ms := timeout.Milliseconds()
	if timeout > 0 && ms == 0 {
		ms = 1
	}
	return C.ek_comm_config{struct_size: C.size_t(unsafe.Sizeof(C.ek_comm_config{})), timeout_ms: C.int64_t(ms)}
}

// Comm is one rank of an NCCL communicator on a CUDA context (ek_comm). A
// step that outlives its timeout (0: EK_COMM_TIMEOUT_MS or 10 minutes) aborts
// it and fails with StatusTimeout.
type Comm struct {
	raw C.ek_comm
	ctx *Context
	own guard
}

func (c *Comm) guardOf() *guard {
	if c == nil {
		return nil
	}
	return &c.own
}

func newComm(raw C.ek_comm, ctx *Context) *Comm {
	c := &Comm{raw: raw, ctx: ctx}
	c.own.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_comm_destroy(raw, &msg), msg)
	}
	runtime.SetFinalizer(c, (*Comm).Close)
	return c
}

// InitRank joins communicator id as rank of nranks on ctx's device.
func InitRank(ctx *Context, nranks int, id UniqueID, rank int, timeout time.Duration) (*Comm, error) {
	var raw C.ek_comm
	cid := *(*C.ek_comm_unique_id)(unsafe.Pointer(&id))
	cfg := commConfig(timeout)
	err := ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_init_rank(h, C.int(nranks), &cid, C.int(rank), &cfg, &raw, m)
	})
	if err != nil {
		return nil, err
	}
	return newComm(raw, ctx), nil
}

// InitAll makes one communicator over ctxs (distinct CUDA devices) in this
// process: element i is rank i. Drive them inside Group.
func InitAll(ctxs []*Context, timeout time.Duration) ([]*Comm, error) {
	if len(ctxs) == 0 {
		return nil, bindingError(StatusInvalidArgument, "ek.InitAll: no context given")
	}
	also := make([]pinnable, len(ctxs))
	raws := make([]C.ek_context, len(ctxs))
	for i, c := range ctxs {
		if c == nil {
			return nil, bindingError(StatusNullPointer, "ek.InitAll: ctxs[%d] is nil", i)
		}
		also[i] = c
	}
	p, err := pin(also...)
	if err != nil {
		return nil, err
	}
	defer p.unpin()
	for i, c := range ctxs {
		raws[i] = c.raw
	}
	out := make([]C.ek_comm, len(ctxs))
	cfg := commConfig(timeout)
	var msg *C.char
	if err := check(C.ekgo_ek_comm_init_all(C.int(len(ctxs)), &raws[0], &cfg, &out[0], &msg), msg); err != nil {
		return nil, err
	}
	comms := make([]*Comm, len(ctxs))
	for i := range out {
		comms[i] = newComm(out[i], ctxs[i])
	}
	return comms, nil
}

// Close finishes and destroys the communicator (ek_comm_destroy); idempotent.
func (c *Comm) Close() error {
	if c == nil {
		return nil
	}
	err := c.own.close()
	runtime.SetFinalizer(c, nil)
	return err
}

func (c *Comm) call(f func(C.ek_comm, **C.char) C.ek_status, also ...pinnable) error {
	if c == nil {
		return closedError()
	}
	return callPinned(c, &c.raw, f, also)
}

// Context returns the context the communicator runs on.
func (c *Comm) Context() *Context { return c.ctx }

// Rank returns this rank's number in the communicator.
func (c *Comm) Rank() (int, error) {
	var v C.int
	err := c.call(func(h C.ek_comm, m **C.char) C.ek_status { return C.ekgo_ek_comm_get_rank(h, &v, m) })
	return int(v), err
}

// Size returns the number of ranks.
func (c *Comm) Size() (int, error) {
	var v C.int
	err := c.call(func(h C.ek_comm, m **C.char) C.ek_status { return C.ekgo_ek_comm_get_size(h, &v, m) })
	return int(v), err
}

// Split returns the communicator of the ranks passing the same color, ordered
// by key; nil for color < 0 (this rank joins none). Every rank calls it.
func (c *Comm) Split(color, key int) (*Comm, error) {
	if color < 0 {
		color = C.EK_COMM_SPLIT_NOCOLOR
	}
	var raw C.ek_comm
	err := c.call(func(h C.ek_comm, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_split(h, C.int(color), C.int(key), nil, &raw, m)
	})
	if err != nil || raw == nil {
		return nil, err
	}
	return newComm(raw, c.ctx), nil
}

// Check returns NCCL's asynchronous error, if any (StatusNotReady while a
// step is in progress).
func (c *Comm) Check() error {
	return c.call(func(h C.ek_comm, m **C.char) C.ek_status { return C.ekgo_ek_comm_get_async_error(h, m) })
}

// Abort aborts the communicator's work now (stuck kernels exit).
func (c *Comm) Abort() error {
	return c.call(func(h C.ek_comm, m **C.char) C.ek_status { return C.ekgo_ek_comm_abort(h, m) })
}

// Synchronize waits for the stream's work (nil: the default stream) within
// the timeout.
func (c *Comm) Synchronize(s *Stream) error {
	return c.call(func(h C.ek_comm, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_synchronize(s.rawOrNil(), h, m)
	}, s)
}

func tensorRaw(t *Tensor) C.ek_tensor {
	if t == nil {
		return nil
	}
	return t.raw
}

// collective runs f with x, out (nil: a new tensor, returned) and the stream.
func (c *Comm) collective(s *Stream, x, out *Tensor, f func(C.ek_stream, C.ek_comm, C.ek_tensor, *C.ek_tensor, **C.char) C.ek_status) (*Tensor, error) {
	o := tensorRaw(out)
	err := c.call(func(h C.ek_comm, m **C.char) C.ek_status {
		return f(s.rawOrNil(), h, tensorRaw(x), &o, m)
	}, s, x, out)
	if err != nil || out != nil {
		return out, err
	}
	if o == nil {
		return nil, nil // reduce on a rank other than the root
	}
	return newTensor(o, c.ctx), nil
}

// AllReduce returns op over ranks of x, into out (which may be x: in place)
// or a new tensor.
func (c *Comm) AllReduce(s *Stream, op ReduceOp, x, out *Tensor) (*Tensor, error) {
	return c.collective(s, x, out, func(st C.ek_stream, h C.ek_comm, xr C.ek_tensor, o *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_all_reduce(st, h, C.ek_reduce_op(op), xr, o, m)
	})
}

// Broadcast returns root's x on every rank.
func (c *Comm) Broadcast(s *Stream, root int, x, out *Tensor) (*Tensor, error) {
	return c.collective(s, x, out, func(st C.ek_stream, h C.ek_comm, xr C.ek_tensor, o *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_broadcast(st, h, C.int(root), xr, o, m)
	})
}

// Reduce returns op over ranks of x on root; nil on other ranks given no out.
func (c *Comm) Reduce(s *Stream, op ReduceOp, root int, x, out *Tensor) (*Tensor, error) {
	return c.collective(s, x, out, func(st C.ek_stream, h C.ek_comm, xr C.ek_tensor, o *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_reduce(st, h, C.ek_reduce_op(op), C.int(root), xr, o, m)
	})
}

// AllGather returns [size, x.shape...]: row r is rank r's x.
func (c *Comm) AllGather(s *Stream, x, out *Tensor) (*Tensor, error) {
	return c.collective(s, x, out, func(st C.ek_stream, h C.ek_comm, xr C.ek_tensor, o *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_all_gather(st, h, xr, o, m)
	})
}

// ReduceScatter takes x of shape [size, ...]: rank r gets op over ranks of x[r].
func (c *Comm) ReduceScatter(s *Stream, op ReduceOp, x, out *Tensor) (*Tensor, error) {
	return c.collective(s, x, out, func(st C.ek_stream, h C.ek_comm, xr C.ek_tensor, o *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_reduce_scatter(st, h, C.ek_reduce_op(op), xr, o, m)
	})
}

// AllToAll takes x of shape [size, ...]: out[q] = rank q's x[this rank].
func (c *Comm) AllToAll(s *Stream, x, out *Tensor) (*Tensor, error) {
	return c.collective(s, x, out, func(st C.ek_stream, h C.ek_comm, xr C.ek_tensor, o *C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_all_to_all(st, h, xr, o, m)
	})
}

// Send sends x to rank peer.
func (c *Comm) Send(s *Stream, x *Tensor, peer int) error {
	return c.call(func(h C.ek_comm, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_send(s.rawOrNil(), h, tensorRaw(x), C.int(peer), m)
	}, s, x)
}

// Recv receives into t from rank peer.
func (c *Comm) Recv(s *Stream, peer int, t *Tensor) error {
	return c.call(func(h C.ek_comm, m **C.char) C.ek_status {
		return C.ekgo_ek_comm_recv(s.rawOrNil(), h, C.int(peer), tensorRaw(t), m)
	}, s, t)
}

// Group runs f between ek_comm_group_start and _end, its collectives fused
// into one launch (needed when one goroutine drives several ranks). NCCL's
// group is per OS thread, so the goroutine is locked to its thread meanwhile.
func Group(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var msg *C.char
	if err := check(C.ekgo_ek_comm_group_start(&msg), msg); err != nil {
		return err
	}
	ferr := f()
	msg = nil
	if err := check(C.ekgo_ek_comm_group_end(&msg), msg); err != nil && ferr == nil {
		return err
	}
	return ferr
}
