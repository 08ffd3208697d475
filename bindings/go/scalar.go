package ek

/*
#include "ekgo.h"
*/
import "C"

import "fmt"

// toScalar passes a Fill or MaskedFill value to the library with its kind
// (ek_scalar), so 64-bit integers stay exact: bool as a bool, signed integers
// as int64, unsigned ones as uint64, floats as float64. The library refuses a
// value that does not fit an integer dtype (StatusInvalidArgument).
func toScalar(value any) (C.ek_scalar, error) {
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
	default:
		return s, &Error{Status: StatusInvalidArgument,
			Message: fmt.Sprintf("ek: a fill value must be a Go integer, float or bool, not %T", value)}
	}
	return s, nil
}
