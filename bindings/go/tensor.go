package ek

/*
#include "ekgo.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Tensor is a handle to a reference-counted view (ek_tensor): storage, dtype,
// shape, strides and offset. Views share storage, which lives until its last
// view is closed. Close releases the handle; a finalizer releases a forgotten
// one, but only Close frees device memory deterministically. A Tensor may be
// used from several goroutines; Close may race those uses, other Closes and
// the finalizer: the handle is released once, after the calls in progress,
// and every later use returns a StatusNullPointer error ("use of a closed
// handle").
type Tensor struct {
	raw C.ek_tensor // set at creation, passed to C only while pinned
	ctx *Context    // keeps the Go context reachable (finalizers run tensors first)
	g   guard
}

func newTensor(raw C.ek_tensor, ctx *Context) *Tensor {
	t := &Tensor{raw: raw, ctx: ctx}
	t.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_tensor_release(raw, &msg), msg)
	}
	runtime.SetFinalizer(t, (*Tensor).Close)
	return t
}

func (t *Tensor) guardOf() *guard {
	if t == nil {
		return nil
	}
	return &t.g
}

// Close releases this handle (ek_tensor_release), after any call using it
// that is in progress; closing again is a no-op.
func (t *Tensor) Close() error {
	if t == nil {
		return nil
	}
	err := t.g.close()
	runtime.SetFinalizer(t, nil)
	return err
}

// call runs f with t's handle pinned, and with the handles in also pinned.
func (t *Tensor) call(f func(C.ek_tensor, **C.char) C.ek_status, also ...pinnable) error {
	if t == nil {
		return closedError()
	}
	return callPinned(t, &t.raw, f, also)
}

// derive runs a call returning a new tensor through out (NULL on entry): the
// views. The ops (ops.go, ...) go through the ekgo_op_* wrappers and result.
func (t *Tensor) derive(f func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status) (*Tensor, error) {
	var out C.ek_tensor
	if err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return f(h, &out, m) }); err != nil {
		return nil, err
	}
	return newTensor(out, t.ctx), nil
}

func i64ptr(s []int64) *C.int64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&s[0]))
}

func intptr(s []int) (*C.int, []C.int) {
	if len(s) == 0 {
		return nil, nil
	}
	c := make([]C.int, len(s))
	for i, v := range s {
		c[i] = C.int(v)
	}
	return &c[0], c
}

// Clone returns a new handle to the same tensor (ek_tensor_retain); each
// handle is closed separately.
func (t *Tensor) Clone() (*Tensor, error) {
	return t.derive(func(h C.ek_tensor, out *C.ek_tensor, m **C.char) C.ek_status {
		*out = h
		return C.ekgo_ek_tensor_retain(h, m)
	})
}

// ---------------------------------------------------------------- constructors

// FromSlice is a new tensor holding a copy of data (C order); len(data) must
// be the shape's element count.
func FromSlice[T Element](ctx *Context, shape []int64, data []T) (*Tensor, error) {
	return FromSliceOn(ctx, shape, data, nil)
}

// FromSliceOn is FromSlice ordered on s (nil: default stream).
func FromSliceOn[T Element](ctx *Context, shape []int64, data []T, s *Stream) (*Tensor, error) {
	pinned, err := pin(ctx, s)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	// The C call reads numel*size bytes without knowing len(data): check here.
	n, ok := int64(1), true
	for _, d := range shape {
		if d < 0 || (d != 0 && n > (1<<62)/d) {
			ok = false
			break
		}
		n *= d
	}
	if !ok || n != int64(len(data)) {
		return nil, bindingError(StatusShape, "ek.FromSlice: shape %v does not hold the %d values given", shape, len(data))
	}
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	var out C.ek_tensor
	err = ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_tensor_from_host(s.rawOrNil(), h, C.int(len(shape)), i64ptr(shape), C.ek_dtype(DTypeOf[T]()), p, &out, m)
	})
	runtime.KeepAlive(data)
	if err != nil {
		return nil, err
	}
	return newTensor(out, ctx), nil
}

// Wrap makes a tensor over memory owned elsewhere, without copying
// (ek_tensor_wrap without a deleter): device memory for a CUDA context, host
// memory for a CPU context, e.g. from Context.Malloc or C code. strides in
// elements (nil: C-contiguous). libek never frees the memory, which must
// outlive the tensor and its views. It must not be Go memory: the library
// keeps the pointer beyond the call, which cgo forbids.
func Wrap(ctx *Context, data unsafe.Pointer, shape, strides []int64, dt DType) (*Tensor, error) {
	if strides != nil && len(strides) != len(shape) {
		return nil, bindingError(StatusShape, "ek.Wrap: %d strides for %d dims", len(strides), len(shape))
	}
	var out C.ek_tensor
	err := ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_tensor_wrap(h, data, C.int(len(shape)), i64ptr(shape), i64ptr(strides), C.ek_dtype(dt), nil, nil, &out, m)
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out, ctx), nil
}

// DLPackFlags choose whether FromDLPack copies: 0 shares the memory unless
// the source is flagged read-only (then copies, as ek tensors are writable).
type DLPackFlags int

const (
	DLPackCopy   DLPackFlags = C.EK_DLPACK_COPY    // always copy
	DLPackNoCopy DLPackFlags = C.EK_DLPACK_NO_COPY // never copy: a read-only source is StatusNotSupported
)

// ToDLPack exports a view of t as a DLPack 1.x DLManagedTensorVersioned
// (ek_tensor_to_dlpack), a C pointer to read through dlpack.h. It holds a
// reference to the storage, not to t: whoever ends up owning it calls its
// deleter exactly once (a DLPack consumer does; FromDLPack takes it over).
// No device work is waited for.
func (t *Tensor) ToDLPack() (unsafe.Pointer, error) {
	var out *C.struct_DLManagedTensorVersioned
	err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return C.ekgo_ek_tensor_to_dlpack(h, &out, m) })
	if err != nil {
		return nil, err
	}
	return unsafe.Pointer(out), nil
}

// FromDLPack makes a tensor of ctx over the memory of src, a C pointer to a
// DLPack 1.x DLManagedTensorVersioned on ctx's device
// (ek_tensor_from_dlpack). On success the tensor owns src (its deleter runs
// after the last view is closed, or already ran when it was copied); on error
// src is still the caller's, who calls its deleter. The same memory reached
// through another tensor aliases it, as with Wrap.
func FromDLPack(ctx *Context, src unsafe.Pointer, flags DLPackFlags) (*Tensor, error) {
	var out C.ek_tensor
	err := ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_tensor_from_dlpack(h, (*C.struct_DLManagedTensorVersioned)(src), C.int(flags), &out, m)
	})
	if err != nil {
		return nil, err
	}
	return newTensor(out, ctx), nil
}

// Zeros is a tensor of zeros.
func Zeros(ctx *Context, shape []int64, dt DType) (*Tensor, error) { return Full(ctx, shape, 0, dt) }

// ---------------------------------------------------------------- properties

// Info describes a tensor (ek_tensor_info).
type Info struct {
	DType        DType
	Shape        []int64
	Strides      []int64 // elements
	Offset       int64   // elements from the start of the storage
	Numel        int64
	NBytes       uint64
	IsContiguous bool
	Data         unsafe.Pointer // element 0; borrowed
	Device       Device
	StorageBytes uint64
}

// Info returns the tensor's description.
func (t *Tensor) Info() (Info, error) {
	var out Info
	err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status {
		var i C.ek_tensor_info
		s := C.ekgo_ek_tensor_get_info(h, &i, m)
		if s != C.EK_SUCCESS {
			return s
		}
		n := int(i.ndim)
		out = Info{DType: DType(i.dtype), Shape: make([]int64, n), Strides: make([]int64, n), Offset: int64(i.offset),
			Numel: int64(i.numel), NBytes: uint64(i.nbytes), IsContiguous: i.is_contiguous != 0, Data: i.data,
			Device: deviceFromC(i.device), StorageBytes: uint64(i.storage_bytes)}
		// shape and strides point into the handle: copied while it is pinned.
		if n > 0 {
			sh, st := unsafe.Slice(i.shape, n), unsafe.Slice(i.strides, n)
			for d := 0; d < n; d++ {
				out.Shape[d], out.Strides[d] = int64(sh[d]), int64(st[d])
			}
		}
		return s
	})
	if err != nil {
		return Info{}, err
	}
	return out, nil
}

func (t *Tensor) info() Info {
	i, _ := t.Info() // zero Info for a closed tensor
	return i
}

// Shape returns the sizes (nil for a closed tensor).
func (t *Tensor) Shape() []int64 { return t.info().Shape }

// Strides returns the strides in elements.
func (t *Tensor) Strides() []int64 { return t.info().Strides }

// DType returns the element type.
func (t *Tensor) DType() DType { return t.info().DType }

// Numel returns the number of elements.
func (t *Tensor) Numel() int64 { return t.info().Numel }

// IsContiguous reports whether the tensor is C-contiguous.
func (t *Tensor) IsContiguous() bool { return t.info().IsContiguous }

// Device returns the tensor's device.
func (t *Tensor) Device() Device { return t.info().Device }

// Context returns the tensor's context (ek_tensor_get_context); nil for a
// closed tensor.
func (t *Tensor) Context() *Context {
	var raw C.ek_context
	if err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return C.ekgo_ek_tensor_get_context(h, &raw, m) }); err != nil {
		return nil
	}
	return t.ctx.ifHandle(raw)
}

func (t *Tensor) String() string {
	i, err := t.Info()
	if err != nil {
		return "Tensor(closed)"
	}
	return fmt.Sprintf("Tensor(%v, shape=%v, strides=%v, %v)", i.DType, i.Shape, i.Strides, i.Device)
}

// ---------------------------------------------------------------- data movement

// ToSlice copies the values to the host in C order; T must match the dtype
// (StatusDType otherwise: Cast first).
func ToSlice[T Element](t *Tensor) ([]T, error) { return ToSliceOn[T](t, nil) }

// ToSliceOn is ToSlice ordered on s (nil: default stream).
func ToSliceOn[T Element](t *Tensor, s *Stream) ([]T, error) {
	i, err := t.Info()
	if err != nil {
		return nil, err
	}
	if want := DTypeOf[T](); i.DType != want {
		return nil, bindingError(StatusDType, "ek.ToSlice: tensor is %v, asked for %v", i.DType, want)
	}
	n := int(i.Numel)
	if want := Bool; i.DType == want {
		// read bytes: a byte other than 0 or 1 must not become a Go bool
		raw := make([]uint8, n)
		if err := t.toHost(unsafe.Pointer(unsafePtr(raw)), uintptr(n), s); err != nil {
			return nil, err
		}
		out := make([]T, n)
		bs := any(out).([]bool)
		for k, b := range raw {
			bs[k] = b != 0
		}
		return out, nil
	}
	out := make([]T, n)
	if err := t.toHost(unsafe.Pointer(unsafePtr(out)), uintptr(i.NBytes), s); err != nil {
		return nil, err
	}
	return out, nil
}

func unsafePtr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func (t *Tensor) toHost(dst unsafe.Pointer, bytes uintptr, s *Stream) error {
	pinned, err := pin(t, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	err = t.call(func(h C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_tensor_to_host(s.rawOrNil(), h, dst, C.size_t(bytes), m)
	})
	return err
}

// CopyFrom sets t[...] = src, broadcast and cast to t (ek_copy); the two may
// live on different devices.
func (t *Tensor) CopyFrom(src *Tensor) error { return t.CopyFromOn(src, nil) }

// CopyFromOn is CopyFrom on s (nil: default stream).
func (t *Tensor) CopyFromOn(src *Tensor, s *Stream) error {
	pinned, err := pin(t, src, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	if src == nil {
		return &Error{Status: StatusNullPointer, Message: errClosed.Error()}
	}
	err = t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return C.ekgo_ek_copy(s.rawOrNil(), src.raw, h, m) })
	return err
}

// Fill sets every element to value (ek_fill): any Go integer, float or
// bool, exact where it fits the dtype (int64 and uint64 included); a value
// that does not fit an integer dtype (300 into Int8, NaN into Int32) is
// StatusInvalidArgument and t is left as it was.
func (t *Tensor) Fill(value any) error { return t.FillOn(value, nil) }

// FillOn is Fill on s (nil: default stream).
func (t *Tensor) FillOn(value any, s *Stream) error {
	v, err := toScalar("ek.Tensor.Fill: value", value)
	if err != nil {
		return err
	}
	pinned, err := pin(t, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	err = t.call(func(h C.ek_tensor, m **C.char) C.ek_status {
		return C.ekgo_ek_fill(s.rawOrNil(), v, h, m)
	})
	return err
}

// ToContext copies t into ctx (possibly another device).
func (t *Tensor) ToContext(ctx *Context) (*Tensor, error) {
	i, err := t.Info()
	if err != nil {
		return nil, err
	}
	dst, err := Empty(ctx, i.Shape, i.DType)
	if err != nil {
		return nil, err
	}
	if err := dst.CopyFrom(t); err != nil {
		dst.Close()
		return nil, err
	}
	return dst, nil
}

// RecordStream marks the storage as used on s, so its release waits for s.
func (t *Tensor) RecordStream(s *Stream) error {
	pinned, err := pin(t, s)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	err = t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return C.ekgo_ek_tensor_record_stream(s.rawOrNil(), h, m) })
	return err
}

// Item returns the value of a one-element tensor (any number of dims);
// StatusShape for other sizes, StatusDType when T is not the dtype.
func Item[T Element](t *Tensor) (T, error) {
	var zero T
	i, err := t.Info()
	if err != nil {
		return zero, err
	}
	if i.Numel != 1 {
		return zero, bindingError(StatusShape, "ek.Item: the tensor has %d elements, not 1 (shape %v)", i.Numel, i.Shape)
	}
	v, err := ToSlice[T](t)
	if err != nil {
		return zero, err
	}
	return v[0], nil
}

// Handle returns the raw ek_tensor handle as an unsafe.Pointer, for calling
// the C API directly through cgo (convert with (C.ek_tensor)(p) in the
// calling package). Borrowed: valid while t is open; keep t alive
// (runtime.KeepAlive) across the C call.
func (t *Tensor) Handle() unsafe.Pointer {
	if t == nil {
		return nil
	}
	return unsafe.Pointer(t.raw)
}

// Data returns the address of element 0 (ek_tensor_get_data): device memory
// for a CUDA tensor, NULL for an empty one. Borrowed: valid while the
// storage lives.
func (t *Tensor) Data() (unsafe.Pointer, error) {
	var p unsafe.Pointer
	err := t.call(func(h C.ek_tensor, m **C.char) C.ek_status { return C.ekgo_ek_tensor_get_data(h, &p, m) })
	return p, err
}
