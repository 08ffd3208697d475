// One strided-batched matrix product in BLAS terms, shared by both backends
// (kernels/cublas.cpp hands it to cuBLAS as it is), and the CPU loops that are the
// reference cuBLAS is checked against. The host layer (src/ops/matmul.cpp) has
// already mapped the row-major tensors onto this column-major form.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {

// Column-major, as BLAS: for each of `batch` problems,
//   C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C,
// op(X) = X (trans false: element (i, j) at i + j * ld) or X^T (trans true:
// the stored matrix is the transpose, element (i, j) of op(X) at j + i * ld).
// Problem q uses a + q * stride_a (elements), likewise b and c; a stride may be
// 0 (a broadcast operand). beta == 0 never reads C (NaN there is ignored).
// Integer dtypes (uint8, int8, int16, int32, int64) run on our own loops and
// kernel, never BLAS: products accumulate in wrapping unsigned arithmetic of
// at least the dtype's width and alpha_i/beta_i replace alpha/beta, so the
// result is the exact product modulo 2^bits, as NumPy and PyTorch.
struct GemmPlan {
  int dtype = kF32;  // of A, B and C: kF16, kBF16, kF32, kF64 or an integer dtype
  int64_t m = 0, n = 0, k = 0, batch = 1;
  const void *a = nullptr;
  int64_t lda = 1, stride_a = 0;
  bool trans_a = false;
  const void *b = nullptr;
  int64_t ldb = 1, stride_b = 0;
  bool trans_b = false;
  void *c = nullptr;
  int64_t ldc = 1, stride_c = 0;
  double alpha = 1.0, beta = 0.0;
  int64_t alpha_i = 1, beta_i = 0;  // integer dtypes only
  double alpha_im = 0.0, beta_im = 0.0;  // complex dtypes only (cuBLAS's cgemm/zgemm)
  bool tf32 = false;  // CUDA only: float32 may run on TF32 tensor cores
};

inline bool gemm_int_dtype(int dtype) { return (dtype >= kU8 && dtype <= kI64) || (dtype >= kU16 && dtype <= kU64); }
}  // namespace ek
