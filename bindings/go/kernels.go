package ek

/*
// LaunchAuto and the elementwise builders are experimental in ek.h. cgo
// applies CFLAGS to the whole package; it is named here, where it is needed.
#cgo CFLAGS: -DEK_EXPERIMENTAL
#include "ekgo.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"unsafe"
)

// ---------------------------------------------------------------- modules

// Module is a module of the user's own CUDA code (ek_module): C++ source
// compiled at run time with NVRTC, or an image built ahead of time. CUDA
// contexts only: on a CPU context the constructors return an *Error of
// StatusNotSupported. Close releases it; its kernels keep its code loaded.
type Module struct {
	raw C.ek_module // set at creation, passed to C only while pinned
	ctx *Context    // keeps the Go context reachable while the module lives
	g   guard
}

// ModuleFromSource makes a module of CUDA C++ source, compiled for the
// context's device architecture (libek adds -arch; do not pass it). name
// labels the program in compiler messages ("" for the library's default).
// options are NVRTC options such as "-DN=4" or "--use_fast_math".
// Compilation is lazy: Compile or the first Kernel compiles, or finds the
// image in the kernel cache (memory, then disk; see ek.h). Kernels are looked
// up by symbol name, so declare them extern "C".
func ModuleFromSource(ctx *Context, source, name string, options ...string) (*Module, error) {
	csrc := C.CString(source) // the library copies the strings
	defer C.free(unsafe.Pointer(csrc))
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	// The option array holds C pointers, so it lives in C memory too.
	var copts **C.char
	if len(options) > 0 {
		copts = (**C.char)(C.malloc(C.size_t(len(options)) * C.size_t(unsafe.Sizeof((*C.char)(nil)))))
		if copts == nil {
			return nil, bindingError(StatusOutOfMemory, "ek.ModuleFromSource: no memory for %d options", len(options))
		}
		defer C.free(unsafe.Pointer(copts))
		opts := unsafe.Slice(copts, len(options))
		for i, o := range options {
			opts[i] = C.CString(o)
			defer C.free(unsafe.Pointer(opts[i]))
		}
	}
	var raw C.ek_module
	err := ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_module_from_source(h, csrc, cname, copts, C.int(len(options)), &raw, m)
	})
	if err != nil {
		return nil, err
	}
	return newModule(raw, ctx), nil
}

// ModuleFromImage makes a module of an image built ahead of time: a cubin, a
// fatbin or PTX text. The bytes are loaded before it returns. An image the
// device cannot load is StatusDevice with the driver's message.
func ModuleFromImage(ctx *Context, image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, bindingError(StatusInvalidArgument, "ek.ModuleFromImage: the image is empty")
	}
	// Go memory without Go pointers, read during the call only: may be passed.
	p := unsafe.Pointer(&image[0])
	var raw C.ek_module
	err := ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_module_from_image(h, p, C.size_t(len(image)), &raw, m)
	})
	runtime.KeepAlive(image)
	if err != nil {
		return nil, err
	}
	return newModule(raw, ctx), nil
}

func newModule(raw C.ek_module, ctx *Context) *Module {
	m := &Module{raw: raw, ctx: ctx}
	m.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_module_release(raw, &msg), msg)
	}
	runtime.SetFinalizer(m, (*Module).Close)
	return m
}

func (m *Module) guardOf() *guard {
	if m == nil {
		return nil
	}
	return &m.g
}

func (m *Module) call(f func(C.ek_module, **C.char) C.ek_status) error {
	if m == nil {
		return closedError()
	}
	pinned, err := pin(m)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	var msg *C.char
	return check(f(m.raw, &msg), msg)
}

// Clone returns a new handle to the same module (ek_module_retain), for an
// owner of its own; each handle is closed separately and the module lives
// until the last is.
func (m *Module) Clone() (*Module, error) {
	var raw C.ek_module
	if err := m.call(func(h C.ek_module, msg **C.char) C.ek_status {
		raw = h
		return C.ekgo_ek_module_retain(h, msg)
	}); err != nil {
		return nil, err
	}
	return newModule(raw, m.ctx), nil
}

// Close releases the module (ek_module_release), after any call using it
// that is in progress; its code stays loaded while kernels taken from it
// live. Closing again is a no-op.
func (m *Module) Close() error {
	if m == nil {
		return nil
	}
	err := m.g.close()
	runtime.SetFinalizer(m, nil)
	return err
}

// Compile compiles the module now (or loads it from the caches) if not done
// yet. A compile error is StatusCompile, its Message NVRTC's whole log; a
// failed compilation is not retried.
func (m *Module) Compile() error {
	return m.call(func(h C.ek_module, msg **C.char) C.ek_status { return C.ekgo_ek_module_compile(h, msg) })
}

// Origin says where the module's code came from; ModuleNotLoaded before it
// is compiled, and for a closed module.
func (m *Module) Origin() ModuleOrigin {
	var o C.ek_module_origin
	if err := m.call(func(h C.ek_module, msg **C.char) C.ek_status {
		return C.ekgo_ek_module_get_origin(h, &o, msg)
	}); err != nil {
		return ModuleNotLoaded
	}
	return ModuleOrigin(o)
}

// Kernel returns the kernel of that symbol name, compiling the module first
// if needed. StatusInvalidArgument when the module has no such kernel. The
// kernel keeps the module's code loaded; Close it when done.
func (m *Module) Kernel(name string) (*Kernel, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var raw C.ek_kernel
	if err := m.call(func(h C.ek_module, msg **C.char) C.ek_status {
		return C.ekgo_ek_module_get_kernel(h, cname, &raw, msg)
	}); err != nil {
		return nil, err
	}
	return newKernel(raw, m.ctx, name), nil
}

func newKernel(raw C.ek_kernel, ctx *Context, name string) *Kernel {
	k := &Kernel{raw: raw, ctx: ctx, name: name}
	k.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_kernel_release(raw, &msg), msg)
	}
	runtime.SetFinalizer(k, (*Kernel).Close)
	return k
}

// KernelCacheClear removes every entry of the context's disk kernel cache and
// empties the process's memory cache; loaded modules stay usable. CUDA only.
func KernelCacheClear(ctx *Context) error {
	return ctx.call(func(h C.ek_context, m **C.char) C.ek_status { return C.ekgo_ek_kernel_cache_clear(h, m) })
}

// ---------------------------------------------------------------- kernels

// Kernel is a kernel of a Module (ek_kernel), launched on a stream with
// Launch or LaunchAuto.
type Kernel struct {
	raw  C.ek_kernel // set at creation, passed to C only while pinned
	ctx  *Context
	name string
	g    guard
}

func (k *Kernel) guardOf() *guard {
	if k == nil {
		return nil
	}
	return &k.g
}

// Clone returns a new handle to the same kernel (ek_kernel_retain), for an
// owner of its own (a goroutine that launches it while another may close
// its handle); each handle is closed separately.
func (k *Kernel) Clone() (*Kernel, error) {
	if k == nil {
		return nil, closedError()
	}
	pinned, err := pin(k)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	var msg *C.char
	if err := check(C.ekgo_ek_kernel_retain(k.raw, &msg), msg); err != nil {
		return nil, err
	}
	return newKernel(k.raw, k.ctx, k.name), nil
}

// Close releases the kernel (ek_kernel_release), after any launch in
// progress; closing again is a no-op.
func (k *Kernel) Close() error {
	if k == nil {
		return nil
	}
	err := k.g.close()
	runtime.SetFinalizer(k, nil)
	return err
}

// KernelAttributes describe a compiled kernel (ek_kernel_attributes).
type KernelAttributes struct {
	NumRegs            int    // registers per thread
	MaxThreadsPerBlock int    // the most threads a block of this kernel can have
	SharedBytes        uint64 // static shared memory per block
	ConstBytes         uint64
	LocalBytes         uint64 // per thread (spills, local arrays)
	NumParams          int    // kernel parameters
	ParamBytes         uint64 // their total size, padding included
	PTXVersion         int    // e.g. 90 for the PTX ISA of sm_90
	BinaryVersion      int    // e.g. 90 for sm_90 machine code
}

// Attributes returns the kernel's attributes.
func (k *Kernel) Attributes() (KernelAttributes, error) {
	if k == nil {
		return KernelAttributes{}, closedError()
	}
	pinned, err := pin(k)
	if err != nil {
		return KernelAttributes{}, err
	}
	defer pinned.unpin()
	var a C.ek_kernel_attributes
	var msg *C.char
	if err := check(C.ekgo_ek_kernel_get_attributes(k.raw, &a, &msg), msg); err != nil {
		return KernelAttributes{}, err
	}
	return KernelAttributes{
		NumRegs:            int(a.num_regs),
		MaxThreadsPerBlock: int(a.max_threads_per_block),
		SharedBytes:        uint64(a.shared_bytes),
		ConstBytes:         uint64(a.const_bytes),
		LocalBytes:         uint64(a.local_bytes),
		NumParams:          int(a.num_params),
		ParamBytes:         uint64(a.param_bytes),
		PTXVersion:         int(a.ptx_version),
		BinaryVersion:      int(a.binary_version),
	}, nil
}

// Arg is one kernel argument: a tensor (passed as its device pointer) or a
// fixed-width value, marshalled by the C library (ek_kernel_value). Its type
// must match the kernel parameter's: an int parameter takes Int32Arg, a float
// one Float32Arg, a pointer TensorArg. The zero Arg is invalid.
type Arg struct {
	kind   C.ek_kernel_value_kind
	valid  bool
	tensor *Tensor
	dt     DType  // SCALAR: the C type
	value  any    // SCALAR: the value, as toScalar takes it
	bits   uint64 // BYTES: the value's bits, size bytes of them
	size   int
}

// TensorArg passes t's device pointer (of its element 0, offset included),
// read when the kernel is launched. The kernel sees raw memory: mind t's
// dtype, strides and contiguity. t must stay open until the kernel has run;
// a kernel on another stream than t's allocation stream needs
// t.RecordStream (or an event) before t is closed.
func TensorArg(t *Tensor) Arg { return Arg{kind: C.EK_KERNEL_VALUE_TENSOR, valid: true, tensor: t} }

func scalarArg(dt DType, v any) Arg {
	return Arg{kind: C.EK_KERNEL_VALUE_SCALAR, valid: true, dt: dt, value: v}
}

func bytesArg(bits uint64, size int) Arg {
	return Arg{kind: C.EK_KERNEL_VALUE_BYTES, valid: true, bits: bits, size: size}
}

// Int32Arg passes an int32_t (int) parameter.
func Int32Arg(v int32) Arg { return scalarArg(Int32, v) }

// Uint32Arg passes a uint32_t (unsigned) parameter.
func Uint32Arg(v uint32) Arg { return bytesArg(uint64(v), 4) }

// Int64Arg passes an int64_t (long long) parameter.
func Int64Arg(v int64) Arg { return scalarArg(Int64, v) }

// Uint64Arg passes a uint64_t (unsigned long long, size_t) parameter.
func Uint64Arg(v uint64) Arg { return bytesArg(v, 8) }

// Float32Arg passes a float parameter.
func Float32Arg(v float32) Arg { return scalarArg(Float32, v) }

// Float64Arg passes a double parameter.
func Float64Arg(v float64) Arg { return scalarArg(Float64, v) }

// PointerArg passes a device pointer not owned by a tensor, e.g. from
// Context.Malloc. It must not point to Go memory.
func PointerArg(p unsafe.Pointer) Arg {
	return bytesArg(uint64(uintptr(p)), int(unsafe.Sizeof(p)))
}

// kernelValues is the C memory of a launch's arguments: n ek_kernel_value
// followed by 8 bytes per argument for the BYTES values they point to (cgo
// forbids handing C Go memory that holds Go pointers). free releases it and
// unpins the tensors among the arguments.
type kernelValues struct {
	vals  *C.ek_kernel_value
	n     int
	unpin func()
}

func newKernelValues(fn string, args []Arg) (kernelValues, error) {
	if len(args) == 0 {
		return kernelValues{unpin: func() {}}, nil
	}
	if len(args) > math.MaxInt32 {
		return kernelValues{}, bindingError(StatusInvalidArgument, "%s: %d arguments", fn, len(args))
	}
	tensors := make([]*Tensor, 0, len(args))
	scalars := make([]C.ek_scalar, len(args))
	for i, a := range args {
		if !a.valid {
			return kernelValues{}, bindingError(StatusInvalidArgument, "%s: argument %d is the zero Arg", fn, i)
		}
		if a.kind == C.EK_KERNEL_VALUE_TENSOR {
			tensors = append(tensors, a.tensor)
		}
		if a.kind == C.EK_KERNEL_VALUE_SCALAR {
			var err error
			if scalars[i], err = toScalar(fmt.Sprintf("%s: argument %d", fn, i), a.value); err != nil {
				return kernelValues{}, err
			}
		}
	}
	unpin, err := pinEach(fn+": argument", tensors, false)
	if err != nil {
		return kernelValues{}, err
	}
	size := C.size_t(len(args)) * (C.sizeof_ek_kernel_value + 8)
	mem := C.calloc(1, size)
	if mem == nil {
		unpin()
		return kernelValues{}, bindingError(StatusOutOfMemory, "%s: no memory for %d arguments", fn, len(args))
	}
	vals := unsafe.Slice((*C.ek_kernel_value)(mem), len(args))
	slots := unsafe.Add(mem, len(args)*C.sizeof_ek_kernel_value)
	for i, a := range args {
		v := &vals[i]
		v.kind = a.kind
		switch a.kind {
		case C.EK_KERNEL_VALUE_TENSOR:
			v.tensor = rawOf(a.tensor) // a C pointer: may be stored in C memory
		case C.EK_KERNEL_VALUE_SCALAR:
			v.dtype, v.scalar = C.ek_dtype(a.dt), scalars[i]
		default:
			slot := unsafe.Add(slots, 8*i)
			if a.size == 4 {
				*(*uint32)(slot) = uint32(a.bits)
			} else {
				*(*uint64)(slot) = a.bits
			}
			v.bytes, v.size = slot, C.size_t(a.size)
		}
	}
	return kernelValues{vals: &vals[0], n: len(args), unpin: unpin}, nil
}

func (kv kernelValues) free() {
	C.free(unsafe.Pointer(kv.vals))
	kv.unpin()
}

// launch pins k and stream, marshals args and runs f.
func (k *Kernel) launch(fn string, stream *Stream, args []Arg, f func(kv kernelValues, m **C.char) C.ek_status) error {
	if k == nil {
		return closedError()
	}
	pinned, err := pin(k, stream)
	if err != nil {
		return err
	}
	defer pinned.unpin()
	kv, err := newKernelValues(fn, args)
	if err != nil {
		return err
	}
	defer kv.free()
	var msg *C.char
	return check(f(kv, &msg), msg)
}

// Launch launches the kernel on stream (nil: the default stream of the
// kernel's context) with grid and block sizes {x, y, z}, shared bytes of
// dynamic shared memory and args, which must match the kernel's parameters
// in number and size (StatusInvalidArgument naming the first that differs;
// ek_kernel_launch_values). Asynchronous: synchronize the stream before
// reading results on the host.
func (k *Kernel) Launch(stream *Stream, grid, block [3]uint32, shared uint, args ...Arg) error {
	g := [3]C.unsigned{C.unsigned(grid[0]), C.unsigned(grid[1]), C.unsigned(grid[2])}
	b := [3]C.unsigned{C.unsigned(block[0]), C.unsigned(block[1]), C.unsigned(block[2])}
	return k.launch("ek.Kernel.Launch", stream, args, func(kv kernelValues, m **C.char) C.ek_status {
		return C.ekgo_ek_kernel_launch_values(stream.rawOrNil(), k.raw, &g[0], &b[0], C.size_t(shared), kv.vals, C.int(kv.n), m)
	})
}

// LaunchAuto launches the kernel over n work items with a 1-D block of the
// size that ran fastest for it (timed at the first launch of each problem
// size bucket, so the kernel must give the same result when run several
// times on its arguments) and grid ceil(n / block). It returns the block
// size launched (0 when n is 0: nothing is launched). Experimental
// (ek_kernel_launch_auto is in ek.h's EK_EXPERIMENTAL section): it may
// change in a minor release.
func (k *Kernel) LaunchAuto(stream *Stream, n uint64, shared uint, args ...Arg) (uint32, error) {
	var used C.unsigned
	err := k.launch("ek.Kernel.LaunchAuto", stream, args, func(kv kernelValues, m **C.char) C.ek_status {
		return C.ekgo_ek_kernel_launch_auto(stream.rawOrNil(), k.raw, C.uint64_t(n), C.size_t(shared), kv.vals, C.int(kv.n), &used, m)
	})
	if err != nil {
		return 0, err
	}
	return uint32(used), nil
}

// ---------------------------------------------------------------- elementwise

// ElementwiseKernel is a kernel built from an expression, in the style of
// CuPy's ElementwiseKernel (ek_elementwise): see NewElementwiseKernel.
// Experimental (ek.h's EK_EXPERIMENTAL section): it may change in a minor
// release.
type ElementwiseKernel struct {
	raw  C.ek_elementwise // set at creation, passed to C only while pinned
	ctx  *Context
	nOut int
	g    guard
}

func (k *ElementwiseKernel) guardOf() *guard {
	if k == nil {
		return nil
	}
	return &k.g
}

// NewElementwiseKernel builds an elementwise kernel: inParams
// "float32 x, float32 y", outParams "float32 z", body "z = x * y + max(x, 0.0f)".
// Types are ek dtype names; f16/bf16 parameters are float in the body. The
// body is CUDA C++ and sees each parameter as the element at hand, and i, the
// element's index. name is the kernel's symbol ("" for the library's
// default). Nothing is compiled yet: each specialisation compiles at its
// first Launch. Bad lists are StatusInvalidArgument naming the token, on any
// context; good lists on a CPU context are StatusNotSupported. The kernel
// counts as a live handle of ctx: Close it before the context.
func NewElementwiseKernel(ctx *Context, inParams, outParams, body, name string) (*ElementwiseKernel, error) {
	cin, cout, cbody := C.CString(inParams), C.CString(outParams), C.CString(body)
	defer C.free(unsafe.Pointer(cin))
	defer C.free(unsafe.Pointer(cout))
	defer C.free(unsafe.Pointer(cbody))
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	var raw C.ek_elementwise
	err := ctx.call(func(h C.ek_context, m **C.char) C.ek_status {
		return C.ekgo_ek_elementwise_create(h, cin, cout, cbody, cname, &raw, m)
	})
	if err != nil {
		return nil, err
	}
	// The library accepted outParams: comma-separated "type name" entries.
	k := &ElementwiseKernel{raw: raw, ctx: ctx, nOut: strings.Count(outParams, ",") + 1}
	k.g.free = func() error {
		var msg *C.char
		return check(C.ekgo_ek_elementwise_destroy(raw, &msg), msg)
	}
	runtime.SetFinalizer(k, (*ElementwiseKernel).Close)
	return k, nil
}

// Close frees the kernel and the code it compiled (ek_elementwise_destroy),
// after the context's work when it compiled any, and after any launch in
// progress; closing again is a no-op.
func (k *ElementwiseKernel) Close() error {
	if k == nil {
		return nil
	}
	err := k.g.close()
	runtime.SetFinalizer(k, nil)
	return err
}

// Launch runs the kernel on stream (nil: default) over inputs broadcast
// together (NumPy rules); each must have its parameter's dtype. outputs has
// one entry per output parameter (or is nil: all allocated): a nil entry gets
// a new tensor of the broadcast shape and the parameter's dtype, a given one
// must have that shape and dtype and may be exactly an input (in place).
// It returns the outputs, given or new. On failure nothing new is kept.
// Asynchronous.
func (k *ElementwiseKernel) Launch(stream *Stream, inputs []*Tensor, outputs []*Tensor) ([]*Tensor, error) {
	if k == nil {
		return nil, closedError()
	}
	pinned, err := pin(k, stream)
	if err != nil {
		return nil, err
	}
	defer pinned.unpin()
	if outputs == nil {
		outputs = make([]*Tensor, k.nOut)
	}
	unpinIn, err := pinEach("ek.ElementwiseKernel.Launch: inputs", inputs, false)
	if err != nil {
		return nil, err
	}
	defer unpinIn()
	// A nil output is allocated; a closed one is an error (NULL would allocate).
	unpinOut, err := pinEach("ek.ElementwiseKernel.Launch: outputs", outputs, true)
	if err != nil {
		return nil, err
	}
	defer unpinOut()
	// Handles are C pointers: Go slices of them may be passed to C.
	in := make([]C.ek_tensor, len(inputs)+1)
	for i, x := range inputs {
		in[i] = x.raw
	}
	out := make([]C.ek_tensor, len(outputs)+1)
	for j, y := range outputs {
		out[j] = rawOf(y)
	}
	var msg *C.char
	s := C.ekgo_ek_elementwise_launch(stream.rawOrNil(), k.raw, &in[0], C.int(len(inputs)),
		&out[0], C.int(len(outputs)), &msg)
	if err := check(s, msg); err != nil {
		return nil, err
	}
	res := make([]*Tensor, len(outputs))
	for j, y := range outputs {
		if y != nil {
			res[j] = y
		} else {
			res[j] = newTensor(out[j], k.ctx)
		}
	}
	return res, nil
}
