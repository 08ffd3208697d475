package ek

/*
#include "ekgo.h"
*/
import "C"

// Size is the bytes per element; 0 for an unknown dtype.
func (d DType) Size() int { return int(C.ek_dtype_size(C.ek_dtype(d))) }

// String is the library's name, e.g. "float32"; "unknown" otherwise.
func (d DType) String() string { return C.GoString(C.ek_dtype_name(C.ek_dtype(d))) }

// Float16Bits holds the bits of an IEEE float16 value.
type Float16Bits uint16

// BFloat16Bits holds the bits of a bfloat16 value (the high half of a float32).
type BFloat16Bits uint16

// Element lists the Go types whose memory layout is a dtype's.
type Element interface {
	bool | uint8 | int8 | int16 | int32 | int64 | uint16 | uint32 | uint64 | float32 | float64 | Float16Bits | BFloat16Bits |
		complex64 | complex128
}

// DTypeOf is the dtype whose elements are Ts.
func DTypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case bool:
		return Bool
	case uint8:
		return Uint8
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case float32:
		return Float32
	case float64:
		return Float64
	case Float16Bits:
		return Float16
	case complex64: // Go's complex types are laid out as ek's: real part first
		return Complex64
	case complex128:
		return Complex128
	default: // BFloat16Bits
		return BFloat16
	}
}
