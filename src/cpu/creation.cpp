// tril/triu on the CPU: the batch dims walk as one strided odometer, each
// matrix row splits into a zeroed run and a kept (copied) run.
#include "cpu/creation.hpp"

#include <cstring>

#include "cpu/strided.hpp"

namespace ek {
namespace cpu {

int triangle(const TrianglePlan &p) {
  const TensorDesc &d = p.dst, &s = p.src;
  if (!desc_valid(d) || !desc_valid(s) || !desc_same_shape(d, s) || d.ndim < 2 || d.dtype != s.dtype)
    return 1;
  const int nd = d.ndim;
  const int64_t rows = d.shape[nd - 2], cols = d.shape[nd - 1];
  const int64_t es = static_cast<int64_t>(dtype_size(d.dtype));
  const int64_t dr = d.strides[nd - 2] * es, dc = d.strides[nd - 1] * es;
  const int64_t sr = s.strides[nd - 2] * es, sc = s.strides[nd - 1] * es;
  Strided<2> batch(nd - 2, d.shape, {&d, &s});
  batch.coalesce();
  char *dbase = static_cast<char *>(d.data);
  const char *sbase = static_cast<const char *>(s.data);
  batch.for_each([&](const int64_t *off, const int64_t *) {
    for (int64_t i = 0; i < rows; ++i) {
      char *drow = dbase + off[0] + i * dr;
      const char *srow = sbase + off[1] + i * sr;
      int64_t lo = 0, hi = 0;
      triangle_kept(p, i, cols, &lo, &hi);
      for (int64_t j = 0; j < cols; ++j) {
        if (j < lo || j >= hi) std::memset(drow + j * dc, 0, es);  // 0 is all-zero bytes in every dtype
        else if (!p.in_place) std::memcpy(drow + j * dc, srow + j * sc, es);
      }
    }
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
