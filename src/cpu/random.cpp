// ek_random on the CPU: a C-order walk over t's strides (cpu/strided.hpp); the
// element with C-order index i gets rng::generate(..., i, ...).
#include "cpu/random.hpp"

#include "cpu/strided.hpp"

namespace ek {
namespace cpu {

int random(const rng::Params &g, const TensorDesc &t) {
  if (!desc_valid(t)) return 1;
  Strided<1> w(t.ndim, t.shape, {&t});
  w.coalesce();  // C order is kept, so a count gives each element's index
  char *base = static_cast<char *>(t.data);
  uint64_t i = 0;
  w.for_each([&](const int64_t *off, const int64_t *) { rng::generate(g, t.dtype, i++, base + off[0]); });
  return 0;
}

}  // namespace cpu
}  // namespace ek
