package ek

import (
	"errors"
	"math"
	"testing"
	"unsafe"
)

// TestKernelArgMarshalling checks, without a GPU, the C-memory argument
// block every launch builds: sizes, values (decoded in C) and a tensor's
// pointer to its element 0 (a CPU tensor's pointer is host memory).
func TestKernelArgMarshalling(t *testing.T) {
	ctx, err := NewContext(CPUDevice())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := ctx.Close(); err != nil {
			t.Errorf("context close (a handle leaked?): %v", err)
		}
	}()
	x, err := FromSlice(ctx, []int64{4}, []float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	one := int64(1)
	v, err := x.Slice(0, &one, None, 1) // offset 1: element 0 is 2
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	got, err := debugArgs([]Arg{TensorArg(v), Int32Arg(-2), Uint32Arg(7), Int64Arg(-3), Uint64Arg(1 << 40),
		Float32Arg(1.5), Float64Arg(-0.25)})
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{int(unsafe.Sizeof(uintptr(0))), 4, 4, 8, 8, 4, 8}
	for i, b := range got {
		if len(b) != sizes[i] {
			t.Fatalf("argument %d: %d bytes, want %d", i, len(b), sizes[i])
		}
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&got[0][0]))
	if f := *(*float32)(p); f != 2 {
		t.Errorf("tensor argument points to %v, want 2 (element 0 of the view)", f)
	}
	if n := *(*int32)(unsafe.Pointer(&got[1][0])); n != -2 {
		t.Error("int32", n)
	}
	if n := *(*uint32)(unsafe.Pointer(&got[2][0])); n != 7 {
		t.Error("uint32", n)
	}
	if n := *(*int64)(unsafe.Pointer(&got[3][0])); n != -3 {
		t.Error("int64", n)
	}
	if n := *(*uint64)(unsafe.Pointer(&got[4][0])); n != 1<<40 {
		t.Error("uint64", n)
	}
	if f := *(*float32)(unsafe.Pointer(&got[5][0])); f != 1.5 {
		t.Error("float32", f)
	}
	if f := *(*float64)(unsafe.Pointer(&got[6][0])); f != -0.25 || math.Signbit(f) != true {
		t.Error("float64", f)
	}
	// the zero Arg and a closed tensor are refused before any C call
	if _, err := debugArgs([]Arg{Int32Arg(1), {}}); !errors.Is(err, StatusInvalidArgument) {
		t.Error(err)
	}
	y, _ := FromSlice(ctx, []int64{1}, []float32{1})
	y.Close()
	if _, err := debugArgs([]Arg{TensorArg(y)}); !errors.Is(err, StatusNullPointer) {
		t.Error(err)
	}
	if _, err := debugArgs([]Arg{TensorArg(nil)}); !errors.Is(err, StatusNullPointer) {
		t.Error(err)
	}
	if got, err := debugArgs(nil); got != nil || err != nil {
		t.Error(got, err)
	}
}
