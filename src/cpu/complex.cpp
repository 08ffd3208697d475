// The complex elementwise loop (src/ops/complex_plan.hpp has the math): one
// strided walk over out, a and b, in parallel runs.
#include "cpu/complex.hpp"

#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"

namespace ek {
namespace cpu {

int complex_elementwise(const cx::Args &g, int threads) {
  const bool use_a = g.scalar != 1, use_b = g.binary && g.scalar != 2;
  if (!desc_valid(g.out) || (use_a && !desc_valid(g.a)) || (use_b && !desc_valid(g.b))) return 1;
  Strided<3> w(g.out.ndim, g.out.shape, {&g.out, use_a ? &g.a : nullptr, use_b ? &g.b : nullptr});
  w.coalesce_1d();  // a 0-d walk too is one run of one element
  const cx::C s = cx::make(g.sre, g.sim);
  char *out = static_cast<char *>(g.out.data);
  const char *a = static_cast<const char *>(g.a.data), *b = static_cast<const char *>(g.b.data);
  parallel_runs(w, threads, [&](const int64_t *off, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const cx::C x = use_a ? cx::load(a + off[1] + i * w.run_step(1), g.a.dtype) : s;
      const cx::C y = use_b ? cx::load(b + off[2] + i * w.run_step(2), g.b.dtype) : s;
      cx::apply(g, out + off[0] + i * w.run_step(0), x, y);
    }
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
