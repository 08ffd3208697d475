// ek_random on the CPU: a C-order odometer over t's strides; the element with
// C-order index i gets rng::generate(..., i, ...).
#include "cpu/random.hpp"

namespace ek {
namespace cpu {

int random(const rng::Params &g, const TensorDesc &t) {
  if (!desc_valid(t)) return 1;
  const int64_t n = desc_numel(t), elem = int64_t(dtype_size(t.dtype));
  int64_t idx[kMaxDims] = {}, off = 0;  // off: bytes from element 0
  char *base = static_cast<char *>(t.data);
  for (int64_t i = 0; i < n; ++i) {
    rng::generate(g, t.dtype, uint64_t(i), base + off);
    for (int d = t.ndim - 1; d >= 0; --d) {  // odometer step in C order
      off += t.strides[d] * elem;
      if (++idx[d] < t.shape[d]) break;
      off -= t.strides[d] * elem * t.shape[d];
      idx[d] = 0;
    }
  }
  return 0;
}

}  // namespace cpu
}  // namespace ek
