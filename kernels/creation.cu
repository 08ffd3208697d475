// tril/triu: one thread per element of dst in C order. The row and column
// come from two divisions of the linear index, the batch dims (coalesced)
// from an OffsetCalc; an element outside the triangle is stored as zero
// bits, a kept one copied (skipped in place). Elements move as raw bits, so
// one kernel serves each element size.
#include "kernels/creation.cuh"

#include <cuda_runtime.h>

#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

template <typename U>
struct Matrix {
  using S = typename std::make_signed<U>::type;
  DivFor<U> rows, cols;
  S dst_row, dst_col, src_row, src_col;  // strides in elements
};

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads)
    triangle_kernel(T *dst, const T *src, OffsetCalc<U, 2> batch, Matrix<U> mx, U n, int64_t k,
                    bool lower, bool in_place) {
  using S = typename OffsetCalc<U, 2>::S;
  for (U lin = U(blockIdx.x) * kThreads + threadIdx.x; lin < n; lin += U(gridDim.x) * kThreads) {
    const U q = mx.cols.div(lin), b = mx.rows.div(q);
    const S j = S(lin - q * mx.cols.d), i = S(q - b * mx.rows.d);
    const bool keep = lower ? j - i <= k : j - i >= k;
    if (keep && in_place) continue;
    S o[2];
    batch.get(b, o);
    T *d = dst + o[0] + i * mx.dst_row + j * mx.dst_col;
    *d = keep ? src[o[1] + i * mx.src_row + j * mx.src_col] : T(0);
  }
}

template <typename T, typename U>
int launch_triangle(const TrianglePlan &p, const Geometry<2> &batch, int64_t n, cudaStream_t st) {
  const int nd = p.dst.ndim;
  Matrix<U> mx;
  mx.rows.init(U(p.dst.shape[nd - 2]));
  mx.cols.init(U(p.dst.shape[nd - 1]));
  mx.dst_row = p.dst.strides[nd - 2];
  mx.dst_col = p.dst.strides[nd - 1];
  mx.src_row = p.src.strides[nd - 2];
  mx.src_col = p.src.strides[nd - 1];
  triangle_kernel<T, U><<<grid_for(n, kThreads), kThreads, 0, st>>>(
      static_cast<T *>(p.dst.data), static_cast<const T *>(p.src.data), make_calc<U>(batch), mx, U(n), p.k,
      p.lower, p.in_place);
  return cudaGetLastError();
}

}  // namespace

int triangle(const TrianglePlan &p, void *stream) {
  const TensorDesc &d = p.dst, &s = p.src;
  if (!desc_valid(d) || !desc_valid(s) || !desc_same_shape(d, s) || d.ndim < 2 || d.dtype != s.dtype)
    return cudaErrorInvalidValue;
  const int64_t n = desc_numel(d);
  if (n == 0) return cudaSuccess;
  const int nd = d.ndim;
  Geometry<2> batch;  // the batch dims, coalesced; the matrix dims stay apart
  batch.ndim = nd - 2;
  for (int k = 0; k < nd - 2; ++k) {
    batch.shape[k] = d.shape[k];
    batch.st[0][k] = d.strides[k];
    batch.st[1][k] = s.strides[k];
  }
  batch.coalesce();
  Geometry<2> all = batch;  // for the index width: every dim
  for (int k = nd - 2; k < nd; ++k) {
    all.shape[all.ndim] = d.shape[k];
    all.st[0][all.ndim] = d.strides[k];
    all.st[1][all.ndim++] = s.strides[k];
  }
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  return with_move_bits_of(int64_t(dtype_size(d.dtype)), [&](auto t) {
    using T = decltype(t);
    return all.fits_32bit() ? launch_triangle<T, uint32_t>(p, batch, n, st)
                            : launch_triangle<T, uint64_t>(p, batch, n, st);
  });
}

}  // namespace cuda
}  // namespace ek
