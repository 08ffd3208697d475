// Straightforward reference implementation: walk the index space in C order
// (cpu/strided.hpp) and convert element by element through the shared rules
// in half.hpp. Clarity over speed; the CUDA backend is the fast one.
#include "cpu/copy.hpp"

#include <cstring>

#include "cpu/strided.hpp"
#include "ops/range_plan.hpp"
#include "util/half.hpp"

namespace ek {
namespace cpu {

int copy(const TensorDesc &dst, const TensorDesc &src, void *) {
  if (!desc_valid(dst) || !desc_valid(src) || !desc_same_shape(dst, src)) return 1;
  Strided<2> w(dst.ndim, dst.shape, {&dst, &src});
  w.coalesce();
  char *d = static_cast<char *>(dst.data);
  const char *s = static_cast<const char *>(src.data);
  const size_t es = dtype_size(dst.dtype);
  if (dst.dtype == src.dtype) {  // same dtype: bytes move untouched (NaN payloads too)
    w.for_each([&](const int64_t *off, const int64_t *) { std::memcpy(d + off[0], s + off[1], es); });
    return 0;
  }
  w.for_each([&](const int64_t *off, const int64_t *) {
    detail::store_scalar(d + off[0], dst.dtype, detail::load_scalar(s + off[1], src.dtype));
  });
  return 0;
}

int fill(const TensorDesc &dst, uint64_t elem, void *) {
  if (!desc_valid(dst)) return 1;
  int64_t n = desc_numel(dst);
  if (n == 0) return 0;
  Strided<1> w(dst.ndim, dst.shape, {&dst});
  w.coalesce();
  char *d = static_cast<char *>(dst.data);
  const size_t es = dtype_size(dst.dtype);
  w.for_each([&](const int64_t *off, const int64_t *) { std::memcpy(d + off[0], &elem, es); });
  return 0;
}

int arange(const TensorDesc &dst, const RangePlan &p, void *) {
  if (!desc_valid(dst)) return 1;
  Strided<1> w(dst.ndim, dst.shape, {&dst});
  w.coalesce();  // C order is kept, so a count gives each element's index
  char *d = static_cast<char *>(dst.data);
  int64_t i = 0;
  w.for_each([&](const int64_t *off, const int64_t *) {
    detail::store_scalar(d + off[0], dst.dtype,
                         detail::range_scalar(p, i++));
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
