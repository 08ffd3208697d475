package ek

/*
#include "ekgo.h"
*/
import "C"

import "fmt"

// toScalar is the one place a Go value becomes an ek_scalar, which carries
// its kind so that 64-bit integers stay exact: bool as a bool, signed
// integers as int64, unsigned ones as uint64, floats as float64. Every value
// argument goes through it (fill values, scalar operands, clamp bounds,
// coefficients, arange and random bounds, gemm's alpha and beta); what names
// the argument in the error for any other type ("ek.Tensor.Fill: value").
// The library decides what each kind may do (an integer kind keeps an
// integer tensor's arithmetic integral; a value that does not fit an integer
// dtype is refused).
func toScalar(what string, value any) (C.ek_scalar, error) {
	var s C.ek_scalar
	switch v := value.(type) {
	case bool:
		s.kind = C.EK_SCALAR_BOOL
		if v {
			s.i = 1
		}
	case int:
		s.kind, s.i = C.EK_SCALAR_INT64, C.int64_t(v)
	case int8:
		s.kind, s.i = C.EK_SCALAR_INT64, C.int64_t(v)
	case int16:
		s.kind, s.i = C.EK_SCALAR_INT64, C.int64_t(v)
	case int32:
		s.kind, s.i = C.EK_SCALAR_INT64, C.int64_t(v)
	case int64:
		s.kind, s.i = C.EK_SCALAR_INT64, C.int64_t(v)
	case uint:
		s.kind, s.u = C.EK_SCALAR_UINT64, C.uint64_t(v)
	case uint8:
		s.kind, s.u = C.EK_SCALAR_UINT64, C.uint64_t(v)
	case uint16:
		s.kind, s.u = C.EK_SCALAR_UINT64, C.uint64_t(v)
	case uint32:
		s.kind, s.u = C.EK_SCALAR_UINT64, C.uint64_t(v)
	case uint64:
		s.kind, s.u = C.EK_SCALAR_UINT64, C.uint64_t(v)
	case float32:
		s.kind, s.f = C.EK_SCALAR_FLOAT64, C.double(v)
	case float64:
		s.kind, s.f = C.EK_SCALAR_FLOAT64, C.double(v)
	case complex64:
		s.kind, s.f, s.imag = C.EK_SCALAR_COMPLEX, C.double(real(v)), C.double(imag(v))
	case complex128:
		s.kind, s.f, s.imag = C.EK_SCALAR_COMPLEX, C.double(real(v)), C.double(imag(v))
	default:
		return s, bindingError(StatusInvalidArgument, "%s must be a Go integer, float, complex or bool, not %s", what, typeName(value))
	}
	return s, nil
}

// toScalars converts two values (coefficients, bounds) named whatA and whatB.
func toScalars(whatA string, a any, whatB string, b any) (C.ek_scalar, C.ek_scalar, error) {
	sa, err := toScalar(whatA, a)
	if err != nil {
		return sa, sa, err
	}
	sb, err := toScalar(whatB, b)
	return sa, sb, err
}

func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprintf("%T", v)
}
