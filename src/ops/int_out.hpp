// The integer-*out rule of sum, prod, cumsum and cumprod (ek.h): bool and
// integer inputs accumulate in int64, and a given *out of another integer
// dtype receives that result wrapped to its width, which equals wrapping
// arithmetic in *out's dtype (how dtype=int32 is honoured).
#pragma once

#include "core/internal.hpp"
#include "ops/promote.hpp"

namespace ek {

// Whether the rule applies: an int64 result of a bool/integer input and a
// given *out of another integer (not bool) dtype.
inline bool wraps_into_out(ek_dtype x_dtype, ek_dtype result, const ek_tensor_s *given) {
  return given && result == EK_INT64 && category(x_dtype) < 2 && given->dtype != result &&
         category(given->dtype) == 1;
}

// compute(&tmp) into a new int64 tensor, then stored into out (whose
// context and shape[ndim] are checked first) by the cast rule.
template <typename Compute>  // ek_status(ek_tensor *tmp)
ek_status wrap_into_out(ek_stream s, ek_tensor out, int ndim, const int64_t *shape,
                        Compute compute) {
  ek_tensor o = out, tmp = nullptr;
  bool created = false;
  EK_FORWARD(prepare_out(out->storage->ctx, s, ndim, shape, out->dtype, &o, &created));
  EK_FORWARD(compute(&tmp));
  const ek_status st = ek_copy(s, tmp, o);
  ek_tensor_release(tmp);
  return st;
}

}  // namespace ek
