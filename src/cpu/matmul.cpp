// CPU matrix products: float32/float64 on a BLAS (cpu/blas.cpp) when one
// loads; otherwise, for float16/bfloat16 and integers, loops where blocks of op(A) and
// op(B) are packed (converted to the accumulation type) into small contiguous
// buffers that stay in cache, and a block of C accumulates over all of k
// before it is written once.
#include "cpu/matmul.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "cpu/blas.hpp"
#include "util/half.hpp"

namespace ek {
namespace cpu {
namespace {

// Block sizes: an A block (kMc x kKc) and a B block (kKc x kNc) of doubles
// fit in L2 beside the C accumulator (kMc x kNc).
constexpr int64_t kMc = 64, kKc = 256, kNc = 256;

// op(X)(i, j) of a plan operand, as the accumulation type.
struct Operand {
  const char *base;
  int64_t ld;
  bool trans;
  int dtype;
  template <typename Acc>
  Acc at(int64_t i, int64_t j) const {
    int64_t off = trans ? j + i * ld : i + j * ld;
    const auto es = static_cast<int64_t>(dtype_size(dtype));
    const detail::Scalar v = detail::load_scalar(base + off * es, dtype);
    if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(v.i);  // wraps: unsigned Acc
    else return static_cast<Acc>(v.f);
  }
};

// Rows [i0, i0 + rows) x cols [j0, j0 + cols) of op(X), row-major into buf.
template <typename Acc>
void pack(const Operand &x, int64_t i0, int64_t rows, int64_t j0, int64_t cols, Acc *buf) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) buf[i * cols + j] = x.at<Acc>(i0 + i, j0 + j);
}

// Packed blocks and the accumulator, no larger than the problem needs.
size_t block(int64_t size, int64_t n) { return static_cast<size_t>(std::min(size, n)); }

template <typename Acc>
struct Buffers {
  explicit Buffers(const GemmPlan &p)
      : a(block(kMc, p.m) * block(kKc, p.k)), b(block(kKc, p.k) * block(kNc, p.n)),
        c(block(kMc, p.m) * block(kNc, p.n)) {}
  std::vector<Acc> a, b, c;
};

// acc (mb x nb) += A block (mb x kb) * B block (kb x nb); the inner loop runs
// along contiguous rows of B and acc so the compiler vectorizes it.
template <typename Acc>
void multiply_block(const Acc *a, const Acc *b, Acc *acc, int64_t mb, int64_t kb, int64_t nb) {
  for (int64_t i = 0; i < mb; ++i) {
    Acc *row = acc + i * nb;
    for (int64_t p = 0; p < kb; ++p) {
      const Acc av = a[i * kb + p];
      const Acc *brow = b + p * nb;
      for (int64_t j = 0; j < nb; ++j) row[j] += av * brow[j];
    }
  }
}

// alpha and beta of the plan, and one C element, as Acc.
template <typename Acc>
Acc plan_alpha(const GemmPlan &p) {
  if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(p.alpha_i);
  else return static_cast<Acc>(p.alpha);
}
template <typename Acc>
Acc plan_beta(const GemmPlan &p) {
  if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(p.beta_i);
  else return static_cast<Acc>(p.beta);
}
template <typename Acc>
detail::Scalar as_scalar(Acc v) {
  if constexpr (std::is_integral_v<Acc>) return detail::scalar_int(static_cast<int64_t>(v));
  else return detail::scalar_float(static_cast<double>(v));
}

// C block = alpha * acc + beta * C (C not read when beta == 0).
template <typename Acc>
void store_block(const GemmPlan &p, char *c, const Acc *acc, int64_t i0, int64_t mb, int64_t j0,
                 int64_t nb) {
  const auto es = static_cast<int64_t>(dtype_size(p.dtype));
  const Acc alpha = plan_alpha<Acc>(p), beta = plan_beta<Acc>(p);
  const Operand old{c, p.ldc, false, p.dtype};
  const bool read_c = std::is_integral_v<Acc> ? p.beta_i != 0 : p.beta != 0;
  for (int64_t i = 0; i < mb; ++i)
    for (int64_t j = 0; j < nb; ++j) {
      char *dst = c + ((i0 + i) + (j0 + j) * p.ldc) * es;
      Acc v = alpha * acc[i * nb + j];
      if (read_c) v += beta * old.at<Acc>(i0 + i, j0 + j);
      detail::store_scalar(dst, p.dtype, as_scalar(v));
    }
}

template <typename Acc>
void one_problem(const GemmPlan &p, const Operand &a, const Operand &b, char *c,
                 Buffers<Acc> &buf) {
  for (int64_t j0 = 0; j0 < p.n; j0 += kNc) {
    const int64_t nb = std::min(kNc, p.n - j0);
    for (int64_t i0 = 0; i0 < p.m; i0 += kMc) {
      const int64_t mb = std::min(kMc, p.m - i0);
      std::fill(buf.c.begin(), buf.c.end(), Acc(0));
      for (int64_t p0 = 0; p0 < p.k; p0 += kKc) {
        const int64_t kb = std::min(kKc, p.k - p0);
        pack(a, i0, mb, p0, kb, buf.a.data());
        pack(b, p0, kb, j0, nb, buf.b.data());
        multiply_block(buf.a.data(), buf.b.data(), buf.c.data(), mb, kb, nb);
      }
      store_block(p, c, buf.c.data(), i0, mb, j0, nb);
    }
  }
}

template <typename Acc>
void run(const GemmPlan &p) {
  Buffers<Acc> buf(p);
  const auto es = static_cast<int64_t>(dtype_size(p.dtype));
  for (int64_t q = 0; q < p.batch; ++q) {
    Operand a{static_cast<const char *>(p.a) + q * p.stride_a * es, p.lda, p.trans_a, p.dtype};
    Operand b{static_cast<const char *>(p.b) + q * p.stride_b * es, p.ldb, p.trans_b, p.dtype};
    one_problem(p, a, b, static_cast<char *>(p.c) + q * p.stride_c * es, buf);
  }
}

// Leading dims as BLAS requires them: at least the stored matrix's row count.
bool plan_valid(const GemmPlan &p) {
  if (!(dtype_is_float(p.dtype) || gemm_int_dtype(p.dtype)) || p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 0) return false;
  const int64_t a_rows = p.trans_a ? p.k : p.m, b_rows = p.trans_b ? p.n : p.k;
  if (p.lda < std::max<int64_t>(1, a_rows) || p.ldb < std::max<int64_t>(1, b_rows) ||
      p.ldc < std::max<int64_t>(1, p.m))
    return false;
  const bool empty = p.m == 0 || p.n == 0 || p.batch == 0;
  return empty || (p.c && (p.k == 0 || (p.a && p.b)));
}

}  // namespace

int gemm(const GemmPlan &p) {
  const blas::Library &lib = blas::library();
  if (!blas::accepts(lib, p)) return gemm_loops(p);
  if (!plan_valid(p)) return 1;
  if (p.m == 0 || p.n == 0 || p.batch == 0) return 0;
  blas::gemm(lib, p);
  return 0;
}

int gemm_loops(const GemmPlan &p) {
  if (!plan_valid(p)) return 1;
  if (p.m == 0 || p.n == 0 || p.batch == 0) return 0;
  if (gemm_int_dtype(p.dtype)) run<uint64_t>(p);  // wraps mod 2^64, then to the dtype
  else if (p.dtype == kF16 || p.dtype == kBF16) run<float>(p);
  else run<double>(p);
  return 0;
}

}  // namespace cpu
}  // namespace ek
